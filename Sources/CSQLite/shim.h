#ifndef SHELF_CSQLITE_SHIM_H
#define SHELF_CSQLITE_SHIM_H
#include <sqlite3.h>

/// `sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes)`: Swift cannot call the variadic
/// `sqlite3_config`. Takes effect only before SQLite is initialized (the process's first
/// connection); returns SQLITE_MISUSE, changing nothing, after.
static inline int shelf_sqlite3_config_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}
#endif
