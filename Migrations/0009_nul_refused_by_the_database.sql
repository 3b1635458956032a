-- The NUL character (U+0000) is refused in every text a person reads, whoever writes it.
-- shelf refuses it on every write path (TextLimits), and PostgreSQL cannot store it at all;
-- but the sqlite3 shell or a script could store one here, which an export then wrote raw and
-- no import would read back. These triggers make SQLite refuse it as PostgreSQL does.
--
-- An UPDATE is refused only when it writes a new text holding NUL: a row stored with one
-- before this migration can still be changed in its other columns (or its text replaced).
-- instr() compares bytes, so it finds a NUL inside a text value.

CREATE TRIGGER items_refuse_nul_before_insert BEFORE INSERT ON items
WHEN instr(NEW.title, char(0)) > 0 OR instr(NEW.notes, char(0)) > 0
BEGIN
    SELECT RAISE(ABORT, 'an item''s title or notes cannot hold the NUL character (U+0000): remove it');
END;
CREATE TRIGGER items_refuse_nul_before_update BEFORE UPDATE OF title, notes ON items
WHEN (NEW.title IS NOT OLD.title AND instr(NEW.title, char(0)) > 0)
    OR (NEW.notes IS NOT OLD.notes AND instr(NEW.notes, char(0)) > 0)
BEGIN
    SELECT RAISE(ABORT, 'an item''s title or notes cannot hold the NUL character (U+0000): remove it');
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
