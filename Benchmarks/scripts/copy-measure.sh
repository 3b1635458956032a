#!/bin/bash
# copy-measure.sh SHELF [RUNS] [sqlite postgres]: fresh-process runs of `shelf copy` on 1,000,000 items
# of 1,000 users, with /usr/bin/time (wall s, peak RSS KB, user s, sys s), beside the nearest tools in
# the same run: `sqlite3 .backup` for SQLite -> SQLite, `pg_dump | psql` for PostgreSQL -> PostgreSQL.
# PostgreSQL directions use $SERVER (postgres://postgres@127.0.0.1:5433), making and dropping
# databases named shelf_copy_bench_*. The source is made by make-copy-source.sh beside this script.
# Prints `uptime` before and after. Files go to $D (/tmp/shelf-copy-bench), removed at the end.
SHELF=$1; RUNS=${2:-2}; shift 2; WHAT=${@:-sqlite postgres}
HERE=$(cd "$(dirname "$0")" && pwd)
D=${D:-/tmp/shelf-copy-bench}; SERVER=${SERVER:-postgres://postgres@127.0.0.1:5433}
mkdir -p $D; trap 'rm -rf $D; for db in $(psql -qAt "$SERVER/postgres" -c "SELECT datname FROM pg_database WHERE datname LIKE '"'"'shelf_copy_bench_%'"'"'"); do dropdb -h 127.0.0.1 -p 5433 -U postgres "$db"; done' EXIT
t() { # label cmd...
  local label=$1; shift
  /usr/bin/time -f "%e %M %U %S" -o $D/time.txt "$@" > $D/out.txt 2> $D/err.txt; local rc=$?
  echo "$label rc=$rc wall_s,peak_kb,user_s,sys_s: $(tail -1 $D/time.txt)"
  [ $rc = 0 ] || tail -3 $D/err.txt
}
sh_t() { local label=$1; shift; t "$label" /bin/bash -o pipefail -c "$*"; }
uptime
[ -f $D/source.sqlite ] || "$HERE/make-copy-source.sh" "$SHELF" $D/source.sqlite
for what in $WHAT; do
for run in $(seq 1 $RUNS); do
  case $what in
  sqlite)
    rm -f $D/copy.sqlite*; t "sqlite->sqlite shelf copy" $SHELF copy $D/source.sqlite $D/copy.sqlite
    grep -q "both sides match" $D/out.txt || echo "  (no match line)"
    rm -f $D/copy.sqlite* $D/backup.sqlite*; t "sqlite->sqlite sqlite3 .backup" sqlite3 $D/source.sqlite ".backup '$D/backup.sqlite'"
    rm -f $D/copy.sqlite* $D/backup.sqlite* ;;
  postgres)
    S=$SERVER/shelf_copy_bench_src
    if [ $run = 1 ]; then
      dropdb --if-exists -h 127.0.0.1 -p 5433 -U postgres shelf_copy_bench_src; createdb -h 127.0.0.1 -p 5433 -U postgres shelf_copy_bench_src
      t "sqlite->postgres shelf copy (source for the rest)" $SHELF copy $D/source.sqlite $S
    fi
    createdb -h 127.0.0.1 -p 5433 -U postgres shelf_copy_bench_s2p$run
    t "sqlite->postgres shelf copy" $SHELF copy $D/source.sqlite $SERVER/shelf_copy_bench_s2p$run
    dropdb -h 127.0.0.1 -p 5433 -U postgres shelf_copy_bench_s2p$run
    rm -f $D/p2s.sqlite*; t "postgres->sqlite shelf copy" $SHELF copy $S $D/p2s.sqlite; rm -f $D/p2s.sqlite*
    createdb -h 127.0.0.1 -p 5433 -U postgres shelf_copy_bench_p2p$run
    t "postgres->postgres shelf copy" $SHELF copy $S $SERVER/shelf_copy_bench_p2p$run
    dropdb -h 127.0.0.1 -p 5433 -U postgres shelf_copy_bench_p2p$run
    createdb -h 127.0.0.1 -p 5433 -U postgres shelf_copy_bench_dump$run
    sh_t "postgres->postgres pg_dump | psql" "pg_dump $S | psql -q -v ON_ERROR_STOP=1 $SERVER/shelf_copy_bench_dump$run"
    dropdb -h 127.0.0.1 -p 5433 -U postgres shelf_copy_bench_dump$run ;;
  esac
done; done
uptime
