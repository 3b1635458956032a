-- Counts of items by owner too (kind 'o' of shelf_item_counts, bucket = the owner's ID), so
-- that a count by owner and status or priority (`@user1 status:done`: 630 to 3,237 ms at
-- 1,000,000 items, the planner read every `done` item through the status index and looked up
-- each row's owner) adds up a few rows per owner instead (ItemQuery.countFromTotalsSQL). The
-- triggers of 0016 are made again with a third row each: the insert's upsert writes three rows
-- in one statement, and an update of user_id moves the item between owners.
ALTER TABLE shelf_item_counts_replaced ADD COLUMN user_id INTEGER;

DROP TRIGGER items_counts_replaced_before_insert;
DROP TRIGGER items_counts_replaced_before_update;
DROP TRIGGER items_counts_replaced_after_insert;
DROP TRIGGER items_counts_after_insert;
DROP TRIGGER items_counts_replaced_after_update;
DROP TRIGGER items_counts_after_update;
DROP TRIGGER items_counts_after_delete;

CREATE TRIGGER items_counts_replaced_before_insert BEFORE INSERT ON items BEGIN
    DELETE FROM shelf_item_counts_replaced;
    INSERT INTO shelf_item_counts_replaced (row_id, user_id, status, priority, created_at, updated_at)
    SELECT id, user_id, status, priority, created_at, updated_at FROM items WHERE id = NEW.id;
END;

CREATE TRIGGER items_counts_replaced_before_update BEFORE UPDATE OF id ON items
WHEN NEW.id IS NOT OLD.id
BEGIN
    DELETE FROM shelf_item_counts_replaced;
    INSERT INTO shelf_item_counts_replaced (row_id, user_id, status, priority, created_at, updated_at)
    SELECT id, user_id, status, priority, created_at, updated_at FROM items WHERE id = NEW.id;
END;

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
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'o'
        AND bucket = (SELECT user_id FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
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
            NEW.status, NEW.priority, 1),
        ('o', NEW.user_id, NEW.status, NEW.priority, 1)
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
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'o'
        AND bucket = (SELECT user_id FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND status = (SELECT status FROM shelf_item_counts_replaced WHERE row_id = NEW.id)
        AND priority = (SELECT priority FROM shelf_item_counts_replaced WHERE row_id = NEW.id);
    DELETE FROM shelf_item_counts_replaced WHERE row_id = NEW.id;
END;

CREATE TRIGGER items_counts_after_update AFTER UPDATE OF id, user_id, status, priority, created_at, updated_at ON items
BEGIN
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'c' AND status = OLD.status AND priority = OLD.priority
        AND bucket = CASE WHEN typeof(OLD.created_at) = 'integer' THEN OLD.created_at >> 26 ELSE 'other' END;
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'u' AND status = OLD.status AND priority = OLD.priority
        AND bucket = CASE WHEN typeof(OLD.updated_at) = 'integer' THEN OLD.updated_at >> 26 ELSE 'other' END;
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'o' AND bucket = OLD.user_id AND status = OLD.status AND priority = OLD.priority;
    INSERT INTO shelf_item_counts (kind, bucket, status, priority, n)
    VALUES
        ('c', CASE WHEN typeof(NEW.created_at) = 'integer' THEN NEW.created_at >> 26 ELSE 'other' END,
            NEW.status, NEW.priority, 1),
        ('u', CASE WHEN typeof(NEW.updated_at) = 'integer' THEN NEW.updated_at >> 26 ELSE 'other' END,
            NEW.status, NEW.priority, 1),
        ('o', NEW.user_id, NEW.status, NEW.priority, 1)
    ON CONFLICT (kind, bucket, status, priority) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER items_counts_after_delete AFTER DELETE ON items BEGIN
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'c' AND status = OLD.status AND priority = OLD.priority
        AND bucket = CASE WHEN typeof(OLD.created_at) = 'integer' THEN OLD.created_at >> 26 ELSE 'other' END;
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'u' AND status = OLD.status AND priority = OLD.priority
        AND bucket = CASE WHEN typeof(OLD.updated_at) = 'integer' THEN OLD.updated_at >> 26 ELSE 'other' END;
    UPDATE shelf_item_counts SET n = n - 1
    WHERE kind = 'o' AND bucket = OLD.user_id AND status = OLD.status AND priority = OLD.priority;
END;

INSERT INTO shelf_item_counts (kind, bucket, status, priority, n)
SELECT 'o', user_id, status, priority, count(*) FROM items GROUP BY 2, 3, 4;
