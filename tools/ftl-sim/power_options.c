/* ftl-sim's power-state options: see power_options.h. */
#include "power_options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_options.h"
#include "sim.h"

/* Linux's APST tiers (module parameters apst_primary_* and apst_secondary_*, defaults). */
#define PRIMARY_TIMEOUT_MS 100u
#define PRIMARY_TOLERANCE_US 15000u
#define SECONDARY_TIMEOUT_MS 2000u
#define SECONDARY_TOLERANCE_US 100000u
#define ITPT_MAX_MS 0xffffffu          /* the entry's 24 bits */

/* Decimal digits only, at most max; false otherwise. */
static bool parse_decimal(const char *text, size_t len, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (len == 0) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9' || v > (max - (uint64_t)(text[i] - '0')) / 10) {
            return false;
        }
        v = v * 10 + (uint64_t)(text[i] - '0');
    }
    *out = v;
    return true;
}

void option_power_state(struct options *o, const char *arg)
{
    uint64_t ps;

    if (!parse_decimal(arg, strlen(arg), FTL_PS_MAX - 1, &ps)) {
        usage_error("--power-state: '%s' is not a power state (0 to %d)", arg, FTL_PS_MAX - 1);
    }
    o->power.state_given = true;
    o->power.state = (uint32_t)ps;
}

/* One STATE:ITPT_MS:ITPS entry of an explicit table (its length len). */
static void parse_entry(struct power_spec *p, const char *text, size_t len)
{
    const char *c1 = memchr(text, ':', len);
    const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - text)) : NULL;
    uint64_t state, itpt, itps;

    if (!c2 || !parse_decimal(text, (size_t)(c1 - text), FTL_PS_MAX - 1, &state) ||
        !parse_decimal(c1 + 1, (size_t)(c2 - c1 - 1), ITPT_MAX_MS, &itpt) ||
        !parse_decimal(c2 + 1, len - (size_t)(c2 + 1 - text), FTL_PS_MAX - 1, &itps)) {
        usage_error("--apst: entry '%.*s' is not STATE:ITPT_MS:ITPS (states 0 to %d, "
                    "ITPT_MS 1 to %u)", (int)len, text, FTL_PS_MAX - 1, ITPT_MAX_MS);
    }
    if (itpt == 0) {
        usage_error("--apst: entry '%.*s': an idle time of 0 ms is no transition (leave "
                    "the state out)", (int)len, text);
    }
    if (p->entry_given[state]) {
        usage_error("--apst: state %" PRIu64 " given twice", state);
    }
    p->entry_given[state] = true;
    p->table.apst[state] = (struct ftl_apst_entry){ .itpt_ms = itpt, .itps = (uint32_t)itps };
}

void option_apst(struct options *o, const char *arg)
{
    struct power_spec *p = &o->power;

    memset(&p->table, 0, sizeof(p->table));
    memset(p->entry_given, 0, sizeof(p->entry_given));
    p->table.action = FTL_POWER_SET_APST;
    if (strcmp(arg, "off") == 0) {
        p->apst = APST_OFF;
        return;
    }
    if (strncmp(arg, "linux", 5) == 0 && (arg[5] == '\0' || arg[5] == ':')) {
        p->apst = APST_LINUX;
        p->linux_latency_us = LINUX_PS_MAX_LATENCY_US;
        if (arg[5] == ':' &&
            !parse_decimal(arg + 6, strlen(arg + 6), UINT32_MAX, &p->linux_latency_us)) {
            usage_error("--apst: '%s': linux:US needs US, Linux's default_ps_max_latency_us "
                        "(0 to %u)", arg, UINT32_MAX);
        }
        return;
    }
    p->apst = APST_TABLE;
    p->table.apst_enabled = true;
    for (const char *s = arg;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        parse_entry(p, s, len);
        if (!comma) {
            break;
        }
        s = comma + 1;
    }
}

void linux_apst_table(const struct ftl_config *cfg, uint64_t max_latency_us,
                      struct ftl_power_cmd *cmd)
{
    struct ftl_apst_entry target = { 0 };
    unsigned tier = 3;      /* the tier of the last target taken: none yet */

    *cmd = (struct ftl_power_cmd){ .action = FTL_POWER_SET_APST };
    if (max_latency_us == 0) {
        return;     /* Linux turns APST off */
    }
    cmd->apst_enabled = true;
    for (uint64_t s = cfg->ps_count; s-- > 0;) {
        const struct ftl_ps_desc *d = &cfg->ps[s];
        uint64_t total = d->enlat_us + d->exlat_us;

        cmd->apst[s] = target;  /* a state moves to the target found deeper than it */
        if (!d->nonop || d->exlat_us > max_latency_us) {
            continue;
        }
        if (total <= PRIMARY_TOLERANCE_US && tier != 1) {
            tier = 1;
            target = (struct ftl_apst_entry){ PRIMARY_TIMEOUT_MS, (uint32_t)s };
        } else if (total > PRIMARY_TOLERANCE_US && total <= SECONDARY_TOLERANCE_US &&
                   tier > 2) {
            tier = 2;
            target = (struct ftl_apst_entry){ SECONDARY_TIMEOUT_MS, (uint32_t)s };
        }
    }
}

void check_power_options(struct options *o)
{
    struct power_spec *p = &o->power;
    const struct ftl_config *cfg = &o->cfg;

    if (p->state_given && p->state >= cfg->ps_count) {
        usage_error("--power-state: %" PRIu32 " is not a power state of this drive "
                    "(ps_count %" PRIu64 ": 0 to %" PRIu64 ")", p->state, cfg->ps_count,
                    cfg->ps_count - 1);
    }
    if (p->apst == APST_LINUX) {
        linux_apst_table(cfg, p->linux_latency_us, &p->table);
    }
    for (uint32_t s = 0; p->apst == APST_TABLE && s < FTL_PS_MAX; s++) {
        const struct ftl_apst_entry *a = &p->table.apst[s];
        if (!p->entry_given[s]) {
            continue;
        }
        if (s >= cfg->ps_count || a->itps >= cfg->ps_count) {
            usage_error("--apst: entry %" PRIu32 ":%" PRIu64 ":%" PRIu32 " names a power "
                        "state this drive does not have (ps_count %" PRIu64 ")", s,
                        a->itpt_ms, a->itps, cfg->ps_count);
        }
        if (!cfg->ps[a->itps].nonop) {
            usage_error("--apst: entry %" PRIu32 ":%" PRIu64 ":%" PRIu32 " moves to an "
                        "operational state (APST moves only to non-operational ones: "
                        "ps%" PRIu32 "_nonop=1)", s, a->itpt_ms, a->itps, a->itps);
        }
    }
}

bool power_options_given(const struct options *o)
{
    return o->power.state_given || o->power.apst != APST_NONE;
}

static int send(struct sim_run *run, const struct ftl_power_cmd *cmd, uint64_t now_ns,
                const char *option, char *err, size_t errlen)
{
    struct ftl_request r = { .op = FTL_OP_POWER, .arrival_ns = now_ns, .power = cmd };
    int rc = ftl_engine_serve(run->engine, &r, NULL);

    if (rc != FTL_OK) {
        snprintf(err, errlen, "%s: the engine refused it: %s", option, ftl_status_str(rc));
        return -1;
    }
    return 0;
}

int power_options_start(struct sim_run *run, const struct options *o, uint64_t now_ns,
                        char *err, size_t errlen)
{
    const struct power_spec *p = &o->power;

    if (p->state_given) {
        struct ftl_power_cmd set = { .action = FTL_POWER_SET_STATE, .ps = p->state };
        if (send(run, &set, now_ns, "--power-state", err, errlen)) {
            return -1;
        }
    }
    if (p->apst != APST_NONE && send(run, &p->table, now_ns, "--apst", err, errlen)) {
        return -1;
    }
    return 0;
}
