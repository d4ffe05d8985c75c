/*
 * one_line.h - an error message as exactly one line: the tools promise one line per
 * error, and the text may quote a file name or an option value holding a newline or an
 * escape sequence, which is written as '?'.
 */
#ifndef FTL_SIM_ONE_LINE_H
#define FTL_SIM_ONE_LINE_H

#include <stdio.h>

/* "TOOL: message\n" on f, each control byte of the message as '?'. */
void one_line(FILE *f, const char *tool, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
