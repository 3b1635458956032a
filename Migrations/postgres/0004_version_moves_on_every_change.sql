-- An item's (and a saved view's) version moves on every change to its row, whoever makes it:
-- the same rule as Migrations/0006_version_moves_on_every_change.sql.
--
-- Undo and the editors check `version` before they write, and shelf moves it itself
-- (`version = version + 1`). A change made by psql or a script did not move it, so an undo
-- took the row for unchanged and wrote its old fields over that change. This trigger moves
-- it for any UPDATE that did not move it forward itself (NEW.version <= OLD.version): shelf's
-- own updates keep their one step (their WHERE version = … checks and RETURNING see the
-- version they expect), and setting the version back cannot make an old version current.
-- It runs BEFORE the row is written, so it costs no second write.

CREATE FUNCTION shelf_move_version() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.version <= OLD.version THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER items_version_before_update BEFORE UPDATE ON items
    FOR EACH ROW EXECUTE FUNCTION shelf_move_version();
CREATE TRIGGER saved_views_version_before_update BEFORE UPDATE ON saved_views
    FOR EACH ROW EXECUTE FUNCTION shelf_move_version();
