/* The later of two times (when work waiting for both can start), or the larger of two
 * counts. */
#ifndef FEMU_FTL_BASE_MAX_U64_H
#define FEMU_FTL_BASE_MAX_U64_H

#include <stdint.h>

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

#endif
