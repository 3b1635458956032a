-- A change log: which rows each commit changed, written by the database itself inside the
-- writing transaction, so the sqlite3 shell's and every other program's writes are logged
-- exactly as shelf's are. Live queries read it to learn which rows changed and judge, from
-- the logged values, whether a change can enter, leave or alter their result; most changes
-- then cost a live query no SQL at all (docs/ARCHITECTURE.md, "Change tracking and live
-- queries"). The per-table counters of 0002 stay: they wake the change tracker up.
--
-- seq grows with every logged change and is never handed out again (AUTOINCREMENT), so it is
-- a position in the stream of changes: a live value carries the seq it reflects. For items,
-- the row's values before (old_*) and after (new_*) the change are logged: every column that
-- a filter or a sort order of ItemQuery reads, except the notes (text_changed says whether the
-- title or the notes changed). For users only the row and the operation.
--
-- The log is pruned by size, by the database itself: every 1,000th entry deletes those more
-- than 10,000 entries old. A reader that falls further behind finds a gap and reads in full.

CREATE TABLE shelf_change_log (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    table_name     TEXT    NOT NULL,
    row_id         INTEGER NOT NULL,
    operation      TEXT    NOT NULL CHECK (operation IN ('insert', 'update', 'delete')),
    old_user_id    INTEGER,
    old_status     TEXT,
    old_priority   INTEGER,
    old_created_at INTEGER,
    old_updated_at INTEGER,
    old_title      TEXT,
    new_user_id    INTEGER,
    new_status     TEXT,
    new_priority   INTEGER,
    new_created_at INTEGER,
    new_updated_at INTEGER,
    new_title      TEXT,
    text_changed   INTEGER
);

CREATE TRIGGER shelf_change_log_prune AFTER INSERT ON shelf_change_log
WHEN NEW.seq % 1000 = 0
BEGIN
    DELETE FROM shelf_change_log WHERE seq <= NEW.seq - 10000;
END;

-- INSERT OR REPLACE (and UPDATE OR REPLACE) deletes the row it conflicts with without firing
-- a DELETE trigger (PRAGMA recursive_triggers is off), so the row count went up by one and the
-- deleted row was never logged. A BEFORE trigger keeps the rows that the statement may delete
-- here; the AFTER trigger logs those that are gone as deleted and counts them. A statement that
-- ends in no insert (INSERT OR IGNORE, an upsert that updates) leaves its rows here, and the
-- next insert's BEFORE trigger clears them: the AFTER trigger only reads rows kept for it.
CREATE TABLE shelf_replaced_rows (
    table_name TEXT    NOT NULL,
    row_id     INTEGER NOT NULL,
    user_id    INTEGER,
    title      TEXT,
    notes      TEXT,
    status     TEXT,
    priority   INTEGER,
    created_at INTEGER,
    updated_at INTEGER,
    PRIMARY KEY (table_name, row_id)
) WITHOUT ROWID;

-- Items. One AFTER INSERT trigger does the full-text indexes too, in this order: the replaced
-- row's words leave them before the new row's enter (with two triggers the order is not ours,
-- and a row's words deleted after its new words were added would lose the words they share).
DROP TRIGGER items_changes_after_insert;
DROP TRIGGER items_changes_after_update;
DROP TRIGGER items_changes_after_delete;
DROP TRIGGER items_fts_after_insert;
DROP TRIGGER items_trigram_after_insert;

CREATE TRIGGER items_replaced_before_insert BEFORE INSERT ON items BEGIN
    DELETE FROM shelf_replaced_rows WHERE table_name = 'items';
    INSERT INTO shelf_replaced_rows (table_name, row_id, user_id, title, notes, status, priority, created_at, updated_at)
    SELECT 'items', id, user_id, title, notes, status, priority, created_at, updated_at FROM items WHERE id = NEW.id;
END;

CREATE TRIGGER items_changes_after_insert AFTER INSERT ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, notes)
    SELECT 'delete', row_id, title, notes FROM shelf_replaced_rows WHERE table_name = 'items' AND row_id = NEW.id;
    INSERT INTO items_trigram (items_trigram, rowid, title, notes)
    SELECT 'delete', row_id, title, notes FROM shelf_replaced_rows WHERE table_name = 'items' AND row_id = NEW.id;
    INSERT INTO items_fts (rowid, title, notes) VALUES (NEW.id, NEW.title, NEW.notes);
    INSERT INTO items_trigram (rowid, title, notes) VALUES (NEW.id, NEW.title, NEW.notes);
    INSERT INTO shelf_change_log (
        table_name, row_id, operation,
        old_user_id, old_status, old_priority, old_created_at, old_updated_at, old_title)
    SELECT 'items', row_id, 'delete', user_id, status, priority, created_at, updated_at, title
    FROM shelf_replaced_rows WHERE table_name = 'items' AND row_id = NEW.id;
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count + 1
        - (SELECT count(*) FROM shelf_replaced_rows WHERE table_name = 'items' AND row_id = NEW.id)
    WHERE table_name = 'items';
    DELETE FROM shelf_replaced_rows WHERE table_name = 'items';
    INSERT INTO shelf_change_log (
        table_name, row_id, operation,
        new_user_id, new_status, new_priority, new_created_at, new_updated_at, new_title)
    VALUES ('items', NEW.id, 'insert', NEW.user_id, NEW.status, NEW.priority, NEW.created_at, NEW.updated_at, NEW.title);
END;

-- An UPDATE that moves a row to another ID (UPDATE OR REPLACE may delete the row there).
CREATE TRIGGER items_replaced_before_update BEFORE UPDATE OF id ON items
WHEN NEW.id IS NOT OLD.id
BEGIN
    DELETE FROM shelf_replaced_rows WHERE table_name = 'items';
    INSERT INTO shelf_replaced_rows (table_name, row_id, user_id, title, notes, status, priority, created_at, updated_at)
    SELECT 'items', id, user_id, title, notes, status, priority, created_at, updated_at FROM items WHERE id = NEW.id;
END;

-- An update is logged as one; an update that moved the row to another ID as a delete and an
-- insert (a live query holds rows by ID).
CREATE TRIGGER items_changes_after_update AFTER UPDATE ON items BEGIN
    INSERT INTO shelf_change_log (
        table_name, row_id, operation,
        old_user_id, old_status, old_priority, old_created_at, old_updated_at, old_title)
    SELECT 'items', row_id, 'delete', user_id, status, priority, created_at, updated_at, title
    FROM shelf_replaced_rows WHERE NEW.id IS NOT OLD.id AND table_name = 'items' AND row_id = NEW.id;
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count
        - (SELECT count(*) FROM shelf_replaced_rows WHERE NEW.id IS NOT OLD.id AND table_name = 'items' AND row_id = NEW.id)
    WHERE table_name = 'items';
    DELETE FROM shelf_replaced_rows WHERE NEW.id IS NOT OLD.id AND table_name = 'items';
    INSERT INTO shelf_change_log (
        table_name, row_id, operation,
        old_user_id, old_status, old_priority, old_created_at, old_updated_at, old_title,
        new_user_id, new_status, new_priority, new_created_at, new_updated_at, new_title, text_changed)
    SELECT 'items', NEW.id, 'update',
        OLD.user_id, OLD.status, OLD.priority, OLD.created_at, OLD.updated_at, OLD.title,
        NEW.user_id, NEW.status, NEW.priority, NEW.created_at, NEW.updated_at, NEW.title,
        (OLD.title IS NOT NEW.title COLLATE BINARY) OR (OLD.notes IS NOT NEW.notes COLLATE BINARY)
    WHERE NEW.id IS OLD.id;
    INSERT INTO shelf_change_log (
        table_name, row_id, operation,
        old_user_id, old_status, old_priority, old_created_at, old_updated_at, old_title)
    SELECT 'items', OLD.id, 'delete', OLD.user_id, OLD.status, OLD.priority, OLD.created_at, OLD.updated_at, OLD.title
    WHERE NEW.id IS NOT OLD.id;
    INSERT INTO shelf_change_log (
        table_name, row_id, operation,
        new_user_id, new_status, new_priority, new_created_at, new_updated_at, new_title)
    SELECT 'items', NEW.id, 'insert', NEW.user_id, NEW.status, NEW.priority, NEW.created_at, NEW.updated_at, NEW.title
    WHERE NEW.id IS NOT OLD.id;
END;

CREATE TRIGGER items_changes_after_delete AFTER DELETE ON items BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count - 1 WHERE table_name = 'items';
    INSERT INTO shelf_change_log (
        table_name, row_id, operation,
        old_user_id, old_status, old_priority, old_created_at, old_updated_at, old_title)
    VALUES ('items', OLD.id, 'delete', OLD.user_id, OLD.status, OLD.priority, OLD.created_at, OLD.updated_at, OLD.title);
END;

-- Users: a REPLACE may delete up to three rows (same ID, same email, same email key).
DROP TRIGGER users_changes_after_insert;
DROP TRIGGER users_changes_after_update;
DROP TRIGGER users_changes_after_delete;

CREATE TRIGGER users_replaced_before_insert BEFORE INSERT ON users BEGIN
    DELETE FROM shelf_replaced_rows WHERE table_name = 'users';
    INSERT INTO shelf_replaced_rows (table_name, row_id)
    SELECT 'users', id FROM users
    WHERE id = NEW.id OR email = NEW.email OR (NEW.email_key IS NOT NULL AND email_key = NEW.email_key);
END;

CREATE TRIGGER users_changes_after_insert AFTER INSERT ON users BEGIN
    INSERT INTO shelf_change_log (table_name, row_id, operation)
    SELECT 'users', row_id, 'delete' FROM shelf_replaced_rows
    WHERE table_name = 'users' AND (row_id = NEW.id OR row_id NOT IN (SELECT id FROM users));
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count + 1
        - (SELECT count(*) FROM shelf_replaced_rows
           WHERE table_name = 'users' AND (row_id = NEW.id OR row_id NOT IN (SELECT id FROM users)))
    WHERE table_name = 'users';
    DELETE FROM shelf_replaced_rows WHERE table_name = 'users';
    INSERT INTO shelf_change_log (table_name, row_id, operation) VALUES ('users', NEW.id, 'insert');
END;

CREATE TRIGGER users_replaced_before_update BEFORE UPDATE ON users BEGIN
    DELETE FROM shelf_replaced_rows WHERE table_name = 'users';
    INSERT INTO shelf_replaced_rows (table_name, row_id)
    SELECT 'users', id FROM users
    WHERE id <> OLD.id
        AND (id = NEW.id OR email = NEW.email OR (NEW.email_key IS NOT NULL AND email_key = NEW.email_key));
END;

CREATE TRIGGER users_changes_after_update AFTER UPDATE ON users BEGIN
    INSERT INTO shelf_change_log (table_name, row_id, operation)
    SELECT 'users', row_id, 'delete' FROM shelf_replaced_rows
    WHERE table_name = 'users' AND row_id NOT IN (SELECT id FROM users);
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count
        - (SELECT count(*) FROM shelf_replaced_rows WHERE table_name = 'users' AND row_id NOT IN (SELECT id FROM users))
    WHERE table_name = 'users';
    DELETE FROM shelf_replaced_rows WHERE table_name = 'users';
    INSERT INTO shelf_change_log (table_name, row_id, operation) VALUES ('users', NEW.id, 'update');
END;

CREATE TRIGGER users_changes_after_delete AFTER DELETE ON users BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count - 1 WHERE table_name = 'users';
    INSERT INTO shelf_change_log (table_name, row_id, operation) VALUES ('users', OLD.id, 'delete');
END;

-- Counts that drifted before this migration (an INSERT OR REPLACE counted one row too many).
UPDATE shelf_changes SET row_count = (SELECT count(*) FROM items) WHERE table_name = 'items';
UPDATE shelf_changes SET row_count = (SELECT count(*) FROM users) WHERE table_name = 'users';
