/* input.c - a trace opened once, streams spooled to a temporary file (input.h). */
#define _GNU_SOURCE     /* fopencookie, O_CLOEXEC */
#include "input.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tin_input {
    int fd;         /* the file itself, or the spool of a stream */
    off_t start;    /* where the trace starts in it: standard input may be a file
                     * partly read already */
    char *path;
    /* a stream: its descriptor (-1 once at its end, or for a file), the bytes spooled so
     * far, and a reason once it failed (every later read fails the same way) */
    int source;
    off_t spooled;
    bool failed;
};

/* Where a stream is spooled: $TMPDIR when set, else /tmp. */
static const char *spool_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && dir[0] ? dir : "/tmp";
}

/* An unlinked temporary file for a stream's bytes: its descriptor, or -1 with "PATH: why"
 * in err. */
static int make_spool(const char *path, char *err, size_t errlen)
{
    const char *dir = spool_dir();
    char name[4096];
    if (snprintf(name, sizeof(name), "%s/femu-trace-spool-XXXXXX", dir) >= (int)sizeof(name)) {
        snprintf(err, errlen, "%s: TMPDIR %.200s is too long a name", path, dir);
        return -1;
    }
    int out = mkostemp(name, O_CLOEXEC);
    if (out < 0) {
        snprintf(err, errlen, "%s: cannot spool the stream into %s: %s", path, dir,
                 strerror(errno));
        return -1;
    }
    unlink(name);   /* gone with the descriptor, however the process ends */
    return out;
}

struct tin_input *tin_input_open(const char *path, char *err, size_t errlen)
{
    struct tin_input *in = calloc(1, sizeof(*in));
    if (!in || !(in->path = strdup(path))) {
        free(in);
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    in->fd = in->source = -1;
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        tin_input_close(in);
        return NULL;
    }
    if (S_ISREG(st.st_mode)) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        in->fd = fd;
        in->start = at > 0 ? at : 0;
        return in;
    }
    in->source = fd;
    in->fd = make_spool(path, err, errlen);
    if (in->fd < 0) {
        tin_input_close(in);
        return NULL;
    }
    return in;
}

/* Write all of buf to the spool at its end; 0, or -1 (errno set). */
static int spool_append(struct tin_input *in, const char *buf, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t w = pwrite(in->fd, buf + done, len - done, in->spooled + (off_t)done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            if (w == 0) {
                errno = ENOSPC;
            }
            return -1;
        }
        done += (size_t)w;
    }
    in->spooled += (off_t)len;
    return 0;
}

/*
 * The next bytes of a stream beyond what is spooled, read from it and spooled as they
 * pass: a stream is read once, and only as far as some reader needs (a file of NUL bytes
 * from /dev/zero fails at its first line, not at a full disk).
 */
static ssize_t pull(struct tin_input *in, char *buf, size_t len)
{
    if (in->failed) {
        errno = EIO;
        return -1;
    }
    if (in->source < 0) {
        return 0;
    }
    ssize_t n;
    do {
        n = read(in->source, buf, len);
    } while (n < 0 && errno == EINTR);
    if (n == 0) {
        close(in->source);
        in->source = -1;
        return 0;
    }
    if (n < 0 || spool_append(in, buf, (size_t)n)) {
        /* the stream is gone past this point: every reader sees the same failure */
        in->failed = true;
        return -1;
    }
    return n;
}

/* A stream's own position over the shared input. */
struct reading {
    struct tin_input *in;
    off_t pos;
};

static ssize_t reading_read(void *cookie, char *buf, size_t len)
{
    struct reading *r = cookie;
    struct tin_input *in = r->in;
    ssize_t n;
    if (in->source >= 0 && r->pos >= in->spooled) {
        n = pull(in, buf, len);     /* the newest bytes: from the stream itself */
    } else {
        size_t want = len;
        if (in->source >= 0 && (off_t)want > in->spooled - r->pos) {
            want = (size_t)(in->spooled - r->pos);  /* the rest comes from the stream */
        }
        do {
            n = pread(in->fd, buf, want, r->pos);
        } while (n < 0 && errno == EINTR);
    }
    if (n > 0) {
        r->pos += n;
    }
    return n;
}

static int reading_close(void *cookie)
{
    free(cookie);
    return 0;
}

FILE *tin_input_stream(struct tin_input *in)
{
    struct reading *r = calloc(1, sizeof(*r));
    if (!r) {
        return NULL;
    }
    r->in = in;
    r->pos = in->start;
    cookie_io_functions_t io = { .read = reading_read, .close = reading_close };
    FILE *f = fopencookie(r, "r", io);
    if (!f) {
        free(r);
    }
    return f;
}

const char *tin_input_path(const struct tin_input *in)
{
    return in->path;
}

void tin_input_close(struct tin_input *in)
{
    if (in) {
        if (in->fd >= 0) {
            close(in->fd);
        }
        if (in->source >= 0) {
            close(in->source);
        }
        free(in->path);
        free(in);
    }
}
