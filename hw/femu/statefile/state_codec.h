/*
 * Encoding and decoding the fixed-width little-endian fields of a state file section in
 * memory: the FTL and its modules build a section in a state_buf and hand it to the
 * writer whole; a loader reads a section whose size it checked first into a
 * state_cursor and takes fields off it. Failures are sticky, so a caller checks once.
 */
#ifndef FEMU_STATE_CODEC_H
#define FEMU_STATE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state_file.h"

struct state_buf {
    unsigned char *p;
    size_t len, cap;
    bool failed;        /* out of memory: every later put is ignored */
};

void state_buf_u8(struct state_buf *b, uint8_t v);
void state_buf_u32(struct state_buf *b, uint32_t v);
void state_buf_u64(struct state_buf *b, uint64_t v);
/* Write b as section tag (its bytes, if nothing failed) and free it. */
int state_buf_section(struct state_buf *b, struct state_writer *w, uint32_t tag,
                      char *err, size_t errlen);

struct state_cursor {
    unsigned char *p;
    size_t len, pos;
    bool overrun;       /* a get past the end: it returned 0 */
};

uint8_t state_cur_u8(struct state_cursor *c);
uint32_t state_cur_u32(struct state_cursor *c);
uint64_t state_cur_u64(struct state_cursor *c);
void state_cursor_free(struct state_cursor *c);

/*
 * Read section tag whole into c: absent, or not `expected` bytes (a caller that cannot
 * know the size beforehand passes its bound as max and 0 as expected), is refused:
 * -1 with "PATH: section TAG: ..." in err.
 */
int state_cursor_load(struct state_reader *r, uint32_t tag, uint64_t expected, uint64_t max,
                      struct state_cursor *c, char *err, size_t errlen);

/* Whether the host stores integers little-endian, as the sparse map sections are kept
 * (they are the FTL's arrays as they lie in memory: a copy per byte would double the
 * largest sections' cost for hosts nobody runs femu on). */
bool state_host_is_little_endian(void);

#endif
