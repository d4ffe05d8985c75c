/*
 * size.c - fio-style size and duration parsing (see size.h).
 */
#include "size.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes "'TEXT': why" into err (if any) and returns -1.  At most 48
 * characters of TEXT are quoted so the explanation always fits. */
static int bad_text(char *err, size_t errlen, const char *text,
                    const char *fmt, ...)
{
    char why[160];
    va_list ap;

    if (err == NULL || errlen == 0) {
        return -1;
    }
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "'%.48s%s': %s", text,
             strlen(text) > 48 ? "..." : "", why);
    return -1;
}

/* Case-insensitive whole-string comparison with a lowercase literal. */
static int unit_is(const char *s, const char *lower)
{
    for (; *s && *lower; s++, lower++) {
        if (tolower((unsigned char)*s) != *lower) {
            return 0;
        }
    }
    return *s == '\0' && *lower == '\0';
}

static int digit_value(int c, unsigned base)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c = tolower(c);
    if (base == 16 && c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

/* A size's suffix p, [kmgtp][i][b] or b, case-insensitive: its multiplier. */
static int size_suffix(const char *text, const char *p, uint64_t *mult, char *err,
                       size_t errlen)
{
    static const char prefixes[] = "kmgtp";
    const char *s = p;
    const char *pre = strchr(prefixes, tolower((unsigned char)*s));
    int power = 0;
    uint64_t unit = 1024;

    if (pre != NULL) {      /* *s != '\0' here, so not the terminator */
        power = (int)(pre - prefixes) + 1;
        s++;
        if (tolower((unsigned char)*s) == 'i') {
            unit = 1000;    /* fio kb_base=1024: KiB means 1000 */
            s++;
        }
    }
    if (tolower((unsigned char)*s) == 'b') {
        s++;
    }
    if (*s != '\0' || s == p) {
        return bad_text(err, errlen, text, "unknown size suffix '%.16s' "
                        "(want k, m, g, t or p, optionally followed "
                        "by i and/or b)", p);
    }
    while (power-- > 0) {
        *mult *= unit;
    }
    return 0;
}

int parse_size(const char *text, uint64_t *bytes, char *err, size_t errlen)
{
    const char *p = text;
    uint64_t v = 0, mult = 1;
    unsigned base = 10;
    int digits = 0;

    if (text == NULL || text[0] == '\0') {
        if (err != NULL && errlen > 0) {
            snprintf(err, errlen, "empty size");
        }
        return -1;
    }
    if (text[0] == '-') {
        return bad_text(err, errlen, text, "size cannot be negative");
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    for (;; p++) {
        int dv = digit_value((unsigned char)*p, base);

        if (dv < 0) {
            break;
        }
        if (v > (UINT64_MAX - (uint64_t)dv) / base) {
            return bad_text(err, errlen, text, "size too large");
        }
        v = v * base + (uint64_t)dv;
        digits++;
    }
    if (digits == 0) {
        return bad_text(err, errlen, text, "size must start with a number");
    }

    if (*p != '\0' && size_suffix(text, p, &mult, err, errlen) != 0) {
        return -1;
    }
    if (v > UINT64_MAX / mult) {
        return bad_text(err, errlen, text, "size too large");
    }
    *bytes = v * mult;
    return 0;
}

int parse_duration_s(const char *text, double *seconds, char *err,
                     size_t errlen)
{
    static const struct {
        const char *name;
        double secs;
    } units[] = {
        { "", 1.0 }, { "s", 1.0 }, { "sec", 1.0 },
        { "ms", 1e-3 }, { "msec", 1e-3 },
        { "us", 1e-6 }, { "usec", 1e-6 },
        { "ns", 1e-9 }, { "nsec", 1e-9 },   /* a device's cut instant, power_cuts.csv */
        { "m", 60.0 }, { "h", 3600.0 }, { "d", 86400.0 },
    };
    const char *end;
    char *nend;
    double v;

    if (text == NULL || text[0] == '\0') {
        if (err != NULL && errlen > 0) {
            snprintf(err, errlen, "empty duration");
        }
        return -1;
    }
    /* Digits or a leading '.', nothing else: strtod would also take signs,
     * blanks, hex, "inf" and "nan". */
    if (!(isdigit((unsigned char)text[0]) ||
          (text[0] == '.' && isdigit((unsigned char)text[1])))) {
        return bad_text(err, errlen, text, "duration must be a non-negative "
                        "number with an optional unit");
    }
    for (end = text; isdigit((unsigned char)*end) || *end == '.'; end++) {
    }
    errno = 0;
    v = strtod(text, &nend);
    /* The number must be exactly the digits-and-dots span: strtod stopping
     * early means "1.2.3"; going further means an exponent ("1e3"), which
     * the unit check below rejects. */
    if (nend < end) {
        return bad_text(err, errlen, text, "malformed number");
    }
    if (nend == end && (errno == ERANGE || !isfinite(v))) {
        return bad_text(err, errlen, text, "duration too large");
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (unit_is(end, units[i].name)) {
            double s = v * units[i].secs;

            if (!isfinite(s)) {
                return bad_text(err, errlen, text, "duration too large");
            }
            *seconds = s;
            return 0;
        }
    }
    return bad_text(err, errlen, text, "unknown time unit '%.16s' (want d, "
                    "h, m, s, ms, us or ns)", end);
}
