/* lines.c - splitting a source into lines, in one large buffer refilled as it drains. */
#include "lines.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER (1u << 20)

struct lines {
    struct source *src;
    const char *path;
    unsigned long number;
    size_t start, end;      /* unread bytes: buf[start..end) */
    bool eof;
    char buf[BUFFER + 1];   /* + 1: room for the NUL of a last line without newline */
};

struct lines *lines_open(struct source *src, const char *path)
{
    struct lines *l = malloc(sizeof(*l));
    if (l) {
        l->src = src;
        l->path = path;
        l->number = 0;
        l->start = l->end = 0;
        l->eof = false;
    }
    return l;
}

/* Move the unread bytes to the front and read more behind them. */
static int refill(struct lines *l, char *err, size_t errlen)
{
    memmove(l->buf, l->buf + l->start, l->end - l->start);
    l->end -= l->start;
    l->start = 0;
    ssize_t n = source_read(l->src, l->buf + l->end, BUFFER - l->end, err, errlen);
    if (n < 0) {
        return -1;
    }
    l->eof = n == 0;
    l->end += (size_t)n;
    return 0;
}

static int line_error(const struct lines *l, const char *why, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s:%lu: %s", l->path, l->number, why);
    return -1;
}

int lines_next(struct lines *l, char **line, char *err, size_t errlen)
{
    char *nl;
    for (;;) {
        nl = memchr(l->buf + l->start, '\n', l->end - l->start);
        if (nl || l->eof) {
            break;
        }
        if (l->end - l->start > LINES_MAX + 1) {
            l->number++;
            return line_error(l, "line longer than 4096 bytes", err, errlen);
        }
        if (refill(l, err, errlen)) {
            return -1;
        }
    }
    if (!nl && l->start == l->end) {
        return 0;
    }
    char *s = l->buf + l->start;
    size_t len = nl ? (size_t)(nl - s) : l->end - l->start;
    l->number++;
    l->start += len + (nl ? 1 : 0);
    if (len > 0 && s[len - 1] == '\r') {
        len--;
    }
    if (len > LINES_MAX) {
        return line_error(l, "line longer than 4096 bytes", err, errlen);
    }
    if (memchr(s, '\0', len)) {
        return line_error(l, "NUL byte (not a text trace?)", err, errlen);
    }
    s[len] = '\0';
    *line = s;
    return 1;
}

unsigned long lines_number(const struct lines *l)
{
    return l->number;
}

void lines_close(struct lines *l)
{
    free(l);
}
