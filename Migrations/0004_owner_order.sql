-- The owner ordering (ItemQuery.SortField.owner): owners by name through users_by_name, and
-- each owner's items by ID through this index (user_id, then the implicit rowid), so a page
-- in that order is one nested loop of index walks with no sort step.

CREATE INDEX items_by_user ON items (user_id);
