/*
 * dist_spec.h - what dist.c and dist_spec.c share: the checks of a dist_spec and the
 * errors they write (dist.h is the public side).
 */
#ifndef FTL_SIM_DIST_SPEC_H
#define FTL_SIM_DIST_SPEC_H

#include <stddef.h>

#include "dist.h"

/* vsnprintf into err when it is not NULL. */
void dist_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes "PFX'TEXT': why" and returns -1 (TEXT cut at 48 characters). */
int dist_bad_spec(char *err, size_t errlen, const char *pfx, const char *text,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* fio's ranges for the value, and [0, 1] (or "not given") for CENTER; 0 or -1. */
int dist_check_spec(const struct dist_spec *spec, const char *pfx, const char *text,
                    char *err, size_t errlen);

#endif
