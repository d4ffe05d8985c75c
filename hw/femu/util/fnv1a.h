/*
 * FNV-1a, 64 bits (Fowler, Noll and Vo's hash: offset basis and prime from its
 * description): the one definition behind the KV stores' tags and index, the value
 * checksum and the namespaces' UUIDs. Not a cryptographic hash.
 */
#ifndef FEMU_UTIL_FNV1A_H
#define FEMU_UTIL_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_BASIS 0xcbf29ce484222325ULL
#define FNV1A64_PRIME 0x100000001b3ULL

static inline uint64_t fnv1a64_byte(uint64_t hash, uint8_t byte)
{
    return (hash ^ byte) * FNV1A64_PRIME;
}

/* hash (FNV1A64_BASIS to start) carried over len bytes. */
static inline uint64_t fnv1a64(uint64_t hash, const void *bytes, size_t len)
{
    const uint8_t *p = bytes;

    for (size_t i = 0; i < len; i++) {
        hash = fnv1a64_byte(hash, p[i]);
    }
    return hash;
}

#endif
