/*
 * Fault injection: factory bad blocks and unrecovered read errors, from a generator the
 * handle owns and seeds with fault_seed. No global state and no clock, so the same
 * configuration and the same calls give the same faults: ftl-sim replaying a device's
 * recording sees the device's read errors and bad blocks.
 *
 * Only host reads and verifies can fail. GC's reads never do: a page GC could not read
 * would have to be dropped or remapped, which this model does not attempt.
 */
#include "flash/fault.h"

#include "flash/geometry.h"

/* splitmix64: a 64-bit state, one add and a mix per number; plenty for fault dice. */
static uint64_t fault_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, n) for n > 0; the modulo's bias is below n / 2^64, nothing for dice. */
static uint64_t fault_below(uint64_t *state, uint64_t n)
{
    return fault_next(state) % n;
}

uint64_t rng_state_below(uint64_t *state, uint64_t n)
{
    return fault_below(state, n);
}

bool fault_read_fails(struct ftl *ftl)
{
    uint64_t ppm = ftl->cfg.read_uncor_ppm;
    if (ppm >= 1000000) {
        return true;    /* certain: no draw, so the sequence does not depend on it */
    }
    return fault_below(&ftl->fault_rng, 1000000) < ppm;
}

static void mark_bad(struct ftl *ftl, uint64_t index)
{
    ftl->bad_bits[index / 64] |= UINT64_C(1) << (index % 64);
}

/* Exactly bad_blocks_per_lun blocks of each LUN, at lines drawn uniformly. At most half
 * of a LUN's blocks are bad, so redrawing a line already taken ends quickly. */
static void choose_bad_blocks(struct ftl *ftl, uint64_t *state)
{
    uint64_t lines = ftl->geo.lines, per_lun = ftl->geo.bad_blocks_per_lun;

    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        for (uint64_t chosen = 0; chosen < per_lun;) {
            uint64_t index = fault_below(state, lines) * ftl->luns + lun;
            if (!block_index_is_bad(ftl, index)) {
                mark_bad(ftl, index);
                chosen++;
            }
        }
    }
}

/* Each line's capacity: the pages of its good blocks. */
static void count_line_capacity(struct ftl *ftl)
{
    uint32_t pgs_per_blk = (uint32_t)ftl->cfg.pgs_per_blk;

    for (uint32_t unit = 0; unit < ftl->nunits; unit++) {
        uint32_t good = 0;
        for (uint32_t k = 0; k < ftl->line_luns; k++) {
            good += !block_index_is_bad(ftl, unit_block_index(ftl, unit, k));
        }
        ftl->lines[unit].capacity = good * pgs_per_blk;
    }
}

void faults_init(struct ftl *ftl)
{
    /* The bad blocks get a generator of their own, so turning them on or off leaves
     * the read failures of a run as they were. */
    uint64_t bad_state = ftl->cfg.fault_seed ^ UINT64_C(0x6261645F626C6B73);

    ftl->fault_rng = ftl->cfg.fault_seed;
    /* GC's draws (random, dchoice) get a stream of their own too: choosing a policy
     * leaves a run's read failures as they were. */
    ftl->gc_rng = ftl->cfg.fault_seed ^ UINT64_C(0x67635F706F6C6379);
    choose_bad_blocks(ftl, &bad_state);
    ftl->good_blocks = ftl->geo.blocks - ftl->geo.bad_blocks_per_lun * ftl->luns;
    count_line_capacity(ftl);
}
