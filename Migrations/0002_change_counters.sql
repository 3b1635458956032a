-- Per-table change counters, bumped by triggers on every row change, so that any process
-- (shelf, the sqlite3 shell, a script) can learn which tables a commit changed by reading
-- one tiny table. Live queries re-run only when a table they read has moved.
-- The same triggers keep each table's row count, so an unfiltered count costs one lookup
-- instead of a scan of the table.

CREATE TABLE shelf_changes (
    table_name TEXT PRIMARY KEY NOT NULL,
    counter    INTEGER NOT NULL DEFAULT 0,
    row_count  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO shelf_changes (table_name, row_count)
VALUES ('users', (SELECT count(*) FROM users)), ('items', (SELECT count(*) FROM items));

CREATE TRIGGER users_changes_after_insert AFTER INSERT ON users BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count + 1 WHERE table_name = 'users';
END;
CREATE TRIGGER users_changes_after_update AFTER UPDATE ON users BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'users';
END;
CREATE TRIGGER users_changes_after_delete AFTER DELETE ON users BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count - 1 WHERE table_name = 'users';
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
