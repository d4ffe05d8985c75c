/*
 * One-line error messages into a caller's buffer, the FTL library's only error channel: a
 * call that can fail takes (char *err, size_t errlen) and on failure leaves its reason
 * there. Public so that hosts report their own failures the same way (ftl-sim's workload
 * checks do).
 */
#ifndef FEMU_FTL_ERROR_H
#define FEMU_FTL_ERROR_H

#include <stddef.h>

/* Format into err (when err and errlen are non-zero); always returns -1. */
int ftl_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
