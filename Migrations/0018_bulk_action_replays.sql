-- An undo or redo of a bulk change (Migrations/0013) moved the `written` version of every item
-- it wrote, one row of bulk_action_items at a time: 750,000 rows took 0.2 s of CPU of the 5 s a
-- million-item undo may take. `replays` counts the undos and redos an action has had instead,
-- moved once by each: an item the action still holds is at version `written + replays` (every
-- item an undo or redo writes moves its version by one, and the items it skips leave `pending`
-- for good, so they are never compared again). A delete's items keep their versions as they
-- were: its replays stay 0. (0017 is another change's number.)
ALTER TABLE bulk_actions ADD COLUMN replays INTEGER NOT NULL DEFAULT 0;
