/*
 * byte_range.h - the one bound every reader puts on a request's address: a range of
 * count units of unit bytes from unit first must end within 2^64 bytes. Checked before
 * any product or sum is made, so that a huge count cannot wrap to a small request.
 */
#ifndef TRACE_IN_BYTE_RANGE_H
#define TRACE_IN_BYTE_RANGE_H

#include <stdbool.h>
#include <stdint.h>

/* [first, first + count) units of unit (> 0) bytes as *offset and *length in bytes;
 * false, with nothing written, when the end is beyond 2^64 - 1 bytes. */
bool tin_byte_range(uint64_t first, uint64_t count, uint64_t unit, uint64_t *offset,
                    uint64_t *length);

#endif
