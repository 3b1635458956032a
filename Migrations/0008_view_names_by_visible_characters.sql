-- A saved view's name is at most 100 visible characters (grapheme clusters), counted by shelf
-- (SavedView.checkedName), not 100 code points: a name of 60 hearts ("❤️", two code points
-- each) or of flags was refused although the user sees 60 characters. The database's check
-- keeps a bound against abuse, 1,000 code points (ten per visible character, enough for
-- emoji joined with modifiers), the same on PostgreSQL (postgres/0006).
--
-- SQLite cannot change a CHECK constraint, so the table is made again (as 0005 made items),
-- with the same columns, rows, constraint names and triggers. Dropping the old table fires no
-- trigger; the new rows are copied before the triggers exist, so no counter moves.

CREATE TABLE saved_views_by_visible_characters (
    id             INTEGER PRIMARY KEY,
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

INSERT INTO saved_views_by_visible_characters
    (id, name, name_key, query_text, sort_field, sort_direction, owner_id, created_at, updated_at, version)
SELECT id, name, name_key, query_text, sort_field, sort_direction, owner_id, created_at, updated_at, version
FROM saved_views;

DROP TABLE saved_views;
ALTER TABLE saved_views_by_visible_characters RENAME TO saved_views;

-- The triggers of 0003 (change counters) and 0006 (version), as they were.
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
