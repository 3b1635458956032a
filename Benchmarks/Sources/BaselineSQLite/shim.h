#ifndef SHELF_BASELINE_SQLITE_SHIM_H
#define SHELF_BASELINE_SQLITE_SHIM_H
#include <sqlite3.h>
#endif
