/* FTL configuration: key table, parsing of one value, validation and derived geometry. */
#include "femu_ftl/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"

#define MIB (1024ull * 1024ull)
/* Latencies above 100 s are surely typos; the cap also keeps time sums far from overflow. */
#define MAX_LATENCY_NS 100000000000ull
/* A page read with every retry step: a drive taking longer would have timed out. */
#define MAX_READ_NS 1000000000ull
/* 32-bit page addresses in the maps; two values are reserved as markers. */
#define MAX_PAGES (UINT32_MAX - 2ull)

/* A key is a number (uint64_t field), one of a few names (an enum field, names[i] = i), a
 * size in bytes (uint64_t, text with an optional K/M/G suffix) or a switch (uint64_t 0/1,
 * text off/on or 0/1). */
/* KEY_COUNT: a KEY_UINT that also takes `off` for 0 (and prints 0 as off). */
enum key_kind { KEY_UINT, KEY_NAMED, KEY_BYTES, KEY_SWITCH, KEY_COUNT };

struct config_key {
    const char *name;
    const char *alias;
    enum key_kind kind;
    size_t offset;
    uint64_t min, max;          /* KEY_UINT: bounds; KEY_NAMED: max is the last index */
    const char *help;
    const char *const *names;   /* KEY_NAMED */
};

static const char *const placement_names[] = {
    [FTL_PLACEMENT_SINGLE] = "single",
    [FTL_PLACEMENT_HOTCOLD] = "hotcold",
    [FTL_PLACEMENT_STREAM] = "stream",
    [FTL_PLACEMENT_FDP] = "fdp",
};

static const char *const gc_scope_names[] = {
    [FTL_GC_SCOPE_GLOBAL] = "global",
    [FTL_GC_SCOPE_STREAM] = "stream",
};

static const char *const ruh_type_names[] = {
    [FTL_RUH_PERSISTENT] = "persistent",
    [FTL_RUH_INITIAL] = "initial",
};

static const char *const gc_mode_names[] = {
    [FTL_GC_PACED] = "paced",
    [FTL_GC_LINE] = "line",
};

static const char *const gc_policy_names[] = {
    [FTL_GC_GREEDY] = "greedy",
    [FTL_GC_COST_BENEFIT] = "cost_benefit",
    [FTL_GC_RANDOM] = "random",
    [FTL_GC_FIFO] = "fifo",
    [FTL_GC_DCHOICE] = "dchoice",
};

static const char *const gc_unit_names[] = {
    [FTL_GC_UNIT_LINE] = "line",
    [FTL_GC_UNIT_BLOCK] = "block",
};

static const char *const slc_when_full_names[] = {
    [FTL_SLC_DIRECT] = "direct",
    [FTL_SLC_FOLD] = "fold",
};

static const char *const mapping_names[] = {
    [FTL_MAPPING_PAGE] = "page",
    [FTL_MAPPING_DFTL] = "dftl",
};

#define UKEY(field, lo, hi, text) \
    { #field, NULL, KEY_UINT, offsetof(struct ftl_config, field), lo, hi, text, NULL }
#define BKEY(field, text) \
    { #field, NULL, KEY_BYTES, offsetof(struct ftl_config, field), 0, UINT64_MAX, text, NULL }
#define SKEY(field, text) \
    { #field, NULL, KEY_SWITCH, offsetof(struct ftl_config, field), 0, 1, text, NULL }
#define NKEY(field, table, text) \
    { #field, NULL, KEY_NAMED, offsetof(struct ftl_config, field), 0, \
      sizeof(table) / sizeof(table[0]) - 1, text, table }

static const struct config_key config_keys[] = {
    UKEY(secsz, 512, 65536, "bytes per sector (LBA), a power of two"),
    UKEY(secs_per_pg, 1, 1024, "sectors per flash page"),
    UKEY(pgs_per_blk, 1, 65536, "pages per erase block"),
    UKEY(blks_per_pl, 1, 1u << 20, "blocks per plane"),
    UKEY(pls_per_lun, 1, 64, "planes per LUN"),
    UKEY(luns_per_ch, 1, 1024, "LUNs (dies) per channel"),
    UKEY(nchs, 1, 1024, "channels"),
    { "devsz_mb", "ssd_size", KEY_UINT, offsetof(struct ftl_config, devsz_mb), 1,
      UINT64_MAX / MIB, "logical capacity seen by the host, MiB", NULL },
    UKEY(pg_rd_lat, 0, MAX_LATENCY_NS, "page read latency, ns"),
    UKEY(pg_wr_lat, 0, MAX_LATENCY_NS, "page program latency, ns"),
    UKEY(blk_er_lat, 0, MAX_LATENCY_NS, "block erase latency, ns"),
    UKEY(ch_xfer_lat, 0, MAX_LATENCY_NS, "channel transfer time per page, ns (0: bus not modelled)"),
    UKEY(gc_thres_pcent, 0, 99, "background GC when this percent of lines is in use"),
    UKEY(gc_thres_pcent_high, 0, 99, "foreground GC when this percent of lines is in use"),
    NKEY(gc_mode, gc_mode_names, "background GC: paced (page moves spread over host writes and "
         "idle LUNs) | line (a whole line after a request, as FEMU)"),
    NKEY(gc_policy, gc_policy_names, "GC victim among lines with an invalid page: greedy "
         "(fewest valid, as FEMU) | cost_benefit (largest (1-u)/2u x age since last write) | "
         "random | fifo (closed first) | dchoice (fewest valid of gc_dchoice_d random lines)"),
    UKEY(gc_dchoice_d, 2, 64, "dchoice: lines sampled per victim choice"),
    NKEY(gc_unit, gc_unit_names, "what GC collects and write pointers open: line (a block "
         "on every LUN, as FEMU) | block (one block of one LUN: per-LUN free lists, "
         "victims from the LUN shortest of free blocks, write pointers moving bank by "
         "bank; needs gc_mode=line)"),
    NKEY(placement, placement_names, "write placement: single | hotcold | stream | fdp "
         "(Flexible Data Placement: one write pointer per reclaim unit handle)"),
    UKEY(hot_threshold, 0, UINT32_MAX, "hotcold: a page is hot when its write count exceeds this"),
    { "hot_decay", NULL, KEY_COUNT, offsetof(struct ftl_config, hot_decay), 0, UINT32_MAX,
      "hotcold: every this many host page writes, halve each page's count placement reads "
      "(counts that age; at least 1024), or off: exact write counts that never age", NULL },
    UKEY(nstreams, 1, 16, "stream: number of host streams, one write pointer each"),
    NKEY(gc_scope, gc_scope_names, "victims with several write pointers: global (each "
         "handle's best by gc_policy, then the one most worth collecting; moved pages stay "
         "in their handle) | stream (foreground GC takes the writing stream's only, with "
         "the defragmenting fallback: the multi-stream DFTL lab's rule)"),
    UKEY(fdp_ruhs, 1, 16, "fdp: reclaim unit handles, one write pointer each (15 at most "
         "with fdp_ruh_type=initial, whose GC takes one more)"),
    NKEY(fdp_ruh_type, ruh_type_names, "fdp: persistent (persistently isolated: GC keeps "
         "a handle's pages in its own reclaim units) | initial (initially isolated: GC "
         "moves every handle's pages into shared units)"),
    UKEY(fdp_ru_time_limit_s, 0, 1u << 30, "fdp: a reclaim unit open longer than this many "
         "seconds is closed as it is at its handle's next write (0: no limit)"),
    BKEY(fdp_ru_size, "fdp: bytes of a reclaim unit (K/M/G suffixes), which is the GC unit: "
         "a line, or a block with gc_unit=block; 0 takes the geometry's, another size is "
         "refused"),
    UKEY(fdp_nrg, 1, 1, "fdp: reclaim groups: 1 (one group over every LUN; Linux needs "
         "NRG = 1 too)"),
    UKEY(pe_cycles, 1, UINT32_MAX, "rated program/erase cycles per block (wear and "
         "percentage used in SMART)"),
    UKEY(read_uncor_ppm, 0, 1000000, "chance in a million that a host read or verify of a "
         "written flash page fails (unrecovered read error); GC reads never fail"),
    UKEY(fault_seed, 0, UINT64_MAX, "seed of the fault injection (read errors, which "
         "blocks are bad): the same seed and I/O give the same faults"),
    UKEY(bad_blk_pcent, 0, 50, "factory bad blocks, percent of each LUN's blocks (rounded "
         "down), never used"),
    UKEY(read_retry_lat, 0, MAX_LATENCY_NS, "read retries: ns one retry step (a sense "
         "with shifted thresholds and its decode) adds to a host page read (0: no retries)"),
    UKEY(read_retry_pe_step, 0, UINT32_MAX, "read retries: erase cycles of a block per "
         "expected retry step (0: wear adds none)"),
    UKEY(read_retry_age_s, 0, UINT64_MAX / 1000000000u, "read retries: seconds since the "
         "block's first program per expected retry step (0: retention adds none)"),
    UKEY(read_retry_max, 0, 64, "read retries: steps a read takes at most (the length of "
         "the drive's retry table)"),
    NKEY(mapping, mapping_names, "page (the whole map in RAM, as FEMU) | dftl (cached "
         "mapping table over translation pages on flash)"),
    UKEY(cmt_entries, 1, UINT32_MAX, "dftl: entries of the cached mapping table (LRU), at "
         "least one translation page's worth (page bytes / 4)"),
    UKEY(write_buffer_sectors, 0, UINT32_MAX, "sectors of DRAM write buffer in front of "
         "the flash (0: none)"),
    UKEY(buf_wr_lat, 0, MAX_LATENCY_NS, "write buffer: ns a write into DRAM takes"),
    UKEY(buf_flush_pcent, 1, 100, "write buffer: flush least recently written pages while "
         "more than this percent of it is in use"),
    SKEY(plp, "power-loss protection: off | on (a power cut programs the write buffer from "
         "stored energy and lets programs in flight end, so nothing acknowledged is lost; "
         "needs write_buffer_sectors > 0)"),
    UKEY(plp_budget_pages, 0, UINT32_MAX, "plp: pages the stored energy can program at a "
         "cut, least recently written first; the rest of the buffer is lost (0: the whole "
         "buffer, capacitors sized to it)"),
    SKEY(zoned, "a zoned namespace beside the conventional one: off | on (0 | 1); its zones "
         "take the top block rows of every LUN"),
    UKEY(zones, 0, UINT32_MAX - 1, "zoned: number of zones"),
    UKEY(zone_luns, 0, 1u << 20, "zoned: LUNs one zone stripes over, dividing the LUNs "
         "(0: all)"),
    BKEY(zone_cap, "zoned: writable bytes per zone (K/M/G suffixes), whole blocks on each "
         "of zone_luns LUNs (0: one block per LUN)"),
    BKEY(zone_size, "zoned: bytes of LBA space per zone (K/M/G suffixes), at least zone_cap "
         "(0: zone_cap rounded up to a power of two)"),
    UKEY(max_open, 0, UINT32_MAX, "zoned: open zones at most (0: no limit)"),
    UKEY(max_active, 0, UINT32_MAX, "zoned: open and closed zones at most (0: no limit)"),
    UKEY(cell_bits, 0, 4, "bits per cell of the media: 1 SLC, 2 MLC, 3 TLC, 4 QLC (0: not "
         "stated)"),
    UKEY(slc_pg_rd_lat, 0, MAX_LATENCY_NS, "page read latency of a block used in SLC mode, "
         "ns (0: not given)"),
    UKEY(slc_pg_wr_lat, 0, MAX_LATENCY_NS, "page program latency of a block used in SLC "
         "mode, ns (0: not given)"),
    UKEY(slc_blk_er_lat, 0, MAX_LATENCY_NS, "erase latency of a block used in SLC mode, ns "
         "(0: not given)"),
    SKEY(slc_cache, "pseudo-SLC write cache: off | on (host pages go to units used in SLC "
         "mode, 1/cell_bits of their pages, while it has room, and are folded later; needs "
         "cell_bits >= 2 and the slc_* latencies)"),
    UKEY(slc_static_units, 0, UINT32_MAX, "slc_cache: GC units the cache may always use"),
    UKEY(slc_dynamic_pcent, 0, 100, "slc_cache: percent of the free user space (logical "
         "pages not valid) the cache may also use, in whole units"),
    NKEY(slc_when_full, slc_when_full_names, "slc_cache: a host write finding the cache "
         "full goes direct (to a normal unit at pg_wr_lat: the write cliff) | fold (the "
         "oldest SLC unit is folded first, then the write goes to the cache)"),
};

#define NKEYS (sizeof(config_keys) / sizeof(config_keys[0]))

void ftl_config_defaults(struct ftl_config *cfg)
{
    *cfg = (struct ftl_config){
        .secsz = 512, .secs_per_pg = 8, .pgs_per_blk = 256, .blks_per_pl = 256,
        .pls_per_lun = 1, .luns_per_ch = 8, .nchs = 8, .devsz_mb = 12288,
        .pg_rd_lat = 40000, .pg_wr_lat = 200000, .blk_er_lat = 2000000, .ch_xfer_lat = 0,
        .gc_thres_pcent = 75, .gc_thres_pcent_high = 95, .gc_mode = FTL_GC_PACED,
        .gc_policy = FTL_GC_GREEDY, .gc_dchoice_d = 2, .gc_unit = FTL_GC_UNIT_LINE,
        .placement = FTL_PLACEMENT_SINGLE, .hot_threshold = 0, .nstreams = 2,
        .gc_scope = FTL_GC_SCOPE_GLOBAL, .fdp_ruhs = 8, .fdp_ruh_type = FTL_RUH_PERSISTENT,
        .fdp_ru_time_limit_s = 0, .fdp_ru_size = 0, .fdp_nrg = 1,
        .pe_cycles = 3000, .read_uncor_ppm = 0, .fault_seed = 1, .bad_blk_pcent = 0,
        .read_retry_lat = 0, .read_retry_pe_step = 0, .read_retry_age_s = 0,
        .read_retry_max = 8,
        .mapping = FTL_MAPPING_PAGE, .cmt_entries = 65536,
        .write_buffer_sectors = 0, .buf_wr_lat = 1000, .buf_flush_pcent = 100,
    };
}

static const struct config_key *find_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (strcmp(config_keys[i].name, name) == 0 ||
            (config_keys[i].alias && strcmp(config_keys[i].alias, name) == 0)) {
            return &config_keys[i];
        }
    }
    return NULL;
}

const char *ftl_config_key(size_t index)
{
    return index < NKEYS ? config_keys[index].name : NULL;
}

const char *ftl_config_key_help(const char *key)
{
    const struct config_key *k = find_key(key);
    return k ? k->help : NULL;
}

const char *ftl_placement_name(enum ftl_placement placement)
{
    return (unsigned)placement <= FTL_PLACEMENT_FDP ? placement_names[placement] : "?";
}

const char *ftl_gc_mode_name(enum ftl_gc_mode mode)
{
    return (unsigned)mode <= FTL_GC_LINE ? gc_mode_names[mode] : "?";
}

const char *ftl_gc_policy_name(enum ftl_gc_policy policy)
{
    return (unsigned)policy <= FTL_GC_DCHOICE ? gc_policy_names[policy] : "?";
}

const char *ftl_gc_unit_name(enum ftl_gc_unit unit)
{
    return (unsigned)unit <= FTL_GC_UNIT_BLOCK ? gc_unit_names[unit] : "?";
}

const char *ftl_gc_scope_name(enum ftl_gc_scope scope)
{
    return (unsigned)scope <= FTL_GC_SCOPE_STREAM ? gc_scope_names[scope] : "?";
}

const char *ftl_ruh_type_name(enum ftl_ruh_type type)
{
    return (unsigned)type <= FTL_RUH_INITIAL ? ruh_type_names[type] : "?";
}

const char *ftl_slc_when_full_name(enum ftl_slc_when_full when)
{
    return (unsigned)when <= FTL_SLC_FOLD ? slc_when_full_names[when] : "?";
}

const char *ftl_mapping_name(enum ftl_mapping mapping)
{
    return (unsigned)mapping <= FTL_MAPPING_DFTL ? mapping_names[mapping] : "?";
}

/* Enum fields are int-sized; the key table reaches them by offset. */
_Static_assert(sizeof(enum ftl_placement) == sizeof(unsigned) &&
               sizeof(enum ftl_gc_mode) == sizeof(unsigned) &&
               sizeof(enum ftl_gc_policy) == sizeof(unsigned) &&
               sizeof(enum ftl_mapping) == sizeof(unsigned) &&
               sizeof(enum ftl_gc_unit) == sizeof(unsigned) &&
               sizeof(enum ftl_gc_scope) == sizeof(unsigned) &&
               sizeof(enum ftl_ruh_type) == sizeof(unsigned) &&
               sizeof(enum ftl_slc_when_full) == sizeof(unsigned), "enum keys are unsigned-sized");

static unsigned named_get(const struct ftl_config *cfg, const struct config_key *k)
{
    return *(const unsigned *)((const char *)cfg + k->offset);
}

/* Decimal digits only: no sign, no spaces, no trailing text. */
static bool parse_uint(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9') {
        return false;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0') {
        return false;
    }
    *out = v;
    return true;
}

/* Digits with an optional K, M or G suffix (binary, either case): a size in bytes. */
static bool parse_bytes(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9') {
        return false;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE) {
        return false;
    }
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift))) {
        return false;
    }
    *out = (uint64_t)v << shift;
    return true;
}

/* The key's own bounds; `name` is the spelling the user wrote (ssd_size or devsz_mb). */
static int check_range(const struct config_key *k, const char *name, uint64_t v, char *err,
                       size_t errlen)
{
    if (v < k->min || v > k->max) {
        return ftl_error(err, errlen, "%s: %" PRIu64 " is out of range [%" PRIu64 ", %" PRIu64
                         "]", name, v, k->min, k->max);
    }
    return 0;
}

int ftl_config_set(struct ftl_config *cfg, const char *key, const char *value,
                   char *err, size_t errlen)
{
    const struct config_key *k = find_key(key);
    if (!k) {
        return ftl_error(err, errlen, "%s: unknown key", key);
    }
    if (k->kind == KEY_NAMED) {
        char choices[128] = "";
        for (unsigned i = 0; i <= k->max; i++) {
            if (strcmp(value, k->names[i]) == 0) {
                *(unsigned *)((char *)cfg + k->offset) = i;
                return 0;
            }
            size_t used = strlen(choices);
            snprintf(choices + used, sizeof(choices) - used, "%s%s", i ? ", " : "", k->names[i]);
        }
        return ftl_error(err, errlen, "%s: '%s' is not one of %s", key, value, choices);
    }
    uint64_t v;
    if (k->kind == KEY_SWITCH) {
        if (!strcmp(value, "on") || !strcmp(value, "1")) {
            v = 1;
        } else if (!strcmp(value, "off") || !strcmp(value, "0")) {
            v = 0;
        } else {
            return ftl_error(err, errlen, "%s: '%s' is not one of off, on, 0, 1", key, value);
        }
    } else if (k->kind == KEY_BYTES) {
        if (!parse_bytes(value, &v)) {
            return ftl_error(err, errlen, "%s: '%s' is not a size in bytes (digits, then "
                             "optionally K, M or G)", key, value);
        }
    } else if (k->kind == KEY_COUNT && strcmp(value, "off") == 0) {
        v = 0;
    } else if (!parse_uint(value, &v)) {
        return ftl_error(err, errlen, "%s: '%s' is not a non-negative integer%s", key, value,
                         k->kind == KEY_COUNT ? " or off" : "");
    }
    if (check_range(k, key, v, err, errlen)) {
        return -1;
    }
    *(uint64_t *)((char *)cfg + k->offset) = v;
    return 0;
}

int ftl_config_get(const struct ftl_config *cfg, const char *key, char *buf, size_t buflen)
{
    const struct config_key *k = find_key(key);
    if (!k) {
        return -1;
    }
    if (k->kind == KEY_NAMED) {
        unsigned v = named_get(cfg, k);
        snprintf(buf, buflen, "%s", v <= k->max ? k->names[v] : "?");
    } else {
        uint64_t v = *(const uint64_t *)((const char *)cfg + k->offset);
        if (k->kind == KEY_COUNT && v == 0) {
            snprintf(buf, buflen, "off");
        } else {
            snprintf(buf, buflen, "%" PRIu64, v);
        }
    }
    return 0;
}

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* Per-key ranges (a config built in C may bypass ftl_config_set). */
static int check_ranges(const struct ftl_config *cfg, char *err, size_t errlen)
{
    for (size_t i = 0; i < NKEYS; i++) {
        const struct config_key *k = &config_keys[i];
        if (k->kind == KEY_NAMED) {
            if (named_get(cfg, k) > k->max) {
                return ftl_error(err, errlen, "%s: unknown value %u", k->name, named_get(cfg, k));
            }
            continue;
        }
        uint64_t v = *(const uint64_t *)((const char *)cfg + k->offset);
        if (check_range(k, k->name, v, err, errlen)) {
            return -1;
        }
    }
    if (cfg->secsz & (cfg->secsz - 1)) {
        return ftl_error(err, errlen, "secsz: %" PRIu64 " is not a power of two", cfg->secsz);
    }
    /* The slowest read the model can give: every step taken, then the channel. */
    if (cfg->read_retry_lat &&
        cfg->pg_rd_lat + cfg->read_retry_max * cfg->read_retry_lat + cfg->ch_xfer_lat >
        MAX_READ_NS) {
        return ftl_error(err, errlen, "read_retry_max: %" PRIu64 " steps of read_retry_lat %"
                         PRIu64 " ns make a page read take over a second", cfg->read_retry_max,
                         cfg->read_retry_lat);
    }
    if (cfg->hot_decay && cfg->hot_decay < 1024) {
        return ftl_error(err, errlen, "hot_decay: %" PRIu64 " host page writes between halvings "
                         "is below 1024 (each halving touches every logical page)",
                         cfg->hot_decay);
    }
    if (cfg->hot_decay && cfg->hot_threshold >= UINT16_MAX) {
        return ftl_error(err, errlen, "hot_threshold: %" PRIu64 " is not below %u, where aged "
                         "counts (hot_decay) saturate", cfg->hot_threshold, UINT16_MAX);
    }
    if (cfg->gc_thres_pcent > cfg->gc_thres_pcent_high) {
        return ftl_error(err, errlen, "gc_thres_pcent: %" PRIu64 " is above gc_thres_pcent_high (%"
                    PRIu64 "); background GC must start first", cfg->gc_thres_pcent,
                    cfg->gc_thres_pcent_high);
    }
    return 0;
}

/* The smallest power of two >= v (v <= 2^63). */
static uint64_t round_up_pow2(uint64_t v)
{
    uint64_t p = 1;
    while (p < v) {
        p <<= 1;
    }
    return p;
}

/* zone_size: given, or zone_cap rounded up to a power of two; a whole number of pages and
 * at least zone_cap. */
static int derive_zone_size(const struct ftl_config *cfg, struct ftl_geometry *g,
                            uint64_t cap, char *err, size_t errlen)
{
    if (cap > UINT64_C(1) << 62) {
        return ftl_error(err, errlen, "zone_cap: %" PRIu64 " bytes is too large", cap);
    }
    uint64_t size = cfg->zone_size ? cfg->zone_size : round_up_pow2(cap);
    if (cap > size) {
        return ftl_error(err, errlen, "zone_cap: %" PRIu64 " bytes is larger than zone_size (%"
                         PRIu64 " bytes)", cap, size);
    }
    if (size % g->page_bytes) {
        return ftl_error(err, errlen, "zone_size: %" PRIu64 " bytes is not a whole number of %"
                         PRIu64 "-byte pages", size, g->page_bytes);
    }
    g->zone_sectors = size / cfg->secsz;
    g->zone_cap_sectors = cap / cfg->secsz;
    if (!mul_ok(cfg->zones, g->zone_sectors, &g->zoned_sectors)) {
        return ftl_error(err, errlen, "zones: %" PRIu64 " zones of %" PRIu64 " bytes overflow "
                         "64-bit sector numbers", cfg->zones, size);
    }
    return 0;
}

/* The open and active limits: max_open <= max_active when both are set, neither above
 * the zone count. */
static int check_zone_limits(const struct ftl_config *cfg, char *err, size_t errlen)
{
    if (cfg->max_open && cfg->max_active && cfg->max_open > cfg->max_active) {
        return ftl_error(err, errlen, "max_open: %" PRIu64 " is above max_active (%" PRIu64
                         "); open zones are active", cfg->max_open, cfg->max_active);
    }
    if (cfg->max_open > cfg->zones) {
        return ftl_error(err, errlen, "max_open: %" PRIu64 " is more than the %" PRIu64
                         " zones", cfg->max_open, cfg->zones);
    }
    if (cfg->max_active > cfg->zones) {
        return ftl_error(err, errlen, "max_active: %" PRIu64 " is more than the %" PRIu64
                         " zones", cfg->max_active, cfg->zones);
    }
    return 0;
}

/*
 * zoned=1: the zone fields of g and the block rows the zones take from the top of every
 * LUN (zone_rows); the conventional FTL keeps the lines below. A zone is zone_luns LUNs x
 * zone_blocks_per_lun blocks; zones take LUN groups in turn, so a group holds
 * ceil(zones / zone_groups) zones stacked in rows.
 */
static int derive_zones(const struct ftl_config *cfg, struct ftl_geometry *g,
                        char *err, size_t errlen)
{
    if (!cfg->zoned) {
        return 0;
    }
    if (cfg->zones == 0) {
        return ftl_error(err, errlen, "zones: zoned=on needs at least one zone");
    }
    g->zone_luns = cfg->zone_luns ? cfg->zone_luns : g->luns;
    if (g->luns % g->zone_luns) {
        return ftl_error(err, errlen, "zone_luns: %" PRIu64 " does not divide the %" PRIu64
                         " LUNs (nchs x luns_per_ch)", g->zone_luns, g->luns);
    }
    g->zone_groups = g->luns / g->zone_luns;
    /* page_bytes <= 2^26, pgs_per_blk <= 2^16, zone_luns <= 2^20: no overflow */
    uint64_t block_bytes = g->page_bytes * cfg->pgs_per_blk;
    uint64_t stripe = g->zone_luns * block_bytes;
    uint64_t cap = cfg->zone_cap ? cfg->zone_cap : stripe;
    if (cap % stripe) {
        return ftl_error(err, errlen, "zone_cap: %" PRIu64 " bytes does not fit the flash "
                         "layout: a zone is %" PRIu64 " x N blocks of %" PRIu64 " bytes",
                         cap, g->zone_luns, block_bytes);
    }
    g->zone_blocks_per_lun = cap / stripe;
    uint64_t stacked = (cfg->zones + g->zone_groups - 1) / g->zone_groups;
    if (!mul_ok(stacked, g->zone_blocks_per_lun, &g->zone_rows) ||
        g->zone_rows >= g->blks_per_lun) {
        return ftl_error(err, errlen, "zones: %" PRIu64 " zones of %" PRIu64 " blocks on each "
                         "of %" PRIu64 " LUNs need more than the %" PRIu64 " blocks of a LUN",
                         cfg->zones, g->zone_blocks_per_lun, g->zone_luns, g->blks_per_lun);
    }
    if (derive_zone_size(cfg, g, cap, err, errlen) || check_zone_limits(cfg, err, errlen)) {
        return -1;
    }
    return 0;
}

/* slc_cache=on: what the cache needs (bits per cell, the SLC latencies) and supports;
 * the SLC unit's size and the cache's reserve in g. */
static int derive_slc(const struct ftl_config *cfg, struct ftl_geometry *g, char *err,
                      size_t errlen)
{
    if (!cfg->slc_cache) {
        return 0;
    }
    if (cfg->cell_bits < 2) {
        return ftl_error(err, errlen, "cell_bits: slc_cache=on needs media of 2 to 4 bits "
                         "per cell (cell_bits is %" PRIu64 ")", cfg->cell_bits);
    }
    const char *missing = !cfg->slc_pg_rd_lat ? "slc_pg_rd_lat" :
                          !cfg->slc_pg_wr_lat ? "slc_pg_wr_lat" :
                          !cfg->slc_blk_er_lat ? "slc_blk_er_lat" : NULL;
    if (missing) {
        return ftl_error(err, errlen, "%s: slc_cache=on with a profile without the SLC "
                         "latencies (slc_pg_rd_lat, slc_pg_wr_lat, slc_blk_er_lat)", missing);
    }
    if (cfg->pgs_per_blk < cfg->cell_bits) {
        return ftl_error(err, errlen, "pgs_per_blk: %" PRIu64 " pages hold no whole SLC page "
                         "at %" PRIu64 " bits per cell", cfg->pgs_per_blk, cfg->cell_bits);
    }
    if (cfg->placement == FTL_PLACEMENT_STREAM || cfg->placement == FTL_PLACEMENT_FDP) {
        return ftl_error(err, errlen, "placement: slc_cache=on supports placement=single or "
                         "hotcold (one cache has no stream or reclaim unit of its own)");
    }
    if (cfg->zoned) {
        return ftl_error(err, errlen, "zoned: slc_cache=on is not modelled with a zoned "
                         "namespace");
    }
    if (cfg->mapping == FTL_MAPPING_DFTL) {
        return ftl_error(err, errlen, "mapping: slc_cache=on is not modelled with dftl");
    }
    g->slc_pgs_per_blk = cfg->pgs_per_blk / cfg->cell_bits;
    g->slc_pgs_per_unit = g->slc_pgs_per_blk * (g->pgs_per_unit / cfg->pgs_per_blk);
    g->slc_reserved_units = 1 + cfg->slc_static_units;
    return 0;
}

/* The physical layout, checked for overflow step by step. */
static int derive_layout(const struct ftl_config *cfg, struct ftl_geometry *g,
                         char *err, size_t errlen)
{
    memset(g, 0, sizeof(*g));
    g->page_bytes = cfg->secsz * cfg->secs_per_pg;  /* both capped: cannot overflow */
    g->luns = cfg->nchs * cfg->luns_per_ch;
    g->blks_per_lun = cfg->blks_per_pl * cfg->pls_per_lun;
    if (derive_zones(cfg, g, err, errlen)) {
        return -1;
    }
    g->lines = g->blks_per_lun - g->zone_rows;  /* the conventional FTL's block rows */
    if (!mul_ok(g->luns, cfg->pgs_per_blk, &g->pgs_per_line) ||
        !mul_ok(g->luns, g->blks_per_lun, &g->blocks) ||
        !mul_ok(g->lines, g->pgs_per_line, &g->phys_pages) || g->phys_pages > MAX_PAGES) {
        return ftl_error(err, errlen, "blks_per_pl: the geometry has more than %llu physical pages "
                    "(32-bit page addresses)", (unsigned long long)MAX_PAGES);
    }
    /* factory bad blocks only among the conventional lines: zones have no spare blocks */
    g->bad_blocks_per_lun = g->lines * cfg->bad_blk_pcent / 100;  /* both capped */
    g->good_pages = g->phys_pages - g->bad_blocks_per_lun * g->luns * cfg->pgs_per_blk;
    switch (cfg->placement) {
    case FTL_PLACEMENT_SINGLE: g->write_pointers = 1; break;
    case FTL_PLACEMENT_HOTCOLD: g->write_pointers = 2; break;
    case FTL_PLACEMENT_STREAM: g->write_pointers = cfg->nstreams; break;
    case FTL_PLACEMENT_FDP:
        g->write_pointers = cfg->fdp_ruhs + (cfg->fdp_ruh_type == FTL_RUH_INITIAL);
        if (g->write_pointers > 16) {
            return ftl_error(err, errlen, "fdp_ruhs: %" PRIu64 " initially isolated handles "
                             "and their GC write pointer are more than the FTL's 16 write "
                             "pointers (at most 15 handles)", cfg->fdp_ruhs);
        }
        break;
    }
    g->map_write_pointers = cfg->mapping == FTL_MAPPING_DFTL;
    bool blocks = cfg->gc_unit == FTL_GC_UNIT_BLOCK;
    g->units = blocks ? g->lines * g->luns : g->lines;
    g->pgs_per_unit = blocks ? cfg->pgs_per_blk : g->pgs_per_line;
    if (blocks && cfg->gc_mode != FTL_GC_LINE) {
        return ftl_error(err, errlen, "gc_unit: block needs gc_mode=line (paced GC spreads "
                         "a line's moves over its LUNs)");
    }
    g->gc_thres_lines = (100 - cfg->gc_thres_pcent) * g->units / 100;
    g->gc_thres_lines_high = (100 - cfg->gc_thres_pcent_high) * g->units / 100;
    uint64_t units_unzoned = blocks ? g->blks_per_lun * g->luns : g->blks_per_lun;
    if (g->gc_thres_lines_high < 1 &&
        (100 - cfg->gc_thres_pcent_high) * units_unzoned / 100 >= 1) {
        return ftl_error(err, errlen, "zones: the zones take %" PRIu64 " of the %" PRIu64
                         " block rows of every LUN, leaving %" PRIu64 " %s: too few for "
                         "foreground GC (gc_thres_pcent_high)", g->zone_rows,
                         g->blks_per_lun, g->units, blocks ? "blocks" : "lines");
    }
    if (g->gc_thres_lines_high < 1) {
        return ftl_error(err, errlen, "gc_thres_pcent_high: %" PRIu64 "%% of %" PRIu64 " %s "
                    "leaves no %s for foreground GC; use more blocks (blks_per_pl) or a "
                    "lower threshold", cfg->gc_thres_pcent_high, g->units,
                    blocks ? "blocks" : "lines", blocks ? "block" : "line");
    }
    return derive_slc(cfg, g, err, errlen);
}

/*
 * GC can always make progress while some closed line holds an invalid page. With free
 * lines <= h (foreground GC), at most one open line per write pointer (k) and N logical
 * pages, the closed lines number >= L - h - k; if N < (L - h - k) * P one of them has
 * fewer than P valid pages, and moving them fits in the >= 1 free line kept back. With
 * factory bad blocks the closed lines hold at least the good pages less h + k whole
 * lines, so the same bound is taken over good pages (`good`, the geometry's or
 * phys_pages to ask what it would be without bad blocks). With slc_cache=on its open
 * unit and its static units are kept back too (slc_reserved_units): closed SLC units are
 * no victims, but foreground writes fold them before GC runs, so only those stay.
 */
static uint64_t max_logical_pages(const struct ftl_geometry *g, uint64_t good)
{
    /* the SLC cache's open unit and static units count as more open units */
    uint64_t open = g->write_pointers + g->map_write_pointers + g->slc_reserved_units;
    uint64_t reserved = (g->gc_thres_lines_high + open) * g->pgs_per_unit;
    if (g->units <= g->gc_thres_lines_high + open || good <= reserved) {
        return 0;
    }
    return good - reserved - 1;
}

/* Whether the logical capacity would fit the GC reserve if the zones took no rows: then
 * the zones are the key to blame. */
static bool fits_without_zones(const struct ftl_config *cfg, const struct ftl_geometry *g)
{
    if (!g->zone_rows) {
        return false;
    }
    struct ftl_config plain = *cfg;
    struct ftl_geometry whole;
    plain.zoned = 0;
    if (derive_layout(&plain, &whole, NULL, 0)) {
        return false;
    }
    whole.translation_pages = g->translation_pages;
    uint64_t limit = max_logical_pages(&whole, whole.phys_pages);
    limit -= limit > whole.translation_pages ? whole.translation_pages : limit;
    return g->logical_pages <= limit;
}

/* The logical pages fit beside the GC reserve with the SLC cache's reserve of `units`. */
static bool fits_with_slc_units(const struct ftl_geometry *g, uint64_t units)
{
    struct ftl_geometry with = *g;
    with.slc_reserved_units = units;
    uint64_t limit = max_logical_pages(&with, with.phys_pages);
    limit -= limit > g->translation_pages ? g->translation_pages : limit;
    return g->logical_pages <= limit;
}

/* The logical capacity does not fit beside the GC reserve: -1 naming slc_static_units
 * or slc_cache when the cache's reserve is what makes it not fit, else 0 (another key
 * is to blame). */
static int check_slc_room(const struct ftl_config *cfg, const struct ftl_geometry *g,
                          char *err, size_t errlen)
{
    if (!g->slc_reserved_units || !fits_with_slc_units(g, 0)) {
        return 0;
    }
    if (fits_with_slc_units(g, 1)) {
        uint64_t most = 0;
        while (fits_with_slc_units(g, most + 2)) {  /* the open unit, then static ones */
            most++;
        }
        return ftl_error(err, errlen, "slc_static_units: %" PRIu64 " static units (%" PRIu64
                         " pages each, taken from the over-provisioning) are a cache larger "
                         "than the free space can ever hold beside %" PRIu64 " MiB and the GC "
                         "reserve: at most %" PRIu64, cfg->slc_static_units, g->pgs_per_unit,
                         cfg->devsz_mb, most);
    }
    return ftl_error(err, errlen, "slc_cache: the cache's open unit leaves too little "
                     "over-provisioning for %" PRIu64 " MiB and the GC reserve",
                     cfg->devsz_mb);
}

/* The logical capacity fits the good blocks with the GC reserve; the message names the
 * key to change: devsz_mb, or bad_blk_pcent when only the bad blocks make it too big. */
static int check_over_provisioning(const struct ftl_config *cfg, const struct ftl_geometry *g,
                                   char *err, size_t errlen)
{
    uint64_t limit = max_logical_pages(g, g->phys_pages);
    limit -= limit > g->translation_pages ? g->translation_pages : limit;
    /* dftl: the translation pages and the map line share the flash with the data; when
     * only they make the data not fit, the key to blame is mapping */
    struct ftl_geometry page_mapped = *g;
    page_mapped.map_write_pointers = 0;
    if (g->translation_pages && g->logical_pages > limit &&
        g->logical_pages <= max_logical_pages(&page_mapped, g->phys_pages)) {
        return ftl_error(err, errlen, "mapping: dftl's %" PRIu64 " translation pages and its "
                    "map line do not fit beside %" PRIu64 " MiB of data and the GC reserve: "
                    "at most %" PRIu64 " MiB with dftl", g->translation_pages, cfg->devsz_mb,
                    (uint64_t)(limit * g->page_bytes / MIB));
    }
    if (g->logical_pages > limit && fits_without_zones(cfg, g)) {
        return ftl_error(err, errlen, "zones: the zones take %" PRIu64 " of the %" PRIu64
                         " block rows of every LUN, leaving %" PRIu64 " lines: too few for %"
                         PRIu64 " MiB and the GC reserve (at most %" PRIu64 " MiB)",
                         g->zone_rows, g->blks_per_lun, g->lines, cfg->devsz_mb,
                         (uint64_t)(limit * g->page_bytes / MIB));
    }
    if (g->logical_pages > limit && check_slc_room(cfg, g, err, errlen)) {
        return -1;
    }
    if (g->logical_pages > limit) {
        return ftl_error(err, errlen, "devsz_mb: %" PRIu64 " MiB leaves too little over-provisioning "
                    "for GC (%" PRIu64 " %s, %" PRIu64 " kept free for foreground GC, %"
                    PRIu64 " write pointers): at most %" PRIu64 " MiB", cfg->devsz_mb, g->units,
                    cfg->gc_unit == FTL_GC_UNIT_BLOCK ? "blocks" : "lines",
                    g->gc_thres_lines_high, g->write_pointers,
                    (uint64_t)(limit * g->page_bytes / MIB));
    }
    uint64_t good_limit = max_logical_pages(g, g->good_pages);
    good_limit -= good_limit > g->translation_pages ? g->translation_pages : good_limit;
    if (g->logical_pages > good_limit) {
        return ftl_error(err, errlen, "bad_blk_pcent: %" PRIu64 "%% bad blocks (%" PRIu64 " per "
                    "LUN) leave too few good blocks for %" PRIu64 " MiB and the GC reserve: "
                    "at most %" PRIu64 " MiB", cfg->bad_blk_pcent, g->bad_blocks_per_lun,
                    cfg->devsz_mb, (uint64_t)(good_limit * g->page_bytes / MIB));
    }
    return 0;
}

/* dftl: translation pages and a CMT holding at least one of them. */
static int check_mapping(const struct ftl_config *cfg, struct ftl_geometry *g,
                         char *err, size_t errlen)
{
    if (cfg->mapping != FTL_MAPPING_DFTL) {
        return 0;
    }
    g->entries_per_tpage = g->page_bytes / 4;
    if (g->entries_per_tpage == 0) {
        return ftl_error(err, errlen, "mapping: dftl needs pages of at least 4 bytes");
    }
    g->translation_pages = (g->logical_pages + g->entries_per_tpage - 1) / g->entries_per_tpage;
    if (cfg->cmt_entries < g->entries_per_tpage) {
        return ftl_error(err, errlen, "cmt_entries: %" PRIu64 " is smaller than one translation "
                         "page's %" PRIu64 " entries", cfg->cmt_entries, g->entries_per_tpage);
    }
    return 0;
}

/* fdp: a reclaim unit is a GC unit; a configuration that names another size is wrong. */
static int check_fdp(const struct ftl_config *cfg, const struct ftl_geometry *g,
                     char *err, size_t errlen)
{
    uint64_t ru = g->pgs_per_unit * g->page_bytes;     /* < 2^32 pages of <= 2^26 bytes */
    if (cfg->placement != FTL_PLACEMENT_FDP || cfg->fdp_ru_size == 0 ||
        cfg->fdp_ru_size == ru) {
        return 0;
    }
    return ftl_error(err, errlen, "fdp_ru_size: %" PRIu64 " bytes is not this geometry's "
                     "reclaim unit, its GC unit (%s of %" PRIu64 " pages): %" PRIu64 " bytes",
                     cfg->fdp_ru_size, cfg->gc_unit == FTL_GC_UNIT_BLOCK ? "a block" : "a line",
                     g->pgs_per_unit, ru);
}

/* The buffer keeps one bit per sector of a page and fits inside the device. */
static int check_write_buffer(const struct ftl_config *cfg, const struct ftl_geometry *g,
                              char *err, size_t errlen)
{
    if (cfg->plp_budget_pages && !cfg->plp) {
        return ftl_error(err, errlen, "plp_budget_pages: an energy budget needs power-loss "
                         "protection (plp=on)");
    }
    if (cfg->write_buffer_sectors == 0) {
        /* without a buffer nothing waits in DRAM: no energy store has anything to save */
        return cfg->plp ? ftl_error(err, errlen, "plp: power-loss protection needs a write "
                                    "buffer (write_buffer_sectors > 0)") : 0;
    }
    if (cfg->write_buffer_sectors > g->logical_sectors) {
        return ftl_error(err, errlen, "write_buffer_sectors: %" PRIu64 " is larger than the "
                         "device (%" PRIu64 " sectors)", cfg->write_buffer_sectors,
                         g->logical_sectors);
    }
    if (cfg->write_buffer_sectors < cfg->secs_per_pg) {
        return ftl_error(err, errlen, "write_buffer_sectors: %" PRIu64 " is smaller than one "
                         "page (%" PRIu64 " sectors)", cfg->write_buffer_sectors,
                         cfg->secs_per_pg);
    }
    if (cfg->secs_per_pg > 64) {
        return ftl_error(err, errlen, "write_buffer_sectors: the buffer needs secs_per_pg <= "
                         "64 (it is %" PRIu64 ")", cfg->secs_per_pg);
    }
    return 0;
}

int ftl_config_validate(const struct ftl_config *cfg, struct ftl_geometry *geo,
                        char *err, size_t errlen)
{
    struct ftl_geometry g;
    if (check_ranges(cfg, err, errlen) || derive_layout(cfg, &g, err, errlen)) {
        return -1;
    }
    uint64_t logical_bytes = cfg->devsz_mb * MIB;  /* devsz_mb capped at UINT64_MAX / MIB */
    if (logical_bytes % g.page_bytes) {
        return ftl_error(err, errlen, "devsz_mb: %" PRIu64 " MiB is not a whole number of %" PRIu64
                    "-byte pages", cfg->devsz_mb, g.page_bytes);
    }
    g.logical_pages = logical_bytes / g.page_bytes;
    if (check_mapping(cfg, &g, err, errlen)) {
        return -1;
    }
    /* phys_pages < 2^32 and page_bytes <= 2^26: the product cannot overflow. */
    uint64_t raw_mib = g.phys_pages * g.page_bytes / MIB;
    if (g.logical_pages >= g.phys_pages && g.zone_rows &&
        g.logical_pages < g.blks_per_lun * g.pgs_per_line) {
        return ftl_error(err, errlen, "zones: the zones take %" PRIu64 " of the %" PRIu64
                         " block rows of every LUN, leaving %" PRIu64 " MiB raw: less than "
                         "devsz_mb (%" PRIu64 " MiB)", g.zone_rows, g.blks_per_lun, raw_mib,
                         cfg->devsz_mb);
    }
    if (g.logical_pages >= g.phys_pages) {
        return ftl_error(err, errlen, "devsz_mb: logical size %" PRIu64 " MiB must be smaller than "
                    "the raw capacity (%" PRIu64 " MiB)", cfg->devsz_mb, raw_mib);
    }
    if (check_over_provisioning(cfg, &g, err, errlen)) {
        return -1;
    }
    g.logical_sectors = g.logical_pages * cfg->secs_per_pg;
    if (check_write_buffer(cfg, &g, err, errlen) || check_fdp(cfg, &g, err, errlen)) {
        return -1;
    }
    if (geo) {
        *geo = g;
    }
    return 0;
}

uint64_t ftl_config_max_devsz_mb(const struct ftl_config *cfg)
{
    struct ftl_geometry g;
    char err[8];
    if (check_ranges(cfg, err, sizeof(err)) || derive_layout(cfg, &g, err, sizeof(err))) {
        return 0;
    }
    uint64_t limit = max_logical_pages(&g, g.good_pages);
    if (limit >= g.phys_pages) {
        limit = g.phys_pages - 1;
    }
    /* Largest MiB count that is a whole number of pages and fits the limit: a few steps
     * down from the page limit at most (page_bytes / gcd(page_bytes, MiB) of them). */
    uint64_t mib = limit * g.page_bytes / MIB;
    for (uint64_t tries = 0; mib > 0 && tries <= g.page_bytes; mib--, tries++) {
        struct ftl_config probe = *cfg;
        probe.devsz_mb = mib;
        if (ftl_config_validate(&probe, NULL, err, sizeof(err)) == 0) {
            return mib;
        }
    }
    return 0;
}
