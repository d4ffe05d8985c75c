/*
 * What hot/cold placement classifies a page by (heat.c): its host write count, or, with
 * hot_decay=N, a count that ages: every N host page writes, every page's count is halved
 * (the periodic halving of the hot-data-identification literature: Hsieh, Kuo and Chang,
 * ACM TOS 2006; Park and Du, MSST 2011, decay their Bloom-filter counts the same way), so
 * a page stays hot only while it keeps being written. The exact write counts
 * (write_count.h, lpn_access_count.csv) never age; the aged ones are a separate 16-bit
 * array, saturating. Host writes and GC moves are classified by the same rule: hot when
 * the count, as it stands at that moment, exceeds hot_threshold. hot_pages counts the
 * logical pages that rule calls hot now (placement=hotcold; 0 otherwise).
 */
#ifndef FEMU_FTL_PLACE_HEAT_H
#define FEMU_FTL_PLACE_HEAT_H

#include "flash/ftl_handle.h"
#include "place/write_count.h"

#define HEAT_MAX UINT16_MAX

/* What one host write changed in the aged count, to take it back (heat_unwrite). */
struct heat_undo {
    uint16_t before;
    bool halved;        /* this write's tick halved every count */
};

/* Allocates the aged counts when placement=hotcold and hot_decay > 0; false: no memory. */
bool heat_init(struct ftl *ftl);

static inline uint32_t heat_count(const struct ftl *ftl, uint32_t lpn)
{
    return ftl->heat ? ftl->heat[lpn] : wc_get(ftl, lpn);
}

static inline bool heat_is_hot(const struct ftl *ftl, uint32_t lpn)
{
    return heat_count(ftl, lpn) > ftl->cfg.hot_threshold;
}

/* A host write of lpn was counted (its exact count went from wc_before to one more). */
void heat_write(struct ftl *ftl, uint32_t lpn, uint32_t wc_before, struct heat_undo *undo);
/* ... and is taken back: the exact count is back at wc_before already. */
void heat_unwrite(struct ftl *ftl, uint32_t lpn, uint32_t wc_before,
                  const struct heat_undo *undo);
/* lpn's exact count is about to be reset to 0 (format): its aged count follows. */
void heat_forget(struct ftl *ftl, uint32_t lpn);
/* hot_pages counted again from the counts (after a state file is restored). */
void heat_recount(struct ftl *ftl);

#endif
