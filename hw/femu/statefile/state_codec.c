/* Fixed-width fields of state file sections (state_codec.h). */
#include "state_codec.h"
#include "state_file_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *buf_room(struct state_buf *b, size_t n)
{
    if (b->failed) {
        return NULL;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) {
            cap *= 2;
        }
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    unsigned char *at = b->p + b->len;
    b->len += n;
    return at;
}

void state_buf_u8(struct state_buf *b, uint8_t v)
{
    unsigned char *p = buf_room(b, 1);
    if (p) {
        *p = v;
    }
}

void state_buf_u32(struct state_buf *b, uint32_t v)
{
    unsigned char *p = buf_room(b, 4);
    if (p) {
        state_put_le32(p, v);
    }
}

void state_buf_u64(struct state_buf *b, uint64_t v)
{
    unsigned char *p = buf_room(b, 8);
    if (p) {
        state_put_le64(p, v);
    }
}

int state_buf_section(struct state_buf *b, struct state_writer *w, uint32_t tag,
                      char *err, size_t errlen)
{
    char name[5];
    int rc = 0;
    if (b->failed) {
        snprintf(err, errlen, "section %s: out of memory", state_tag_name(tag, name));
        rc = -1;
    } else if (state_writer_section(w, tag, b->p, b->len)) {
        const char *why = state_writer_error(w);
        snprintf(err, errlen, "section %s: %s", state_tag_name(tag, name),
                 why ? why : "write failed");
        rc = -1;
    }
    free(b->p);
    *b = (struct state_buf){ 0 };
    return rc;
}

static const unsigned char *cur_take(struct state_cursor *c, size_t n)
{
    if (c->overrun || c->len - c->pos < n) {
        c->overrun = true;
        return NULL;
    }
    const unsigned char *p = c->p + c->pos;
    c->pos += n;
    return p;
}

uint8_t state_cur_u8(struct state_cursor *c)
{
    const unsigned char *p = cur_take(c, 1);
    return p ? *p : 0;
}

uint32_t state_cur_u32(struct state_cursor *c)
{
    const unsigned char *p = cur_take(c, 4);
    return p ? state_get_le32(p) : 0;
}

uint64_t state_cur_u64(struct state_cursor *c)
{
    const unsigned char *p = cur_take(c, 8);
    return p ? state_get_le64(p) : 0;
}

void state_cursor_free(struct state_cursor *c)
{
    free(c->p);
    *c = (struct state_cursor){ 0 };
}

int state_cursor_load(struct state_reader *r, uint32_t tag, uint64_t expected, uint64_t max,
                      struct state_cursor *c, char *err, size_t errlen)
{
    char name[5];
    uint64_t len = 0;
    *c = (struct state_cursor){ 0 };
    state_tag_name(tag, name);
    if (!state_reader_has(r, tag, &len)) {
        snprintf(err, errlen, "%s: no %s section", state_reader_path(r), name);
        return -1;
    }
    if (expected ? len != expected : len > max) {
        snprintf(err, errlen, "%s: section %s: %llu bytes, expected %s%llu",
                 state_reader_path(r), name, (unsigned long long)len,
                 expected ? "" : "at most ", (unsigned long long)(expected ? expected : max));
        return -1;
    }
    c->p = malloc(len ? (size_t)len : 1);
    if (!c->p) {
        snprintf(err, errlen, "%s: section %s: out of memory", state_reader_path(r), name);
        return -1;
    }
    c->len = (size_t)len;
    if (state_reader_seek(r, tag, err, errlen) || state_reader_read(r, c->p, len, err, errlen)) {
        state_cursor_free(c);
        return -1;
    }
    return 0;
}

bool state_host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}
