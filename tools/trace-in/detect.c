/*
 * detect.c - a trace's format from its first data line (the first that is neither blank
 * nor a '#' comment), and for MQSim against DiskSim (both five numbers) from the first
 * 16: a fraction in the time field is DiskSim's milliseconds, whole numbers MQSim's ns.
 *   fio      "fio version 2 iolog" or "fio version 3 iolog"
 *   femu     "V n", or a version-1 op (S W R ZW ZA ZR ZM C) then numbers
 *   msr      7 comma-separated fields, the 4th Read or Write (or the "Timestamp," header)
 *   spc      5 or more comma-separated fields, the 4th r or w
 *   blkparse blank-separated, the first field maj,min
 *   mqsim / disksim   5 blank-separated numbers
 */
#include <string.h>

#include "fields.h"
#include "formats.h"

#define DETECT_LINES 16

static bool is_number(const char *s, bool fraction)
{
    uint64_t v;
    if (fields_u64(s, &v)) {
        return true;
    }
    return fraction && fields_decimal_ns(s, 1, &v);
}

static enum tin_format by_commas(char *line)
{
    char *f[16];
    if (strncmp(line, "Timestamp,", 10) == 0) {
        return TIN_MSR;
    }
    int n = fields_split(line, ',', f, 15);
    if (n == 7 && (fields_iequal(f[3], "Read") || fields_iequal(f[3], "Write"))) {
        return TIN_MSR;
    }
    while (n >= 5 && *f[3] == ' ') {
        f[3]++;
    }
    if (n >= 5 && (fields_iequal(f[3], "r") || fields_iequal(f[3], "w"))) {
        return TIN_SPC;
    }
    return TIN_AUTO;
}

static enum tin_format by_blanks(char *line, bool *fraction)
{
    static const char *const femu_ops[] = { "S", "W", "R", "ZW", "ZA", "ZR", "ZM", "C" };
    char *f[8];
    int n = fields_split(line, ' ', f, 7);
    if (n == 2 && strcmp(f[0], "V") == 0 && is_number(f[1], false)) {
        return TIN_FEMU;
    }
    for (size_t i = 0; n >= 2 && i < sizeof(femu_ops) / sizeof(femu_ops[0]); i++) {
        if (strcmp(f[0], femu_ops[i]) == 0) {
            return TIN_FEMU;
        }
    }
    const char *comma = n >= 7 ? strchr(f[0], ',') : NULL;
    if (comma && comma != f[0] && is_number(f[3], true)) {
        return TIN_BLKPARSE;
    }
    if (n != 5) {
        return TIN_AUTO;
    }
    for (int i = 0; i < 5; i++) {
        if (!is_number(f[i], i == 0)) {
            return TIN_AUTO;
        }
    }
    *fraction = strchr(f[0], '.') != NULL;
    return TIN_MQSIM;
}

enum tin_format detect_format(const char *data, size_t len)
{
    char line[512];
    enum tin_format found = TIN_AUTO;
    int seen = 0;
    const char *p = data, *end = data + len;

    while (p < end && seen < DETECT_LINES) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        if (n >= sizeof(line)) {
            n = sizeof(line) - 1;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        p = nl ? nl + 1 : end;
        if (n > 0 && line[n - 1] == '\r') {
            line[n - 1] = '\0';
        }
        const char *s = line + strspn(line, " \t");
        if (*s == '\0' || (*s == '#' && found == TIN_AUTO)) {
            continue;
        }
        if (found == TIN_AUTO) {
            if (strncmp(s, "fio version ", 12) == 0) {
                return TIN_FIO;
            }
            bool fraction = false;
            char copy[sizeof(line)];
            strcpy(copy, line);     /* the splits below cut their line up */
            found = strchr(line, ',') && strchr(line, ' ') == NULL ? by_commas(line)
                    : by_blanks(line, &fraction);
            if (found == TIN_AUTO) {
                found = by_commas(copy);    /* SPC with blanks after the commas */
            }
            if (found != TIN_MQSIM) {
                return found;
            }
            if (fraction) {
                return TIN_DISKSIM;
            }
        } else {
            bool fraction = false;
            if (by_blanks(line, &fraction) == TIN_MQSIM && fraction) {
                return TIN_DISKSIM;
            }
        }
        seen++;
    }
    return found;
}
