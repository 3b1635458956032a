-- An UPDATE made by a program that does not move `version` itself (the sqlite3 shell, a
-- script) was logged twice in shelf_change_log: once for the program's UPDATE, and once more
-- for the version trigger's own UPDATE (0006), which items_changes_after_update (0011) logged
-- as a change of its own (PRAGMA recursive_triggers being off only keeps a trigger from firing
-- itself). A change stream (`GET /api/changes`) then sent two changes for one, and live
-- windows published at the second one's position.
--
-- The version trigger now marks its row in shelf_replaced_rows (as 'items_version') for the
-- time of its UPDATE, and the change-log trigger skips an UPDATE of a marked row. The one
-- logged change is the program's: its values before (OLD) and after (NEW) are what a live
-- window judges by (version is not among them; a window that keeps the row reads it again, with
-- its new version). Shelf's own updates move the version themselves, so the version trigger does
-- not fire for them; the change-log trigger's WHEN tests the cheap columns first and probes the
-- mark only for an UPDATE that changed nothing but a version by one step.

DROP TRIGGER items_version_after_update;

CREATE TRIGGER items_version_after_update AFTER UPDATE ON items
WHEN NEW.version <= OLD.version
BEGIN
    INSERT OR IGNORE INTO shelf_replaced_rows (table_name, row_id) VALUES ('items_version', NEW.id);
    UPDATE items SET version = OLD.version + 1 WHERE id = NEW.id;
    DELETE FROM shelf_replaced_rows WHERE table_name = 'items_version';
END;

DROP TRIGGER items_changes_after_update;

CREATE TRIGGER items_changes_after_update AFTER UPDATE ON items
WHEN NEW.version IS NOT OLD.version + 1 OR NEW.id IS NOT OLD.id OR NEW.user_id IS NOT OLD.user_id
    OR NEW.status IS NOT OLD.status OR NEW.priority IS NOT OLD.priority OR NEW.created_at IS NOT OLD.created_at
    OR NEW.updated_at IS NOT OLD.updated_at
    OR NOT EXISTS (SELECT 1 FROM shelf_replaced_rows WHERE table_name = 'items_version' AND row_id = NEW.id)
BEGIN
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
