/* A trace opened once (tools/trace-in/input.h): a regular file and a pipe each give any
 * number of streams from the first byte, each with its own position; a pipe is spooled
 * into TMPDIR as far as it is read (readers interleaved: each sees every byte once, in
 * order), and a TMPDIR that cannot take it is one error naming the trace. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "input.h"
#include "temp_file.h"

static const char text[] = "W 0 8\nW 8 8\nR 0 16\n";

/* Whether stream f holds exactly text; closes it. */
static bool holds_text(FILE *f)
{
    char buf[64];
    size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
    if (f) {
        fclose(f);
    }
    return n == sizeof(text) - 1 && memcmp(buf, text, n) == 0;
}

/* A pipe holding text, its write end closed: its name under /dev/fd. */
static int pipe_with_text(char *name, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0 ||
        write(fds[1], text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1) {
        return -1;
    }
    close(fds[1]);
    snprintf(name, len, "/dev/fd/%d", fds[0]);
    return fds[0];
}

/* The text's pipe opened as an input (its write end closed); NULL, and a failed check,
 * if either step fails. */
static struct tin_input *open_pipe_input(void)
{
    char name[64], err[256];
    int fd = pipe_with_text(name, sizeof(name));
    CHECK(fd >= 0);
    struct tin_input *in = tin_input_open(name, err, sizeof(err));
    close(fd);
    CHECK(in != NULL);
    return in;
}

static void test_file_read_twice(void)
{
    char path[256], err[256];
    write_temp_file(path, sizeof(path), "input", text, sizeof(text) - 1);
    struct tin_input *in = tin_input_open(path, err, sizeof(err));
    CHECK(in != NULL);
    if (in) {
        FILE *first = tin_input_stream(in);
        char c;
        CHECK(first && fread(&c, 1, 1, first) == 1 && c == 'W');     /* still open ... */
        CHECK(holds_text(tin_input_stream(in)));    /* ... this one starts at 0 */
        CHECK(holds_text(tin_input_stream(in)));
        fclose(first);
        tin_input_close(in);
    }
    unlink(path);
}

static void test_pipe_spooled_once(void)
{
    struct tin_input *in = open_pipe_input();
    if (in) {
        CHECK(holds_text(tin_input_stream(in)));
        CHECK(holds_text(tin_input_stream(in)));    /* the pipe itself is empty by now */
        tin_input_close(in);
    }
}

/* The first reader takes one byte (unbuffered), the second reads all (the spooled byte,
 * then the pipe), the first then reads the rest from the spool. */
static void test_pipe_read_in_parts(void)
{
    struct tin_input *in = open_pipe_input();
    if (in) {
        FILE *first = tin_input_stream(in);
        char buf[64];
        CHECK(first && setvbuf(first, NULL, _IONBF, 0) == 0);
        CHECK(first && fread(buf, 1, 1, first) == 1 && buf[0] == 'W');
        CHECK(holds_text(tin_input_stream(in)));
        size_t n = first ? fread(buf + 1, 1, sizeof(buf) - 1, first) : 0;
        CHECK(n + 1 == sizeof(text) - 1 && memcmp(buf, text, n + 1) == 0);
        if (first) {
            fclose(first);
        }
        tin_input_close(in);
    }
}

/* /dev/zero is read only as far as a reader goes: a bounded read, not a full disk. */
static void test_endless_stream_read_as_needed(void)
{
    char err[256];
    struct tin_input *in = tin_input_open("/dev/zero", err, sizeof(err));
    CHECK(in != NULL);
    if (in) {
        FILE *f = tin_input_stream(in);
        char buf[4096];
        CHECK(f && fread(buf, 1, sizeof(buf), f) == sizeof(buf) && buf[4095] == 0);
        if (f) {
            fclose(f);
        }
        tin_input_close(in);
    }
}

static void test_spool_folder_missing(void)
{
    char name[64], err[512] = "";
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    int fd = pipe_with_text(name, sizeof(name));
    setenv("TMPDIR", "/nonexistent/spool", 1);
    CHECK(tin_input_open(name, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "cannot spool the stream into /nonexistent/spool");
    CHECK(strncmp(err, name, strlen(name)) == 0 && strchr(err, '\n') == NULL);
    close(fd);
    if (saved) {
        setenv("TMPDIR", saved, 1);
        free(saved);
    } else {
        unsetenv("TMPDIR");
    }
}

static void test_missing_file(void)
{
    char err[256];
    CHECK(tin_input_open("/nonexistent/trace", err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "/nonexistent/trace: cannot open:");
}

int main(void)
{
    test_file_read_twice();
    test_pipe_spooled_once();
    test_pipe_read_in_parts();
    test_endless_stream_read_as_needed();
    test_spool_folder_missing();
    test_missing_file();
    return check_summary();
}
