/*
 * Flash work owed (debt.c): what paced GC's collections, already done in the maps, have
 * not yet charged to the LUNs. A FIFO of operations: page moves (a read on src, then a
 * program on dst) and block erases (on src, of unit `unit`), each unit's erases after its
 * moves. A unit whose erase is owed is free in the maps but not on the flash: opening it
 * charges the debt up to that erase first (debt_settle_through).
 */
#ifndef FEMU_FTL_FLASH_DEBT_H
#define FEMU_FTL_FLASH_DEBT_H

#include "flash/ftl_handle.h"

#define GC_DEBT_ERASE UINT32_MAX    /* dst of an erase */
#define GC_DEBT_UNITS 32             /* collections the FIFO holds */

/* Operations the FIFO can hold: GC_DEBT_UNITS units' moves and erases. */
static inline uint32_t debt_capacity(const struct ftl *ftl)
{
    return GC_DEBT_UNITS * (ftl->pgs_per_line + ftl->line_luns);
}

/* A move from LUN src to LUN dst of a page GC of `kind` puts into write pointer wp; the
 * counters count it when it is charged (they count flash work done). */
void debt_push_move(struct ftl *ftl, uint32_t src, uint32_t dst, uint8_t kind, uint32_t wp);
/* The erase of unit's block on LUN lun. */
void debt_push_erase(struct ftl *ftl, uint32_t lun, uint32_t unit);

/* One page GC of `kind` moved into write pointer wp, in the counters. */
static inline void count_gc_move(struct ftl *ftl, uint8_t kind, uint32_t wp)
{
    switch (kind) {
    case GC_KIND_MAP:
        ftl->ctr.map_gc_moved_pages++;
        return;
    case GC_KIND_FALLBACK:
        ftl->ctr.fallback_pages++;
        break;
    default:
        ftl->ctr.nand_gc_reads++;
        ftl->ctr.nand_gc_programs++;
        ftl->ctr.gc_moved_pages++;
        break;
    }
    if (wp < FTL_MAX_WRITE_POINTERS) {
        ftl->ctr.wp_gc_pages[wp]++;
    }
}
/* Charge up to max moves in FIFO order (erases on the way cost nothing of max). */
void debt_charge(struct ftl *ftl, uint64_t max, uint64_t now_ns);
/* Charge moves whose LUNs are both idle at now_ns, at most one per LUN. */
void debt_charge_idle(struct ftl *ftl, uint64_t now_ns);
/* Make room for one more unit's moves and erases, charging the oldest at now_ns. */
void debt_make_room(struct ftl *ftl, uint64_t now_ns);
/* Unit `unit` is about to be opened: charge the debt up to its owed erases (if any). */
void debt_settle_through(struct ftl *ftl, uint32_t unit, uint64_t now_ns);

#endif
