-- A list filtered by status or priority (status:done, prio:3, prio:>=2 and their combinations),
-- without an owner, in each list ordering: one index per ordering under (status, priority), so
-- that each (status, priority) pair the filter allows is a range already in order, and a page
-- merges at most eight such ranges (a compound SELECT, ItemQuery.pageSQL) instead of reading
-- every matching row and sorting them (prio:3 read 250,000 rows at 1,000,000 items) or walking
-- the ordering's index past rows that do not match (status:done prio:3 matched none and read
-- all). items_by_status_priority (with the implicit rowid) also serves the priority ordering,
-- and makes a count of a status a range of a small index instead of a scan of the table.
-- (0011 is another change's number.)

CREATE INDEX items_by_status_priority         ON items (status, priority);
CREATE INDEX items_by_status_priority_created ON items (status, priority, created_at);
CREATE INDEX items_by_status_priority_updated ON items (status, priority, updated_at);
CREATE INDEX items_by_status_priority_title   ON items (status, priority, title);
