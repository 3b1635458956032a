-- Saved views: a named search of the item list (the query text as typed, the sort, and
-- optionally an owner), kept in the database so that every process and machine sees them.
-- Times are INTEGER milliseconds since 1970 (UTC).
--
-- Names are unique with letter case ignored in every script: name_key is the name case-folded
-- by shelf (Swift), and is what the unique constraint and the list order use, the same on
-- SQLite and PostgreSQL. The sort field is kept as text without a CHECK: a newer shelf may
-- store a field this one does not know, which it then reads as "unknown" and falls back
-- from, instead of refusing the whole table.

CREATE TABLE saved_views (
    id             INTEGER PRIMARY KEY,
    name           TEXT    NOT NULL
                           CONSTRAINT saved_view_name_valid
                           CHECK (length(trim(name, char(32, 9, 10, 13))) > 0 AND length(name) <= 100),
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

-- Change tracking (see 0002_change_counters.sql): live lists of views re-read on commits here.
INSERT INTO shelf_changes (table_name, row_count) VALUES ('saved_views', 0);

CREATE TRIGGER saved_views_changes_after_insert AFTER INSERT ON saved_views BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count + 1 WHERE table_name = 'saved_views';
END;
CREATE TRIGGER saved_views_changes_after_update AFTER UPDATE ON saved_views BEGIN
    UPDATE shelf_changes SET counter = counter + 1 WHERE table_name = 'saved_views';
END;
CREATE TRIGGER saved_views_changes_after_delete AFTER DELETE ON saved_views BEGIN
    UPDATE shelf_changes SET counter = counter + 1, row_count = row_count - 1 WHERE table_name = 'saved_views';
END;
