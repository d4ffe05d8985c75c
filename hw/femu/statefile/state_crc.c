/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) for state files: the SSE4.2
 * instruction where the CPU has it (a state file may hold gigabytes of data store), a
 * byte-wise table otherwise. Both give the same values; the table is built on the stack
 * per call of the slow path rather than kept in a global.
 */
#include "state_file.h"

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc32c_bytewise(uint32_t crc, const unsigned char *p, size_t len)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) {
            c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        }
        table[i] = c;
    }
    for (size_t i = 0; i < len; i++) {
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const unsigned char *p, size_t len)
{
    uint64_t c = crc;
    while (len >= 8) {
        uint64_t v;
        __builtin_memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8;
        len -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (len--) {
        c32 = __builtin_ia32_crc32qi(c32, *p++);
    }
    return c32;
}
#endif

uint32_t state_crc32c(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    crc = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("sse4.2")) {
        return ~crc32c_sse42(crc, p, len);
    }
#endif
    return ~crc32c_bytewise(crc, p, len);
}
