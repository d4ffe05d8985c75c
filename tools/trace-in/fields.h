/*
 * fields.h - the pieces every format's line parser needs: splitting at a separator,
 * strict decimal numbers (no sign, no blanks, no overflow), decimal fractions of a unit
 * as nanoseconds, and products that must not wrap.
 */
#ifndef TRACE_IN_FIELDS_H
#define TRACE_IN_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Split s in place at sep (' ': runs of blanks and tabs, leading ones skipped) into at
 * most max fields; returns the count, max + 1 when there were more. */
int fields_split(char *s, char sep, char **f, int max);

/* A whole decimal number; false when empty, not digits or beyond 64 bits. */
bool fields_u64(const char *s, uint64_t *out);

/* A hexadecimal number with or without 0x; false when not one. */
bool fields_hex(const char *s, uint64_t *out);

/* A non-negative decimal like "12.345" in a unit of unit_ns nanoseconds, as ns (digits
 * below a nanosecond dropped); false when not such a number or beyond 64 bits. */
bool fields_decimal_ns(const char *s, uint64_t unit_ns, uint64_t *out);

/* a * b, false when it does not fit in 64 bits. */
bool fields_mul(uint64_t a, uint64_t b, uint64_t *out);

/* ASCII case-insensitive equality. */
bool fields_iequal(const char *a, const char *b);

#endif
