/*
 * footprint.h - the distinct 4 KiB pages a trace touches, in a bitmap that grows with the
 * highest page seen, up to FOOTPRINT_CAP_PAGES (4 TiB of address space, a 128 MiB
 * bitmap). Pages beyond the cap share the bitmap's bits (page modulo the cap), so above
 * 4 TiB the count is a lower bound.
 */
#ifndef FEMU_TRACE_FOOTPRINT_H
#define FEMU_TRACE_FOOTPRINT_H

#include <stdbool.h>
#include <stdint.h>

#define FOOTPRINT_PAGE 4096
#define FOOTPRINT_CAP_PAGES (UINT64_C(1) << 30)

struct footprint {
    uint64_t *bits;
    uint64_t words;     /* allocated */
    uint64_t pages;     /* distinct pages set */
    bool approximate;   /* some page was beyond the cap */
};

/* Mark [offset, offset + length); false when out of memory. */
bool footprint_add(struct footprint *fp, uint64_t offset, uint64_t length);
void footprint_free(struct footprint *fp);

#endif
