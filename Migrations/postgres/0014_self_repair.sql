-- What else another program can break in a shelf, and the repair that puts it right (issue 23,
-- hostile round 9). `shelf_repair(thorough)`, run by every open after migrating
-- (`PostgresMigrator.repair`; `shelf migrate` prints what it did as `repaired: …`):
--
-- 1. ID sequences set back (`SELECT setval('items_id_seq', 1)`): every add failed on a taken
--    ID, and on a store whose highest items were removed an add took a removed item's ID
--    again. The repair moves the users', items' and saved views' ID sequences past the
--    highest ID they ever handed out: the table's highest, the highest the change log holds
--    for the table (removed rows are logged), and the highest of the log rows pruned, which
--    the pruning now keeps in the horizon (highest_user_id, highest_item_id,
--    highest_view_id; 0 for what was pruned before this migration, and the sequences then
--    already stood past those rows).
-- 2. The change log's sequence set back with is_called = false (`setval(…, n, false)` hands
--    out n next): the check compared the highest seq with last_value alone. Every sequence is
--    now judged by the value it hands out next.
-- 3. Counts emptied or triggers dropped by hand: the repair makes every missing trigger of the
--    shelf again (and enables one disabled), counts the items again when a count trigger was
--    missing, and compares the counts with the items: at every open, the totals of each kind
--    with the number of items (the sums of a few hundred rows, and a count(*) of the items
--    only when they differ from the planner's estimate of the table by more than a tenth, or
--    the table is small); with `thorough` (`shelf migrate`), group by group.
-- 4. A dropped shelf_change_log_horizon (or its row deleted) is made again. The functions of
--    the shelf, shelf_repair among them, are all made here with CREATE OR REPLACE, so that
--    the open can run this file again when one of them was dropped (`PostgresMigrator`
--    looks for them by name, and runs the last migration that defines shelf_repair: a later
--    migration that replaces one of these functions must make them all again, as this one
--    does, or the repair would put an older one back).
-- 5. The change log's seqs start at a place of each database's own (below).
--
-- Names are qualified with the store's schema, as in 0013.
DO $shelf_0014$
BEGIN
    EXECUTE replace($shelf_0014_sql$

ALTER TABLE IF EXISTS @shelf@.shelf_change_log_horizon
    ADD COLUMN IF NOT EXISTS highest_user_id bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS highest_item_id bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS highest_view_id bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS checked_through bigint NOT NULL DEFAULT 0;

-- The pruned rows' highest IDs are kept: a removed row's ID is remembered only by the log.
CREATE OR REPLACE FUNCTION @shelf@.shelf_prune_change_log(logged bigint) RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    -- "shelflog" in ASCII: the key of the pruning lock.
    IF pg_try_advisory_xact_lock(x'7368656c666c6f67'::bigint) THEN
        WITH gone AS (
            DELETE FROM @shelf@.shelf_change_log WHERE seq <= logged - 100000 RETURNING table_name, row_id
        )
        UPDATE @shelf@.shelf_change_log_horizon SET
            pruned_through = greatest(pruned_through, logged - 100000),
            highest_user_id = greatest(highest_user_id, (SELECT max(row_id) FROM gone WHERE table_name = 'users')),
            highest_item_id = greatest(highest_item_id, (SELECT max(row_id) FROM gone WHERE table_name = 'items')),
            highest_view_id = greatest(highest_view_id,
                (SELECT max(row_id) FROM gone WHERE table_name = 'saved_views'));
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

CREATE OR REPLACE FUNCTION @shelf@.shelf_keep_derived_rows() RETURNS trigger
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

-- 0004's, made again here only so that a dropped one can be put back (they name no table).
CREATE OR REPLACE FUNCTION @shelf@.shelf_move_version() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.version <= OLD.version THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION @shelf@.shelf_forget_email_key() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.email IS DISTINCT FROM OLD.email THEN
        NEW.email_key := NULL;
    END IF;
    RETURN NEW;
END
$$;

-- The next value `sequence` hands out, whether or not it was called (setval's is_called).
CREATE OR REPLACE FUNCTION @shelf@.shelf_sequence_next(sequence regclass) RETURNS bigint
    LANGUAGE plpgsql AS $$
DECLARE
    last bigint;
    called boolean;
BEGIN
    EXECUTE format('SELECT last_value, is_called FROM %s', sequence) INTO last, called;
    RETURN CASE WHEN called THEN last + 1 ELSE last END;
END
$$;

-- Takes an ACCESS SHARE lock of `target` (what a read of it takes) if no one holds a lock that
-- conflicts with it; false, without waiting, when one does.
CREATE OR REPLACE FUNCTION @shelf@.shelf_lock_if_free(target regclass) RETURNS boolean
    LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('LOCK TABLE %s IN ACCESS SHARE MODE NOWAIT', target);
    RETURN true;
EXCEPTION WHEN lock_not_available THEN
    RETURN false;
END
$$;

-- The counts, made again from the items (writers of items wait: the caller holds a SHARE lock).
CREATE OR REPLACE FUNCTION @shelf@.shelf_count_items_again() RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
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
END
$$;

-- What another program dropped, emptied or set back, put right; returns what it did ('' for
-- nothing), one sentence each, joined by '; '. `thorough` compares the counts with the items
-- group by group (a pass over every item: `shelf migrate`); without it the totals of each
-- kind are compared with the number of items.
DROP FUNCTION IF EXISTS @shelf@.shelf_repair();
CREATE OR REPLACE FUNCTION @shelf@.shelf_repair(thorough boolean DEFAULT false) RETURNS text
    LANGUAGE plpgsql AS $$
DECLARE
    missing text[] := '{}';
    made text[] := '{}';
    done text[] := '{}';
    recount boolean := false;
    why text;
    wanted record;
    log_sequence regclass := pg_get_serial_sequence('@shelf@.shelf_change_log', 'seq')::regclass;
    sequenced record;
    highest bigint;
    next bigint;
    fresh boolean := false;
    item_count bigint;
    estimate real;
    low numeric;
    high numeric;
    kinds bigint;
    sums numeric[];
    free boolean;
    head bigint;
    remembered bigint[] := '{}';
    wrong bigint;
BEGIN
    -- The count tables (0012), made again and counted again when dropped.
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
        PERFORM @shelf@.shelf_count_items_again();
        fresh := true;
        done := done || ('put back ' || array_to_string(missing, ' and ') || ' and counted the items again');
    END IF;

    -- The log's horizon (0008), made again when dropped, or its row put back when deleted:
    -- everything below the log's lowest row counts as pruned (a reader behind it reads its
    -- live values in full once), and the IDs handed out so far as the highest pruned.
    IF to_regclass('@shelf@.shelf_change_log_horizon') IS NULL THEN
        CREATE TABLE @shelf@.shelf_change_log_horizon (
            pruned_through  bigint NOT NULL,
            highest_user_id bigint NOT NULL DEFAULT 0,
            highest_item_id bigint NOT NULL DEFAULT 0,
            highest_view_id bigint NOT NULL DEFAULT 0,
            checked_through bigint NOT NULL DEFAULT 0
        );
        made := made || 'shelf_change_log_horizon'::text;
        done := done || 'put back shelf_change_log_horizon'::text;
    END IF;
    IF NOT EXISTS (SELECT FROM @shelf@.shelf_change_log_horizon) THEN
        INSERT INTO @shelf@.shelf_change_log_horizon (pruned_through, highest_user_id, highest_item_id, highest_view_id)
        SELECT coalesce((SELECT min(seq) - 1 FROM @shelf@.shelf_change_log), @shelf@.shelf_sequence_next(log_sequence) - 1),
            @shelf@.shelf_sequence_next(pg_get_serial_sequence('@shelf@.users', 'id')::regclass) - 1,
            @shelf@.shelf_sequence_next(pg_get_serial_sequence('@shelf@.items', 'id')::regclass) - 1,
            @shelf@.shelf_sequence_next(pg_get_serial_sequence('@shelf@.saved_views', 'id')::regclass) - 1;
        IF NOT 'put back shelf_change_log_horizon' = ANY (done) THEN
            done := done || 'put back the row of shelf_change_log_horizon'::text;
        END IF;
    END IF;

    -- Every trigger of the shelf: one missing is made again, one disabled is enabled. Items
    -- written while a count trigger was missing were not counted: the items are counted again.
    FOR wanted IN
        SELECT t.name, t.target, t.definition, t.counts, p.tgenabled AS enabled
        FROM (VALUES
            ('items_log_change', 'items', 'AFTER INSERT OR UPDATE OR DELETE ON @shelf@.items '
                || 'FOR EACH ROW EXECUTE FUNCTION @shelf@.shelf_log_item_change()', false),
            ('items_log_truncate', 'items', 'AFTER TRUNCATE ON @shelf@.items '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION @shelf@.shelf_log_truncate()', false),
            ('users_log_change', 'users', 'AFTER INSERT OR UPDATE OR DELETE ON @shelf@.users '
                || 'FOR EACH ROW EXECUTE FUNCTION @shelf@.shelf_log_row_change()', false),
            ('users_log_truncate', 'users', 'AFTER TRUNCATE ON @shelf@.users '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION @shelf@.shelf_log_truncate()', false),
            ('saved_views_log_change', 'saved_views', 'AFTER INSERT OR UPDATE OR DELETE ON @shelf@.saved_views '
                || 'FOR EACH ROW EXECUTE FUNCTION @shelf@.shelf_log_row_change()', false),
            ('saved_views_log_truncate', 'saved_views', 'AFTER TRUNCATE ON @shelf@.saved_views '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION @shelf@.shelf_log_truncate()', false),
            ('items_count_insert', 'items', 'AFTER INSERT ON @shelf@.items REFERENCING NEW TABLE AS shelf_new_items '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION @shelf@.shelf_count_item_changes()', true),
            ('items_count_update', 'items', 'AFTER UPDATE ON @shelf@.items '
                || 'REFERENCING OLD TABLE AS shelf_old_items NEW TABLE AS shelf_new_items '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION @shelf@.shelf_count_item_changes()', true),
            ('items_count_delete', 'items', 'AFTER DELETE ON @shelf@.items REFERENCING OLD TABLE AS shelf_old_items '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION @shelf@.shelf_count_item_changes()', true),
            ('items_count_truncate', 'items', 'AFTER TRUNCATE ON @shelf@.items '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION @shelf@.shelf_count_item_truncate()', true),
            ('items_version_before_update', 'items', 'BEFORE UPDATE ON @shelf@.items '
                || 'FOR EACH ROW EXECUTE FUNCTION @shelf@.shelf_move_version()', false),
            ('saved_views_version_before_update', 'saved_views', 'BEFORE UPDATE ON @shelf@.saved_views '
                || 'FOR EACH ROW EXECUTE FUNCTION @shelf@.shelf_move_version()', false),
            ('users_email_key_before_update', 'users', 'BEFORE UPDATE OF email ON @shelf@.users '
                || 'FOR EACH ROW EXECUTE FUNCTION @shelf@.shelf_forget_email_key()', false),
            ('shelf_change_log_horizon_one_row', 'shelf_change_log_horizon',
                'BEFORE INSERT ON @shelf@.shelf_change_log_horizon FOR EACH ROW WHEN (pg_trigger_depth() = 0) '
                || 'EXECUTE FUNCTION @shelf@.shelf_keep_derived_rows()', false),
            ('shelf_migrations_one_row', 'shelf_migrations',
                'BEFORE INSERT ON @shelf@.shelf_migrations FOR EACH ROW WHEN (pg_trigger_depth() = 0) '
                || 'EXECUTE FUNCTION @shelf@.shelf_keep_derived_rows()', false),
            ('shelf_item_totals_derived', 'shelf_item_totals',
                'BEFORE INSERT ON @shelf@.shelf_item_totals FOR EACH ROW WHEN (pg_trigger_depth() = 0 AND '
                || 'current_setting(''shelf.counting'', true) IS DISTINCT FROM ''on'') '
                || 'EXECUTE FUNCTION @shelf@.shelf_keep_derived_rows()', false),
            ('shelf_item_count_deltas_derived', 'shelf_item_count_deltas',
                'BEFORE INSERT ON @shelf@.shelf_item_count_deltas FOR EACH ROW WHEN (pg_trigger_depth() = 0 AND '
                || 'current_setting(''shelf.counting'', true) IS DISTINCT FROM ''on'') '
                || 'EXECUTE FUNCTION @shelf@.shelf_keep_derived_rows()', false)
        ) AS t (name, target, definition, counts)
        LEFT JOIN pg_trigger p ON p.tgrelid = ('@shelf@.' || t.target)::regclass AND p.tgname = t.name
        WHERE p.tgenabled IS NULL OR p.tgenabled = 'D'
        ORDER BY t.name
    LOOP
        IF wanted.counts AND NOT recount AND NOT fresh THEN
            LOCK TABLE @shelf@.items IN SHARE MODE;
            recount := true;
            why := 'a count trigger was missing';
        END IF;
        IF wanted.enabled IS NULL THEN
            EXECUTE 'CREATE TRIGGER ' || wanted.name || ' ' || wanted.definition;
            -- A table made again above came without its triggers: said once, above.
            IF NOT wanted.target = ANY (missing || made) THEN
                done := done || ('put back the trigger ' || wanted.name || ' on ' || wanted.target);
            END IF;
        ELSE
            EXECUTE 'ALTER TABLE @shelf@.' || wanted.target || ' ENABLE TRIGGER ' || wanted.name;
            done := done || ('enabled the trigger ' || wanted.name || ' on ' || wanted.target);
        END IF;
    END LOOP;

    -- The counts against the items. Each kind's totals, with the deltas, add up to the number
    -- of items (read in one statement: one snapshot, where a writer's items and its deltas are
    -- visible together). The items are counted only when the table is small or the counts
    -- differ from the planner's estimate by more than a tenth (a count(*) of 1,000,000 items
    -- would cost every open tens of milliseconds); `thorough` compares every group.
    -- The checks below that read a table of rows never wait for it: a session holding a lock
    -- on it (a `shelf copy`, a LOCK TABLE in psql) would make every open wait, where the
    -- write that needs the table names that session when it gives up. They are left to a
    -- later open instead. A repair that must write waits, and says so if it gives up.
    free := @shelf@.shelf_lock_if_free('@shelf@.items');
    IF NOT recount AND NOT fresh AND NOT thorough AND free THEN
        SELECT reltuples INTO estimate FROM pg_class WHERE oid = '@shelf@.items'::regclass;
        SELECT min(total), max(total), count(*) INTO low, high, kinds FROM (
            SELECT sum(n) + (SELECT coalesce(sum(n), 0) FROM @shelf@.shelf_item_count_deltas) AS total
            FROM @shelf@.shelf_item_totals GROUP BY kind
        ) k;
        IF kinds = 0 OR estimate < 100000 OR kinds <> 3 OR low <> high OR abs(low - estimate) > estimate / 10 THEN
            SELECT count(*),
                (SELECT coalesce(sum(n), 0) FROM @shelf@.shelf_item_count_deltas),
                (SELECT array_agg(t) FROM (
                    SELECT sum(n) AS t FROM @shelf@.shelf_item_totals GROUP BY kind) k)
            INTO item_count, low, sums FROM @shelf@.items;
            IF cardinality(sums) IS NULL THEN
                sums := ARRAY[0, 0, 0];
            END IF;
            IF cardinality(sums) <> 3 OR sums[1] + low <> item_count OR sums[2] + low <> item_count
                OR sums[3] + low <> item_count
            THEN
                LOCK TABLE @shelf@.items IN SHARE MODE;
                recount := true;
                why := format('the counts added up to %s, the items are %s',
                    (SELECT min(x) + low FROM unnest(sums) x), item_count);
            END IF;
        END IF;
    END IF;
    IF NOT recount AND NOT fresh AND thorough THEN
        WITH counts AS (
            SELECT kind, bucket, status, priority, sum(n) AS n FROM (
                SELECT kind, bucket, status, priority, n FROM @shelf@.shelf_item_totals
                UNION ALL SELECT 'c', created_span, status, priority, n FROM @shelf@.shelf_item_count_deltas
                UNION ALL SELECT 'u', updated_span, status, priority, n FROM @shelf@.shelf_item_count_deltas
                UNION ALL SELECT 'o', user_id, status, priority, n FROM @shelf@.shelf_item_count_deltas
            ) c GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
        ), truth AS (
            SELECT 'c' AS kind, created_at >> 26 AS bucket, status, priority, count(*) AS n
            FROM @shelf@.items GROUP BY 2, 3, 4
            UNION ALL
            SELECT 'u', updated_at >> 26, status, priority, count(*) FROM @shelf@.items GROUP BY 2, 3, 4
            UNION ALL
            SELECT 'o', user_id, status, priority, count(*) FROM @shelf@.items GROUP BY 2, 3, 4
        )
        SELECT count(*) INTO wrong FROM (
            SELECT DISTINCT kind, bucket, status, priority FROM (
                (SELECT * FROM counts EXCEPT ALL SELECT * FROM truth)
                UNION ALL
                (SELECT * FROM truth EXCEPT ALL SELECT * FROM counts)
            ) d
        ) g;
        IF wrong > 0 THEN
            LOCK TABLE @shelf@.items IN SHARE MODE;
            recount := true;
            why := format('%s groups of the counts differed from the items', wrong);
        END IF;
    END IF;
    IF recount THEN
        PERFORM @shelf@.shelf_count_items_again();
        done := done || ('counted the items again (' || why || ')');
    END IF;

    -- Sequences set back (a data-only restore's setval, or by hand): every write would fail on
    -- a seq or an ID already taken, or take a removed row's ID again. Each is moved past the
    -- highest value it ever handed out; under its table's EXCLUSIVE lock none is handed out
    -- meanwhile.
    highest := (SELECT max(seq) FROM @shelf@.shelf_change_log);
    IF highest >= @shelf@.shelf_sequence_next(log_sequence) THEN
        LOCK TABLE @shelf@.shelf_change_log IN EXCLUSIVE MODE;
        highest := (SELECT max(seq) FROM @shelf@.shelf_change_log);
        next := @shelf@.shelf_sequence_next(log_sequence);
        IF highest >= next THEN
            PERFORM setval(log_sequence, highest);
            done := done || ('moved the change log''s sequence from ' || next || ' to ' || highest + 1);
        END IF;
    END IF;
    -- A second horizon row (a restore with its triggers off): the highest is kept, so a
    -- reader behind it reads its live values in full once rather than miss a change.
    IF (SELECT count(*) FROM @shelf@.shelf_change_log_horizon) > 1 THEN
        UPDATE @shelf@.shelf_change_log_horizon SET
            highest_user_id = (SELECT max(highest_user_id) FROM @shelf@.shelf_change_log_horizon),
            highest_item_id = (SELECT max(highest_item_id) FROM @shelf@.shelf_change_log_horizon),
            highest_view_id = (SELECT max(highest_view_id) FROM @shelf@.shelf_change_log_horizon),
            checked_through = (SELECT min(checked_through) FROM @shelf@.shelf_change_log_horizon);
        DELETE FROM @shelf@.shelf_change_log_horizon WHERE ctid <> (
            SELECT ctid FROM @shelf@.shelf_change_log_horizon ORDER BY pruned_through DESC LIMIT 1);
        done := done || 'kept one row of shelf_change_log_horizon'::text;
    END IF;
    -- The IDs: the highest each table ever handed out is the greatest of the highest the
    -- horizon remembers (of log rows pruned or read by an earlier repair, and the sequence as
    -- that repair found it), the highest in the log rows since that repair (an index range
    -- of the log, not all of it) and, when those do not settle it, its highest row. The log's head is read before the
    -- sequences: a row still in progress below it took its ID before, so below the sequence.
    head := (SELECT max(seq) FROM @shelf@.shelf_change_log);
    FOR sequenced IN
        SELECT t.name, t.what, t.logged, t.known,
            pg_get_serial_sequence('@shelf@.' || t.name, 'id')::regclass AS sequence
        FROM (SELECT max(highest_user_id) AS users, max(highest_item_id) AS items,
                  max(highest_view_id) AS views, max(checked_through) AS checked
              FROM @shelf@.shelf_change_log_horizon) h,
             LATERAL (SELECT max(row_id) FILTER (WHERE table_name = 'users') AS users,
                  max(row_id) FILTER (WHERE table_name = 'items') AS items,
                  max(row_id) FILTER (WHERE table_name = 'saved_views') AS views
              FROM @shelf@.shelf_change_log WHERE seq > h.checked) l,
             LATERAL (VALUES ('users', 'user', l.users, h.users), ('items', 'item', l.items, h.items),
                  ('saved_views', 'saved view', l.views, h.views)) AS t (name, what, logged, known)
    LOOP
        -- The table's own highest ID only when the horizon remembers none yet, or the
        -- sequence stands at or below what it remembers: planning max(id) opens every index
        -- of the table, which cost a new connection more than the rest of the repair.
        highest := greatest(sequenced.logged, sequenced.known);
        next := @shelf@.shelf_sequence_next(sequenced.sequence);
        IF (coalesce(sequenced.known, 0) = 0 OR highest >= next)
            AND NOT @shelf@.shelf_lock_if_free(('@shelf@.' || sequenced.name)::regclass)
        THEN
            remembered := remembered || NULL::bigint;
            CONTINUE;
        END IF;
        IF coalesce(sequenced.known, 0) = 0 OR highest >= next THEN
            EXECUTE format('SELECT greatest(max(id), $1, $2) FROM @shelf@.%I', sequenced.name) INTO highest
                USING sequenced.logged, sequenced.known;
        END IF;
        IF highest >= next THEN
            EXECUTE format('LOCK TABLE @shelf@.%I IN EXCLUSIVE MODE', sequenced.name);
            EXECUTE format('SELECT greatest(max(id), $1, $2) FROM @shelf@.%I', sequenced.name) INTO highest
                USING sequenced.logged, sequenced.known;
            next := @shelf@.shelf_sequence_next(sequenced.sequence);
            IF highest >= next THEN
                PERFORM setval(sequenced.sequence, highest);
                done := done || format('moved the sequence of %s IDs from %s to %s (the highest %s ID ever used is %s)',
                    sequenced.what, next, highest + 1, sequenced.what, highest);
                next := highest + 1;
            END IF;
        END IF;
        remembered := remembered || greatest(highest, next - 1, 0);
    END LOOP;
    -- Remembered for the next repair, unless another transaction holds the row (a prune not
    -- yet committed): never waited for, the next open reads a longer range of the log instead.
    UPDATE @shelf@.shelf_change_log_horizon SET
        highest_user_id = greatest(highest_user_id, remembered[1]),
        highest_item_id = greatest(highest_item_id, remembered[2]),
        highest_view_id = greatest(highest_view_id, remembered[3]),
        checked_through = greatest(checked_through, coalesce(head, 0))
    WHERE ctid = (SELECT ctid FROM @shelf@.shelf_change_log_horizon ORDER BY pruned_through DESC LIMIT 1
                  FOR UPDATE SKIP LOCKED)
        AND (highest_user_id < remembered[1] OR highest_item_id < remembered[2]
             OR highest_view_id < remembered[3] OR checked_through < coalesce(head, 0));

    RETURN array_to_string(done, '; ');
END
$$;

-- 5. A new store's change log hands out seqs from a place of its own: a multiple of 2^32
--    between 2^32 and 2^51, chosen at random when nothing was logged yet. A data-only
--    restore into a database `shelf migrate` made loads the source's log rows, and with
--    `pg_restore -j` the log could load first: the users' and items' COPY then failed on
--    the seqs their own triggers took (1, 2, … in both databases), and nothing of them
--    loaded (7 runs in 8, hostile round 9). Now the two logs' seqs lie apart, and once the
--    restore sets the sequence to the source's (its SEQUENCE SET, at any point of the
--    restore), the triggers take seqs past every source row. The repair then moves the
--    sequence past the target's own rows (2.). A reader's gap over the jump is one range.
--    No cost to a write; the seqs stay below 2^53, exact in a JSON number.
SELECT setval(pg_get_serial_sequence('@shelf@.shelf_change_log', 'seq'),
    (1 + floor(random() * 524288))::bigint << 32)
WHERE NOT EXISTS (SELECT FROM @shelf@.shelf_change_log)
    AND @shelf@.shelf_sequence_next(pg_get_serial_sequence('@shelf@.shelf_change_log', 'seq')::regclass)
        < (1::bigint << 32);

    $shelf_0014_sql$, '@shelf@', quote_ident(current_schema()));
END
$shelf_0014$;
