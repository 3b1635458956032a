-- Exact counts of items by status, priority and span of time, kept by triggers, so that a count
-- filtered by status, priority and an age or date range (status:open, prio:>=2, created:>30d,
-- and their combinations) adds up a few hundred rows here instead of stepping through every
-- matching entry of an index (status:open counted 750,000 index entries at 1,000,000 items).
-- ItemQuery.countSQL adds the spans that lie wholly inside the range from this table and counts
-- the two partial spans at its ends from the items table, by index (see countFromTotalsSQL).
--
-- kind 'c' counts by created_at, 'u' by updated_at; bucket is the span: the milliseconds shifted
-- right by 26 (a span of 67,108,864 ms, about 18.6 hours), or 'other' for a value that is not
-- an integer (written by another program): a count of a range then reads the items table, as
-- before. status and priority are copied as the row holds them, with the items columns' types,
-- so the count's own tests of them pick the same rows. Rows whose n fell to 0 stay.
CREATE TABLE shelf_item_counts (
    kind     TEXT    NOT NULL,
    bucket           NOT NULL,
    status   TEXT    NOT NULL,
    priority INTEGER NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (kind, bucket, status, priority)
) WITHOUT ROWID;

-- INSERT OR REPLACE (and UPDATE OR REPLACE to an ID in use) deletes the row it conflicts with
-- without firing a DELETE trigger (recursive_triggers is off). As 0011 does for the change log,
-- a BEFORE trigger keeps the row a statement may replace, and the AFTER trigger takes it out of
-- the counts if it is gone; rows left here by a statement that inserted nothing (INSERT OR
-- IGNORE, an upsert that updated) are cleared by the next insert's BEFORE trigger.
CREATE TABLE shelf_item_counts_replaced (
    row_id     INTEGER PRIMARY KEY,
    status     TEXT,
    priority   INTEGER,
    created_at INTEGER,
    updated_at INTEGER
);

CREATE TRIGGER items_counts_replaced_before_insert BEFORE INSERT ON items BEGIN
    DELETE FROM shelf_item_counts_replaced;
    INSERT INTO shelf_item_counts_replaced (row_id, status, priority, created_at, updated_at)
    SELECT id, status, priority, created_at, updated_at FROM items WHERE id = NEW.id;
END;

CREATE TRIGGER items_counts_replaced_before_update BEFORE UPDATE OF id ON items
WHEN NEW.id IS NOT OLD.id
BEGIN
    DELETE FROM shelf_item_counts_replaced;
    INSERT INTO shelf_item_counts_replaced (row_id, status, priority, created_at, updated_at)
    SELECT id, status, priority, created_at, updated_at FROM items WHERE id = NEW.id;
END;

-- The replaced row, when there is one, leaves the counts (a trigger of its own, so the usual
-- insert does not pay for it; the order of the two AFTER triggers does not matter to a sum).
-- Each statement finds its row by the whole primary key: a row-value IN over a subquery read
-- the whole table for every insert.
CREATE TRIGGER items_counts_replaced_after_insert AFTER INSERT ON items
WHEN EXISTS (SELECT 1 FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
BEGIN
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'c'
        AND bucket = (
            SELECT CASE WHEN typeof(created_at) = 'integer' THEN created_at >> 26 ELSE 'other' END
            FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND status = (SELECT status FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND priority = (SELECT priority FROM shelf_item_counts_replaced WHERE row_id = NEW.id);
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'u'
        AND bucket = (
            SELECT CASE WHEN typeof(updated_at) = 'integer' THEN updated_at >> 26 ELSE 'other' END
            FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND status = (SELECT status FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND priority = (SELECT priority FROM shelf_item_counts_replaced WHERE row_id = NEW.id);
    DELETE FROM shelf_item_counts_replaced WHERE row_id = NEW.id;
END;

CREATE TRIGGER items_counts_after_insert AFTER INSERT ON items BEGIN
    INSERT INTO shelf_item_counts (kind, bucket, status, priority, n)
    VALUES
        ('c', CASE WHEN typeof(NEW.created_at) = 'integer' THEN NEW.created_at >> 26 ELSE 'other' END,
            NEW.status, NEW.priority, 1),
        ('u', CASE WHEN typeof(NEW.updated_at) = 'integer' THEN NEW.updated_at >> 26 ELSE 'other' END,
            NEW.status, NEW.priority, 1)
    ON CONFLICT (kind, bucket, status, priority) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER items_counts_replaced_after_update AFTER UPDATE OF id ON items
WHEN NEW.id IS NOT OLD.id AND EXISTS (SELECT 1 FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
BEGIN
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'c'
        AND bucket = (
            SELECT CASE WHEN typeof(created_at) = 'integer' THEN created_at >> 26 ELSE 'other' END
            FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND status = (SELECT status FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND priority = (SELECT priority FROM shelf_item_counts_replaced WHERE row_id = NEW.id);
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'u'
        AND bucket = (
            SELECT CASE WHEN typeof(updated_at) = 'integer' THEN updated_at >> 26 ELSE 'other' END
            FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND status = (SELECT status FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND priority = (SELECT priority FROM shelf_item_counts_replaced WHERE row_id = NEW.id);
    DELETE FROM shelf_item_counts_replaced WHERE row_id = NEW.id;
END;

CREATE TRIGGER items_counts_after_update AFTER UPDATE OF id, status, priority, created_at, updated_at ON items
BEGIN
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'c' AND status = OLD.status AND priority = OLD.priority
        AND bucket = CASE WHEN typeof(OLD.created_at) = 'integer' THEN OLD.created_at >> 26 ELSE 'other' END;
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'u' AND status = OLD.status AND priority = OLD.priority
        AND bucket = CASE WHEN typeof(OLD.updated_at) = 'integer' THEN OLD.updated_at >> 26 ELSE 'other' END;
    INSERT INTO shelf_item_counts (kind, bucket, status, priority, n)
    VALUES
        ('c', CASE WHEN typeof(NEW.created_at) = 'integer' THEN NEW.created_at >> 26 ELSE 'other' END,
            NEW.status, NEW.priority, 1),
        ('u', CASE WHEN typeof(NEW.updated_at) = 'integer' THEN NEW.updated_at >> 26 ELSE 'other' END,
            NEW.status, NEW.priority, 1)
    ON CONFLICT (kind, bucket, status, priority) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER items_counts_after_delete AFTER DELETE ON items BEGIN
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'c' AND status = OLD.status AND priority = OLD.priority
        AND bucket = CASE WHEN typeof(OLD.created_at) = 'integer' THEN OLD.created_at >> 26 ELSE 'other' END;
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'u' AND status = OLD.status AND priority = OLD.priority
        AND bucket = CASE WHEN typeof(OLD.updated_at) = 'integer' THEN OLD.updated_at >> 26 ELSE 'other' END;
END;

INSERT INTO shelf_item_counts (kind, bucket, status, priority, n)
SELECT 'c', CASE WHEN typeof(created_at) = 'integer' THEN created_at >> 26 ELSE 'other' END AS bucket,
    status, priority, count(*)
FROM items GROUP BY 2, 3, 4;
INSERT INTO shelf_item_counts (kind, bucket, status, priority, n)
SELECT 'u', CASE WHEN typeof(updated_at) = 'integer' THEN updated_at >> 26 ELSE 'other' END AS bucket,
    status, priority, count(*)
FROM items GROUP BY 2, 3, 4;
