/* Fault injection (fault.c): the seeded generator, factory bad blocks and read failures. */
#ifndef FEMU_FTL_FLASH_FAULT_H
#define FEMU_FTL_FLASH_FAULT_H

#include "flash/ftl_handle.h"

/* Seed the generator and choose the bad blocks (bad_bits, good_blocks, line capacities). */
void faults_init(struct ftl *ftl);
/* Whether the host flash read about to happen fails (read_uncor_ppm > 0: one draw). */
bool fault_read_fails(struct ftl *ftl);
/* Uniform in [0, n) for n > 0 from a generator state seeded like the fault generator. */
uint64_t rng_state_below(uint64_t *state, uint64_t n);

#endif
