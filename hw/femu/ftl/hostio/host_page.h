/* One host page's way to flash and back (host_page.c), shared by the direct write path
 * (core/ftl.c), the write buffer's flushes and reads. */
#ifndef FEMU_FTL_HOSTIO_HOST_PAGE_H
#define FEMU_FTL_HOSTIO_HOST_PAGE_H

#include "flash/ftl_handle.h"
#include "place/heat.h"

/*
 * Program host page lpn (foreground GC first when free lines are low, the dftl lookup,
 * placement, mapping, the page program from data_ready_ns). Counts the program
 * (nand_user_programs, the write pointer's host pages), not the host write: the caller
 * counts that when it accepts the write. Raises *done to when the page is on flash.
 */
int host_program_page(struct ftl *ftl, uint32_t lpn, uint32_t stream, uint64_t now_ns,
                      uint64_t data_ready_ns, uint64_t *done);
/* What accepting a host page changed, so that a page that cannot be placed after all can
 * be taken back. */
struct host_page_undo {
    uint32_t count_before;      /* its write count before */
    struct heat_undo heat;      /* its aged count before (hot/cold placement) */
    uint64_t max_before;        /* the highest LPN written + 1 before */
};
/* A host write of lpn was accepted: its write count (for hot/cold and the per-LPN file),
 * host_write_pages and the highest LPN written. false: the count could not be kept. */
bool host_page_accepted(struct ftl *ftl, uint32_t lpn, struct host_page_undo *undo);
/* The accepted page was not written after all: every figure goes back. */
void host_page_withdrawn(struct ftl *ftl, uint32_t lpn, const struct host_page_undo *undo);
/* Read lpn's flash page for the host (dftl lookup first); unmapped pages cost nothing.
 * Raises *done; returns whether the read failed (read_uncor_ppm). */
bool flash_read_page(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint64_t *done);

/* The sectors of page lpn that [slba, slba + nlb) covers: bit i for sector i of the page
 * (secs_per_pg <= 64 wherever it is used: the write buffer's pages). */
static inline uint64_t page_sector_mask(const struct ftl *ftl, uint64_t lpn, uint64_t slba,
                                        uint64_t nlb)
{
    uint64_t spp = ftl->secs_per_pg, first = lpn * spp;
    uint64_t lo = slba > first ? slba - first : 0;
    uint64_t end = slba + nlb - first;  /* exclusive, may lie past the page */
    uint64_t hi = end < spp ? end : spp;
    uint64_t upto = hi >= 64 ? UINT64_MAX : (UINT64_C(1) << hi) - 1;
    return upto & ~((UINT64_C(1) << lo) - 1);
}

#endif
