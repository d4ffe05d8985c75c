/*
 * The sections an FTL state file holds (femu_ftl/state.h), one function pair per part of
 * the FTL in a file of its own (ftl_state_<part>.c); ftl_state.c calls them in order. Each
 * load checks every size and index against the FTL it fills before it stores anything
 * that later code would index with; ftl_check() then checks that the whole holds together.
 * Besides the pairs, this header holds what they share: the tags, the layout version,
 * times, and (ftl_state_section.c) opening a section and its errors.
 */
#ifndef FEMU_FTL_STATE_FTL_STATE_SECTION_H
#define FEMU_FTL_STATE_FTL_STATE_SECTION_H

#include <stdint.h>

#include "femu_ftl/ftl.h"
#include "state_codec.h"

#define STATE_TAG_FTL_CORE STATE_TAG('F', 'C', 'O', 'R')   /* scalars, counters, wps */
#define STATE_TAG_FTL_BLKS STATE_TAG('F', 'B', 'L', 'K')   /* blocks and bad blocks */
#define STATE_TAG_FTL_LINE STATE_TAG('F', 'L', 'I', 'N')   /* lines (GC units) */
#define STATE_TAG_FTL_QUES STATE_TAG('F', 'Q', 'U', 'E')   /* free rings, victim heaps */
#define STATE_TAG_FTL_DEBT STATE_TAG('F', 'D', 'B', 'T')   /* paced GC's owed flash work */
#define STATE_TAG_FTL_FEVT STATE_TAG('F', 'E', 'V', 'T')   /* FDP events not yet taken */
#define STATE_TAG_FTL_SLC  STATE_TAG('F', 'S', 'L', 'C')   /* the SLC cache (slc_cache=on) */
#define STATE_TAG_FTL_L2P  STATE_TAG('F', 'L', '2', 'P')   /* sparse l2p_plus1 */
#define STATE_TAG_FTL_P2L  STATE_TAG('F', 'P', '2', 'L')   /* sparse p2l_plus1 */
#define STATE_TAG_FTL_WCNT STATE_TAG('F', 'W', 'C', 'N')   /* sparse write_count16 */
#define STATE_TAG_FTL_WCOV STATE_TAG('F', 'W', 'C', 'O')   /* write-count overflow slots */
#define STATE_TAG_FTL_ZONE STATE_TAG('Z', 'O', 'N', 'E')   /* zones (zoned=1) */
#define STATE_TAG_FTL_DFTL STATE_TAG('D', 'F', 'T', 'L')   /* the CMT (mapping=dftl) */
#define STATE_TAG_FTL_WBUF STATE_TAG('W', 'B', 'U', 'F')   /* buffered pages */
#define STATE_TAG_FTL_HEAT STATE_TAG('F', 'H', 'O', 'T')   /* aged counts (hot_decay) */
#define STATE_TAG_FTL_HYBR STATE_TAG('H', 'Y', 'B', 'R')   /* mapping=block|bast|fast */
#define STATE_TAG_FTL_KVST STATE_TAG('K', 'V', 'S', 'T')   /* key-value stores (layout 8) */

/* The file's layout version: the first u32 of FCOR, FBLK, FLIN and FQUE. 3 added the SLC
 * cache (FCOR: its counters, write pointer, FIFO and fold cursor; FLIN: each unit's SLC
 * mode), the read retries (FCOR: their counters; FBLK: each block's first program, as an
 * age, and the histogram) and keeps write pointers' and FDP events' times as ages; a
 * version 2 file still loads, its units all normal, its blocks programmed at the restore.
 * 4 added the pages folded per write pointer (FCOR's counters; a version 3 file loads them
 * as 0), 5 the write buffer's absorbed and dropped pages (FCOR's counters; older files
 * load 0). 6 moved paced GC's debt, the FDP events and the SLC cache's scalars out of FCOR
 * into sections of their own (FDBT, FEVT, FSLC, each with its own version below); older
 * files carry them in FCOR, where ftl_state_core.c reads them. 7 added the hybrid
 * mappings' merge counters (FCOR's counters; older files load 0), 8 the key-value stores'
 * counters (FCOR's; older files load 0) and their section KVST (older files have no KV
 * store). Other sections are the same in all. */
#define FTL_STATE_SECTION_VERSION 9u
#define FTL_STATE_LAYOUT_KV 8u              /* the first layout with KVST */
#define FTL_STATE_LAYOUT_ZRWA 9u            /* ZONE's records hold the ZRWAs (and FCOR
                                             * their counters) */
#define FTL_STATE_LAYOUT_OWN_SECTIONS 6u    /* the first layout with FDBT, FEVT and FSLC */
#define FTL_STATE_SECTION_VERSION_OLDEST 2u

/*
 * Each part's sections and the most bytes each can hold in this FTL (femu_ftl/state.h's
 * ftl_state_limits): written into out, returning how many. The loaders hold a section to
 * the same size, so a file is refused by its headers before a payload is read.
 */
size_t ftl_state_conf_limits(struct state_section_limit *out);
size_t ftl_state_core_limits(const struct ftl *ftl, struct state_section_limit *out);
size_t ftl_state_maps_limits(const struct ftl *ftl, struct state_section_limit *out);
size_t ftl_state_zns_limits(const struct ftl *ftl, struct state_section_limit *out);
size_t ftl_state_dftl_limits(const struct ftl *ftl, struct state_section_limit *out);
size_t ftl_state_wbuf_limits(const struct ftl *ftl, struct state_section_limit *out);
size_t ftl_state_heat_limits(const struct ftl *ftl, struct state_section_limit *out);

int ftl_state_save_conf(const struct ftl_config *cfg, struct state_writer *w, char *err,
                        size_t errlen);

int ftl_state_save_core(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                        char *err, size_t errlen);
/* *layout: the file's layout version (FCOR's), which says where the features' fields are. */
int ftl_state_load_core(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                        uint32_t *layout, char *err, size_t errlen);

int ftl_state_save_maps(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen);
int ftl_state_load_maps(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

/* The modules, each only when configured; loaded after the maps (DFTL's directory is
 * read from the P2L). */
int ftl_state_save_zns(const struct ftl *ftl, struct state_writer *w, char *err,
                       size_t errlen);
int ftl_state_load_zns(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

int ftl_state_save_dftl(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen);
int ftl_state_load_dftl(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

int ftl_state_save_wbuf(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen);
int ftl_state_load_wbuf(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

/* Paced GC's debt (FDBT), the FDP events (FEVT) and the SLC cache (FSLC, only with
 * slc_cache=on), each a section of layout FTL_STATE_LAYOUT_OWN_SECTIONS on, saved and loaded
 * after the core's; FSLC's absence leaves the cache empty. */
#define FTL_STATE_DEBT_VERSION 1u
#define FTL_STATE_FEVT_VERSION 1u
#define FTL_STATE_SLC_VERSION 1u
size_t ftl_state_debt_limits(const struct ftl *ftl, struct state_section_limit *out);
size_t ftl_state_fdp_events_limits(const struct ftl *ftl, struct state_section_limit *out);
size_t ftl_state_slc_limits(const struct ftl *ftl, struct state_section_limit *out);
int ftl_state_save_debt(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen);
int ftl_state_load_debt(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);
int ftl_state_save_fdp_events(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                              char *err, size_t errlen);
int ftl_state_load_fdp_events(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                              char *err, size_t errlen);
int ftl_state_save_slc(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                       char *err, size_t errlen);
int ftl_state_load_slc(struct ftl *ftl, struct state_reader *r, uint64_t now_ns, char *err,
                       size_t errlen);

/*
 * Reading the same fields at a cursor, shared by those sections and the FCOR of layouts
 * before FTL_STATE_LAYOUT_OWN_SECTIONS, which held them (its debt's head, then the events,
 * the victim histogram, the SLC cache, the debt's operations at its end). Each getter
 * stores what it reads and returns false when a value is out of range for this FTL.
 */
#define STATE_DEBT_HEAD_BYTES (2 * 4 + 8 + 4)
#define STATE_DEBT_OP_BYTES (3 * 4)
#define STATE_FDP_EVENTS_HEAD_BYTES (4 + 8)
#define STATE_FDP_EVENT_BYTES (2 * 8 + 2 * 4 + 1)
#define STATE_SLC_BYTES (3 * 4 + 8 + 4 * 4)
/* The rates, the owed moves and the operations' count. */
void state_debt_get_head(struct ftl *ftl, struct state_cursor *c);
/* The operations, oldest first, to the section's end; false when the count exceeds the
 * room or differs from the bytes left. */
bool state_debt_get_ops(struct ftl *ftl, struct state_cursor *c);
/* The count, the lost count and the events oldest first: as many as the count, or the
 * whole ring (zeroes after the count) in the old FCOR; times as ages when `ages` (layout 3
 * on), else as they were. */
bool state_fdp_events_get(struct ftl *ftl, struct state_cursor *c, uint64_t now_ns,
                          bool whole_ring, bool ages);
/* The SLC write pointer, the FIFO's ends and count, the fold cursor. */
bool state_slc_get(struct ftl *ftl, struct state_cursor *c, uint64_t now_ns);
/* The cache empty, as with slc_cache=off or a file before it. */
void state_slc_none(struct ftl *ftl);
/* The error when a getter above says no, in the section tag that held the fields. */
int state_debt_error(struct state_reader *r, uint32_t tag, const struct ftl *ftl, char *err,
                     size_t errlen);
int state_fdp_events_error(struct state_reader *r, uint32_t tag, const struct ftl *ftl,
                           char *err, size_t errlen);
int state_slc_error(struct state_reader *r, uint32_t tag, const struct ftl *ftl, char *err,
                    size_t errlen);

/* The hybrid mappings' tables (HYBR, its own version), loaded after the maps and lines;
 * its limit is given under every mapping (ftl_state_hybrid.c). */
#define FTL_STATE_HYBRID_VERSION 1u
size_t ftl_state_hybrid_limits(const struct ftl *ftl, struct state_section_limit *out);
int ftl_state_save_hybrid(const struct ftl *ftl, struct state_writer *w, char *err,
                          size_t errlen);
int ftl_state_load_hybrid(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

/* The key-value stores (KVST, its own version), in every file of layout
 * FTL_STATE_LAYOUT_KV on (no store: a count of 0), loaded last; ftl_state_kv_none leaves
 * the FTL without a store, as a file before that layout has (ftl_state_kv.c). */
#define FTL_STATE_KV_VERSION 1u
size_t ftl_state_kv_limits(const struct ftl *ftl, struct state_section_limit *out);
int ftl_state_save_kv(const struct ftl *ftl, struct state_writer *w, char *err, size_t errlen);
int ftl_state_load_kv(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);
void ftl_state_kv_none(struct ftl *ftl);

int ftl_state_save_heat(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen);
int ftl_state_load_heat(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

/*
 * Times are saved as their age at the save (now_ns - t, two's complement when t lies
 * ahead of now_ns) and re-based on the restore's now_ns modulo 2^64, never clamped: an
 * age older than the restore's clock reading (ftl-sim restores at its time 0, the device
 * at its host clock's reading) lies before that clock's 0 and wraps, and whoever reads
 * such a time takes its signed difference from now (gc_policy.c's ages). Clamping made
 * every restored line as young as ftl-sim's origin, while the device kept their ages, so
 * cost-benefit (and gc_scope=global across handles, which weighs ages) chose other
 * victims in a replay than in the recorded run.
 */
static inline uint64_t state_time_age(uint64_t now_ns, uint64_t t)
{
    return now_ns - t;
}

static inline uint64_t state_time_rebase(uint64_t now_ns, uint64_t age)
{
    return now_ns - age;
}

/* Section tag read whole into c (state_cursor_load's sizes) with its layout version, the
 * first u32, checked: -1 with a reason, and nothing to free, when either is wrong. */
int state_section_open(struct state_reader *r, uint32_t tag, uint64_t expected, uint64_t max,
                       struct state_cursor *c, char *err, size_t errlen);
/* The same, with the layout version read into *version (oldest to current). */
int state_section_open_version(struct state_reader *r, uint32_t tag, uint64_t expected,
                               uint64_t max, struct state_cursor *c, uint32_t *version,
                               char *err, size_t errlen);

/* The same for a section with a version of its own, oldest to newest. */
int state_section_open_range(struct state_reader *r, uint32_t tag, uint64_t expected,
                             uint64_t max, uint32_t oldest, uint32_t newest,
                             struct state_cursor *c, uint32_t *version, char *err,
                             size_t errlen);

/* "PATH: section TAG: " + message, always -1. */
int state_section_error(struct state_reader *r, uint32_t tag, char *err, size_t errlen,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
