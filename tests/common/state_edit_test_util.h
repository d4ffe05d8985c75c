/*
 * Crafting state files for the refusal tests: a saved file's sections rewritten with one
 * of them edited (a field set, cut, padded or dropped) and valid CRCs, then restored into
 * a fresh FTL, which must refuse it with one line naming what is wrong.
 *
 * The includer defines, before including this header, the file a test saved
 * (`static char path[]`) and the one these helpers write the crafted copy to
 * (`static char copy_path[]`).
 */
#ifndef STATE_EDIT_TEST_UTIL_H
#define STATE_EDIT_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/state.h"
#include "file_test_util.h"
#include "ftl_state_test_util.h"

#ifndef SEC
#define SEC 1000000000ull
#endif

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

static void put_le(unsigned char *p, int bytes, uint64_t v)
{
    for (int i = 0; i < bytes; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

/* How to change one section's payload: its bytes (room for len + 16) and length. */
typedef void (*section_fix)(unsigned char *payload, uint64_t *len, void *opaque);

/* Append n bytes to out, which has room for them. */
static void append(unsigned char *out, size_t *at, const void *p, size_t n)
{
    memcpy(out + *at, p, n);
    *at += n;
}

/* One section's header, payload and CRC (layout in state_file.h). */
static void append_section(unsigned char *out, size_t *at, uint32_t tag,
                           const unsigned char *payload, uint64_t len)
{
    unsigned char head[16] = { 0 }, crc[4];
    put_le(head, 4, tag);
    put_le(head + 8, 8, len);
    put_le(crc, 4, state_crc32c(0, payload, len));
    append(out, at, head, 16);
    append(out, at, payload, len);
    append(out, at, crc, 4);
}

/* The file's sections rewritten into copy_path with valid CRCs and end record, tag's
 * through fix; a fix that sets *len to UINT64_MAX drops the section. Written directly,
 * not through the (fsyncing) state writer: the test writes thousands of these. */
static void rewrite(const unsigned char *b, size_t size, uint32_t tag, section_fix fix,
                    void *opaque)
{
    unsigned char *out = malloc(size + 64);
    size_t n = 0;
    append(out, &n, b, 24);     /* the header */
    for (size_t at = 24; at + 16 <= size;) {
        uint32_t t = (uint32_t)get_le(b + at, 4);
        uint64_t len = get_le(b + at + 8, 8), next = at + 16 + len + 4;
        if (t == STATE_TAG_END) {
            break;
        }
        unsigned char *payload = calloc(1, len + 16);
        memcpy(payload, b + at + 16, len);
        if (t == tag) {
            fix(payload, &len, opaque);
        }
        if (len != UINT64_MAX) {
            append_section(out, &n, t, payload, len);
        }
        free(payload);
        at = next;
    }
    unsigned char end[4];
    put_le(end, 4, state_crc32c(0, out, n));
    append_section(out, &n, STATE_TAG_END, end, 4);
    FILE *f = fopen(copy_path, "wb");
    CHECK(f && fwrite(out, 1, n, f) == n);
    if (f) {
        fclose(f);
    }
    free(out);
}

/* Restoring copy_path into a fresh FTL of cfg: NULL and a one-line reason when refused;
 * an FTL it accepted passed ftl_check() inside the load. */
static bool copy_refused(const struct ftl_config *cfg, char *err, size_t errlen)
{
    err[0] = '\0';
    struct ftl *ftl = load_or_null(cfg, copy_path, SEC, err, errlen);
    ftl_destroy(ftl);
    return ftl == NULL;
}

static bool one_line(const char *err)
{
    return err[0] && !strchr(err, '\n');
}

struct edit {
    uint64_t offset;    /* set `bytes` bytes there to value */
    int bytes;
    uint64_t value;
    uint64_t cut;       /* or keep only this many bytes (UINT64_MAX: no cut) */
    uint64_t pad;       /* or add this many zero bytes */
    bool drop;          /* or drop the section */
};

static void apply_edit(unsigned char *payload, uint64_t *len, void *opaque)
{
    const struct edit *e = opaque;
    if (e->drop) {
        *len = UINT64_MAX;
    } else if (e->cut != UINT64_MAX) {
        *len = e->cut < *len ? e->cut : *len;
    } else if (e->pad) {
        *len += e->pad;     /* rewrite() left 16 zero bytes of room */
    } else if (e->offset + (uint64_t)e->bytes <= *len) {
        put_le(payload + e->offset, e->bytes, e->value);
    }
}

/* The file at path with tag's section edited is refused, naming `want`. */
static void check_refused(const struct ftl_config *cfg, const unsigned char *orig, size_t size,
                          uint32_t tag, struct edit e, const char *want, int line)
{
    char err[512];
    rewrite(orig, size, tag, apply_edit, &e);
    bool refused = copy_refused(cfg, err, sizeof(err));
    if (!check_record(refused && one_line(err) && strstr(err, want), __FILE__, line,
                      "crafted section refused")) {
        fprintf(stderr, "    want \"%s\", got \"%s\"\n", want, refused ? err : "(accepted)");
    }
}

#define EDIT_AT(off, n, v) ((struct edit){ .offset = (off), .bytes = (n), .value = (v), \
                                           .cut = UINT64_MAX })
#define EDIT_CUT(n) ((struct edit){ .cut = (n) })
#define EDIT_PAD(n) ((struct edit){ .cut = UINT64_MAX, .pad = (n) })
#define EDIT_DROP ((struct edit){ .cut = UINT64_MAX, .drop = true })

/* Section tag's payload in a state file's bytes (NULL when absent), its length in *len. */
static const unsigned char *payload_of(const unsigned char *b, size_t size, uint32_t tag,
                                       uint64_t *len)
{
    for (size_t at = 24; at + 16 <= size;) {
        uint64_t slen = get_le(b + at + 8, 8);
        if (get_le(b + at, 4) == tag) {
            *len = slen;
            return b + at + 16;
        }
        at += 16 + slen + 4;
    }
    *len = 0;
    return NULL;
}

/*
 * Every module section of the file at path: missing, cut anywhere, padded, its version
 * changed, or any of its bytes set to 0x00 or 0xff (CRCs fixed): refused with one line or
 * restored into a consistent FTL, never a crash (the asan build runs this too); a flipped
 * byte without its CRC fixed is a CRC mismatch.
 */
static void check_section_damage(const struct ftl_config *cfg, uint32_t tag)
{
    char name[5], want[32], err[512];
    state_tag_name(tag, name);
    size_t size;
    unsigned char *orig = read_whole(path, &size);
    uint64_t len;
    const unsigned char *payload = payload_of(orig, size, tag, &len);
    CHECK(payload && len >= 12);

    snprintf(want, sizeof(want), "no %s section", name);
    check_refused(cfg, orig, size, tag, EDIT_DROP, want, __LINE__);
    snprintf(want, sizeof(want), "section %s", name);
    check_refused(cfg, orig, size, tag, EDIT_AT(0, 4, 99), "layout version 99", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_PAD(1), want, __LINE__);
    uint64_t cut_refused = 0, cuts = 0;
    for (uint64_t cut = 0; cut < len; cut += cut < 64 ? 1 : len / 37 + 1, cuts++) {
        struct edit e = EDIT_CUT(cut);
        rewrite(orig, size, tag, apply_edit, &e);
        cut_refused += copy_refused(cfg, err, sizeof(err)) && one_line(err) &&
                       strstr(err, want);
    }
    CHECK_EQ_U64(cut_refused, cuts);

    uint64_t tries = 0, refused = 0, not_one_line = 0;
    for (uint64_t off = 0; off < len; off += len < 600 ? 1 : len / 300) {
        for (int v = 0; v < 2; v++) {
            struct edit e = EDIT_AT(off, 1, v ? 0xff : 0x00);
            rewrite(orig, size, tag, apply_edit, &e);
            bool r = copy_refused(cfg, err, sizeof(err));
            tries++;
            refused += r;
            not_one_line += r && !one_line(err);
        }
    }
    CHECK_EQ_U64(not_one_line, 0);
    CHECK(refused > 0 && refused < tries);  /* some bytes (LPNs, masks) may take any value */
    printf("  %s: %llu of %llu one-byte edits refused\n", name, (unsigned long long)refused,
           (unsigned long long)tries);

    /* a flipped byte without its CRC fixed */
    unsigned char *flipped = malloc(size);
    memcpy(flipped, orig, size);
    flipped[(size_t)(payload - orig) + len / 2] ^= 0x10;
    FILE *f = fopen(copy_path, "wb");
    fwrite(flipped, 1, size, f);
    fclose(f);
    CHECK(copy_refused(cfg, err, sizeof(err)));
    CHECK_CONTAINS(err, "CRC mismatch");
    free(flipped);
    free(orig);
}

#endif
