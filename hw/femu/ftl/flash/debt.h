/*
 * Paced GC's debt (gc_debt.c): the flash work of collections already done in the maps,
 * not yet charged to the LUNs. A FIFO of operations: page moves (a read on src, then a
 * program on dst) and block erases (on src), each unit's erases after its moves.
 */
#ifndef FEMU_FTL_GC_GC_DEBT_H
#define FEMU_FTL_GC_GC_DEBT_H

#include "flash/ftl_handle.h"

#define GC_DEBT_ERASE UINT32_MAX    /* dst of an erase */
#define GC_DEBT_UNITS 32             /* collections the FIFO holds */

/* Operations the FIFO can hold: GC_DEBT_UNITS units' moves and erases. */
static inline uint32_t gc_debt_capacity(const struct ftl *ftl)
{
    return GC_DEBT_UNITS * (ftl->pgs_per_line + ftl->line_luns);
}

void gc_debt_push(struct ftl *ftl, uint32_t src, uint32_t dst);
/* Charge up to max moves in FIFO order (erases on the way cost nothing of max). */
void gc_debt_charge(struct ftl *ftl, uint64_t max, uint64_t now_ns);
/* Charge moves whose LUNs are both idle at now_ns, at most one per LUN. */
void gc_debt_charge_idle(struct ftl *ftl, uint64_t now_ns);
/* Make room for one more unit's moves and erases, charging the oldest at now_ns. */
void gc_debt_make_room(struct ftl *ftl, uint64_t now_ns);

#endif
