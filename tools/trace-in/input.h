/*
 * input.h - a trace's bytes, opened once and read from the start as often as needed
 * (format detection, the checking pre-pass, the replay) without opening its name again:
 * a stream read twice by name gives the second reader nothing, or only its tail.
 *
 * A regular file is kept open and read again from its start. Anything else (standard
 * input "-", a pipe, a FIFO, /dev/stdin, a process substitution) is read once: its bytes
 * are copied, raw (still compressed if it was), into an unlinked temporary file in
 * $TMPDIR (else /tmp) as the first reader takes them, and every later reader reads that
 * copy, then the stream where the copy ends. So a stream is read only as far as needed
 * (/dev/zero fails at its first line), takes as much disk as was read, and a full disk
 * is one read error.
 */
#ifndef TRACE_IN_INPUT_H
#define TRACE_IN_INPUT_H

#include <stddef.h>
#include <stdio.h>

struct tin_input;

/* path ("-": standard input); NULL with "PATH: why" in err. */
struct tin_input *tin_input_open(const char *path, char *err, size_t errlen);

/* A new read-only stream over the bytes from the first; each has its own position, so
 * an earlier one may still be open. The caller fcloses it. NULL when out of memory. */
FILE *tin_input_stream(struct tin_input *in);

/* The name it was opened by, for messages. */
const char *tin_input_path(const struct tin_input *in);

void tin_input_close(struct tin_input *in);

#endif
