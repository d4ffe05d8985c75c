/*
 * size.h - parse sizes and durations the way fio spells them (with fio's
 * default kb_base=1024).
 *
 * Sizes: a decimal integer (or 0x-prefixed hexadecimal) with an optional,
 * case-insensitive suffix.  As fio documents for kb_base=1024 ("compatibility
 * mode"), the plain prefixes are powers of 2 and the IEC-looking ones are
 * powers of 10:
 *   k, kb, K, KB, kB = 1024        ki, kib, KiB = 1000
 *   m, mb            = 1024^2      mi, mib      = 1000^2
 *   g / t / p (+b)   = 1024^3..5   gi / ti / pi (+b) = 1000^3..5
 *   b, B             = bytes
 * So "4k" = 4096, "576M" = 603979776, and "4KiB" = 4000 (not 4096!).
 * Zero parses (callers that need a positive size check it themselves).
 *
 * Durations: a non-negative decimal number (fractions allowed) with an
 * optional, case-insensitive unit; seconds when the unit is omitted, as
 * for fio's runtime:  d (days), h, m (minutes), s / sec, ms / msec,
 * us / usec.  "300" = "300s" = "5m".
 *
 * Both return 0, or -1 with a one-line message naming the text in
 * err[errlen] (err may be NULL) for empty text, signs, overflow, unknown
 * units and trailing junk; the output is untouched on error.
 */
#ifndef FTL_SIM_SIZE_H
#define FTL_SIM_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* Parse a byte count ("16k", "3G", "4096"). */
int parse_size(const char *text, uint64_t *bytes, char *err, size_t errlen);

/* Parse a duration into seconds ("300", "5m", "500ms"). */
int parse_duration_s(const char *text, double *seconds, char *err,
                     size_t errlen);

#endif
