-- Item IDs are never handed out again. A plain INTEGER PRIMARY KEY takes the largest ID in
-- the table plus one, so deleting the newest item and adding another reused its ID: a
-- deleted item could then never come back under its own ID (undo, a backup), and one ID
-- named two items over time. AUTOINCREMENT keeps the largest ID ever used in sqlite_sequence.
--
-- SQLite cannot add AUTOINCREMENT to a table, so the table is made again (SQLite's
-- documented way to change a table), with the same columns, constraints, rows, indexes and
-- triggers. The full-text index keeps its rows: it reads its content from "items" by name.
-- Dropping the old table fires no trigger and touches no other table (none refers to items).

CREATE TABLE items_autoincrement (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title      TEXT    NOT NULL COLLATE NOCASE
                       CONSTRAINT item_title_not_empty CHECK (length(trim(title, char(32, 9, 10, 13))) > 0),
    notes      TEXT,
    status     TEXT    NOT NULL DEFAULT 'open'
                       CONSTRAINT item_status_valid CHECK (status IN ('open', 'done')),
    priority   INTEGER NOT NULL DEFAULT 0
                       CONSTRAINT item_priority_valid CHECK (priority BETWEEN 0 AND 3),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    version    INTEGER NOT NULL DEFAULT 1 CONSTRAINT item_version_positive CHECK (version >= 1)
);

INSERT INTO items_autoincrement (id, user_id, title, notes, status, priority, created_at, updated_at, version)
SELECT id, user_id, title, notes, status, priority, created_at, updated_at, version FROM items;

DROP TABLE items;
ALTER TABLE items_autoincrement RENAME TO items;

CREATE INDEX items_by_created        ON items (created_at);
CREATE INDEX items_by_updated        ON items (updated_at);
CREATE INDEX items_by_priority       ON items (priority);
CREATE INDEX items_by_title          ON items (title);
CREATE INDEX items_by_user_created   ON items (user_id, created_at);
CREATE INDEX items_by_user_updated   ON items (user_id, updated_at);
CREATE INDEX items_by_user_priority  ON items (user_id, priority);
CREATE INDEX items_by_user_title     ON items (user_id, title);
CREATE INDEX items_by_user           ON items (user_id);

CREATE TRIGGER items_fts_after_insert AFTER INSERT ON items BEGIN
    INSERT INTO items_fts (rowid, title, notes) VALUES (new.id, new.title, new.notes);
END;

CREATE TRIGGER items_fts_after_delete AFTER DELETE ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, notes) VALUES ('delete', old.id, old.title, old.notes);
END;

CREATE TRIGGER items_fts_after_update AFTER UPDATE OF title, notes ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, notes) VALUES ('delete', old.id, old.title, old.notes);
    INSERT INTO items_fts (rowid, title, notes) VALUES (new.id, new.title, new.notes);
END;

CREATE TRIGGER items_changes_after_insert AFTER INSERT ON items BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count + 1 WHERE table_name = 'items';
END;
CREATE TRIGGER items_changes_after_update AFTER UPDATE ON items BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'items';
END;
CREATE TRIGGER items_changes_after_delete AFTER DELETE ON items BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count - 1 WHERE table_name = 'items';
END;

-- The rebuilt table changed: live queries of other processes read items again.
UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'items';
