/*
 * femu blackbox FTL: page-mapped flash translation layer with greedy GC over lines.
 *
 * Plain C11, no QEMU header, no global state, no threads, no clock of its own: every call
 * that costs flash time takes the caller's current time in ns and returns the time the
 * work completes. The QEMU device, ftl-sim and the tests share this library.
 *
 * Single-threaded: one caller at a time per handle.
 */
#ifndef FEMU_FTL_H
#define FEMU_FTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/config.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ftl;

/* Status codes; hosts map them to their own errors (the device to NVMe status codes). */
enum ftl_status {
    FTL_OK = 0,
    FTL_E_RANGE = -1,   /* LBA range outside the logical capacity */
    FTL_E_NOSPC = -2,   /* no free line could be produced (should not happen on a valid geometry) */
    FTL_E_INVAL = -3,   /* malformed request (zero length, bad stream id) */
    FTL_E_NOMEM = -4,   /* out of memory (a write count past 16 bits could not be kept) */
    FTL_E_UNCORRECTABLE = -5,   /* read/verify: a flash page failed (read_uncor_ppm); the
                                 * flash time was spent, *done_ns is set; see
                                 * ftl_read_error_lpn() */
    /* Zoned namespace admission (femu_ftl/zns.h), one per NVMe status of the same name. */
    FTL_E_ZONE_BOUNDARY = -6,       /* Zone Boundary Error */
    FTL_E_ZONE_FULL = -7,           /* Zone Is Full */
    FTL_E_ZONE_READ_ONLY = -8,      /* Zone Is Read Only */
    FTL_E_ZONE_OFFLINE = -9,        /* Zone Is Offline */
    FTL_E_ZONE_INVALID_WRITE = -10, /* Zone Invalid Write (not at the write pointer) */
    FTL_E_TOO_MANY_ACTIVE = -11,    /* Too Many Active Zones */
    FTL_E_TOO_MANY_OPEN = -12,      /* Too Many Open Zones */
    FTL_E_ZONE_TRANSITION = -13,    /* Invalid Zone State Transition */
    /* Key-value admission (femu_ftl/kv.h), one per NVMe status of the same meaning. */
    FTL_E_KV_NO_KEY = -14,          /* KV Key Does Not Exist */
    FTL_E_KV_KEY_EXISTS = -15,      /* KV Key Exists (Store with No Overwrite) */
    FTL_E_KV_CAPACITY = -16,        /* Capacity Exceeded */
    FTL_E_KV_VALUE_SIZE = -17,      /* Invalid Value Size */
    FTL_E_KV_KEY_SIZE = -18,        /* Invalid Key Size */
    /* Zone Random Write Areas (ZNS 1.1; femu_ftl/zns.h) */
    FTL_E_ZONE_INVALID_OP = -19,    /* Invalid Zone Operation Request (B6h): Zone Append
                                     * to a zone holding a ZRWA */
    FTL_E_ZRWA_UNAVAILABLE = -20,   /* Zone Random Write Area Resources Unavailable
                                     * (B7h): Open with ZRWAA, all NUMZRWA held */
};

/* One range of sectors (a deallocate's, a Copy's source); nlb 0 is skipped. */
struct ftl_range {
    uint64_t slba;
    uint64_t nlb;
};

const char *ftl_status_str(int status);

/* One host command, in the host's sectors of `secsz` bytes. */
struct ftl_io {
    uint64_t now_ns;    /* time the FTL receives the command */
    uint64_t slba;      /* first sector */
    uint64_t nlb;       /* number of sectors, > 0 */
    uint32_t stream;    /* placement=stream: host stream id (< nstreams); placement=fdp:
                         * reclaim unit handle (< fdp_ruhs); else ignored */
    bool fua;           /* write: Force Unit Access, durable at completion (its pages bypass
                         * the write buffer; see ftl_write) */
};

/*
 * Create an FTL for a configuration that ftl_config_validate() accepts; on failure
 * returns NULL with a one-line reason in err.
 */
struct ftl *ftl_create(const struct ftl_config *cfg, char *err, size_t errlen);
void ftl_destroy(struct ftl *ftl);

/* The configuration and geometry the FTL was created with. */
const struct ftl_config *ftl_config_of(const struct ftl *ftl);
const struct ftl_geometry *ftl_geometry_of(const struct ftl *ftl);

/*
 * Host commands. On FTL_OK *done_ns is the completion time (>= io->now_ns). A range error
 * changes nothing. Writes run foreground GC first when free lines are at or below the high
 * threshold, so they may complete much later than their own page programs. A write
 * returns FTL_E_NOMEM, with the pages before the failing one done, only when the table
 * of exact write counts past 65,534 cannot grow. A write with io->fua is durable when it
 * completes: with the write cache on, its pages bypass the buffer and are programmed now,
 * and a page of it with sectors in the buffer takes them along (merged into one program,
 * so the flash copy is the newest and nothing older stays behind in DRAM).
 */
int ftl_read(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns);
int ftl_write(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns);
/* Deallocate (TRIM): unmaps every page wholly inside the range. Costs no flash time. */
int ftl_trim(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns);

/*
 * Verify: the flash reads ftl_read would do (same timing, same fault injection), counted
 * as a verify, not a host read; no data moves anywhere.
 */
int ftl_verify(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns);

/*
 * After ftl_read or ftl_verify returned FTL_E_UNCORRECTABLE: the logical page whose flash
 * read failed (the first one, in LPN order). The device marks that page's sectors
 * uncorrectable; the FTL itself keeps no marks, so a later read rolls the dice again.
 */
uint64_t ftl_read_error_lpn(const struct ftl *ftl);

/*
 * Format NVM over a page-aligned sector range (slba and nlb multiples of secs_per_pg):
 * every page in it is unmapped. With erase (Secure Erase Setting 1, user data erase)
 * their per-LPN write counts go back to 0 as well, and every closed line left without a
 * valid page is erased now and freed (its blocks' erase counts go up); the command
 * completes when those erases do. Without erase it costs no flash time. FTL_E_INVAL for
 * an unaligned range.
 */
int ftl_format(struct ftl *ftl, const struct ftl_io *io, bool erase, uint64_t *done_ns);

/*
 * Background GC, run after each request: when free lines are at or below the background
 * threshold and the best victim has at least 1/8 of its pages invalid, collect it. With
 * gc_mode=line (FEMU) its flash work is queued on the LUNs now; with gc_mode=paced (the
 * default) the same collection is made in the maps now and its flash work is owed, paid
 * as host writes go on and in idle LUN time (gc.c tells how). GC flash operations start
 * no earlier than now_ns and occupy the LUNs, delaying later host I/O. Returns the number
 * of lines collected, < 0 on error.
 */
int ftl_background_gc(struct ftl *ftl, uint64_t now_ns);

/*
 * slc_cache=on: fold pages of the oldest closed SLC units into normal units on flash time
 * that was idle before now_ns (each operation starts only on LUNs idle before now_ns, at
 * their idle time: a drive folding while the host is idle), as long as closed SLC units
 * and idle time remain. The engine calls it before each request and ftl_background_gc
 * after. Returns the pages folded; 0, doing nothing, with slc_cache=off.
 */
int ftl_background_fold(struct ftl *ftl, uint64_t now_ns);

/* Cumulative counters; per-interval values are differences of two snapshots. */
#define FTL_MAX_WRITE_POINTERS 16

struct ftl_counters {
    uint64_t host_read_cmds, host_write_cmds, host_trim_cmds;
    uint64_t host_read_pages, host_write_pages, host_trim_pages;
    uint64_t host_read_bytes, host_write_bytes;
    uint64_t gc_runs, gc_erased_blocks, gc_moved_pages;
    uint64_t nand_user_reads, nand_gc_reads;
    uint64_t nand_user_programs, nand_gc_programs;
    uint64_t nand_erases;
    uint64_t host_verify_cmds;
    uint64_t read_errors;           /* flash page reads that failed (read_uncor_ppm) */
    uint64_t format_cmds, format_erased_blocks;
    uint64_t wp_host_pages[FTL_MAX_WRITE_POINTERS];
    uint64_t wp_gc_pages[FTL_MAX_WRITE_POINTERS];
    uint64_t host_flush_cmds;
    /* mapping=dftl. map_reads / map_writes are translation-page reads and programs for
     * CMT misses, write-backs of evicted dirty entries and data GC's mapping updates;
     * map GC's own moves are map_gc_moved_pages. */
    uint64_t map_reads, map_writes;
    uint64_t map_gc_runs, map_gc_moved_pages, map_gc_erased_blocks;
    uint64_t cmt_hits, cmt_misses;
    uint64_t cmt_writebacks;        /* evictions of a dirty entry (each one map_write) */
    uint64_t gc_map_updates;        /* translation pages data GC rewrote for moved pages
                                     * whose entries were not cached (in map_writes) */
    /* write buffer */
    uint64_t buf_read_hits;         /* pages a read found wholly in the buffer */
    uint64_t buf_absorbed_sectors;  /* host sectors that rewrote a buffered sector */
    uint64_t buf_flushed_pages;     /* pages the buffer wrote to flash */
    uint64_t buf_fill_reads;        /* flash reads completing a page flushed with holes */
    /* placement=stream: the defragmenting fallback of a stream without a victim line */
    uint64_t fallback_runs, fallback_lines, fallback_pages, fallback_erased_blocks;
    /* valid pages of the victims when chosen (data GC and fallback; map GC) */
    uint64_t gc_victim_valid_pages, map_gc_victim_valid_pages;
    /* zoned namespace: commands served, and their flash pages */
    uint64_t zone_write_cmds, zone_append_cmds, zone_read_cmds;
    uint64_t zone_programs;         /* pages programmed by zone writes and appends */
    uint64_t zone_reads;            /* pages sensed by zone reads */
    uint64_t zone_resets, zone_finishes;    /* zones reset / finished (Select All: each) */
    uint64_t zone_erased_blocks;    /* blocks erased by zone resets */
    /* Copy (both namespaces). A destination page whose source page sits on the same LUN
     * moves by copyback (read into the LUN's register, program: one nand_copybacks);
     * otherwise by a read, two channel transfers and a program (nand_copy_reads and
     * nand_copy_programs); a source page not on flash costs a program only. copy_pages
     * counts destination pages. A conventional Copy writes its destination pages through
     * placement like host writes (write pointer, GC, write counts; not host_write_pages)
     * with copyback where the new page lands on the source's LUN; with mapping=dftl both
     * entries are looked up as a read and a write would, and it bypasses a write buffer
     * (buffered destination pages are dropped, buffered source pages cost a program). */
    uint64_t copy_cmds, copy_pages;
    uint64_t nand_copybacks, nand_copy_reads, nand_copy_programs;
    /* placement=fdp (femu_ftl/fdp.h): reclaim units closed before they were full, by a
     * Reclaim Unit Handle Update or by fdp_ru_time_limit_s, and the pages they left
     * unwritten */
    uint64_t fdp_ru_updates, fdp_ru_time_limits, fdp_unwritten_pages;
    /* slc_cache=on (docs/ftl.md): host pages the cache absorbed (programmed in SLC mode),
     * host pages written past it to a normal unit while it was full (the write cliff),
     * pages folded from SLC units into normal ones (each an SLC read and a program), the
     * blocks erased by folding, and the SLC units a host write had to fold (foreground) */
    uint64_t slc_host_pages, slc_direct_pages, slc_folded_pages, slc_fold_erases;
    uint64_t slc_fg_fold_units;
    /* read retries (read_retry_lat > 0): steps taken by host page reads, and the reads
     * that took at least one */
    uint64_t read_retries, retried_reads;
    /* slc_cache=on: the pages folded into each write pointer's units (in slc_folded_pages),
     * so a stream's media pages, host + GC + folded, hold every program made for it */
    uint64_t wp_fold_pages[FTL_MAX_WRITE_POINTERS];
    /* write buffer, by page: host page writes that landed on a page already buffered (one
     * program serves them all: absorbed), and buffered pages forgotten before a program
     * (trim, format, a Copy onto them, a power cut). A page the host wrote through the
     * buffer is absorbed, flushed (buf_flushed_pages), dropped or still buffered
     * (ftl_gauges.buf_pending_pages): host pages written through it = absorbed + flushed +
     * dropped + pending (end - start). */
    uint64_t buf_absorbed_pages, buf_dropped_pages;
    /* mapping=block|bast|fast: merges by type (block mapping's block copy is a full
     * merge), the pages they copied and the blocks they erased; each merge is also a GC
     * run, its copies GC moves (gc_moved_pages, nand_gc_reads, nand_gc_programs) and its
     * erases GC erases (gc_erased_blocks), so WAF counts them */
    uint64_t merge_switch, merge_partial, merge_full;
    uint64_t merge_copied_pages, merge_erased_blocks;
    /* read_cache_pages > 0: host page reads of mapped pages not served by the write
     * buffer, found in the read cache (no flash read) or not (read from flash, then
     * cached), and pages the cache evicted to make room (not those a write dropped) */
    uint64_t rcache_hits, rcache_misses, rcache_evictions;
    /* Key-value stores (femu_ftl/kv.h), all stores together: commands served (admitted
     * ones; errors are not counted), value bytes stores brought and retrieves returned,
     * index page lookups found in the DRAM cache or not, index pages read from and
     * written to flash (misses, dirty evictions), compactions and the value-log pages
     * they rewrote. KV WAF = flash pages programmed x page bytes / kv_store_bytes. The
     * KV layer's page reads and writes are host I/O to the page FTL under it (host_*). */
    uint64_t kv_stores, kv_retrieves, kv_deletes, kv_exists, kv_lists;
    uint64_t kv_store_bytes, kv_retrieve_bytes;
    uint64_t kv_index_hits, kv_index_misses;
    uint64_t kv_index_page_reads, kv_index_page_writes;
    uint64_t kv_compactions, kv_compaction_pages;
    /* Zone Random Write Areas (layout 9 on): writes into a zone holding one (in zone_write_cmds), those
     * starting below the highest sector its window held (a rewrite of the window, at no
     * flash cost), and the pages commits programmed (in zone_programs): implicit (a
     * write past the window) and explicit (Flush Explicit ZRWA Range, Finish) */
    uint64_t zrwa_writes, zrwa_overwrites;
    uint64_t zrwa_commit_pages_implicit, zrwa_commit_pages_explicit;
    /* ftl_power_cut: cuts, buffered pages that lost sectors (without plp), host pages
     * torn (their program in flight at the cut, without plp), and buffered pages
     * programmed from stored energy (plp). Last, and not kept in state files: a state
     * file holds the drive, these tally an experiment on it. */
    uint64_t power_cuts, power_cut_lost_pages, power_cut_torn_pages, power_cut_plp_pages;
    /* The drive in front of the flash (the engine's front/ model; 0 with it off), not kept
     * in state files either: the bytes each direction of the PCIe link carried (payload
     * and TLP and DLLP overhead, before line encoding; up: device to host) and the ps
     * each was busy, and the controller cores' busy ns (summed over cores) and the
     * commands they served */
    uint64_t link_up_bytes, link_down_bytes, link_up_busy_ps, link_down_busy_ps;
    uint64_t ctrl_busy_ns, ctrl_cmds;
    /* What the energy model (femu_ftl/energy.h) needs of the flash, booked when an
     * operation is placed (flash/timing.c), not kept in state files either (a state file
     * holds the drive; these, like the link's and the power states' beside them, tally a
     * run, and the model only ever takes differences): the ns LUNs spent sensing (host,
     * GC, map and fill reads, read retries, copyback's sense), programming (SLC mode too,
     * copyback's program) and erasing, and the bytes the channel buses moved (a page per
     * read and per program, none for copyback; counted when ch_xfer_lat is 0 too) */
    uint64_t nand_sense_ns, nand_program_ns, nand_erase_ns, ch_bytes;
    /* NVMe power states (power/; not kept in state files): ns spent in each state (the
     * state's share of static energy), transitions made (host or autonomous), exits from
     * a non-operational state a command caused, and the ns commands waited for them */
    uint64_t ps_time_ns[FTL_PS_MAX];
    uint64_t ps_transitions, ps_exits, ps_exit_wait_ns;
};

/*
 * The ZNS+ artifact's NAND_read and NAND_write, in flash pages: every page sensed and
 * shipped over the channel (host, GC, translation pages, buffer fill reads, zone reads,
 * Copy's reads across LUNs) and every page programmed (host, GC, map, map GC, fallback,
 * zone writes, Copy's programs across LUNs). Copyback pages are nand_copybacks
 * (NAND_cpbk), in neither.
 */
uint64_t ftl_nand_reads(const struct ftl_counters *c);
uint64_t ftl_nand_programs(const struct ftl_counters *c);

/*
 * Sum over all LUNs of the time each was busy (sensing, programming, erasing, or holding
 * its register while waiting for the channel) in [0, t_ns): busy chips x ns. The busy
 * chips of an interval [a, b) are (ftl_lun_busy_ns(b) - ftl_lun_busy_ns(a)) / (b - a)
 * (ZNS+'s CH_util). Calls must not go back in time (it forgets what lies before t_ns).
 */
uint64_t ftl_lun_busy_ns(struct ftl *ftl, uint64_t t_ns);

/* Gauges: the state now. */
struct ftl_gauges {
    uint32_t free_lines, victim_lines, full_lines, open_lines;    /* GC units (gc_unit) */
    uint64_t valid_pages;       /* mapped physical pages */
    uint64_t free_pages;        /* pages in free lines plus unwritten pages of open lines */
    uint64_t max_written_lpn_plus_one;  /* 0 when nothing was ever written */
    /* slc_cache=on (0 otherwise): the cache's capacity now, the units its rule allows
     * times the pages of an SLC unit, and the valid pages in SLC units */
    uint64_t slc_cap_pages, slc_used_pages;
    /* placement=hotcold (0 otherwise): logical pages the classifier calls hot now (their
     * count, aged with hot_decay, above hot_threshold), written or not since */
    uint64_t hot_pages;
    /* write_buffer_sectors > 0 (0 otherwise): pages in the buffer now, not on flash (their
     * host pages are counted, their programs are not yet) */
    uint64_t buf_pending_pages;
    /* key-value stores, all together (0 without one): live keys and their value bytes */
    uint64_t kv_keys, kv_live_bytes;
};

void ftl_get_counters(const struct ftl *ftl, struct ftl_counters *out);
/*
 * Write amplification between two snapshots: every flash page program (host data, GC,
 * translation pages, map GC, defragmenting fallback, SLC folds) / host pages written. false (and
 * *waf untouched) when the host wrote no page: WAF undefined. Without a write buffer or
 * dftl this is FEMU's (host + GC page programs) / host page programs. Copy (both
 * namespaces): its destination pages count as host pages (copy_pages) and its programs
 * and copybacks as programs, so runs without Copy are unchanged; zone writes count in
 * neither (zones have no device GC to amplify them).
 */
bool ftl_waf(const struct ftl_counters *before, const struct ftl_counters *after,
             double *waf);
/* ftl_waf's programs by what made them (femu_analysis/waf.py names the parts alike): host
 * data, GC and fallback moves, SLC folds, translation pages and map GC, Copy's programs
 * and copybacks. */
enum ftl_waf_part {
    FTL_WAF_HOST, FTL_WAF_GC, FTL_WAF_FOLD, FTL_WAF_MAP, FTL_WAF_COPY, FTL_WAF_PARTS
};
/* Each part's programs between two snapshots into programs; returns ftl_waf's host pages
 * (its denominator). */
uint64_t ftl_waf_programs(const struct ftl_counters *before, const struct ftl_counters *after,
                          uint64_t programs[FTL_WAF_PARTS]);
void ftl_get_gauges(const struct ftl *ftl, struct ftl_gauges *out);

/*
 * Wear and media health, what SMART and the OCP log report. O(1): the FTL keeps these up
 * to date as blocks are erased. Erase counts are over good blocks only.
 */
struct ftl_wear {
    uint64_t blocks;                /* all blocks (good and bad) */
    uint64_t bad_blocks;            /* factory bad blocks (bad_blk_pcent) */
    uint64_t spare_blocks;          /* good blocks beyond those the logical capacity fills */
    uint64_t spare_blocks_total;    /* the same with no bad block: blocks - needed */
    uint32_t erase_min, erase_max;
    uint64_t erase_sum;             /* average = erase_sum / (blocks - bad_blocks) */
    uint64_t pe_cycles;             /* rated program/erase cycles (config pe_cycles) */
};
void ftl_get_wear(const struct ftl *ftl, struct ftl_wear *out);
/* One block, named by line (its block index on every LUN) and LUN; lines from geo.lines
 * to blks_per_lun name the zones' blocks (zoned=1). */
uint32_t ftl_block_erase_count(const struct ftl *ftl, uint64_t line, uint32_t lun);
bool ftl_block_is_bad(const struct ftl *ftl, uint64_t line, uint32_t lun);
unsigned ftl_write_pointer_count(const struct ftl *ftl);

/* Host write count of one logical page (saturates at UINT32_MAX). lpn must be < logical pages. */
uint32_t ftl_lpn_write_count(const struct ftl *ftl, uint64_t lpn);
/* Whether the logical page currently maps to a physical page. */
bool ftl_lpn_is_mapped(const struct ftl *ftl, uint64_t lpn);

/*
 * Full consistency check of maps, counts, lists and write pointers. Returns 0 when
 * consistent, else -1 with the first inconsistency described in err. O(physical pages).
 */
int ftl_check(const struct ftl *ftl, char *err, size_t errlen);

/* Bytes of metadata the FTL holds (maps, per-LPN counters, blocks, lines). */
size_t ftl_metadata_bytes(const struct ftl *ftl);

/*
 * Bytes of mapping state the modelled SSD keeps in its DRAM: the whole page map (4 bytes
 * per logical page) with mapping=page; the CMT (8 bytes an entry: LPN and PPA) and the
 * global translation directory (4 bytes per translation page) with dftl.
 */
uint64_t ftl_device_map_bytes(const struct ftl *ftl);

/*
 * Flush: write every buffered page to flash (write_buffer_sectors > 0; without a buffer
 * nothing is volatile). *done_ns is when the last program ends (now_ns if none).
 */
int ftl_flush(struct ftl *ftl, uint64_t now_ns, uint64_t *done_ns);

/* Sectors in the write buffer now. */
uint64_t ftl_buffered_sectors(const struct ftl *ftl);
/* Which sectors of logical page lpn are in the write buffer now (bit i: sector i of the
 * page; 0 without a buffer or past the logical pages): what a power cut would lose of it,
 * so a host keeping the data can tell which of its copies is still the flash one. */
uint64_t ftl_lpn_buffered_mask(const struct ftl *ftl, uint64_t lpn);

/*
 * The volatile write cache (NVMe's Volatile Write Cache feature, WCE), on by default.
 * With a write buffer, off drains it first (as ftl_flush: *done_ns when the last program
 * ends) and from then on host writes bypass it, completing when programmed; on buffers
 * them again. Without a buffer there is no volatile cache: off is accepted and changes
 * nothing, on is FTL_E_INVAL (a device reports VWC present only with a buffer). Not kept
 * in state files: like the feature without a saved value, it is on after a restore.
 */
int ftl_set_write_cache(struct ftl *ftl, bool on, uint64_t now_ns, uint64_t *done_ns);
/* Whether host writes are buffered now: a buffer, and the cache not switched off. */
bool ftl_write_cache_on(const struct ftl *ftl);

/*
 * Power loss (docs/ftl.md, "Power loss"). What a cut loses, host sectors of one kind:
 * BUFFERED: acknowledged sectors still in the write buffer (they read back as the page's
 * previous flash copy, or unwritten); TORN: a host page whose program was in flight (the
 * whole page reads back uncorrectable until rewritten; a host marks it so).
 */
enum ftl_loss_kind {
    FTL_LOSS_BUFFERED,
    FTL_LOSS_TORN,
};

/* One lost range, reported in LPN order per kind, a page's sectors at most per call. */
typedef void (*ftl_loss_fn)(void *ctx, enum ftl_loss_kind kind, uint64_t slba,
                            uint64_t nlb);

struct ftl_power_cut_result {
    uint64_t buffered_pages, buffered_sectors;  /* lost from the buffer */
    uint64_t torn_pages;                        /* programs in flight, torn */
    uint64_t plp_pages;     /* plp: buffered pages programmed from stored energy */
    uint64_t zrwa_lost_sectors;     /* without plp: zoned sectors the ZRWA windows held
                                     * (uncommitted; each window up to its highest
                                     * written sector), gone; zone write pointers stay */
};

/*
 * Cut the power at now_ns, which must not lie before the newest time a host command or
 * background step gave the FTL (else FTL_E_INVAL, nothing done, the reason in err when
 * err is not NULL). Without plp every loss is reported through lost (NULL: only counted):
 * the buffered sectors, then the torn pages; the buffer is emptied. With plp (a host
 * passes its plp key) the buffer is programmed from stored energy, least recently written
 * first as far as plp_budget_pages reaches (0: all of it; the rest is lost as without
 * plp), and programs in flight end. Either way the FTL is left as after a power-on at now_ns: the
 * buffer empty, no operation in flight, every LUN and channel idle from now_ns (none
 * before), the write cache on; maps, GC's owed work and DFTL's cached entries survive
 * (a drive's journal: every program's mapping is durable). result may be NULL.
 */
int ftl_power_cut(struct ftl *ftl, uint64_t now_ns, bool plp, ftl_loss_fn lost, void *ctx,
                  struct ftl_power_cut_result *result, char *err, size_t errlen);

/*
 * The lost ranges of a cut as a list, the one form the device's power_cut_lost.csv and
 * ftl-sim's --lost-out share: ftl_loss_list_add is an ftl_loss_fn (ctx: the list);
 * ftl_loss_list_merge sorts by kind (buffered first), then slba, and folds ranges of a
 * kind that touch or overlap. failed: out of memory, ranges were left out.
 */
struct ftl_loss_range {
    enum ftl_loss_kind kind;
    uint64_t slba, nlb;
};
struct ftl_loss_list {
    struct ftl_loss_range *v;
    size_t n, cap;
    bool failed;
};
void ftl_loss_list_add(void *list, enum ftl_loss_kind kind, uint64_t slba, uint64_t nlb);
void ftl_loss_list_merge(struct ftl_loss_list *l);
void ftl_loss_list_free(struct ftl_loss_list *l);
const char *ftl_loss_kind_name(enum ftl_loss_kind kind);   /* "buffered", "torn" */

/*
 * How many GC victims had each count of valid pages when chosen: counts[v] for v in
 * [0, *n), *n = pages per line + 1. map: map GC's victims, else data GC's (fallback
 * included). The array belongs to the FTL and changes as it runs.
 */
const uint64_t *ftl_victim_histogram(const struct ftl *ftl, bool map, size_t *n);
/*
 * GC units' lives, for tracing (ftl-sim --unit-log): the FTL calls the observer when a
 * write pointer opens a unit and when GC chooses one as victim, with the unit's counts at
 * that instant. wp is the write pointer that opened the unit (FTL_UNIT_MAP_WP: translation
 * pages); pool is its LUN with gc_unit=block (0 with lines); free_units are the free units
 * left then; host_pages the host page writes so far (an age in host writes). NULL stops it.
 */
#define FTL_UNIT_MAP_WP FTL_MAX_WRITE_POINTERS
enum ftl_unit_event_kind {
    FTL_UNIT_OPENED,
    FTL_UNIT_VICTIM,            /* data GC's */
    FTL_UNIT_VICTIM_MAP,        /* map GC's (translation pages) */
    FTL_UNIT_VICTIM_FALLBACK,   /* the defragmenting fallback's (placement=stream) */
};
struct ftl_unit_event {
    enum ftl_unit_event_kind kind;
    uint32_t unit, pool, wp;
    uint32_t valid, invalid, capacity;
    uint64_t free_units, host_pages, now_ns;
};
typedef void (*ftl_unit_observer)(void *ctx, const struct ftl_unit_event *event);
void ftl_set_unit_observer(struct ftl *ftl, ftl_unit_observer observer, void *ctx);
/*
 * Host page reads by the read-retry model's age class (its expected steps, whole, up to
 * read_retry_max) and the steps they took: *n = read_retry_max + 1 and entry
 * [class * n + steps]. A read of class c took pg_rd_lat + steps x read_retry_lat to sense.
 */
const uint64_t *ftl_read_retry_histogram(const struct ftl *ftl, size_t *n);

#ifdef __cplusplus
}
#endif

#endif
