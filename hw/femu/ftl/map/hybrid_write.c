/*
 * Where a written page goes under mapping=block|bast|fast (map/hybrid_write.h), and
 * format's erases. Block mapping is here: a page its data block cannot take (an
 * overwrite, or an offset below the block's next) copies the block into a new one with
 * the page in place (counted as a full merge), and the old block is erased; so 4 KiB
 * random overwrites of a full drive cost pgs_per_blk programs per host page. BAST and
 * FAST have files of their own.
 */
#include "map/hybrid_write.h"

#include "femu_ftl/error.h"
#include "base/max_u64.h"
#include "map/hybrid_bast.h"
#include "map/hybrid_fast.h"
#include "map/hybrid_ops.h"
#include "map/hybrid_tables.h"
#include "map/page_map.h"

/* Block mapping: the data block, or a copy of it with the page in place. */
static int block_place(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa,
                       uint64_t *done)
{
    uint32_t lbn = lpn / ftl->hybrid->ppb;
    if (hyb_data_takes(ftl, lbn, lpn % ftl->hybrid->ppb)) {
        return hyb_data_write(ftl, lpn, now_ns, ppa) ? FTL_OK : FTL_E_NOSPC;
    }
    *ppa = UINT32_MAX;
    *done = hyb_full_merge(ftl, lbn, lpn, now_ns, ppa);
    return *ppa == UINT32_MAX ? FTL_E_NOSPC : FTL_OK;
}

int hybrid_place(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa,
                 uint64_t *merge_done)
{
    if (ftl->free_count == 0) {
        return FTL_E_NOSPC;     /* never with a valid geometry: a spare is kept */
    }
    uint32_t old = l2p_get(ftl, lpn);
    if (old != L2P_UNMAPPED) {
        /* unmapped first, so no merge copies the page this write replaces */
        map_invalidate(ftl, old);
        l2p_set(ftl, lpn, L2P_UNMAPPED);
        mapped_clear(ftl, lpn);
    }
    *merge_done = now_ns;
    switch (ftl->hybrid->scheme) {
    case FTL_MAPPING_BAST:
        return bast_place(ftl, lpn, now_ns, ppa, merge_done);
    case FTL_MAPPING_FAST:
        return fast_place(ftl, lpn, now_ns, ppa, merge_done);
    default:
        return block_place(ftl, lpn, now_ns, ppa, merge_done);
    }
}

uint64_t hybrid_erase_empty(struct ftl *ftl, uint64_t now_ns, uint64_t *blocks)
{
    struct hybrid *h = ftl->hybrid;
    uint64_t done = now_ns;

    for (uint32_t unit = 0; unit < h->nunits; unit++) {
        struct hybrid_unit *u = &h->units[unit];
        if (u->role == HYBRID_NONE || ftl->lines[unit].valid) {
            continue;
        }
        if (u->role == HYBRID_DATA) {
            h->data[u->owner] = NO_LINE;
        } else if (u->role == HYBRID_BAST_LOG) {
            bast_forget_log(ftl, unit);
        } else {
            fast_forget_log(ftl, unit);
        }
        uint32_t erased;
        done = max_u64(done, hyb_erase_unit(ftl, unit, now_ns, &erased));
        *blocks += erased;
    }
    return done;
}

