#ifndef SHELF_CZLIB_SHIM_H
#define SHELF_CZLIB_SHIM_H
#include <zlib.h>

/* zlib's init functions are macros (they pass the version and the struct size), which Swift
   does not import: these wrap them. */

/* Inflates gzip only (no zlib or raw streams): 15-bit window plus 16. */
static inline int shelf_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 15 + 16);
}

/* Deflates to a gzip member whose header has no name and mtime 0 (zlib writes no gzip header
   fields unless deflateSetHeader is called), at `level`, with the default memory level. */
static inline int shelf_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
