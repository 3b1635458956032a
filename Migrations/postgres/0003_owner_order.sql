-- The owner ordering (ItemQuery.SortField.owner): owners by folded name and ID through
-- users_by_name, and each owner's items by ID through this index, so a page in that order is
-- a nested loop of index scans with no sort step (see ItemQuery.postgresOwnerPage).

CREATE INDEX items_by_user ON items (user_id, id);
