/*
 * source.h - a trace file's bytes, plain, gzip or xz (told apart by their magic bytes,
 * never by the name), read in large blocks: the decompression is streamed, never the
 * whole file in memory. The first SOURCE_PEEK bytes can be looked at before reading
 * (format detection) without being consumed.
 */
#ifndef TRACE_IN_SOURCE_H
#define TRACE_IN_SOURCE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define SOURCE_PEEK 65536

enum source_codec { SOURCE_PLAIN, SOURCE_GZIP, SOURCE_XZ };

struct source;

/* Over f (owned from here on: closed with the source, or now on failure), named path in
 * messages; NULL with "PATH: why" in err. */
struct source *source_open(FILE *f, const char *path, char *err, size_t errlen);

/* Up to SOURCE_PEEK decoded bytes from the start, not consumed: *len may be less at the
 * end of a short file. -1 with a reason on a read or decode error. */
int source_peek(struct source *s, const char **data, size_t *len, char *err, size_t errlen);

/* Decoded bytes into buf: > 0 bytes, 0 at the end, -1 with a reason in err. */
ssize_t source_read(struct source *s, char *buf, size_t len, char *err, size_t errlen);

enum source_codec source_codec(const struct source *s);
const char *source_codec_name(enum source_codec c);

/* The source as a read-only stdio stream (for the femu reader); the stream owns the
 * source: fclose closes both. NULL when out of memory. */
FILE *source_stream(struct source *s);

void source_close(struct source *s);

#endif
