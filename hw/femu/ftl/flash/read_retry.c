/*
 * Read retries. A NAND cell's threshold voltage drifts as its block wears (program/erase
 * cycles) and as its charge leaks (retention time); a read whose first sense fails ECC is
 * repeated with shifted read references from the controller's retry table until it
 * decodes, and each step costs about one more sense and decode. Published measurements
 * of 3D NAND (Park et al., "Reducing Solid-State Drive Read Latency by Optimizing
 * Read-Retry", ASPLOS 2021; Cai et al., "Error Characterization, Mitigation, and Recovery
 * in Flash-Memory-Based SSDs", Proc. IEEE 2017) show the number of steps rising with both
 * wear and retention age, from none on fresh data to several on old data of worn blocks.
 *
 * The model: a read of a page in a block erased E times whose first page was programmed
 * A seconds ago expects
 *
 *     x = E / read_retry_pe_step + A / read_retry_age_s    (a term is 0 when its key is 0)
 *
 * retry steps; it takes floor(x) steps, plus one more with probability frac(x), at most
 * read_retry_max, and its sense time grows by read_retry_lat per step. The age is the
 * block's (drives track retention per block), so a page written late into a block reads
 * as old as the block's first page. Only host reads and verifies of the conventional
 * namespace retry: GC's reads and zone reads do not (a documented simplification).
 */
#include "flash/read_retry.h"

#include "flash/geometry.h"

#define FIXED_ONE (UINT64_C(1) << 16)   /* x in 1/65536 steps */

/* splitmix64's mix: a well-spread 64-bit hash of one word. */
static uint64_t mix64(uint64_t z)
{
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t read_retry_expected(const struct ftl_config *cfg, uint64_t erases, uint64_t age_ns)
{
    uint64_t x = 0;
    if (cfg->read_retry_pe_step) {
        x += erases * FIXED_ONE / cfg->read_retry_pe_step;     /* erases < 2^32 */
    }
    if (cfg->read_retry_age_s) {
        /* age in ms keeps the product in range for 2^53 ns (104 days) and more */
        uint64_t age_ms = age_ns / 1000000u;
        uint64_t step_ms = cfg->read_retry_age_s * 1000u;
        x += age_ms / step_ms * FIXED_ONE + age_ms % step_ms * FIXED_ONE / step_ms;
    }
    return x;
}

uint32_t read_retry_steps(struct ftl *ftl, uint32_t ppa, uint64_t now_ns)
{
    const struct ftl_config *cfg = &ftl->cfg;
    if (!cfg->read_retry_lat) {
        return 0;
    }
    uint32_t unit = ppa_line(ftl, ppa);
    uint64_t index = unit_block_index(ftl, unit, ppa_lun(ftl, ppa));
    uint64_t programmed = ftl->block_programmed_ns[index];
    /* the signed difference: a restored block may date from before the clock's 0 */
    uint64_t age = (int64_t)(now_ns - programmed) > 0 ? now_ns - programmed : 0;
    uint64_t x = read_retry_expected(cfg, ftl->blocks[index].erase_count, age);
    uint64_t steps = x / FIXED_ONE;
    uint64_t frac = x % FIXED_ONE;
    if (frac) {
        uint64_t draw = mix64(cfg->fault_seed ^ mix64(((uint64_t)ppa << 32) ^
                                                      ftl->ctr.nand_user_reads));
        steps += (draw & (FIXED_ONE - 1)) < frac;
    }
    uint64_t max = cfg->read_retry_max;
    uint64_t age_class = x / FIXED_ONE < max ? x / FIXED_ONE : max;
    if (steps > max) {
        steps = max;
    }
    ftl->retry_hist[age_class * (max + 1) + steps]++;
    ftl->ctr.read_retries += steps;
    ftl->ctr.retried_reads += steps > 0;
    return (uint32_t)steps;
}
