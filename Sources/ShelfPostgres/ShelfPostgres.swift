// ShelfPostgres: the PostgreSQL backend of `Store`. Built only with the PostgreSQL package
// trait (`swift build --traits PostgreSQL`); without it this module is empty.
//
// How it is put together (the choices a reader would otherwise have to rediscover):
//
// - Opening (`Store.open(postgres:)`, `PostgresBackend.open(url:)`): the URL is read by
//   `PostgresLocation` (postgres:// or postgresql://, percent-decoded, port 5432, database
//   defaulting to the user, `sslmode=disable|prefer|require`, no TLS by default: the server is
//   expected on this machine or a private network; `require` checks the certificate against
//   the system's trust roots). One plain connection checks the server first, so a refused
//   connection, a wrong password or a missing database is reported at once and clearly, and
//   runs the migrations; then a `PostgresPool` (a `PostgresClient` and the task running it)
//   serves every call until `close()`.
// - Schema (Migrations/postgres, embedded like the SQLite ones): the SQLite schema's tables,
//   rules and constraint names. Letter case: SQLite's NOCASE folds only A-Z, so the
//   function `shelf_fold` does the same (translate, not lower()) and every index and query
//   compares `shelf_fold(x) COLLATE "C"`: emails are unique, and titles ordered, exactly as on
//   SQLite. One index per list ordering, alone and under an owner, ends with the ID, so a
//   keyset page is one index range scan (PostgresQueryPlanTests checks each plan).
// - Full text: a generated tsvector (config 'simple') over title and notes, non-alphanumerics
//   turned into spaces first so words split as SQLite's unicode61 tokenizer splits them, with
//   a GIN index. The query is built from `FullTextQuery.words(in:)`, each word quoted and a
//   prefix, joined with &, and bound as a parameter of to_tsquery. Both sides go through
//   `shelf_search_fold` (NFD, combining marks removed, lower-cased), so accents fold as under
//   SQLite's remove_diacritics 2: "eclair" finds "éclair", "zoe" a decomposed "Zoë". Only
//   the first 100,000 characters of notes are indexed (a tsvector holds at most 1 MB).
// - Substrings: runs of CJK/Thai text and of emoji in a query (`TextTerm.substring`) are
//   `title LIKE '%run%' OR notes LIKE '%run%'`, as stored and over the whole notes, as SQLite
//   answers them from its trigram index; pg_trgm GIN indexes (migration 0005) when available.
// - Counts are count(*) over the narrowest index: about 10 ms for 100,000 items.
// - Change notification: statement-level triggers call `shelf_notify_change()`, which
//   notifies the channel 'shelf_changes' with the table's name (the live-query feed listens).
// - Blocking entry points (snapshot reads, import sessions) are called from plain threads:
//   each runs its async work in a task and waits on a semaphore (`BlockingWork.waitFor`); snapshot
//   reads (exports, `items list`) read keyset pages of 2,000 rows, each whole, in one
//   REPEATABLE READ READ ONLY transaction, as the store's `SnapshotPages` (`itemPages`) do,
//   handed to the blocking thread a page at a time (`SnapshotPages.forEachPage`), so memory
//   stays flat and no row stream is ever held back (a lost connection under a held-back
//   postgres-nio stream stops the process).
// - Imports stage rows by multi-row INSERT (never COPY, whose postgres-nio code hangs on a
//   lost connection) into TEMP tables of a connection of their own (no lock on shared tables
//   while the input is read), then apply them in one transaction: set-based when that gives
//   the input-order result, else row by row in savepoints.
// - Backups copy one REPEATABLE READ snapshot into a new SQLite shelf file.
