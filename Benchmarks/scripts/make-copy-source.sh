#!/bin/bash
# make-copy-source.sh SHELF DB: a migrated store with 1,000 users and 1,000,000 items, loaded with the
# upkeep triggers off and the search indexes rebuilt once (through live triggers it takes minutes).
set -e
SHELF=$1; DB=$2; T=$(mktemp -d)
rm -f "$DB" "$DB-wal" "$DB-shm"
"$SHELF" migrate --db "$DB" >/dev/null
Q="FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('items', 'users') AND name NOT LIKE '%refuse_nul%'"
sqlite3 "$DB" "SELECT sql || ';' $Q" > $T/triggers.sql
sqlite3 "$DB" "SELECT 'DROP TRIGGER ' || name || ';' $Q" > $T/drop.sql
sqlite3 "$DB" < $T/drop.sql
sqlite3 "$DB" <<SQL
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO users (id, name, email, email_key, created_at)
SELECT i, 'User ' || i, 'user' || i || '@example.com', 'user' || i || '@example.com', 1700000000000 + i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at)
SELECT 1 + i % 1000, 'Item ' || i || ' of the benchmark', 'Notes of item ' || i || ' with some words',
    CASE WHEN i % 5 = 0 THEN 'done' ELSE 'open' END, i % 4, 1700000000000 + i, 1700000000000 + i FROM n;
INSERT INTO items_fts (items_fts) VALUES ('rebuild');
INSERT INTO items_trigram (items_trigram) VALUES ('rebuild');
UPDATE shelf_changes SET row_count = (SELECT count(*) FROM items) WHERE table_name = 'items';
UPDATE shelf_changes SET row_count = (SELECT count(*) FROM users) WHERE table_name = 'users';
COMMIT;
SQL
sqlite3 "$DB" < $T/triggers.sql
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
rm -rf $T
