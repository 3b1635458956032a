-- 1. An item's (and a saved view's) version moves on every change to its row, whoever makes it.
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

-- 2. Emails are one user whatever their letter case, in every script: "Äda@x.com" and
-- "äda@x.com" are the same user, and so are "straße@x.com" and "STRASSE@x.com". The schema's
-- NOCASE (users.email) folds only the ASCII letters A-Z, so the rule needs a key: email_key
-- is the email with Unicode case folding applied, computed by shelf (Email.key, in Swift, the
-- same on SQLite and PostgreSQL), and unique. The NOCASE constraint stays: anything it refuses
-- has the same key anyway.
--
-- This migration cannot compute the key in SQL (SQLite's lower() and NOCASE know ASCII only),
-- and must not fail on a database that already holds two users with such emails. So the
-- column starts empty (NULL, which the unique index allows any number of times), and shelf
-- fills it when it opens the store (SQLiteUserRepository.fillEmailKeys): the older user of
-- two that collide gets the key, the other keeps none and is reported (`shelf migrate`
-- prints them and what to do) until one of the emails changes.
--
-- Another program that changes an email (the sqlite3 shell, an import) does not know the
-- key: the trigger drops the stale key when the email changes, and shelf computes it again
-- at the next open. Shelf itself sets the key after the email, in the same transaction.

ALTER TABLE users ADD COLUMN email_key TEXT;

CREATE UNIQUE INDEX users_by_email_key ON users (email_key);

CREATE TRIGGER users_email_key_after_update AFTER UPDATE OF email ON users
WHEN NEW.email IS NOT OLD.email COLLATE BINARY
BEGIN
    UPDATE users SET email_key = NULL WHERE id = NEW.id;
END;
