-- shelf: foreign keys off
--
-- User, saved view, API token and bulk action IDs are never handed out again, as item IDs
-- already are (0005). A plain INTEGER PRIMARY KEY takes the largest ID in the table plus one,
-- so removing the newest user and adding another gave the new one the removed one's ID: a
-- service, client or export still holding `user_id` 7 then named another person (issue 22,
-- the hostile tester). AUTOINCREMENT keeps the largest ID ever used in sqlite_sequence.
-- PostgreSQL's identity columns never reused an ID.
--
-- SQLite cannot add AUTOINCREMENT to a table, so each table is made again (SQLite's documented
-- way to change a table), with the same columns, constraint names, rows, indexes and triggers.
-- Other tables refer to users, saved views and bulk actions by foreign key, and with foreign
-- keys on, DROP TABLE users would delete every item, token and view owner with its users: the
-- first line above makes the migrator run this with foreign keys off, and check that no row
-- refers to a missing one afterwards that did not before. Their REFERENCES clauses name the
-- tables, which are there again when this commits.
--
-- The rows are copied before the new tables have triggers, so no counter moves and nothing
-- is logged per row (the change log's AUTOINCREMENT sequence does not move). Copying rows
-- with their IDs into an AUTOINCREMENT table sets its sqlite_sequence row to the largest
-- (renamed with the table); for users it is raised further to the highest user ID the change
-- log holds (a user removed shortly before this migration is not reissued either).

CREATE TABLE users_autoincrement (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT    NOT NULL CONSTRAINT user_name_not_empty CHECK (length(trim(name, char(32, 9, 10, 13))) > 0),
    email      TEXT    NOT NULL COLLATE NOCASE
                       CONSTRAINT user_email_valid CHECK (email LIKE '_%@_%' AND length(email) <= 320),
    created_at INTEGER NOT NULL,
    email_key  TEXT,
    CONSTRAINT user_email_unique UNIQUE (email)
);

INSERT INTO users_autoincrement (id, name, email, created_at, email_key)
SELECT id, name, email, created_at, email_key FROM users;

DROP TABLE users;
ALTER TABLE users_autoincrement RENAME TO users;

INSERT INTO sqlite_sequence (name, seq)
SELECT 'users', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'users');
UPDATE sqlite_sequence
   SET seq = max(seq, coalesce((SELECT max(row_id) FROM shelf_change_log WHERE table_name = 'users'), 0))
 WHERE name = 'users';

CREATE INDEX users_by_name ON users (name COLLATE NOCASE);
CREATE UNIQUE INDEX users_by_email_key ON users (email_key);

-- The triggers of 0006 (email key), 0009 (NUL) and 0011 (change log), as they were.
CREATE TRIGGER users_email_key_after_update AFTER UPDATE OF email ON users
WHEN NEW.email IS NOT OLD.email COLLATE BINARY
BEGIN
    UPDATE users SET email_key = NULL WHERE id = NEW.id;
END;

CREATE TRIGGER users_refuse_nul_before_insert BEFORE INSERT ON users
WHEN instr(NEW.name, char(0)) > 0 OR instr(NEW.email, char(0)) > 0
BEGIN
    SELECT RAISE(ABORT, 'a user''s name or email cannot hold the NUL character (U+0000): remove it');
END;
CREATE TRIGGER users_refuse_nul_before_update BEFORE UPDATE OF name, email ON users
WHEN (NEW.name IS NOT OLD.name AND instr(NEW.name, char(0)) > 0)
    OR (NEW.email IS NOT OLD.email AND instr(NEW.email, char(0)) > 0)
BEGIN
    SELECT RAISE(ABORT, 'a user''s name or email cannot hold the NUL character (U+0000): remove it');
END;

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

-- Saved views (as 0008 made them).
CREATE TABLE saved_views_autoincrement (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT    NOT NULL
                           CONSTRAINT saved_view_name_valid
                           CHECK (length(trim(name, char(32, 9, 10, 13))) > 0 AND length(name) <= 1000),
    name_key       TEXT    NOT NULL,
    query_text     TEXT    NOT NULL DEFAULT '',
    sort_field     TEXT    NOT NULL CONSTRAINT saved_view_sort_field_valid CHECK (length(sort_field) > 0),
    sort_direction TEXT    NOT NULL
                           CONSTRAINT saved_view_sort_direction_valid
                           CHECK (sort_direction IN ('ascending', 'descending')),
    owner_id       INTEGER REFERENCES users (id) ON DELETE SET NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    version        INTEGER NOT NULL DEFAULT 1 CONSTRAINT saved_view_version_positive CHECK (version >= 1),
    CONSTRAINT saved_view_name_unique UNIQUE (name_key)
);

INSERT INTO saved_views_autoincrement
    (id, name, name_key, query_text, sort_field, sort_direction, owner_id, created_at, updated_at, version)
SELECT id, name, name_key, query_text, sort_field, sort_direction, owner_id, created_at, updated_at, version
FROM saved_views;

DROP TABLE saved_views;
ALTER TABLE saved_views_autoincrement RENAME TO saved_views;

-- The triggers of 0008 (change counters, version) and 0009 (NUL), as they were.
CREATE TRIGGER saved_views_changes_after_insert AFTER INSERT ON saved_views BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count + 1 WHERE table_name = 'saved_views';
END;
CREATE TRIGGER saved_views_changes_after_update AFTER UPDATE ON saved_views BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'saved_views';
END;
CREATE TRIGGER saved_views_changes_after_delete AFTER DELETE ON saved_views BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count - 1 WHERE table_name = 'saved_views';
END;
CREATE TRIGGER saved_views_version_after_update AFTER UPDATE ON saved_views
WHEN NEW.version <= OLD.version
BEGIN
    UPDATE saved_views SET version = OLD.version + 1 WHERE id = NEW.id;
END;
CREATE TRIGGER saved_views_refuse_nul_before_insert BEFORE INSERT ON saved_views
WHEN instr(NEW.name, char(0)) > 0 OR instr(NEW.query_text, char(0)) > 0
BEGIN
    SELECT RAISE(ABORT, 'a saved view''s name or query cannot hold the NUL character (U+0000): remove it');
END;
CREATE TRIGGER saved_views_refuse_nul_before_update BEFORE UPDATE OF name, query_text ON saved_views
WHEN (NEW.name IS NOT OLD.name AND instr(NEW.name, char(0)) > 0)
    OR (NEW.query_text IS NOT OLD.query_text AND instr(NEW.query_text, char(0)) > 0)
BEGIN
    SELECT RAISE(ABORT, 'a saved view''s name or query cannot hold the NUL character (U+0000): remove it');
END;

-- API tokens (as 0010 made them): `shelf tokens revoke` and the API name them by ID.
CREATE TABLE api_tokens_autoincrement (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT    NOT NULL CONSTRAINT api_token_name_valid CHECK (length(name) BETWEEN 1 AND 200),
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT    NOT NULL,
    read_only  INTEGER NOT NULL DEFAULT 0 CONSTRAINT api_token_read_only_valid CHECK (read_only IN (0, 1)),
    created_at INTEGER NOT NULL,
    CONSTRAINT api_token_name_unique UNIQUE (name),
    CONSTRAINT api_token_hash_unique UNIQUE (token_hash)
);

INSERT INTO api_tokens_autoincrement (id, name, user_id, token_hash, read_only, created_at)
SELECT id, name, user_id, token_hash, read_only, created_at FROM api_tokens;

DROP TABLE api_tokens;
ALTER TABLE api_tokens_autoincrement RENAME TO api_tokens;

CREATE INDEX api_tokens_by_user ON api_tokens (user_id);

-- Bulk actions (as 0013 made them): a browser's undo history holds their IDs for the session,
-- and another browser's cleanup may remove an old one; a new action must not take its ID.
CREATE TABLE bulk_actions_autoincrement (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT    NOT NULL CHECK (kind IN ('status', 'priority', 'owner', 'delete')),
    status     TEXT    CHECK (status IN ('open', 'done')),
    priority   INTEGER CHECK (priority BETWEEN 0 AND 3),
    user_id    INTEGER,
    undone     INTEGER NOT NULL DEFAULT 0 CHECK (undone IN (0, 1)),
    created_at INTEGER NOT NULL
);

INSERT INTO bulk_actions_autoincrement (id, kind, status, priority, user_id, undone, created_at)
SELECT id, kind, status, priority, user_id, undone, created_at FROM bulk_actions;

DROP TABLE bulk_actions;
ALTER TABLE bulk_actions_autoincrement RENAME TO bulk_actions;

-- The rebuilt tables changed: live queries of other processes read users and views again.
UPDATE shelf_changes SET counter = counter + 1 WHERE table_name IN ('users', 'saved_views');
