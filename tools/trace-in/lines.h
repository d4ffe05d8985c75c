/*
 * lines.h - a source's text one line at a time: LF or CRLF endings, a last line without
 * a newline, line numbers from 1. A line longer than LINES_MAX bytes or holding a NUL
 * byte is an error naming FILE:LINE (a binary or wrong file, not a trace).
 */
#ifndef TRACE_IN_LINES_H
#define TRACE_IN_LINES_H

#include <stddef.h>

#include "source.h"

#define LINES_MAX 4096

struct lines;

/* Reads from src, which stays the caller's; path names the file in messages. */
struct lines *lines_open(struct source *src, const char *path);

/* 1: *line is the next line (NUL-terminated, writable, valid until the next call);
 * 0: end of file; -1: error in err. */
int lines_next(struct lines *l, char **line, char *err, size_t errlen);

/* The number of the line lines_next returned last. */
unsigned long lines_number(const struct lines *l);

void lines_close(struct lines *l);

#endif
