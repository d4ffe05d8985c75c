/*
 * A section's layout written once for both directions: a function that names each field
 * in order through these calls encodes a struct into a state_buf (put) or decodes one
 * from a state_cursor (get), so the save and the restore cannot disagree on an offset.
 * The decoded struct is checked whole afterwards; a get past the end sets the cursor's
 * overrun and yields zeroes.
 */
#ifndef FEMU_STATE_FIELD_H
#define FEMU_STATE_FIELD_H

#include "state_codec.h"

struct state_fields {
    struct state_buf *put;      /* encoding: the fields' values go here */
    struct state_cursor *get;   /* decoding: the fields are read from here */
};

static inline void state_field_u8(struct state_fields *f, uint8_t *v)
{
    if (f->put) {
        state_buf_u8(f->put, *v);
    } else {
        *v = state_cur_u8(f->get);
    }
}

static inline void state_field_u32(struct state_fields *f, uint32_t *v)
{
    if (f->put) {
        state_buf_u32(f->put, *v);
    } else {
        *v = state_cur_u32(f->get);
    }
}

static inline void state_field_u64(struct state_fields *f, uint64_t *v)
{
    if (f->put) {
        state_buf_u64(f->put, *v);
    } else {
        *v = state_cur_u64(f->get);
    }
}

static inline void state_field_bytes(struct state_fields *f, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        state_field_u8(f, &p[i]);
    }
}

#endif
