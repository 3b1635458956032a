// SHA-256 (FIPS 180-4), streaming, for the copy's fingerprint (ShelfStore's SHA256 wraps it).
// In C so that a debug build hashes at a useful speed: unoptimized Swift ran ~30 times slower,
// and hashing both sides of a copy was most of its time.
#ifndef SHELF_SHA256_H
#define SHELF_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t length;
    uint8_t buffer[64];
    uint32_t buffered;
} shelf_sha256_context;

void shelf_sha256_init(shelf_sha256_context *context);
void shelf_sha256_update(shelf_sha256_context *context, const void *bytes, size_t count);
void shelf_sha256_final(shelf_sha256_context *context, uint8_t digest[32]);

#endif
