/*
 * dist_spec.c - a distribution's text form (fio's --random_distribution spelling, and
 * hotcold:H:W), its checks and its errors (dist_spec.h; the samplers are dist.c's).
 */
#include "dist.h"
#include "dist_spec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fio's defaults when the value is omitted. */
#define ZIPF_DEFAULT_THETA 1.1
#define PARETO_DEFAULT_H 0.2
#define NORMAL_DEFAULT_DEV 0.0

void dist_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Writes "PFX'TEXT': why" and returns -1.  At most 48 characters of TEXT
 * are quoted so the explanation always fits in the caller's buffer. */
int dist_bad_spec(char *err, size_t errlen, const char *pfx,
                  const char *text, const char *fmt, ...)
{
    char why[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    dist_set_err(err, errlen, "%s'%.48s%s': %s", pfx, text,
                 strlen(text) > 48 ? "..." : "", why);
    return -1;
}

/* ---- parsing ---------------------------------------------------------- */

/* Parse one whole field [s, s+len) as a finite double. */
static int parse_number(const char *s, size_t len, double *out)
{
    char buf[64];
    char *end;
    double v;

    if (len == 0 || len >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    /* strtod would skip leading blanks and accept "inf"/"nan": refuse. */
    if (!(buf[0] == '-' || buf[0] == '+' || buf[0] == '.' ||
          (buf[0] >= '0' && buf[0] <= '9'))) {
        return -1;
    }
    errno = 0;
    v = strtod(buf, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v)) {
        return -1;
    }
    *out = v;
    return 0;
}

/* fio's ranges for the value, and [0, 1] (or "not given") for CENTER. */
int dist_check_spec(const struct dist_spec *spec, const char *pfx,
                    const char *text, char *err, size_t errlen)
{
    double v = spec->param;

    switch (spec->kind) {
    case DIST_RANDOM:
        return 0;
    case DIST_ZIPF:
        if (!(v > 0.0) || !isfinite(v)) {
            return dist_bad_spec(err, errlen, pfx, text,
                                 "zipf theta must be > 0 (got %g)", v);
        }
        break;
    case DIST_PARETO:
        if (!(v > 0.0 && v < 1.0)) {
            return dist_bad_spec(err, errlen, pfx, text,
                                 "pareto H must be in (0, 1) (got %g)", v);
        }
        break;
    case DIST_NORMAL:
        if (!(v >= 0.0 && v < 100.0)) {
            return dist_bad_spec(err, errlen, pfx, text,
                                 "normal deviation must be in [0, 100) (got %g)",
                                 v);
        }
        break;
    case DIST_HOTCOLD:
        if (!(v > 0.0 && v < 100.0)) {
            return dist_bad_spec(err, errlen, pfx, text,
                                 "hotcold H (percent of the items) must be in "
                                 "(0, 100) (got %g)", v);
        }
        if (!(spec->share >= 0.0 && spec->share <= 100.0)) {
            return dist_bad_spec(err, errlen, pfx, text,
                                 "hotcold W (percent of the I/Os) must be in "
                                 "[0, 100] (got %g)", spec->share);
        }
        return 0;
    default:
        return dist_bad_spec(err, errlen, pfx, text, "unknown distribution kind");
    }
    if (isnan(spec->center) || spec->center > 1.0) {
        return dist_bad_spec(err, errlen, pfx, text,
                             "center must be in [0, 1] (got %g)", spec->center);
    }
    return 0;
}

/* hotcold:H:W, both values required. */
static int parse_hotcold(const char *text, const char *colon,
                         struct dist_spec *out, char *err, size_t errlen)
{
    const char *pfx = "--dist: ";
    struct dist_spec spec = { .kind = DIST_HOTCOLD, .center = -1.0 };
    const char *second = colon ? strchr(colon + 1, ':') : NULL;

    if (second == NULL) {
        return dist_bad_spec(err, errlen, pfx, text, "want hotcold:H:W (H percent "
                             "of the region gets W percent of the I/Os)");
    }
    if (strchr(second + 1, ':') != NULL) {
        return dist_bad_spec(err, errlen, pfx, text,
                             "too many values (want hotcold:H:W)");
    }
    if (parse_number(colon + 1, (size_t)(second - colon - 1),
                     &spec.param) != 0) {
        return dist_bad_spec(err, errlen, pfx, text, "hotcold H is not a number");
    }
    if (parse_number(second + 1, strlen(second + 1), &spec.share) != 0) {
        return dist_bad_spec(err, errlen, pfx, text, "hotcold W is not a number");
    }
    if (dist_check_spec(&spec, pfx, text, err, errlen) != 0) {
        return -1;
    }
    *out = spec;
    return 0;
}

/* zipf, pareto, normal: VALUE[:CENTER] after the name's colon, into spec. */
static int parse_value_center(const char *text, const char *value, const char *what,
                              struct dist_spec *spec, char *err, size_t errlen)
{
    const char *pfx = "--dist: ";
    const char *colon2 = strchr(value, ':');
    if (parse_number(value, colon2 ? (size_t)(colon2 - value)
                                   : strlen(value), &spec->param) != 0) {
        return dist_bad_spec(err, errlen, pfx, text, "%s is not a number",
                             what);
    }
    if (!colon2) {
        return 0;
    }
    if (strchr(colon2 + 1, ':') != NULL) {
        return dist_bad_spec(err, errlen, pfx, text,
                             "too many values (at most VALUE:CENTER)");
    }
    if (parse_number(colon2 + 1, strlen(colon2 + 1), &spec->center) != 0) {
        return dist_bad_spec(err, errlen, pfx, text, "center is not a number");
    }
    if (!(spec->center >= 0.0)) {
        return dist_bad_spec(err, errlen, pfx, text,
                             "center must be in [0, 1] (got %g)", spec->center);
    }
    return 0;
}

int dist_parse(const char *text, struct dist_spec *out, char *err,
               size_t errlen)
{
    const char *pfx = "--dist: ";   /* ftl-sim's option for this text */
    struct dist_spec spec = { .kind = DIST_RANDOM, .param = 0.0, .center = -1.0 };
    const char *colon;
    size_t name_len;
    const char *what;

    if (text == NULL || text[0] == '\0') {
        dist_set_err(err, errlen, "%sempty distribution (want random, "
                     "zipf:THETA, pareto:H, normal[:DEV] or hotcold:H:W)", pfx);
        return -1;
    }
    colon = strchr(text, ':');
    name_len = colon ? (size_t)(colon - text) : strlen(text);

    if (name_len == 6 && strncmp(text, "random", 6) == 0) {
        if (colon) {
            return dist_bad_spec(err, errlen, pfx, text, "random takes no value");
        }
        *out = spec;
        return 0;
    } else if (name_len == 4 && strncmp(text, "zipf", 4) == 0) {
        spec.kind = DIST_ZIPF;
        spec.param = ZIPF_DEFAULT_THETA;
        what = "zipf theta";
    } else if (name_len == 6 && strncmp(text, "pareto", 6) == 0) {
        spec.kind = DIST_PARETO;
        spec.param = PARETO_DEFAULT_H;
        what = "pareto H";
    } else if (name_len == 6 && strncmp(text, "normal", 6) == 0) {
        spec.kind = DIST_NORMAL;
        spec.param = NORMAL_DEFAULT_DEV;
        what = "normal deviation";
    } else if (name_len == 7 && strncmp(text, "hotcold", 7) == 0) {
        return parse_hotcold(text, colon, out, err, errlen);
    } else if ((name_len == 5 && strncmp(text, "zoned", 5) == 0) ||
               (name_len == 9 && strncmp(text, "zoned_abs", 9) == 0)) {
        return dist_bad_spec(err, errlen, pfx, text,
                             "zoned distributions are not supported");
    } else {
        return dist_bad_spec(err, errlen, pfx, text, "unknown distribution "
                             "(want random, zipf, pareto, normal or hotcold)");
    }

    if (colon && parse_value_center(text, colon + 1, what, &spec, err, errlen) != 0) {
        return -1;
    }
    if (dist_check_spec(&spec, pfx, text, err, errlen) != 0) {
        return -1;
    }
    *out = spec;
    return 0;
}

const char *dist_name(const struct dist_spec *spec, char *buf, size_t len)
{
    const char *name;

    if (buf == NULL || len == 0) {
        return "";
    }
    switch (spec->kind) {
    case DIST_RANDOM:
        snprintf(buf, len, "random");
        return buf;
    case DIST_ZIPF:
        name = "zipf";
        break;
    case DIST_PARETO:
        name = "pareto";
        break;
    case DIST_NORMAL:
        name = "normal";
        break;
    case DIST_HOTCOLD:
        snprintf(buf, len, "hotcold:%.10g:%.10g", spec->param, spec->share);
        return buf;
    default:
        snprintf(buf, len, "?");
        return buf;
    }
    /* %.10g: short, and round-trips every value a human types */
    if (spec->kind == DIST_NORMAL && spec->param == 0.0 && spec->center < 0)
        snprintf(buf, len, "%s", name);
    else if (spec->center < 0)
        snprintf(buf, len, "%s:%.10g", name, spec->param);
    else
        snprintf(buf, len, "%s:%.10g:%.10g", name, spec->param,
                 spec->center);
    return buf;
}
