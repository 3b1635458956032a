#ifndef SHELF_CSQLITE_SHIM_H
#define SHELF_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
