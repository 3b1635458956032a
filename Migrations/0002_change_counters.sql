-- Per-table change counters, bumped by triggers on every row change, so that any process
-- (shelf, the sqlite3 shell, a script) can learn which tables a commit changed by reading
-- one tiny table. Live queries re-run only when a table they read has moved.

CREATE TABLE shelf_changes (
    table_name TEXT PRIMARY KEY NOT NULL,
    counter    INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO shelf_changes (table_name) VALUES ('users'), ('items');

CREATE TRIGGER users_changes_after_insert AFTER INSERT ON users BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'users';
END;
CREATE TRIGGER users_changes_after_update AFTER UPDATE ON users BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'users';
END;
CREATE TRIGGER users_changes_after_delete AFTER DELETE ON users BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'users';
END;

CREATE TRIGGER items_changes_after_insert AFTER INSERT ON items BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'items';
END;
CREATE TRIGGER items_changes_after_update AFTER UPDATE ON items BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'items';
END;
CREATE TRIGGER items_changes_after_delete AFTER DELETE ON items BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'items';
END;
