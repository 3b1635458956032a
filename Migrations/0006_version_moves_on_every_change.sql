-- An item's (and a saved view's) version moves on every change to its row, whoever makes it.
--
-- Undo and the editors check `version` before they write (optimistic concurrency), and
-- shelf moves it itself (`version = version + 1`). A change made by another program (the
-- sqlite3 shell, a script) did not move it, so an undo took the row for unchanged and wrote
-- its old fields over that program's edit. These triggers move it for any UPDATE that did not
-- move it forward itself (NEW.version <= OLD.version): shelf's own updates are left as they
-- are (one step each, as the optimistic checks expect), and a program that sets the version
-- back cannot make an old version current again.
--
-- The trigger's own UPDATE changes only `version`: it does not fire the full-text triggers
-- (AFTER UPDATE OF title, notes), and it does not fire itself again (its WHEN is false once
-- the version moved, with or without PRAGMA recursive_triggers). It moves the change counter
-- a second time in the same transaction, which readers see as one commit.

CREATE TRIGGER items_version_after_update AFTER UPDATE ON items
WHEN NEW.version <= OLD.version
BEGIN
    UPDATE items SET version = OLD.version + 1 WHERE id = NEW.id;
END;

CREATE TRIGGER saved_views_version_after_update AFTER UPDATE ON saved_views
WHEN NEW.version <= OLD.version
BEGIN
    UPDATE saved_views SET version = OLD.version + 1 WHERE id = NEW.id;
END;
