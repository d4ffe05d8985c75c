/*
 * Helpers of the femu trace reader tests (tests/trace-in/test_trace*.c): a trace written
 * to a temporary file, and the check that a file yields some records and then one error
 * line naming the file and line, a file opened as a trace of a version, requests recorded
 * by the engine's writer, and the writer's refusal of a request its version has no record
 * for. Define
 * TRACE_TEST_PREFIX (the temporary files' name) before including; include check.h,
 * temp_file.h and femu_trace.h first.
 */
#ifndef TRACE_TEST_UTIL_H
#define TRACE_TEST_UTIL_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char tmp_path[4096];

/* Write len bytes to a fresh temporary file; returns its path. */
static inline const char *write_tmp(const char *data, size_t len)
{
    return write_temp_file(tmp_path, sizeof(tmp_path), TRACE_TEST_PREFIX, data, len);
}

static inline const char *write_str(const char *s)
{
    return write_tmp(s, strlen(s));
}

/* The file yields n_ok records, then one error line "PATH:LINE: ...what...", which is
 * final: asking again gives it again. */
static inline void expect_error(const char *content, int n_ok, unsigned long line,
                                const char *what, int src_line)
{
    char err[512] = "", want[600], again[512] = "";
    const char *path = write_str(content);
    struct trace_reader *t = trace_open(path, err, sizeof(err));
    struct trace_record rec;
    int rc = -2, got = 0;

    if (!check_record(t != NULL, __FILE__, src_line, "trace_open")) {
        unlink(path);
        return;
    }
    while ((rc = trace_next(t, &rec, err, sizeof(err))) == 1) {
        got++;
    }
    snprintf(want, sizeof(want), "%s:%lu: ", path, line);
    if (!check_record(rc == -1 && got == n_ok && strstr(err, want) == err &&
                      strstr(err, what) != NULL && strchr(err, '\n') == NULL,
                      __FILE__, src_line, what)) {
        fprintf(stderr, "    rc %d after %d records: '%s'\n", rc, got, err);
    }
    check_record(trace_next(t, &rec, again, sizeof(again)) == -1 && strcmp(again, err) == 0,
                 __FILE__, src_line, "error repeats");
    trace_close(t);
    unlink(path);
}
#define EXPECT_ERROR(c, n, l, w) expect_error((c), (n), (l), (w), __LINE__)

/* path opened as a trace (of version, unless 0); NULL, a failed check, when it does not
 * open or is another version. The caller closes it. */
static inline struct trace_reader *open_trace(const char *path, int version, int src_line)
{
    char err[512] = "";
    struct trace_reader *t = trace_open(path, err, sizeof(err));

    if (!check_record(t != NULL && (version == 0 || trace_version(t) == version), __FILE__,
                      src_line, "trace_open")) {
        fprintf(stderr, "    %s\n", t ? "another version" : err);
        if (t) {
            trace_close(t);
        }
        return NULL;
    }
    return t;
}
#define OPEN_TRACE(path, version) open_trace((path), (version), __LINE__)

/* The whole file as text (small files only). */
static inline void read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f) {
        fclose(f);
    }
}

/* reqs[0..n) recorded into a fresh temporary file as a trace of version (the caller's
 * sector size secsz), ended at end_ns, and read back into text; the file's path, or NULL
 * (a failed CHECK) when the writer failed. */
static inline const char *record_requests(int version, uint64_t secsz,
                                          const struct ftl_request *reqs, size_t n,
                                          uint64_t end_ns, char *text, size_t textlen)
{
    char err[512] = "";
    const char *path = write_str("");
    struct io_trace_writer *w = io_trace_writer_open_version(path, "test", 0, secsz, version,
                                                             err, sizeof(err));
    CHECK(w != NULL);
    if (w == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        CHECK(io_trace_write_request(w, &reqs[i], err, sizeof(err)) == 0);
    }
    CHECK(io_trace_writer_close(w, end_ns, err, sizeof(err)) == 0);
    read_text(path, text, textlen);
    return path;
}

/* A writer of version refuses r once, its error holding want, then writes on (the
 * failure is reported once, the run goes on). */
static inline void expect_writer_refuses(int version, const struct ftl_request *r,
                                         const char *want, int src_line)
{
    char err[512] = "";
    const char *path = write_str("");
    struct io_trace_writer *w = io_trace_writer_open_version(path, "test", 0, 512, version,
                                                             err, sizeof(err));
    if (!check_record(w != NULL, __FILE__, src_line, "io_trace_writer_open_version")) {
        unlink(path);
        return;
    }
    err[0] = '\0';
    if (!check_record(io_trace_write_request(w, r, err, sizeof(err)) == -1 &&
                      strstr(err, want) != NULL, __FILE__, src_line, want)) {
        fprintf(stderr, "    got: \"%s\"\n", err);
    }
    check_record(io_trace_write_request(w, r, err, sizeof(err)) == 0, __FILE__, src_line,
                 "the second write goes on");
    io_trace_writer_close(w, 0, NULL, 0);
    unlink(path);
}
#define EXPECT_WRITER_REFUSES(v, r, w) expect_writer_refuses((v), (r), (w), __LINE__)

#endif
