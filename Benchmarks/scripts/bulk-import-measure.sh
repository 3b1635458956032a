#!/bin/bash
# bulk-import-measure.sh BIN TAG [import upsert replace shell users]: three fresh-process runs of each,
# with /usr/bin/time (wall s, peak RSS KB, user s, sys s), appended to $D/results-after.txt. The inputs
# come from Benchmarks/scripts/bulk-import-data.py run in $D (/tmp/bulkdata).
BIN=$1; TAG=$2; shift 2
D=/tmp/bulkdata; W=$D/work-$TAG; mkdir -p $W; R=$D/results-after.txt
t() { # label cmd...
  local label=$1; shift
  /usr/bin/time -f "%e %M %U %S" -o $W/time.txt "$@" > $W/out.txt 2>&1; local rc=$?
  echo "$TAG $label rc=$rc $(cat $W/time.txt | tail -1)" | tee -a $R
}
fresh() { rm -f $W/$2 $W/$2-wal $W/$2-shm; cp $W/$1 $W/$2; }
if [ ! -f $W/base.sqlite ]; then
  $BIN migrate --db $W/base.sqlite >/dev/null && $BIN import users $D/users.csv --db $W/base.sqlite --quiet
  sqlite3 $W/base.sqlite "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
fi
for what in "$@"; do
for run in 1 2 3; do
  case $what in
  import) fresh base.sqlite a.sqlite; t import_1m_items $BIN import items $D/items.csv --db $W/a.sqlite --quiet
          [ -f $W/big.sqlite ] || { sqlite3 $W/a.sqlite "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null; cp $W/a.sqlite $W/big.sqlite; } ;;
  upsert) fresh big.sqlite a.sqlite; t upsert_1m_vs_1m $BIN import items $D/items_upsert.csv --mode upsert --db $W/a.sqlite --quiet ;;
  replace) fresh big.sqlite a.sqlite; t replace_1m_vs_1m $BIN import items $D/items_upsert.csv --mode replace --db $W/a.sqlite --quiet ;;
  shell) fresh base.sqlite b.sqlite; t sqlite3_import_1m sqlite3 $W/b.sqlite ".import --csv $D/items_native.csv items" ;;
  users) rm -f $W/u.sqlite*; $BIN migrate --db $W/u.sqlite >/dev/null; t import_1m_users $BIN import users $D/users_big.csv --db $W/u.sqlite --quiet ;;
  esac
done; done
