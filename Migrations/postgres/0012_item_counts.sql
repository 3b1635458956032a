-- Exact counts of items by owner, status, priority and span of time, so that a count filtered
-- by them (status:open, prio:>=2, created:>30d, @user1 status:done, and their combinations)
-- adds up a few hundred rows instead of stepping through every matching index entry
-- (count(*) of status:open took 71 ms at 1,000,000 items). ItemQuery.postgresCount adds the
-- spans that lie wholly inside a time range from here and counts the two partial spans at its
-- ends from the items table, by index (as SQLite's 0016, whose spans these are).
--
-- No row here is written by every writer: a counter row updated inside each writing
-- transaction would hold its row lock through the commit and serialize the writers (issue 23).
-- Instead each statement that changes items appends rows to shelf_item_count_deltas (+n for
-- rows as they are after, -n for rows as they were), a table with no index and no key, so
-- concurrent writers never wait for one another. A count reads shelf_item_totals plus the deltas not yet
-- folded, in one statement (one snapshot): rolled-back changes never show, and psql's writes
-- count as shelf's do (the trigger is the database's).
--
-- Folding: about one statement in 1,024 (chosen at random by the trigger), and every statement
-- that appended 1,024 deltas or more (a bulk write: 1,000,000 items inserted at once appended
-- 447,182), moves every delta its transaction can see into the totals, in one statement (DELETE ... RETURNING into an upsert),
-- under an advisory lock that is tried, never waited for: at most one transaction folds at a
-- time, and the others go on. Deltas of transactions still in progress are not visible and
-- stay for a later fold; a fold that rolls back leaves the deltas where they were. A fold only
-- runs in READ COMMITTED (a transaction of a stricter isolation could fail on deltas another
-- fold deleted). The totals' rows are locked only by the folding transaction, which holds the
-- advisory lock until it ends, so no other transaction ever waits for them.
--
-- kind 'c' counts by created_at's span (the milliseconds shifted right by 26, about 18.6
-- hours), 'u' by updated_at's, 'o' by owner (bucket is the user's ID). Rows whose n fell to 0
-- stay.
CREATE TABLE shelf_item_totals (
    kind     char(1) NOT NULL,
    bucket   bigint  NOT NULL,
    status   text    NOT NULL,
    priority bigint  NOT NULL,
    n        bigint  NOT NULL,
    PRIMARY KEY (kind, bucket, status, priority)
);

CREATE TABLE shelf_item_count_deltas (
    user_id      bigint NOT NULL,
    status       text   NOT NULL,
    priority     bigint NOT NULL,
    created_span bigint NOT NULL,
    updated_span bigint NOT NULL,
    n            bigint NOT NULL
);

-- Its rows are deleted by every fold: vacuumed after 1,000 dead rows rather than a fifth of
-- the table, so a count's scan of the deltas does not step over the dead ones for long.
ALTER TABLE shelf_item_count_deltas SET (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0);

CREATE FUNCTION shelf_fold_item_counts() RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    -- "shelfcnt" in ASCII: the key of the folding lock.
    IF current_setting('transaction_isolation') = 'read committed'
        AND pg_try_advisory_xact_lock(x'7368656c66636e74'::bigint)
    THEN
        WITH moved AS (
            DELETE FROM shelf_item_count_deltas
            RETURNING user_id, status, priority, created_span, updated_span, n
        ), spread AS (
            SELECT 'c' AS kind, created_span AS bucket, status, priority, n FROM moved
            UNION ALL SELECT 'u', updated_span, status, priority, n FROM moved
            UNION ALL SELECT 'o', user_id, status, priority, n FROM moved
        )
        INSERT INTO shelf_item_totals AS t (kind, bucket, status, priority, n)
        SELECT kind, bucket, status, priority, sum(n) FROM spread GROUP BY 1, 2, 3, 4
        ON CONFLICT (kind, bucket, status, priority) DO UPDATE SET n = t.n + EXCLUDED.n;
    END IF;
END
$$;

-- Statement triggers of their own (not part of the change log's trigger, which shelf copy sets
-- aside during its bulk load: the counts must stay exact through a copy too), with transition
-- tables: a statement appends one delta per (owner, status, priority, spans) it changed, not
-- one per row (a bulk update of 750,000 items appends a few thousand), and an update that
-- changes none of the counted values (a title, the notes, a time within its span) appends
-- nothing: its -1 and +1 cancel. (One trigger per event: PostgreSQL allows transition tables
-- only on a trigger of one event.)
CREATE FUNCTION shelf_count_item_changes() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    appended bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO shelf_item_count_deltas
        SELECT user_id, status, priority, created_at >> 26, updated_at >> 26, count(*)
        FROM shelf_new_items GROUP BY 1, 2, 3, 4, 5;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO shelf_item_count_deltas
        SELECT user_id, status, priority, created_at >> 26, updated_at >> 26, -count(*)
        FROM shelf_old_items GROUP BY 1, 2, 3, 4, 5;
    ELSE
        INSERT INTO shelf_item_count_deltas
        SELECT user_id, status, priority, created_span, updated_span, sum(n) FROM (
            SELECT user_id, status, priority, created_at >> 26 AS created_span,
                updated_at >> 26 AS updated_span, -1 AS n FROM shelf_old_items
            UNION ALL
            SELECT user_id, status, priority, created_at >> 26, updated_at >> 26, 1 FROM shelf_new_items
        ) changed
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0;
    END IF;
    GET DIAGNOSTICS appended = ROW_COUNT;
    IF appended >= 1024 OR random() < 1.0 / 1024 THEN PERFORM shelf_fold_item_counts(); END IF;
    RETURN NULL;
END
$$;

-- TRUNCATE items (also by TRUNCATE users ... CASCADE) empties the counts. It holds the items
-- table's strongest lock, so no writer of items is in progress and every delta is visible.
CREATE FUNCTION shelf_count_item_truncate() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM shelf_item_count_deltas;
    DELETE FROM shelf_item_totals;
    RETURN NULL;
END
$$;

CREATE TRIGGER items_count_insert AFTER INSERT ON items REFERENCING NEW TABLE AS shelf_new_items
    FOR EACH STATEMENT EXECUTE FUNCTION shelf_count_item_changes();
CREATE TRIGGER items_count_update AFTER UPDATE ON items
    REFERENCING OLD TABLE AS shelf_old_items NEW TABLE AS shelf_new_items
    FOR EACH STATEMENT EXECUTE FUNCTION shelf_count_item_changes();
CREATE TRIGGER items_count_delete AFTER DELETE ON items REFERENCING OLD TABLE AS shelf_old_items
    FOR EACH STATEMENT EXECUTE FUNCTION shelf_count_item_changes();
CREATE TRIGGER items_count_truncate AFTER TRUNCATE ON items
    FOR EACH STATEMENT EXECUTE FUNCTION shelf_count_item_truncate();

INSERT INTO shelf_item_totals (kind, bucket, status, priority, n)
SELECT 'c', created_at >> 26, status, priority, count(*) FROM items GROUP BY 2, 3, 4
UNION ALL
SELECT 'u', updated_at >> 26, status, priority, count(*) FROM items GROUP BY 2, 3, 4
UNION ALL
SELECT 'o', user_id, status, priority, count(*) FROM items GROUP BY 2, 3, 4;
