/* fields.c - strict field parsing for the trace readers. */
#include "fields.h"

int fields_split(char *s, char sep, char **f, int max)
{
    int n = 0;
    bool blanks = sep == ' ';
    for (;;) {
        if (blanks) {
            while (*s == ' ' || *s == '\t') {
                s++;
            }
            if (*s == '\0') {
                return n;
            }
        }
        if (n == max) {
            return max + 1;
        }
        f[n++] = s;
        while (*s != '\0' && (blanks ? *s != ' ' && *s != '\t' : *s != sep)) {
            s++;
        }
        if (*s == '\0') {
            return n;
        }
        *s++ = '\0';
    }
}

bool fields_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (*s == '\0') {
        return false;
    }
    for (; *s; s++) {
        if (*s < '0' || *s > '9') {
            return false;
        }
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return false;
        }
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool fields_hex(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
    }
    if (*s == '\0') {
        return false;
    }
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') {
            d = (unsigned)(*s - '0');
        } else if (*s >= 'a' && *s <= 'f') {
            d = (unsigned)(*s - 'a' + 10);
        } else if (*s >= 'A' && *s <= 'F') {
            d = (unsigned)(*s - 'A' + 10);
        } else {
            return false;
        }
        if (v >> 60) {
            return false;
        }
        v = v << 4 | d;
    }
    *out = v;
    return true;
}

bool fields_mul(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a) {
        return false;
    }
    *out = a * b;
    return true;
}

bool fields_decimal_ns(const char *s, uint64_t unit_ns, uint64_t *out)
{
    uint64_t whole = 0, frac = 0, scale = 1;
    const char *p = s;
    bool digits = false;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (whole > (UINT64_MAX - d) / 10) {
            return false;
        }
        whole = whole * 10 + d;
        digits = true;
    }
    if (*p == '.') {
        /* the fraction's digits finer than a nanosecond cannot matter */
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (scale < UINT64_C(1000000000000000000)) {
                frac = frac * 10 + (unsigned)(*p - '0');
                scale *= 10;
            }
            digits = true;
        }
    }
    if (!digits || *p != '\0' || !fields_mul(whole, unit_ns, &whole)) {
        return false;
    }
    /* frac / scale of a unit: unit_ns <= 10^9 and frac < scale <= 10^18 fit in 128 bits */
    uint64_t part = (uint64_t)((unsigned __int128)frac * unit_ns / scale);
    if (whole > UINT64_MAX - part) {
        return false;
    }
    *out = whole + part;
    return true;
}

bool fields_iequal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y) {
            return false;
        }
    }
    return *a == *b;
}
