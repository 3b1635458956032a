-- What outside tools did to a shelf's counts and change log (issue 23's hostile tester), and a
-- fold that no idle transaction can hold up.
--
-- 1. Trigger functions name their tables with the store's schema. pg_dump's output runs with
--    an empty search_path, and the change log's and the counts' trigger functions named
--    shelf_change_log and shelf_item_count_deltas unqualified: a data-only restore failed at
--    the first user ("relation shelf_change_log does not exist"), while the totals' rows
--    loaded, so counts showed items that were not there. Every such function below is made
--    again with its tables (and the functions it calls) qualified by the schema the store
--    lives in, which is current_schema() when this runs: the first schema of the role's
--    search_path, `public` unless the role or database says otherwise ("$user" first, by
--    default). A SET search_path on the functions would do the same, at the price of a
--    setting saved and restored on every call of the per-row trigger; qualified names cost
--    nothing. Functions that name no table (the version and email-key triggers) and the SQL
--    functions of 0001 and 0010 (their bodies are parsed when made, so they hold no names)
--    need nothing.
--
-- 2. The totals and the deltas are derived data: inserts into them from outside Shelf's own
--    triggers and functions are dropped. A `pg_dump --data-only` restored into a database
--    `shelf migrate` made copied the source's totals and deltas on top of what the target's
--    triggers counted while the items loaded (counts doubled for good). Now those rows are
--    dropped (a BEFORE INSERT trigger whose WHEN lets through only inserts made inside a
--    trigger, pg_trigger_depth() > 0, or while shelf.counting is on, which the fold and the
--    repair set), and the target's own counts of what it loaded stay, exactly. Restores that
--    load the tables with their triggers off (a full dump, whose triggers are made after the
--    data; --disable-triggers) copy both tables as they were, which is right too. The WHEN is
--    evaluated per delta row written, never per item, and calls no function when false. The
--    log's horizon keeps its one row and shelf_migrations its rows the same way (a data-only
--    restore copied a second horizon row, and failed on every migration's name). The change
--    log itself is left alone (a BEFORE trigger there would cost every logged row): a restore
--    copies the source's log rows, or fails on their seqs (the target logged what it loaded);
--    either way the target's log describes its rows. `shelf_repair` (below), which every open
--    runs, moves the log's sequence past its rows if a restore set it back, and keeps one
--    horizon row if a restore with its triggers off copied a second.
--
-- 3. Folding never waits and is never held up. The fold took a transaction-level advisory
--    lock: a transaction that folded and then sat idle held it, no one else folded, and the
--    deltas grew (322,478 in 60 s at 4,700 tps; the writer that next folded paid 0.75 s). Its
--    DELETE of the deltas also locked their rows until that transaction ended. Now every fold
--    takes only the delta rows no other transaction holds (FOR UPDATE SKIP LOCKED). The one
--    that gets the advisory lock moves them into the totals, as before (only lock holders
--    touch the totals, so no one waits for a totals row). One that does not get it compacts
--    them instead: deletes them and appends their sums, one row per (owner, status, priority,
--    spans), so the deltas stay about as many as those groups whoever holds the lock, and a
--    count reads a bounded number of them.
--
-- 4. `shelf_repair()`, run by every open (`shelf migrate` says what it did): a dropped
--    shelf_item_totals or shelf_item_count_deltas is made again with its triggers, and the
--    items counted again under a SHARE lock of items (writers of items wait for it; readers
--    do not); the change log's sequence is moved past the log's highest seq.
DO $shelf_0013$
BEGIN
    EXECUTE replace($shelf_0013_sql$

CREATE OR REPLACE FUNCTION @shelf@.shelf_prune_change_log(logged bigint) RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    -- "shelflog" in ASCII: the key of the pruning lock.
    IF pg_try_advisory_xact_lock(x'7368656c666c6f67'::bigint) THEN
        DELETE FROM @shelf@.shelf_change_log WHERE seq <= logged - 100000;
        UPDATE @shelf@.shelf_change_log_horizon SET pruned_through = greatest(pruned_through, logged - 100000);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION @shelf@.shelf_log_item_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    logged bigint;
BEGIN
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.id <> OLD.id) THEN
        IF TG_OP = 'UPDATE' THEN
            INSERT INTO @shelf@.shelf_change_log
                (table_name, operation, row_id, old_owner, old_status, old_priority, old_created, old_updated, old_title)
            VALUES ('items', 'D', OLD.id, OLD.user_id, OLD.status, OLD.priority, OLD.created_at, OLD.updated_at,
                    OLD.title)
            RETURNING seq INTO logged;
            IF logged % 1024 = 0 THEN PERFORM @shelf@.shelf_prune_change_log(logged); END IF;
        END IF;
        INSERT INTO @shelf@.shelf_change_log
            (table_name, operation, row_id, new_owner, new_status, new_priority, new_created, new_updated, new_title)
        VALUES ('items', 'I', NEW.id, NEW.user_id, NEW.status, NEW.priority, NEW.created_at, NEW.updated_at, NEW.title)
        RETURNING seq INTO logged;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO @shelf@.shelf_change_log
            (table_name, operation, row_id,
             old_owner, new_owner, old_status, new_status, old_priority, new_priority,
             old_created, new_created, old_updated, new_updated, old_title, new_title, text_changed)
        VALUES ('items', 'U', NEW.id,
                OLD.user_id, NEW.user_id, OLD.status, NEW.status, OLD.priority, NEW.priority,
                OLD.created_at, NEW.created_at, OLD.updated_at, NEW.updated_at, OLD.title, NEW.title,
                NEW.title IS DISTINCT FROM OLD.title OR NEW.notes IS DISTINCT FROM OLD.notes)
        RETURNING seq INTO logged;
    ELSE
        INSERT INTO @shelf@.shelf_change_log
            (table_name, operation, row_id, old_owner, old_status, old_priority, old_created, old_updated, old_title)
        VALUES ('items', 'D', OLD.id, OLD.user_id, OLD.status, OLD.priority, OLD.created_at, OLD.updated_at, OLD.title)
        RETURNING seq INTO logged;
    END IF;
    IF logged % 1024 = 0 THEN PERFORM @shelf@.shelf_prune_change_log(logged); END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION @shelf@.shelf_log_row_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    logged bigint;
BEGIN
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.id <> OLD.id) THEN
        INSERT INTO @shelf@.shelf_change_log (table_name, operation, row_id)
        VALUES (TG_TABLE_NAME, 'D', OLD.id) RETURNING seq INTO logged;
        IF logged % 1024 = 0 THEN PERFORM @shelf@.shelf_prune_change_log(logged); END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO @shelf@.shelf_change_log (table_name, operation, row_id)
        VALUES (TG_TABLE_NAME, CASE WHEN TG_OP = 'INSERT' OR NEW.id <> OLD.id THEN 'I' ELSE 'U' END, NEW.id)
        RETURNING seq INTO logged;
        IF logged % 1024 = 0 THEN PERFORM @shelf@.shelf_prune_change_log(logged); END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION @shelf@.shelf_log_truncate() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    logged bigint;
BEGIN
    INSERT INTO @shelf@.shelf_change_log (table_name, operation) VALUES (TG_TABLE_NAME, 'T') RETURNING seq INTO logged;
    IF logged % 1024 = 0 THEN PERFORM @shelf@.shelf_prune_change_log(logged); END IF;
    RETURN NULL;
END
$$;

-- Only in READ COMMITTED (a stricter isolation could fail on deltas another fold took).
-- shelf.counting is on while it writes, so the derived tables' guard lets its rows in; it
-- is put back as it was.
CREATE OR REPLACE FUNCTION @shelf@.shelf_fold_item_counts() RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
    counting text := current_setting('shelf.counting', true);
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RETURN;
    END IF;
    PERFORM set_config('shelf.counting', 'on', true);
    -- "shelfcnt" in ASCII: the key of the folding lock.
    IF pg_try_advisory_xact_lock(x'7368656c66636e74'::bigint) THEN
        WITH moved AS (
            DELETE FROM @shelf@.shelf_item_count_deltas
            WHERE ctid = ANY (ARRAY(SELECT ctid FROM @shelf@.shelf_item_count_deltas FOR UPDATE SKIP LOCKED))
            RETURNING user_id, status, priority, created_span, updated_span, n
        ), spread AS (
            SELECT 'c' AS kind, created_span AS bucket, status, priority, n FROM moved
            UNION ALL SELECT 'u', updated_span, status, priority, n FROM moved
            UNION ALL SELECT 'o', user_id, status, priority, n FROM moved
        )
        INSERT INTO @shelf@.shelf_item_totals AS t (kind, bucket, status, priority, n)
        SELECT kind, bucket, status, priority, sum(n) FROM spread GROUP BY 1, 2, 3, 4
        ON CONFLICT (kind, bucket, status, priority) DO UPDATE SET n = t.n + EXCLUDED.n;
    ELSE
        WITH moved AS (
            DELETE FROM @shelf@.shelf_item_count_deltas
            WHERE ctid = ANY (ARRAY(SELECT ctid FROM @shelf@.shelf_item_count_deltas FOR UPDATE SKIP LOCKED))
            RETURNING user_id, status, priority, created_span, updated_span, n
        )
        INSERT INTO @shelf@.shelf_item_count_deltas
        SELECT user_id, status, priority, created_span, updated_span, sum(n) FROM moved
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0;
    END IF;
    PERFORM set_config('shelf.counting', coalesce(counting, ''), true);
END
$$;

CREATE OR REPLACE FUNCTION @shelf@.shelf_count_item_changes() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    appended bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO @shelf@.shelf_item_count_deltas
        SELECT user_id, status, priority, created_at >> 26, updated_at >> 26, count(*)
        FROM shelf_new_items GROUP BY 1, 2, 3, 4, 5;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO @shelf@.shelf_item_count_deltas
        SELECT user_id, status, priority, created_at >> 26, updated_at >> 26, -count(*)
        FROM shelf_old_items GROUP BY 1, 2, 3, 4, 5;
    ELSE
        INSERT INTO @shelf@.shelf_item_count_deltas
        SELECT user_id, status, priority, created_span, updated_span, sum(n) FROM (
            SELECT user_id, status, priority, created_at >> 26 AS created_span,
                updated_at >> 26 AS updated_span, -1 AS n FROM shelf_old_items
            UNION ALL
            SELECT user_id, status, priority, created_at >> 26, updated_at >> 26, 1 FROM shelf_new_items
        ) changed
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0;
    END IF;
    GET DIAGNOSTICS appended = ROW_COUNT;
    IF appended >= 1024 OR random() < 1.0 / 1024 THEN PERFORM @shelf@.shelf_fold_item_counts(); END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION @shelf@.shelf_count_item_truncate() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM @shelf@.shelf_item_count_deltas;
    DELETE FROM @shelf@.shelf_item_totals;
    RETURN NULL;
END
$$;

-- The guard of the derived tables (2.): a row that reaches it is dropped. The horizon keeps
-- its one row, shelf_migrations one row per name.
CREATE FUNCTION @shelf@.shelf_keep_derived_rows() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'shelf_change_log_horizon' THEN
        IF NOT EXISTS (SELECT FROM @shelf@.shelf_change_log_horizon) THEN
            RETURN NEW;
        END IF;
    ELSIF TG_TABLE_NAME = 'shelf_migrations' THEN
        IF NOT EXISTS (SELECT FROM @shelf@.shelf_migrations WHERE name = NEW.name) THEN
            RETURN NEW;
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER shelf_change_log_horizon_one_row BEFORE INSERT ON @shelf@.shelf_change_log_horizon
    FOR EACH ROW WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION @shelf@.shelf_keep_derived_rows();
CREATE TRIGGER shelf_migrations_one_row BEFORE INSERT ON @shelf@.shelf_migrations
    FOR EACH ROW WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION @shelf@.shelf_keep_derived_rows();

-- (4.) What another program dropped or a restore set back, put right; returns what it did
-- ('' for nothing), for `shelf migrate` to say. The tables and the guard's triggers are made
-- here (and by 0013 through it), so they are written once.
CREATE FUNCTION @shelf@.shelf_repair() RETURNS text
    LANGUAGE plpgsql AS $$
DECLARE
    missing text[] := '{}';
    done text[] := '{}';
    sequence_name text := pg_get_serial_sequence('@shelf@.shelf_change_log', 'seq');
    highest bigint;
    last bigint;
BEGIN
    IF to_regclass('@shelf@.shelf_item_totals') IS NULL THEN
        missing := missing || 'shelf_item_totals'::text;
    END IF;
    IF to_regclass('@shelf@.shelf_item_count_deltas') IS NULL THEN
        missing := missing || 'shelf_item_count_deltas'::text;
    END IF;
    IF cardinality(missing) > 0 THEN
        -- No writer of items meanwhile (its count trigger would fail, or count twice).
        LOCK TABLE @shelf@.items IN SHARE MODE;
        CREATE TABLE IF NOT EXISTS @shelf@.shelf_item_totals (
            kind     char(1) NOT NULL,
            bucket   bigint  NOT NULL,
            status   text    NOT NULL,
            priority bigint  NOT NULL,
            n        bigint  NOT NULL,
            PRIMARY KEY (kind, bucket, status, priority)
        );
        CREATE TABLE IF NOT EXISTS @shelf@.shelf_item_count_deltas (
            user_id      bigint NOT NULL,
            status       text   NOT NULL,
            priority     bigint NOT NULL,
            created_span bigint NOT NULL,
            updated_span bigint NOT NULL,
            n            bigint NOT NULL
        );
        ALTER TABLE @shelf@.shelf_item_count_deltas
            SET (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0);
        PERFORM set_config('shelf.counting', 'on', true);
        DELETE FROM @shelf@.shelf_item_count_deltas;
        DELETE FROM @shelf@.shelf_item_totals;
        INSERT INTO @shelf@.shelf_item_totals (kind, bucket, status, priority, n)
        SELECT 'c', created_at >> 26, status, priority, count(*) FROM @shelf@.items GROUP BY 2, 3, 4
        UNION ALL
        SELECT 'u', updated_at >> 26, status, priority, count(*) FROM @shelf@.items GROUP BY 2, 3, 4
        UNION ALL
        SELECT 'o', user_id, status, priority, count(*) FROM @shelf@.items GROUP BY 2, 3, 4;
        PERFORM set_config('shelf.counting', '', true);
        done := done || ('put back ' || array_to_string(missing, ' and ') || ' and counted the items again');
    END IF;
    CREATE OR REPLACE TRIGGER shelf_item_totals_derived BEFORE INSERT ON @shelf@.shelf_item_totals
        FOR EACH ROW WHEN (pg_trigger_depth() = 0 AND current_setting('shelf.counting', true) IS DISTINCT FROM 'on')
        EXECUTE FUNCTION @shelf@.shelf_keep_derived_rows();
    CREATE OR REPLACE TRIGGER shelf_item_count_deltas_derived BEFORE INSERT ON @shelf@.shelf_item_count_deltas
        FOR EACH ROW WHEN (pg_trigger_depth() = 0 AND current_setting('shelf.counting', true) IS DISTINCT FROM 'on')
        EXECUTE FUNCTION @shelf@.shelf_keep_derived_rows();
    -- The log's sequence behind its rows (a data-only restore's setval): every write would
    -- fail on a seq already taken. Under the log's EXCLUSIVE lock no seq is being handed out.
    SELECT max(seq) INTO highest FROM @shelf@.shelf_change_log;
    EXECUTE format('SELECT last_value FROM %s', sequence_name) INTO last;
    IF highest > last THEN
        LOCK TABLE @shelf@.shelf_change_log IN EXCLUSIVE MODE;
        SELECT max(seq) INTO highest FROM @shelf@.shelf_change_log;
        EXECUTE format('SELECT last_value FROM %s', sequence_name) INTO last;
        IF highest > last THEN
            PERFORM setval(sequence_name, highest);
            done := done || ('moved the change log''s sequence from ' || last || ' to ' || highest);
        END IF;
    END IF;
    -- A second horizon row (a restore with its triggers off): the highest is kept, so a
    -- reader behind it reads its live values in full once rather than miss a change.
    IF (SELECT count(*) FROM @shelf@.shelf_change_log_horizon) > 1 THEN
        DELETE FROM @shelf@.shelf_change_log_horizon WHERE ctid <> (
            SELECT ctid FROM @shelf@.shelf_change_log_horizon ORDER BY pruned_through DESC LIMIT 1);
        done := done || 'kept one row of shelf_change_log_horizon'::text;
    END IF;
    RETURN array_to_string(done, '; ');
END
$$;

SELECT @shelf@.shelf_repair();

    $shelf_0013_sql$, '@shelf@', quote_ident(current_schema()));
END
$shelf_0013$;
