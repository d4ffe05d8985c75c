/* source.c - plain, gzip (zlib) and xz (liblzma) input behind one read call. */
#define _GNU_SOURCE     /* fopencookie */
#include "source.h"

#include <errno.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define RAW_BLOCK 262144

struct source {
    FILE *f;
    char *path;
    enum source_codec codec;
    z_stream z;
    lzma_stream x;
    bool raw_eof, decoded_eof;
    unsigned char raw[RAW_BLOCK];
    size_t raw_len, raw_pos;
    /* the first decoded bytes, kept for source_peek and then handed out first */
    char peek[SOURCE_PEEK];
    size_t peek_len, peek_pos;
    bool peeked;
    bool failed;
    char failure[256];
};

static int fail(struct source *s, char *err, size_t errlen, const char *what)
{
    s->failed = true;
    snprintf(s->failure, sizeof(s->failure), "%s: %s", s->path, what);
    if (err && errlen) {
        snprintf(err, errlen, "%s", s->failure);
    }
    return -1;
}

/* Refill the raw block; 0 or -1. Sets raw_eof at the end of the file. */
static int fill_raw(struct source *s, char *err, size_t errlen)
{
    if (s->raw_pos < s->raw_len || s->raw_eof) {
        return 0;
    }
    s->raw_len = fread(s->raw, 1, sizeof(s->raw), s->f);
    s->raw_pos = 0;
    if (s->raw_len < sizeof(s->raw)) {
        if (ferror(s->f)) {
            return fail(s, err, errlen, strerror(errno));
        }
        s->raw_eof = true;
    }
    return 0;
}

static enum source_codec sniff(const unsigned char *b, size_t n)
{
    static const unsigned char xz_magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        return SOURCE_GZIP;
    }
    if (n >= sizeof(xz_magic) && memcmp(b, xz_magic, sizeof(xz_magic)) == 0) {
        return SOURCE_XZ;
    }
    return SOURCE_PLAIN;
}

struct source *source_open(FILE *f, const char *path, char *err, size_t errlen)
{
    struct source *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    s->f = f;
    if (fill_raw(s, err, errlen)) {
        source_close(s);
        return NULL;
    }
    s->codec = sniff(s->raw, s->raw_len);
    bool ok = true;
    if (s->codec == SOURCE_GZIP) {
        /* 16 + MAX_WBITS: a gzip wrapper only */
        ok = inflateInit2(&s->z, 16 + MAX_WBITS) == Z_OK;
    } else if (s->codec == SOURCE_XZ) {
        lzma_stream init = LZMA_STREAM_INIT;
        s->x = init;
        ok = lzma_stream_decoder(&s->x, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK;
    }
    if (!ok) {
        snprintf(err, errlen, "%s: cannot start the decompressor", path);
        s->codec = SOURCE_PLAIN;
        source_close(s);
        return NULL;
    }
    return s;
}

static ssize_t read_gzip(struct source *s, char *buf, size_t len, char *err, size_t errlen)
{
    while (!s->decoded_eof) {
        if (fill_raw(s, err, errlen)) {
            return -1;
        }
        s->z.next_in = s->raw + s->raw_pos;
        s->z.avail_in = (uInt)(s->raw_len - s->raw_pos);
        s->z.next_out = (Bytef *)buf;
        s->z.avail_out = (uInt)len;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        s->raw_pos = s->raw_len - s->z.avail_in;
        size_t got = len - s->z.avail_out;
        if (rc == Z_STREAM_END) {
            /* another gzip member may follow (concatenated files, pigz) */
            if (fill_raw(s, err, errlen)) {
                return -1;
            }
            if (s->raw_pos == s->raw_len && s->raw_eof) {
                s->decoded_eof = true;
            } else if (inflateReset(&s->z) != Z_OK) {
                return fail(s, err, errlen, "gzip: cannot restart for the next member");
            }
        } else if (rc == Z_BUF_ERROR && got == 0 && s->raw_eof && s->raw_pos == s->raw_len) {
            return fail(s, err, errlen, "gzip data ends early (truncated file?)");
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            return fail(s, err, errlen, "gzip data is corrupt");
        }
        if (got > 0) {
            return (ssize_t)got;
        }
    }
    return 0;
}

static ssize_t read_xz(struct source *s, char *buf, size_t len, char *err, size_t errlen)
{
    while (!s->decoded_eof) {
        if (fill_raw(s, err, errlen)) {
            return -1;
        }
        s->x.next_in = s->raw + s->raw_pos;
        s->x.avail_in = s->raw_len - s->raw_pos;
        s->x.next_out = (uint8_t *)buf;
        s->x.avail_out = len;
        lzma_ret rc = lzma_code(&s->x, s->raw_eof && s->x.avail_in == 0 ? LZMA_FINISH
                                                                        : LZMA_RUN);
        s->raw_pos = s->raw_len - s->x.avail_in;
        size_t got = len - s->x.avail_out;
        if (rc == LZMA_STREAM_END) {
            s->decoded_eof = true;
        } else if (rc == LZMA_BUF_ERROR && s->raw_eof) {
            return fail(s, err, errlen, "xz data ends early (truncated file?)");
        } else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
            return fail(s, err, errlen, "xz data is corrupt");
        }
        if (got > 0) {
            return (ssize_t)got;
        }
    }
    return 0;
}

/* The decoder itself, below the peek buffer. */
static ssize_t decode(struct source *s, char *buf, size_t len, char *err, size_t errlen)
{
    if (s->failed) {
        snprintf(err, errlen, "%s", s->failure);
        return -1;
    }
    if (s->codec == SOURCE_GZIP) {
        return read_gzip(s, buf, len, err, errlen);
    }
    if (s->codec == SOURCE_XZ) {
        return read_xz(s, buf, len, err, errlen);
    }
    if (fill_raw(s, err, errlen)) {
        return -1;
    }
    size_t n = s->raw_len - s->raw_pos < len ? s->raw_len - s->raw_pos : len;
    memcpy(buf, s->raw + s->raw_pos, n);
    s->raw_pos += n;
    return (ssize_t)n;
}

int source_peek(struct source *s, const char **data, size_t *len, char *err, size_t errlen)
{
    while (!s->peeked) {
        ssize_t n = decode(s, s->peek + s->peek_len, sizeof(s->peek) - s->peek_len, err,
                           errlen);
        if (n < 0) {
            return -1;
        }
        s->peek_len += (size_t)n;
        s->peeked = n == 0 || s->peek_len == sizeof(s->peek);
    }
    *data = s->peek;
    *len = s->peek_len;
    return 0;
}

ssize_t source_read(struct source *s, char *buf, size_t len, char *err, size_t errlen)
{
    if (s->peek_pos < s->peek_len) {
        size_t n = s->peek_len - s->peek_pos < len ? s->peek_len - s->peek_pos : len;
        memcpy(buf, s->peek + s->peek_pos, n);
        s->peek_pos += n;
        return (ssize_t)n;
    }
    return decode(s, buf, len, err, errlen);
}

enum source_codec source_codec(const struct source *s)
{
    return s->codec;
}

const char *source_codec_name(enum source_codec c)
{
    return c == SOURCE_GZIP ? "gzip" : c == SOURCE_XZ ? "xz" : "plain";
}

static ssize_t stream_read(void *cookie, char *buf, size_t len)
{
    char err[256];
    ssize_t n = source_read(cookie, buf, len, err, sizeof(err));
    if (n < 0) {
        errno = EIO;
    }
    return n;
}

static int stream_close(void *cookie)
{
    source_close(cookie);
    return 0;
}

FILE *source_stream(struct source *s)
{
    cookie_io_functions_t io = { .read = stream_read, .close = stream_close };
    return fopencookie(s, "r", io);
}

void source_close(struct source *s)
{
    if (!s) {
        return;
    }
    if (s->codec == SOURCE_GZIP) {
        inflateEnd(&s->z);
    } else if (s->codec == SOURCE_XZ) {
        lzma_end(&s->x);
    }
    fclose(s->f);
    free(s->path);
    free(s);
}
