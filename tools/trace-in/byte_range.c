/* byte_range.c - units to bytes without wrapping (byte_range.h). */
#include "byte_range.h"

bool tin_byte_range(uint64_t first, uint64_t count, uint64_t unit, uint64_t *offset,
                    uint64_t *length)
{
    uint64_t max_units = UINT64_MAX / unit;     /* (first + count) * unit fits iff ... */
    if (count > max_units || first > max_units - count) {
        return false;
    }
    *offset = first * unit;
    *length = count * unit;
    return true;
}
