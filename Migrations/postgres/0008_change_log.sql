-- The change log: every change to users, items and saved views, one row each, written by the
-- database itself inside the writing transaction (so psql's and other programs' writes are
-- logged exactly as shelf's are). Live values read it to learn which rows changed and how,
-- and re-run only what a change can affect (docs/ARCHITECTURE.md, "Live values on
-- PostgreSQL").
--
-- It replaces the NOTIFY triggers of 0001/0002: PostgreSQL takes one server-wide lock at the
-- commit of any transaction that notified (PreCommit_Notify), held through the WAL flush, so
-- those triggers serialized every writer. Here a writing transaction only appends rows; shelf
-- sends its wake-up after its own commits, outside them, and finds other programs' commits
-- with one cheap read a second while it has live values.
--
-- seq comes from the identity's sequence with CACHE 1: values are handed out in time order,
-- but transactions commit in any order, so a reader treats a missing seq as pending until
-- every transaction that could hold it has ended (ChangeLogCursor). xid is the writing
-- transaction's top-level ID: a reader that starts finds the rows that were not yet committed
-- when it took its first snapshot with pg_visible_in_snapshot. For items the row's values
-- before (old_) and after (new_) the change are kept: what a live window needs to judge
-- whether the change can enter, leave or move in it. Other tables log the row's ID.
CREATE TABLE shelf_change_log (
    seq          bigint GENERATED ALWAYS AS IDENTITY (CACHE 1) PRIMARY KEY,
    xid          xid8   NOT NULL DEFAULT pg_current_xact_id(),
    table_name   text   NOT NULL,
    -- I insert, U update, D delete, T truncate (row_id is NULL).
    operation    text   NOT NULL CONSTRAINT change_log_operation_valid CHECK (operation IN ('I', 'U', 'D', 'T')),
    row_id       bigint,
    old_owner    bigint,
    new_owner    bigint,
    old_status   text,
    new_status   text,
    old_priority bigint,
    new_priority bigint,
    old_created  bigint,
    new_created  bigint,
    old_updated  bigint,
    new_updated  bigint,
    old_title    text,
    new_title    text,
    -- Updates: whether the title or the notes changed (a word search may then match differently).
    text_changed boolean
);

-- Pruning keeps the last 100,000 changes: the log is bounded whoever writes and whether or
-- not a shelf is open. The change that gets a multiple of 1,024 as its seq deletes what fell
-- out of the window (about 1,024 rows), unless another transaction is pruning right now
-- (an advisory lock, tried, never waited for), and records how far it pruned: a reader whose
-- last seq lies below that has missed changes and reads its live values in full once.
CREATE TABLE shelf_change_log_horizon (
    pruned_through bigint NOT NULL
);
INSERT INTO shelf_change_log_horizon VALUES (0);

CREATE FUNCTION shelf_prune_change_log(logged bigint) RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    -- "shelflog" in ASCII: the key of the pruning lock.
    IF pg_try_advisory_xact_lock(x'7368656c666c6f67'::bigint) THEN
        DELETE FROM shelf_change_log WHERE seq <= logged - 100000;
        UPDATE shelf_change_log_horizon SET pruned_through = greatest(pruned_through, logged - 100000);
    END IF;
END
$$;

-- Row triggers: for the one-row statements most writers make, one INSERT ... VALUES costs less
-- than a statement trigger's transition tables (pgbench, 32 clients of one-row inserts: 0.89
-- of the speed without logging, against 0.86). An update that changes an item's ID is logged
-- as the old row's delete and the new row's insert.
CREATE FUNCTION shelf_log_item_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    logged bigint;
BEGIN
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.id <> OLD.id) THEN
        IF TG_OP = 'UPDATE' THEN
            INSERT INTO shelf_change_log
                (table_name, operation, row_id, old_owner, old_status, old_priority, old_created, old_updated, old_title)
            VALUES ('items', 'D', OLD.id, OLD.user_id, OLD.status, OLD.priority, OLD.created_at, OLD.updated_at,
                    OLD.title)
            RETURNING seq INTO logged;
            IF logged % 1024 = 0 THEN PERFORM shelf_prune_change_log(logged); END IF;
        END IF;
        INSERT INTO shelf_change_log
            (table_name, operation, row_id, new_owner, new_status, new_priority, new_created, new_updated, new_title)
        VALUES ('items', 'I', NEW.id, NEW.user_id, NEW.status, NEW.priority, NEW.created_at, NEW.updated_at, NEW.title)
        RETURNING seq INTO logged;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO shelf_change_log
            (table_name, operation, row_id,
             old_owner, new_owner, old_status, new_status, old_priority, new_priority,
             old_created, new_created, old_updated, new_updated, old_title, new_title, text_changed)
        VALUES ('items', 'U', NEW.id,
                OLD.user_id, NEW.user_id, OLD.status, NEW.status, OLD.priority, NEW.priority,
                OLD.created_at, NEW.created_at, OLD.updated_at, NEW.updated_at, OLD.title, NEW.title,
                NEW.title IS DISTINCT FROM OLD.title OR NEW.notes IS DISTINCT FROM OLD.notes)
        RETURNING seq INTO logged;
    ELSE
        INSERT INTO shelf_change_log
            (table_name, operation, row_id, old_owner, old_status, old_priority, old_created, old_updated, old_title)
        VALUES ('items', 'D', OLD.id, OLD.user_id, OLD.status, OLD.priority, OLD.created_at, OLD.updated_at, OLD.title)
        RETURNING seq INTO logged;
    END IF;
    IF logged % 1024 = 0 THEN PERFORM shelf_prune_change_log(logged); END IF;
    RETURN NULL;
END
$$;

-- Users and saved views: the row's ID.
CREATE FUNCTION shelf_log_row_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    logged bigint;
BEGIN
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.id <> OLD.id) THEN
        INSERT INTO shelf_change_log (table_name, operation, row_id)
        VALUES (TG_TABLE_NAME, 'D', OLD.id) RETURNING seq INTO logged;
        IF logged % 1024 = 0 THEN PERFORM shelf_prune_change_log(logged); END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO shelf_change_log (table_name, operation, row_id)
        VALUES (TG_TABLE_NAME, CASE WHEN TG_OP = 'INSERT' OR NEW.id <> OLD.id THEN 'I' ELSE 'U' END, NEW.id)
        RETURNING seq INTO logged;
        IF logged % 1024 = 0 THEN PERFORM shelf_prune_change_log(logged); END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION shelf_log_truncate() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    logged bigint;
BEGIN
    INSERT INTO shelf_change_log (table_name, operation) VALUES (TG_TABLE_NAME, 'T') RETURNING seq INTO logged;
    IF logged % 1024 = 0 THEN PERFORM shelf_prune_change_log(logged); END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER users_notify_change ON users;
DROP TRIGGER items_notify_change ON items;
DROP TRIGGER saved_views_notify_change ON saved_views;
DROP FUNCTION shelf_notify_change();

CREATE TRIGGER items_log_change AFTER INSERT OR UPDATE OR DELETE ON items
    FOR EACH ROW EXECUTE FUNCTION shelf_log_item_change();
CREATE TRIGGER items_log_truncate AFTER TRUNCATE ON items
    FOR EACH STATEMENT EXECUTE FUNCTION shelf_log_truncate();
CREATE TRIGGER users_log_change AFTER INSERT OR UPDATE OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION shelf_log_row_change();
CREATE TRIGGER users_log_truncate AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION shelf_log_truncate();
CREATE TRIGGER saved_views_log_change AFTER INSERT OR UPDATE OR DELETE ON saved_views
    FOR EACH ROW EXECUTE FUNCTION shelf_log_row_change();
CREATE TRIGGER saved_views_log_truncate AFTER TRUNCATE ON saved_views
    FOR EACH STATEMENT EXECUTE FUNCTION shelf_log_truncate();
