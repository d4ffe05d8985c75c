/* Little-endian field access and layout constants shared by the state file writer,
 * reader and the sections' encoders (ftl_state.c and the modules). */
#ifndef FEMU_STATE_FILE_IO_H
#define FEMU_STATE_FILE_IO_H

#include <stdint.h>

#define STATE_MAGIC "FEMUSTAT"
#define STATE_HEADER_BYTES 24u
#define STATE_SECTION_HEADER_BYTES 16u

static inline void state_put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static inline void state_put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static inline uint32_t state_get_le32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

static inline uint64_t state_get_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

#endif
