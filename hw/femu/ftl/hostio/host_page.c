/*
 * One host page's way to flash and back, shared by the direct write path (ftl.c), the
 * write buffer's flushes (write_buffer.c) and reads: foreground GC when free lines run
 * low, the DFTL lookup, placement, the map and the page program; a read with its fault
 * dice.
 */
#include "hostio/host_page.h"

#include "base/max_u64.h"
#include "flash/fault.h"
#include "flash/geometry.h"
#include "flash/read_retry.h"
#include "flash/slc.h"
#include "flash/timing.h"
#include "gc/gc.h"
#include "gc/slc_fold.h"
#include "hostio/inflight.h"
#include "map/dftl.h"
#include "map/hybrid_write.h"
#include "map/page_map.h"
#include "map/write_pointers.h"
#include "place/fdp.h"
#include "place/heat.h"
#include "place/placement.h"
#include "place/write_count.h"

bool flash_read_page(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint64_t *done)
{
    uint64_t ready = ftl->dftl ? dftl_lookup(ftl, lpn, false, now_ns) : now_ns;
    uint32_t ppa = l2p_get(ftl, lpn);

    *done = max_u64(*done, ready);
    if (ppa == L2P_UNMAPPED) {
        return false;   /* never written or trimmed: no flash access, nothing to fail */
    }
    uint64_t sense = page_read_lat(ftl, ppa) +
                     read_retry_steps(ftl, ppa, ready) * ftl->cfg.read_retry_lat;
    *done = max_u64(*done, nand_read_lat(ftl, ppa_lun(ftl, ppa), ready, sense));
    ftl->ctr.nand_user_reads++;
    if (ftl->cfg.read_uncor_ppm && fault_read_fails(ftl)) {
        ftl->ctr.read_errors++;
        return true;
    }
    return false;
}

bool host_page_accepted(struct ftl *ftl, uint32_t lpn, struct host_page_undo *undo)
{
    undo->max_before = ftl->max_lpn_plus_one;
    /* The hot/cold classifier counts this write, so the count goes up before placement. */
    if (!wc_increment(ftl, lpn, &undo->count_before)) {
        return false;   /* the write-count overflow table could not grow */
    }
    heat_write(ftl, lpn, undo->count_before, &undo->heat);
    ftl->ctr.host_write_pages++;
    if (lpn + 1 > ftl->max_lpn_plus_one) {
        ftl->max_lpn_plus_one = lpn + 1;
    }
    return true;
}

void host_page_withdrawn(struct ftl *ftl, uint32_t lpn, const struct host_page_undo *undo)
{
    wc_set(ftl, lpn, undo->count_before);   /* a lower count never needs a new slot */
    heat_unwrite(ftl, lpn, undo->count_before, &undo->heat);
    ftl->ctr.host_write_pages--;
    ftl->max_lpn_plus_one = undo->max_before;
}

/* mapping=block|bast|fast: the scheme places the page (merging first where it must, in
 * the foreground: the write waits for the merge); page GC never runs. */
static int hybrid_program_page(struct ftl *ftl, uint32_t lpn, uint64_t now_ns,
                               uint64_t data_ready_ns, uint64_t *done)
{
    uint32_t ppa;
    uint64_t merged;
    int rc = hybrid_place(ftl, lpn, now_ns, &ppa, &merged);
    if (rc != FTL_OK) {
        return rc;
    }
    uint64_t programmed = nand_program(ftl, ppa_lun(ftl, ppa), data_ready_ns);
    inflight_note(ftl, lpn, ppa, programmed);
    *done = max_u64(*done, max_u64(merged, programmed));
    ftl->ctr.nand_user_programs++;
    ftl->ctr.wp_host_pages[0]++;
    return FTL_OK;
}

int host_program_page(struct ftl *ftl, uint32_t lpn, uint32_t stream, uint64_t now_ns,
                      uint64_t data_ready_ns, uint64_t *done)
{
    /* Room to remember the program for a power cut, before anything changes. */
    if (!inflight_reserve(ftl, now_ns)) {
        return FTL_E_NOMEM;
    }
    if (ftl->hybrid) {
        return hybrid_program_page(ftl, lpn, now_ns, data_ready_ns, done);
    }
    if (ftl->cfg.placement == FTL_PLACEMENT_FDP) {
        fdp_before_host_page(ftl, stream, now_ns);  /* before GC: it may take a free unit */
    }
    /* Per page, not per command: a long command cannot drain the reserve. */
    if (ftl->free_count <= ftl->geo.gc_thres_lines_high) {
        int rc = gc_foreground(ftl, now_ns, stream);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    /* The cache first: with slc_when_full=fold it may fold, moving this LPN's old page. */
    bool slc = false;
    if (ftl->cfg.slc_cache) {
        int rc;
        slc = slc_admit(ftl, now_ns, &rc);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    /* The new location does not depend on the old entry: the program need not wait for
     * a CMT miss, but the command completes only when both are done. */
    uint64_t mapped = ftl->dftl ? dftl_lookup(ftl, lpn, true, now_ns) : now_ns;
    uint32_t old = l2p_get(ftl, lpn);
    uint32_t wp = placement_for_host(ftl, lpn, stream);
    uint32_t ppa;
    if (slc ? !slc_place(ftl, lpn, &ppa, now_ns) : !wp_place(ftl, wp, true, lpn, &ppa, now_ns)) {
        return FTL_E_NOSPC;
    }
    if (old != L2P_UNMAPPED) {
        map_invalidate(ftl, old);
    }
    uint64_t lat = slc ? ftl->cfg.slc_pg_wr_lat : ftl->cfg.pg_wr_lat;
    uint64_t programmed = nand_program_lat(ftl, ppa_lun(ftl, ppa), data_ready_ns, lat);
    inflight_note(ftl, lpn, ppa, programmed);
    *done = max_u64(*done, max_u64(mapped, programmed));
    ftl->ctr.nand_user_programs++;
    if (slc) {
        ftl->ctr.slc_host_pages++;
    } else if (ftl->cfg.slc_cache) {
        ftl->ctr.slc_direct_pages++;    /* the cache had no room: the write cliff */
    }
    gc_host_page_written(ftl);
    /* an SLC unit records write pointer 0: count the page where placement put it */
    ftl->ctr.wp_host_pages[slc ? wp : ftl->lines[ppa_line(ftl, ppa)].wp]++;
    return FTL_OK;
}
