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

#define COPY_BLOCK 262144

struct tin_input {
    int fd;         /* the file itself, or the spool of a stream */
    off_t start;    /* where the trace starts in it: standard input may be a file
                     * partly read already */
    char *path;
};

/* Where a stream is spooled: $TMPDIR when set, else /tmp. */
static const char *spool_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && dir[0] ? dir : "/tmp";
}

/* Copy everything from fd into an unlinked temporary file: its descriptor, or -1 with
 * "PATH: why" in err. */
static int spool(int fd, const char *path, char *err, size_t errlen)
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
    static char buf[COPY_BLOCK];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            close(out);
            return -1;
        }
        if (n == 0) {
            return out;
        }
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR) {
                continue;
            }
            if (w <= 0) {
                snprintf(err, errlen, "%s: cannot spool the stream into %s (it needs as "
                         "much space as the stream): %s", path, dir,
                         w < 0 ? strerror(errno) : "nothing written");
                close(out);
                return -1;
            }
            done += w;
        }
    }
}

struct tin_input *tin_input_open(const char *path, char *err, size_t errlen)
{
    struct tin_input *in = calloc(1, sizeof(*in));
    if (!in || !(in->path = strdup(path))) {
        free(in);
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    in->fd = -1;
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
    in->fd = spool(fd, path, err, errlen);
    close(fd);
    if (in->fd < 0) {
        tin_input_close(in);
        return NULL;
    }
    return in;
}

/* A stream's own position over the shared descriptor. */
struct reading {
    int fd;
    off_t pos;
};

static ssize_t reading_read(void *cookie, char *buf, size_t len)
{
    struct reading *r = cookie;
    ssize_t n;
    do {
        n = pread(r->fd, buf, len, r->pos);
    } while (n < 0 && errno == EINTR);
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
    r->fd = in->fd;
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
        free(in->path);
        free(in);
    }
}
