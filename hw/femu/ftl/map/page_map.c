/* Mapping updates that keep L2P, P2L, block and line counts and the line lists in step. */
#include "map/page_map.h"

#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "flash/p2l.h"

/* The page's data is superseded (overwrite, trim or GC move). */
void map_invalidate(struct ftl *ftl, uint32_t ppa)
{
    uint32_t line = ppa_line(ftl, ppa);
    struct block *blk = ppa_block(ftl, ppa);
    p2l_set(ftl, ppa, P2L_INVALID);
    blk->valid--;
    blk->invalid++;
    ftl->lines[line].valid--;
    ftl->lines[line].invalid++;
    ftl->valid_pages--;
    ftl->slc_valid_pages -= ftl->lines[line].slc;
    line_page_invalidated(ftl, line);
}

/* lpn now lives in the freshly programmed page ppa. An id past the logical pages is a
 * translation page (mapping=dftl): logical_pages + its number; where it lives is DFTL's
 * directory, which its callers update (dftl_tpage_bind), so this only files the page. */
void map_bind(struct ftl *ftl, uint32_t lpn, uint32_t ppa)
{
    if (__builtin_expect(lpn < ftl->geo.logical_pages, 1)) {
        l2p_set(ftl, lpn, ppa);
        mapped_set(ftl, lpn);
    }
    p2l_set(ftl, ppa, lpn);
    uint32_t line = ppa_line(ftl, ppa);
    ppa_block(ftl, ppa)->valid++;
    ftl->lines[line].valid++;
    ftl->valid_pages++;
    ftl->slc_valid_pages += ftl->lines[line].slc;
}
