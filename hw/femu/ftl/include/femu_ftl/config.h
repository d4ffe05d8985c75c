/*
 * FTL configuration: FEMU's parameter names and defaults, one parser for every host
 * (config files, ftl-sim --set, the QEMU device's properties), and validation that names
 * the bad key.
 */
#ifndef FEMU_FTL_CONFIG_H
#define FEMU_FTL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ftl_placement {
    FTL_PLACEMENT_SINGLE,   /* one write pointer, as FEMU */
    FTL_PLACEMENT_HOTCOLD,  /* hot and cold write pointers, split on the per-LPN write count */
    FTL_PLACEMENT_STREAM,   /* one write pointer per host stream id */
    FTL_PLACEMENT_FDP,      /* one write pointer per FDP reclaim unit handle (femu_ftl/fdp.h) */
};

/* Which victims GC weighs when there are several write pointers (streams, FDP handles). */
enum ftl_gc_scope {
    FTL_GC_SCOPE_GLOBAL,    /* every handle's: each handle's best victim by gc_policy, and
                             * among those the most worth collecting (gc_policy.c) */
    FTL_GC_SCOPE_STREAM,    /* foreground GC only the writing stream's, with the
                             * defragmenting fallback (the multi-stream DFTL lab's rule) */
};

/* How GC treats the pages of an FDP reclaim unit handle (NVMe's RUH types). */
enum ftl_ruh_type {
    FTL_RUH_PERSISTENT,     /* persistently isolated: moved pages stay in their handle */
    FTL_RUH_INITIAL,        /* initially isolated: GC may mix handles (one GC write pointer) */
};

/* When a write that finds the DRAM write buffer full completes (wbuf/write_buffer.c). */
enum ftl_buf_flush_mode {
    FTL_BUF_FLUSH_WAIT,     /* when the flushes it started end */
    FTL_BUF_FLUSH_AHEAD,    /* at buf_wr_lat, unless buffered + in-flight sectors exceed it */
};

enum ftl_gc_mode {
    FTL_GC_PACED,   /* background GC moves pages in steps paced by host writes and idle LUNs */
    FTL_GC_LINE,    /* background GC collects a whole line after a request, as FEMU */
};

/* How GC chooses its victim among the closed lines holding an invalid page. */
enum ftl_gc_policy {
    FTL_GC_GREEDY,          /* fewest valid pages, as FEMU */
    FTL_GC_COST_BENEFIT,    /* largest (1 - u) / 2u x age (Rosenblum and Ousterhout) */
    FTL_GC_RANDOM,          /* uniform */
    FTL_GC_FIFO,            /* closed first */
    FTL_GC_DCHOICE,         /* fewest valid pages of gc_dchoice_d uniform picks */
};

/* What GC collects and allocation opens: FEMU's lines striped over every LUN, or single
 * blocks within a LUN (bank), as the lab's DFTL does. */
enum ftl_gc_unit {
    FTL_GC_UNIT_LINE,
    FTL_GC_UNIT_BLOCK,
};

/* slc_cache: what a host write does when the SLC cache has no room (docs/ftl.md). */
enum ftl_slc_when_full {
    FTL_SLC_DIRECT,     /* straight to the placement's write pointer at pg_wr_lat: the cliff */
    FTL_SLC_FOLD,       /* fold the oldest SLC unit first, then write to the cache */
};

/* How logical pages map to physical ones. */
enum ftl_mapping {
    FTL_MAPPING_PAGE,   /* the whole page map in RAM, as FEMU */
    FTL_MAPPING_DFTL,   /* DFTL (Gupta et al., ASPLOS'09): a cached mapping table of
                         * cmt_entries entries over translation pages kept on flash */
    FTL_MAPPING_BLOCK,  /* block mapping: one physical block per logical block */
    FTL_MAPPING_BAST,   /* BAST (Kim et al., 2002): a log block per data block */
    FTL_MAPPING_FAST,   /* FAST (Lee et al., TECS 2007): one sequential and log_blocks - 1
                         * shared random log blocks */
};

/* The DRAM read cache's replacement policy (rcache/, docs/ftl.md). */
enum ftl_read_cache_policy {
    FTL_RCACHE_LRU,     /* least recently used */
    FTL_RCACHE_CLOCK,   /* second chance: a reference bit per frame and a hand */
    FTL_RCACHE_2Q,      /* Johnson and Shasha, VLDB'94, the full version */
    FTL_RCACHE_ARC,     /* Megiddo and Modha, FAST'03 */
};

/* NVMe power states: Identify Controller holds up to 32 descriptors (NPSS is 0-based). */
#define FTL_PS_MAX 32

/* One power state descriptor, in the units femu's keys use. */
struct ftl_ps_desc {
    uint64_t max_mw;        /* MP: the most the drive draws in this state */
    uint64_t idle_mw;       /* IDLP: drawn while idle in this state (the energy model's
                             * static power) */
    uint64_t active_mw;     /* ACTP: reported only (the energy model adds activity) */
    uint64_t enlat_us, exlat_us;    /* ENLAT, EXLAT: entry and exit latency */
    uint64_t nonop;         /* 1: non-operational (NOPS): no command runs in it */
    uint64_t perf_pcent;    /* operational: throughput relative to PS0, 1-100 */
};

struct ftl_config {
    /* geometry */
    uint64_t secsz;             /* bytes per sector */
    uint64_t secs_per_pg;       /* sectors per flash page */
    uint64_t pgs_per_blk;       /* pages per block */
    uint64_t blks_per_pl;       /* blocks per plane */
    uint64_t pls_per_lun;       /* planes per LUN */
    uint64_t luns_per_ch;       /* LUNs per channel */
    uint64_t nchs;              /* channels */
    uint64_t devsz_mb;          /* logical capacity, MiB (config files: ssd_size) */
    /* latencies, ns */
    uint64_t pg_rd_lat, pg_wr_lat, blk_er_lat, ch_xfer_lat;
    /* GC thresholds, percent of lines in use */
    uint64_t gc_thres_pcent, gc_thres_pcent_high;
    enum ftl_gc_mode gc_mode;
    enum ftl_gc_policy gc_policy;
    uint64_t gc_dchoice_d;      /* dchoice: lines sampled per choice */
    enum ftl_gc_unit gc_unit;   /* line (FEMU) or block: the unit GC and allocation use */
    /* placement */
    enum ftl_placement placement;
    uint64_t hot_threshold;     /* hotcold: hot when write count > hot_threshold */
    uint64_t hot_decay;         /* hotcold: halve the counts placement reads every this many
                                 * host page writes (place/heat.h); 0: off, exact counts */
    uint64_t nstreams;          /* stream: number of streams (write pointers) */
    enum ftl_gc_scope gc_scope; /* victims across write pointers: global | stream */
    uint64_t fdp_ruhs;          /* fdp: reclaim unit handles (write pointers) */
    enum ftl_ruh_type fdp_ruh_type;
    uint64_t fdp_ru_time_limit_s;   /* fdp: close an RU open longer than this (0: never) */
    uint64_t fdp_ru_size;       /* fdp: bytes of a reclaim unit, which must be the GC unit's
                                 * (0: whatever the geometry gives; text: K/M/G) */
    uint64_t fdp_nrg;           /* fdp: reclaim groups; 1, the only number modelled */
    /* media */
    uint64_t pe_cycles;         /* rated program/erase cycles of a block (wear reports) */
    /* fault injection, deterministic for a given fault_seed and call sequence */
    uint64_t read_uncor_ppm;    /* chance, per million, that a host flash page read fails */
    uint64_t fault_seed;        /* seeds the FTL's own generator (read faults, bad blocks) */
    uint64_t bad_blk_pcent;     /* factory bad blocks: this percent of each LUN's blocks */
    /* read retries (flash/read_retry.c): a host page read senses again, read_retry_lat
     * each time, as its block wears and its data ages; read_retry_lat 0 turns them off */
    uint64_t read_retry_lat;        /* ns one retry step adds to the read */
    uint64_t read_retry_pe_step;    /* erase cycles per expected step (0: wear adds none) */
    uint64_t read_retry_age_s;      /* seconds since the block's first program per expected
                                     * step (0: retention adds none) */
    uint64_t read_retry_max;        /* steps at most (the retry table's length) */
    /* mapping */
    enum ftl_mapping mapping;
    uint64_t cmt_entries;       /* dftl: entries the cached mapping table holds */
    uint64_t log_blocks;        /* bast, fast: log blocks (fast: 1 sequential + the rest
                                 * random) */
    /* write buffer (DRAM in front of the flash) */
    uint64_t write_buffer_sectors;  /* 0: no buffer */
    uint64_t buf_wr_lat;        /* ns a write into the buffer takes */
    uint64_t buf_flush_pcent;   /* flush LRU pages while the buffer is fuller than this */
    enum ftl_buf_flush_mode buf_flush_mode;
    uint64_t plp;               /* power-loss protection, 0 or 1 (text: off/on): what a
                                 * host passes ftl_power_cut (docs/ftl.md, "Power loss");
                                 * needs the buffer */
    uint64_t plp_budget_pages;  /* pages the stored energy programs at a cut (0: the whole
                                 * buffer); needs plp */
    /* read cache (DRAM: pages host reads find there cost read_cache_lat, no flash read) */
    uint64_t read_cache_pages;  /* 0: no cache */
    enum ftl_read_cache_policy read_cache_policy;
    uint64_t read_cache_lat;    /* ns a hit takes */
    uint64_t dram_mb;           /* the device's DRAM, MiB: read cache + map + write buffer
                                 * must fit (0: no budget given, nothing checked) */
    /* zoned namespace (femu_ftl/zns.h) beside the conventional one */
    uint64_t zoned;             /* 0 or 1 (text: off/on, 0/1) */
    uint64_t zones;             /* zones; with zoned=1, > 0 */
    uint64_t zone_luns;         /* LUNs one zone stripes over (0: all); divides the LUNs */
    uint64_t zone_cap;          /* bytes writable per zone (text: K/M/G suffixes); whole
                                 * blocks on each of its LUNs; 0: one block per LUN */
    uint64_t zone_size;         /* bytes of LBA space per zone, >= zone_cap (text: K/M/G);
                                 * 0: zone_cap rounded up to a power of two */
    uint64_t max_open;          /* open zones at most (0: no limit) */
    uint64_t max_active;        /* open + closed zones at most (0: no limit) */
    /* Zone Random Write Areas (NVMe ZNS 1.1+, femu_ftl/zns.h): zones that may hold one at
     * once (NUMZRWA; 0: none), its bytes (ZRWAS; 0: 16 x zrwa_flush_gran) and its commit
     * unit (ZRWAFG, bytes; 0: one flash page) */
    uint64_t zrwa_zones, zrwa_size, zrwa_flush_gran;
    /* media: bits per cell (1-4; 0 = not stated) and SLC-mode latencies, ns (0 = not given) */
    uint64_t cell_bits;
    uint64_t slc_pg_rd_lat, slc_pg_wr_lat, slc_blk_er_lat;
    /* pseudo-SLC write cache (docs/ftl.md): host pages go to units used in SLC mode while
     * it has room, and are folded into normal units later */
    uint64_t slc_cache;         /* 0 or 1 (text: off/on) */
    uint64_t slc_static_units;  /* GC units always usable in SLC mode */
    uint64_t slc_dynamic_pcent; /* percent of the free user space usable in SLC mode */
    enum ftl_slc_when_full slc_when_full;
    /* key-value stores (femu_ftl/kv.h): each store's index cache (pages), its value log's
     * over-provisioning (% of the capacity), the largest value (bytes), the keys a store
     * holds (0: capacity / 1024, at least one index page's worth) and the log's
     * compaction unit (pages; 0: a block's pages, times the blocks the largest record
     * needs) */
    uint64_t kv_index_cache_pages;
    uint64_t kv_op_pct;
    uint64_t kv_max_value;
    uint64_t kv_max_keys;
    uint64_t kv_segment_pages;
    /* the drive in front of the flash (front/, docs/front.md): the PCIe link (generation
     * 1-5, 0: no link limit; lanes; Max_Payload_Size, bytes) and the controller's cores
     * (0: commands cost no controller time) with each command kind's cost, ns */
    uint64_t pcie_gen, pcie_lanes, pcie_mps;
    uint64_t ctrl_cores;
    uint64_t ctrl_read_ns, ctrl_write_ns, ctrl_flush_ns, ctrl_dsm_range_ns, ctrl_admin_ns;
    uint64_t ctrl_map_miss_ns;
    /* NVMe power states (power/, docs/energy.md): ps_count descriptors (NPSS + 1, at
     * least PS0), each as Identify Controller reports it */
    uint64_t ps_count;
    struct ftl_ps_desc ps[FTL_PS_MAX];
    /* the energy model (femu_ftl/energy.h, docs/energy.md): energy 0 or 1 (text: off/on);
     * the NAND's supply voltage and array currents (ONFI's VCC, ICC1, ICC2, ICC3) and its
     * channel bus's energy a byte, all needed with energy=on (0: not given); the PCIe
     * link's energy a bit on the wire, a busy controller core's power and the DRAM's
     * while the drive is operational (0: not counted) */
    uint64_t energy;
    uint64_t nand_vcc_mv, nand_icc_read_ua, nand_icc_prog_ua, nand_icc_erase_ua;
    uint64_t nand_io_pj_per_byte;
    uint64_t pcie_fj_per_bit;
    uint64_t ctrl_active_mw, dram_active_mw;
};

/* Derived geometry. A line is block index b taken across every LUN of every channel. */
struct ftl_geometry {
    uint64_t page_bytes;        /* secsz * secs_per_pg */
    uint64_t luns;              /* nchs * luns_per_ch */
    uint64_t blks_per_lun;      /* blks_per_pl * pls_per_lun */
    uint64_t lines;             /* blks_per_lun, less zone_rows when zoned */
    uint64_t pgs_per_line;      /* luns * pgs_per_blk */
    uint64_t blocks;            /* luns * blks_per_lun */
    uint64_t phys_pages;        /* lines * pgs_per_line */
    uint64_t logical_pages;     /* devsz_mb MiB / page_bytes */
    uint64_t logical_sectors;   /* logical_pages * secs_per_pg */
    uint64_t units;             /* GC units: lines, or blocks with gc_unit=block */
    uint64_t pgs_per_unit;      /* pgs_per_line, or pgs_per_blk with gc_unit=block */
    uint64_t gc_thres_lines;    /* background GC when free units <= this */
    uint64_t gc_thres_lines_high; /* foreground GC when free units <= this */
    uint64_t write_pointers;    /* 1, 2, nstreams, or fdp_ruhs (+ 1: the GC write pointer
                                 * of initially isolated handles) */
    uint64_t bad_blocks_per_lun;    /* blks_per_lun * bad_blk_pcent / 100, rounded down */
    uint64_t good_pages;        /* phys_pages less the pages of factory bad blocks */
    uint64_t entries_per_tpage; /* dftl: 4-byte map entries in one translation page */
    uint64_t translation_pages; /* dftl: translation pages covering the logical pages; 0
                                 * with page mapping */
    uint64_t map_write_pointers;    /* 1 with dftl (translation pages have their own), else 0 */
    /* zoned=1 (zeros otherwise). Zones take the top zone_rows block rows of every LUN:
     * zone z stripes over LUN group z % zone_groups (LUNs [g * zone_luns, +zone_luns)),
     * block rows lines + (z / zone_groups) * zone_blocks_per_lun onwards; its pages go
     * LUN first (page p on LUN p % zone_luns), so consecutive pages pipeline. The
     * conventional FTL's lines are the rows below: lines = blks_per_lun - zone_rows. */
    uint64_t zone_luns;
    uint64_t zone_groups;           /* luns / zone_luns */
    uint64_t zone_blocks_per_lun;   /* blocks of one zone on each of its LUNs */
    uint64_t zone_rows;
    uint64_t zone_sectors;          /* zone_size / secsz */
    uint64_t zone_cap_sectors;      /* zone_cap / secsz */
    uint64_t zoned_sectors;         /* zones * zone_sectors: the zoned namespace */
    uint64_t zrwa_sectors;          /* zrwa_zones > 0: zrwa_size / secsz (ZRWAS) */
    uint64_t zrwa_fg_sectors;       /* zrwa_flush_gran / secsz (ZRWAFG) */
    /* slc_cache=on (zeros otherwise): a unit in SLC mode programs the first
     * slc_pgs_per_blk = pgs_per_blk / cell_bits pages of each of its blocks, so it holds
     * slc_pgs_per_unit pages; slc_reserved_units is what the cache takes from the
     * over-provisioning for good (its open unit and the static units) */
    uint64_t slc_pgs_per_blk;
    uint64_t slc_pgs_per_unit;
    uint64_t slc_reserved_units;
};

/* FEMU's defaults: 16 GiB raw, 12288 MiB logical. */
void ftl_config_defaults(struct ftl_config *cfg);

/*
 * Set one key from text. Keys are the FEMU names (plus ssd_size as an alias of devsz_mb,
 * gc_mode, gc_policy, gc_dchoice_d, placement, hot_threshold, nstreams). Returns 0, or -1 with a one-line reason
 * naming the key in err. Does not check cross-key constraints: see ftl_config_validate().
 */
int ftl_config_set(struct ftl_config *cfg, const char *key, const char *value,
                   char *err, size_t errlen);

/*
 * Read a `key=value  # comment` file on top of cfg. Returns 0, or -1 with
 * "FILE:LINE: reason" in err (nothing changed). A key may appear once per file.
 * `include PATH` reads another file at that point (PATH relative to the including file's
 * directory; at most FTL_CONFIG_MAX_INCLUDE_DEPTH deep; a cycle is refused). Keys apply
 * in the order read: a later line or file overrides an earlier one.
 */
int ftl_config_load_file(struct ftl_config *cfg, const char *path, char *err, size_t errlen);

#define FTL_CONFIG_MAX_INCLUDE_DEPTH 8
#define FTL_CONFIG_ORIGIN_KEYS 384  /* keys tracked (more than the table has: a test checks) */
#define FTL_CONFIG_ORIGIN_LEN 512

/* Where each key got its value while files were combined: "FILE:LINE" by key index
 * (ftl_config_key order); "" when no file set it. Zero it before the first file. */
struct ftl_config_origins {
    char where[FTL_CONFIG_ORIGIN_KEYS][FTL_CONFIG_ORIGIN_LEN];
};

/* ftl_config_load_file, noting in origins (NULL: not tracked) the file and line that set
 * each key. Call it once per file, in order: later files override earlier ones. */
int ftl_config_combine_file(struct ftl_config *cfg, struct ftl_config_origins *origins,
                            const char *path, char *err, size_t errlen);
/* Record that something else set key (e.g. "--set"; NULL or "": forget the origin). */
void ftl_config_origin_note(struct ftl_config_origins *origins, const char *key,
                            const char *where);
/* Where key was set last, or NULL. */
const char *ftl_config_origin_of(const struct ftl_config_origins *origins, const char *key);
/*
 * ftl_config_validate, with the refused key's origin in front of the message:
 * "FILE:LINE: KEY: reason" when a file set that key last, else "KEY: reason".
 */
int ftl_config_validate_combined(const struct ftl_config *cfg,
                                 const struct ftl_config_origins *origins,
                                 struct ftl_geometry *geo, char *err, size_t errlen);

/*
 * Check every value and every cross-key constraint; fill geo when geo is not NULL.
 * Returns 0, or -1 with "KEY: reason" in err.
 */
int ftl_config_validate(const struct ftl_config *cfg, struct ftl_geometry *geo,
                        char *err, size_t errlen);

/* The PCIe link or the controller's cores are modelled (pcie_gen or ctrl_cores set):
 * commands pay for both, and the statistics have their columns (docs/front.md). */
bool ftl_config_front_on(const struct ftl_config *cfg);

/* energy=on: statistics and ftl-sim's summary have the energy model's columns
 * (docs/energy.md). */
bool ftl_config_energy_on(const struct ftl_config *cfg);

/* Largest devsz_mb the rest of cfg allows (0 if none): the smallest legal over-provisioning. */
uint64_t ftl_config_max_devsz_mb(const struct ftl_config *cfg);

/* A power state's key (psN_FIELD) of a state at or past ps_count: it must hold 0 and says
 * nothing, so a listing of the effective configuration may leave it out. */
bool ftl_config_key_unused(const struct ftl_config *cfg, const char *key);

/* Iterate over the keys (canonical names, in a stable order). NULL past the end. */
const char *ftl_config_key(size_t index);
/* One-line description of a key, or NULL if unknown. */
const char *ftl_config_key_help(const char *key);
/* Current value of a key as text (placement and gc_mode as names). -1 for an unknown key. */
int ftl_config_get(const struct ftl_config *cfg, const char *key, char *buf, size_t buflen);

const char *ftl_placement_name(enum ftl_placement placement);
const char *ftl_gc_mode_name(enum ftl_gc_mode mode);
const char *ftl_gc_policy_name(enum ftl_gc_policy policy);
const char *ftl_mapping_name(enum ftl_mapping mapping);
/* block, bast or fast: a mapping over whole blocks (map/hybrid.h) */
bool ftl_mapping_is_hybrid(enum ftl_mapping mapping);
const char *ftl_gc_unit_name(enum ftl_gc_unit unit);
const char *ftl_gc_scope_name(enum ftl_gc_scope scope);
const char *ftl_ruh_type_name(enum ftl_ruh_type type);
const char *ftl_slc_when_full_name(enum ftl_slc_when_full when);
const char *ftl_read_cache_policy_name(enum ftl_read_cache_policy policy);

#ifdef __cplusplus
}
#endif

#endif
