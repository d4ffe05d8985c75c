/*
 * The steps the hybrid schemes are made of (defined in hybrid.c): blocks taken and given
 * back, programs in offset order, page copies, merges and their counters. Only for the
 * hybrid*.c files; other modules use map/hybrid.h and map/hybrid_write.h.
 */
#ifndef FEMU_FTL_MAP_HYBRID_OPS_H
#define FEMU_FTL_MAP_HYBRID_OPS_H

#include "flash/ftl_handle.h"

/* The LPN no page has: "insert nothing" for hyb_full_merge. */
#define HYB_NO_LPN UINT32_MAX

enum hyb_merge {
    HYB_MERGE_SWITCH,
    HYB_MERGE_PARTIAL,
    HYB_MERGE_FULL,
};

/* A free block for role/owner (LUN pools in turn); NO_LINE when none is free. */
uint32_t hyb_alloc(struct ftl *ftl, uint8_t role, uint32_t owner);
/* Program lpn at offset off >= next of unit; the pages between are skipped (never
 * programmed, invalid). */
uint32_t hyb_program(struct ftl *ftl, uint32_t unit, uint32_t off, uint32_t lpn,
                     uint64_t now_ns);
/* Move valid page lpn to offset off of unit: a read on its LUN from start_ns, a program
 * on the unit's LUN once read. Returns when the program ends. */
uint64_t hyb_copy(struct ftl *ftl, uint32_t lpn, uint32_t unit, uint32_t off, uint64_t start_ns);
/* Erase a hybrid block without a valid page (it goes back to the free queue and leaves
 * the unit table); *blocks gets the blocks erased. Returns when the erase ends. */
uint64_t hyb_erase_unit(struct ftl *ftl, uint32_t unit, uint64_t start_ns, uint32_t *blocks);
/* The same, counted as merge work. */
uint64_t hyb_erase(struct ftl *ftl, uint32_t unit, uint64_t start_ns);
/* The data block takes offset off of lbn now: it has none yet, or off >= its next. */
bool hyb_data_takes(const struct ftl *ftl, uint32_t lbn, uint32_t off);
/* Program lpn into its data block (allocated on the LBN's first write); hyb_data_takes
 * must hold. false when a block was needed and none is free. */
bool hyb_data_write(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa);
/* Full merge of lbn: a new data block gets each valid page of the LBN at its own offset,
 * wherever it is, and ins (HYB_NO_LPN: none; else a page of lbn, already unmapped) as the
 * page written now, *ppa its place; the old data block is erased. The LBN's log blocks
 * are the caller's. Returns when the flash work ends. */
uint64_t hyb_full_merge(struct ftl *ftl, uint32_t lbn, uint32_t ins, uint64_t start_ns,
                        uint32_t *ppa);
/* Switch or partial merge of lbn's log block `log`, written in order from offset 0 up to
 * its next: the LBN's valid pages of the data block at offsets >= next are copied into it,
 * it becomes the data block and the old one is erased. false, changing nothing, when the
 * data block holds a valid page below next (then only a full merge will do). */
bool hyb_log_becomes_data(struct ftl *ftl, uint32_t lbn, uint32_t log, uint64_t start_ns,
                          uint64_t *done);
/* One merge of a type: gc_runs and merge_<type> */
void hyb_count_merge(struct ftl *ftl, enum hyb_merge type);

#endif
