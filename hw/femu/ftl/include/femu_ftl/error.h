/* One-line error messages into a caller's buffer, the FTL library's only error channel. */
#ifndef FEMU_FTL_ERROR_H
#define FEMU_FTL_ERROR_H

#include <stddef.h>

/* Format into err (when err and errlen are non-zero); always returns -1. */
int ftl_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
