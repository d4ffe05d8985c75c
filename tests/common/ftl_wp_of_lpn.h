/* For tests that see the FTL's internals: the write pointer whose line holds a page. */
#ifndef FTL_WP_OF_LPN_H
#define FTL_WP_OF_LPN_H

#include "flash/geometry.h"
#include "map/page_map.h"

/* The write pointer that opened the line lpn is mapped into (lpn must be mapped). */
static inline uint32_t wp_of_lpn(const struct ftl *ftl, uint64_t lpn)
{
    return ftl->lines[ppa_line(ftl, l2p_get(ftl, lpn))].wp;
}

#endif
