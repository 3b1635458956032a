-- A list filtered by status or priority (status:done, prio:3, prio:>=2 and their combinations),
-- without an owner, in each list ordering: one index per ordering under (status, priority), so
-- that each (status, priority) pair the filter allows is a range already in order, and a page
-- merges at most eight such ranges (a UNION ALL that the planner reads as a Merge Append,
-- ItemQuery.postgresPage) instead of reading every matching row and sorting them. The first
-- also serves the priority ordering and counts by status. (0008 is another change's number.)

CREATE INDEX items_by_status_priority         ON items (status, priority, id);
CREATE INDEX items_by_status_priority_created ON items (status, priority, created_at, id);
CREATE INDEX items_by_status_priority_updated ON items (status, priority, updated_at, id);
CREATE INDEX items_by_status_priority_title   ON items (status, priority, shelf_fold(title) COLLATE "C", id);

-- How often each (status, priority) pair occurs, for the planner: the two columns are often
-- related (done items sink to priority 0), and without these counts it takes a pair that
-- matches nothing for a common one and reads it by ID past every row (2 s at 1,000,000 items).
CREATE STATISTICS items_status_priority (mcv) ON status, priority FROM items;
