/* NVMe power states (power/, docs/energy.md): how many (ps_count) and each one's
 * descriptor as Identify Controller reports it, one key per field and state
 * (ps3_exlat_us), so every value is a plain number that --set, a device property and a
 * state file's CONF section take like any other key. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "femu_ftl/error.h"

/* Identify's Maximum Power is 16 bits of 0.01 W (IDLP and ACTP too at that scale): the
 * most a descriptor can report. */
#define PS_MAX_MW 655350ull
/* Entry and exit latencies, like every latency key, at most 100 s (in us here). */
#define PS_MAX_LAT_US (MAX_LATENCY_NS / 1000)

#define PS_KEY(n, field, kind, hi, text) \
    { "ps" #n "_" #field, NULL, kind, offsetof(struct ftl_config, ps[n].field), 0, hi, \
      "power state " #n ": " text, NULL }

#define PS_KEYS(n) \
    PS_KEY(n, max_mw, KEY_UINT, PS_MAX_MW, "most power drawn, mW (Identify MP); states "  \
           "are numbered from the most power down"), \
    PS_KEY(n, idle_mw, KEY_UINT, PS_MAX_MW, "power drawn idle, mW (IDLP): the energy " \
           "model's static power in this state"), \
    PS_KEY(n, active_mw, KEY_UINT, PS_MAX_MW, "typical active power, mW (ACTP; reported " \
           "only, 0: not reported)"), \
    PS_KEY(n, enlat_us, KEY_UINT, PS_MAX_LAT_US, "entry latency, us (ENLAT): entering a " \
           "non-operational state takes this long"), \
    PS_KEY(n, exlat_us, KEY_UINT, PS_MAX_LAT_US, "exit latency, us (EXLAT): what the " \
           "command that wakes a non-operational state waits, after the entry ends"), \
    PS_KEY(n, nonop, KEY_SWITCH, 1, "non-operational (NOPS): no command runs in it; the " \
           "next one returns the drive to its most recent operational state"), \
    PS_KEY(n, perf_pcent, KEY_UINT, 100, "operational: flash speed relative to PS0, " \
           "1-100 (50: every sense, program, erase and transfer takes twice as long)")

static const struct config_key keys[] = {
    UKEY(ps_count, 1, FTL_PS_MAX, "NVMe power states the drive has (Identify NPSS + 1), "
         "1-32; setting it drops the states at or past it set before (a later file or "
         "--set shortening a table); set after it, they are refused"),
    PS_KEYS(0), PS_KEYS(1), PS_KEYS(2), PS_KEYS(3), PS_KEYS(4), PS_KEYS(5), PS_KEYS(6),
    PS_KEYS(7), PS_KEYS(8), PS_KEYS(9), PS_KEYS(10), PS_KEYS(11), PS_KEYS(12),
    PS_KEYS(13), PS_KEYS(14), PS_KEYS(15), PS_KEYS(16), PS_KEYS(17), PS_KEYS(18),
    PS_KEYS(19), PS_KEYS(20), PS_KEYS(21), PS_KEYS(22), PS_KEYS(23), PS_KEYS(24),
    PS_KEYS(25), PS_KEYS(26), PS_KEYS(27), PS_KEYS(28), PS_KEYS(29), PS_KEYS(30),
    PS_KEYS(31),
};

_Static_assert(sizeof(keys) / sizeof(keys[0]) == 1 + 7 * FTL_PS_MAX,
               "one key per descriptor field of every power state");

const struct config_key_group config_power_keys = KEY_GROUP(keys);

/* The descriptor fields, in key order, for the messages. */
static const char *const fields[] = {
    "max_mw", "idle_mw", "active_mw", "enlat_us", "exlat_us", "nonop", "perf_pcent",
};

static uint64_t field_of(const struct ftl_ps_desc *d, unsigned f)
{
    const uint64_t v[] = { d->max_mw, d->idle_mw, d->active_mw, d->enlat_us, d->exlat_us,
                           d->nonop, d->perf_pcent };
    return v[f];
}

void config_power_drop_past_count(struct ftl_config *cfg)
{
    for (uint64_t i = cfg->ps_count; i < FTL_PS_MAX; i++) {
        cfg->ps[i] = (struct ftl_ps_desc){ 0 };
    }
}

/* A state past ps_count must be left unset: a value there is a table cut short. */
static int check_unused(const struct ftl_config *cfg, char *err, size_t errlen)
{
    for (uint64_t i = cfg->ps_count; i < FTL_PS_MAX; i++) {
        for (unsigned f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
            if (field_of(&cfg->ps[i], f) != 0) {
                return ftl_error(err, errlen, "ps%" PRIu64 "_%s: set, but ps_count is %"
                                 PRIu64 " (power states 0-%" PRIu64 ")", i, fields[f],
                                 cfg->ps_count, cfg->ps_count - 1);
            }
        }
    }
    return 0;
}

int config_check_power(const struct ftl_config *cfg, char *err, size_t errlen)
{
    const struct ftl_ps_desc *ps = cfg->ps;

    if (check_unused(cfg, err, errlen)) {
        return -1;
    }
    if (ps[0].nonop) {
        return ftl_error(err, errlen, "ps0_nonop: power state 0 must be operational (the "
                         "state the drive starts in)");
    }
    for (uint64_t i = 0; i < cfg->ps_count; i++) {
        if (i > 0 && ps[i].max_mw > ps[i - 1].max_mw) {
            return ftl_error(err, errlen, "ps%" PRIu64 "_max_mw: %" PRIu64 " mW is more "
                             "than ps%" PRIu64 "_max_mw (%" PRIu64 " mW): power states not "
                             "ordered (NVMe numbers them from the most power down)", i,
                             ps[i].max_mw, i - 1, ps[i - 1].max_mw);
        }
        if (ps[i].idle_mw > ps[i].max_mw) {
            return ftl_error(err, errlen, "ps%" PRIu64 "_idle_mw: %" PRIu64 " mW is more "
                             "than the state's max_mw (%" PRIu64 ")", i, ps[i].idle_mw,
                             ps[i].max_mw);
        }
        if (ps[i].active_mw > ps[i].max_mw) {
            return ftl_error(err, errlen, "ps%" PRIu64 "_active_mw: %" PRIu64 " mW is more "
                             "than the state's max_mw (%" PRIu64 ")", i, ps[i].active_mw,
                             ps[i].max_mw);
        }
        if (!ps[i].nonop && ps[i].perf_pcent == 0) {
            return ftl_error(err, errlen, "ps%" PRIu64 "_perf_pcent: 0 on an operational "
                             "state (1-100: its flash speed relative to PS0)", i);
        }
    }
    return 0;
}

/* psN_FIELD with N at or past ps_count: a key that must hold 0 and says nothing. */
bool ftl_config_key_unused(const struct ftl_config *cfg, const char *key)
{
    unsigned n;
    int used = 0;

    if (strncmp(key, "ps", 2) != 0 || key[2] < '0' || key[2] > '9' ||
        sscanf(key + 2, "%u_%n", &n, &used) != 1 || used == 0) {
        return false;
    }
    return n < FTL_PS_MAX && n >= cfg->ps_count;
}
