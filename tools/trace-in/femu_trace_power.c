/*
 * femu_trace_power.c - version 8's power management records (PS t ps, PA t apste
 * itpt:itps..., PG t; the format: hw/femu/ftl/include/femu_ftl/trace.h): each field
 * range-checked, the APST table entry by entry. An older version's trace holding one is
 * refused with the version it would need. Whether the drive has the states named is the
 * replay's engine's to say (ps_count), as it was the recording's.
 */
#include "femu_trace.h"
#include "femu_trace_reader.h"

#include <string.h>

#define PA_FIXED 3      /* PA t apste, then the entries */

int trace_power_op(const char *name)
{
    return strcmp(name, "PS") == 0 || strcmp(name, "PA") == 0 || strcmp(name, "PG") == 0
           ? 0 : -1;
}

/* One APST entry, "itpt:itps": both decimal, itpt at most 24 bits, itps a state 0-31. */
static int parse_entry(struct trace_reader *t, unsigned i, char *field,
                       struct ftl_apst_entry *a, char *err, size_t errlen)
{
    char *colon = strchr(field, ':');
    char what[32];
    uint64_t itpt, itps;

    if (!colon) {
        return trace_fail(t, err, errlen, "PA: entry %u '%.32s' is not itpt:itps", i, field);
    }
    *colon = '\0';
    snprintf(what, sizeof(what), "PA: entry %u's itpt", i);
    if (trace_parse_number(t, field, what, IO_TRACE_MAX_ITPT_MS, &itpt, err, errlen) != 0) {
        return -1;
    }
    snprintf(what, sizeof(what), "PA: entry %u's itps", i);
    if (trace_parse_number(t, colon + 1, what, FTL_PS_MAX - 1, &itps, err, errlen) != 0) {
        return -1;
    }
    *a = (struct ftl_apst_entry){ .itpt_ms = itpt, .itps = (uint32_t)itps };
    return 0;
}

static int parse_table(struct trace_reader *t, char **f, int n, struct ftl_power_cmd *p,
                       char *err, size_t errlen)
{
    uint64_t apste;

    if (n < PA_FIXED) {
        return trace_fail(t, err, errlen, "PA: too few fields (want PA t apste "
                          "itpt:itps...)");
    }
    if (n - PA_FIXED > FTL_PS_MAX) {
        return trace_fail(t, err, errlen, "PA: %d entries, more than the %d power states "
                          "NVMe has", n - PA_FIXED, FTL_PS_MAX);
    }
    if (trace_parse_number(t, f[2], "PA: apste", 1, &apste, err, errlen) != 0) {
        return -1;
    }
    p->action = FTL_POWER_SET_APST;
    p->apst_enabled = apste != 0;
    for (int i = PA_FIXED; i < n; i++) {
        unsigned entry = (unsigned)(i - PA_FIXED);
        if (parse_entry(t, entry, f[i], &p->apst[entry], err, errlen) != 0) {
            return -1;
        }
    }
    return 0;
}

int trace_parse_power(struct trace_reader *t, char **f, int n, struct trace_record *r,
                      char *err, size_t errlen)
{
    const char *name = f[0];
    struct ftl_power_cmd *p = &r->power;
    uint64_t ps;

    if (t->version < 8) {
        return trace_fail(t, err, errlen, "%s: a power management command needs a "
                          "version-8 trace (this one is version %d)", name, t->version);
    }
    if (t->ended) {
        return trace_fail(t, err, errlen, "%s after the end record E", name);
    }
    if (n < 2) {
        return trace_fail(t, err, errlen, "%s: too few fields (no time)", name);
    }
    r->op = TRACE_POWER;
    *p = (struct ftl_power_cmd){ .action = FTL_POWER_GET_STATE };
    if (trace_parse_time(t, f[1], &r->time_ns, err, errlen) != 0) {
        return -1;
    }
    if (strcmp(name, "PA") == 0) {
        return parse_table(t, f, n, p, err, errlen);
    }
    int want = strcmp(name, "PS") == 0 ? 3 : 2;
    if (n < want) {
        return trace_fail(t, err, errlen, "PS: too few fields (want PS t ps)");
    }
    if (n > want) {
        return trace_fail(t, err, errlen, "%s: trailing junk '%.32s'", name, f[want]);
    }
    if (want == 3) {
        if (trace_parse_number(t, f[2], "PS: state", FTL_PS_MAX - 1, &ps, err, errlen)) {
            return -1;
        }
        p->action = FTL_POWER_SET_STATE;
        p->ps = (uint32_t)ps;
    }
    return 0;
}
