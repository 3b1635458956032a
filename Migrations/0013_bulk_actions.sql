-- Bulk writes of the browser (every item matching a query, except some) keep what their undo
-- needs here, in the database, keyed by the action, rather than a copy of every row in the
-- browser's memory: a million-item undo is then set-based SQL like the write itself.
--
-- bulk_actions: one row per action, with the change it made (one of status, priority or
-- user_id is set, or none for a delete) and whether it is undone now. bulk_action_items: for
-- each item the action changed, its values before (the whole row for a delete, which an undo
-- inserts again), and `written`, the version the action (or its last undo or redo) left it at:
-- an undo or redo touches only items still at that version, and counts the others as skipped.
-- `pending` is scratch space for one undo or redo (which items it will write).
--
-- The browser deletes an action's rows when its history drops the action; rows older than a
-- day (a session that ended without) go with the next bulk write.

CREATE TABLE bulk_actions (
    id         INTEGER PRIMARY KEY,
    kind       TEXT    NOT NULL CHECK (kind IN ('status', 'priority', 'owner', 'delete')),
    status     TEXT    CHECK (status IN ('open', 'done')),
    priority   INTEGER CHECK (priority BETWEEN 0 AND 3),
    user_id    INTEGER,
    undone     INTEGER NOT NULL DEFAULT 0 CHECK (undone IN (0, 1)),
    created_at INTEGER NOT NULL
);

CREATE TABLE bulk_action_items (
    action_id  INTEGER NOT NULL REFERENCES bulk_actions (id) ON DELETE CASCADE,
    item_id    INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    title      TEXT,
    notes      TEXT,
    status     TEXT    NOT NULL,
    priority   INTEGER NOT NULL,
    created_at INTEGER,
    updated_at INTEGER,
    version    INTEGER NOT NULL,
    written    INTEGER NOT NULL,
    pending    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (action_id, item_id)
) WITHOUT ROWID;
