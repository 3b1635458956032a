-- 1. An item's (and a saved view's) version moves on every change to its row, whoever makes it:
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

-- 2. Emails are one user whatever their letter case: the same key as on SQLite
-- (Migrations/0006_versions_and_email_keys.sql), computed by shelf in Swift (Email.key,
-- Unicode case folding), so both backends give the same answers. lower() would not: it
-- follows the database's locale and does not fold "ß" to "ss". The column starts empty, shelf
-- fills it when it opens the store (PostgresUserRepository.fillEmailKeys), and users whose
-- emails already collide are reported, not refused. The unique index on shelf_fold(email)
-- stays: anything it refuses has the same key anyway.
--
-- Another program that changes an email (psql, an import) does not know the key: the trigger
-- drops a key the UPDATE did not change when the email changes, and shelf computes it again
-- at the next open. Shelf itself sets the key after the email, in the same transaction.

ALTER TABLE users ADD COLUMN email_key text COLLATE "C";

CREATE UNIQUE INDEX users_by_email_key ON users (email_key);

CREATE FUNCTION shelf_forget_email_key() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.email IS DISTINCT FROM OLD.email THEN
        NEW.email_key := NULL;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER users_email_key_before_update BEFORE UPDATE OF email ON users
    FOR EACH ROW EXECUTE FUNCTION shelf_forget_email_key();
