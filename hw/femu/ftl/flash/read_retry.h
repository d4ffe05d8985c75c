/* Read retries (read_retry.c): how many times a host page read senses again. */
#ifndef FEMU_FTL_FLASH_READ_RETRY_H
#define FEMU_FTL_FLASH_READ_RETRY_H

#include "flash/ftl_handle.h"
#include "flash/geometry.h"

/* Note a program of ppa at now_ns, before the page is bound: the first program since its
 * block's erase dates the block (every write pointer, the SLC cache's included). */
static inline void retry_note_program(struct ftl *ftl, uint32_t ppa, uint64_t now_ns)
{
    const struct block *b = ppa_block(ftl, ppa);
    if (b->valid + b->invalid == 0) {
        ftl->block_programmed_ns[b - ftl->blocks] = now_ns;
    }
}

/*
 * The retry steps a host read of the page at ppa takes at now_ns (0 when read_retry_lat
 * is 0), counted in the counters and the histogram. Deterministic: the fractional step's
 * draw hashes fault_seed, ppa and the read's ordinal, so it takes no generator state.
 */
uint32_t read_retry_steps(struct ftl *ftl, uint32_t ppa, uint64_t now_ns);

/* The expected steps (in 1/65536) for a block erased `erases` times, programmed age_ns ago. */
uint64_t read_retry_expected(const struct ftl_config *cfg, uint64_t erases, uint64_t age_ns);

#endif
