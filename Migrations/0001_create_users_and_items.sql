-- Users and their items. Times are INTEGER milliseconds since 1970 (UTC).

CREATE TABLE users (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL CONSTRAINT user_name_not_empty CHECK (length(trim(name, char(32, 9, 10, 13))) > 0),
    email      TEXT    NOT NULL COLLATE NOCASE
                       CONSTRAINT user_email_valid CHECK (email LIKE '_%@_%' AND length(email) <= 320),
    created_at INTEGER NOT NULL,
    CONSTRAINT user_email_unique UNIQUE (email)
);

CREATE TABLE items (
    id         INTEGER PRIMARY KEY,
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

-- One index per list ordering, alone and under an owner; the rowid (id) is the tie-breaker
-- every keyset page uses, and every index carries it implicitly.
CREATE INDEX items_by_created        ON items (created_at);
CREATE INDEX items_by_updated        ON items (updated_at);
CREATE INDEX items_by_priority       ON items (priority);
CREATE INDEX items_by_title          ON items (title);
CREATE INDEX items_by_user_created   ON items (user_id, created_at);
CREATE INDEX items_by_user_updated   ON items (user_id, updated_at);
CREATE INDEX items_by_user_priority  ON items (user_id, priority);
CREATE INDEX items_by_user_title     ON items (user_id, title);
CREATE INDEX users_by_name           ON users (name COLLATE NOCASE);

-- Full-text index over title and notes, kept in step with items by triggers.
CREATE VIRTUAL TABLE items_fts USING fts5 (
    title, notes,
    content = 'items', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);

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
