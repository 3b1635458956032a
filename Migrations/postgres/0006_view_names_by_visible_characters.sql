-- A saved view's name is at most 100 visible characters, counted by shelf
-- (SavedView.checkedName); the database keeps a bound of 1,000 code points against abuse,
-- the same as SQLite (Migrations/0008_view_names_by_visible_characters.sql). A name of 60
-- hearts ("❤️", two code points each) was refused by the old bound of 100 code points.

ALTER TABLE saved_views
    DROP CONSTRAINT saved_view_name_valid,
    ADD CONSTRAINT saved_view_name_valid CHECK (length(btrim(name, E' \t\n\r')) > 0 AND length(name) <= 1000);
