#ifndef SHELF_CSQLITE_SHIM_H
#define SHELF_CSQLITE_SHIM_H
#include <sqlite3.h>

/// `sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes)`, which Swift cannot call itself
/// (`sqlite3_config` is variadic). Process-wide; only before SQLite initializes (its first
/// connection): later it changes nothing and returns SQLITE_MISUSE.
static inline int shelf_sqlite3_config_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}
#endif
