/*
 * Aged write counts for hot/cold placement (heat.h). The halving is done on every page at
 * once, every hot_decay host page writes: O(logical pages) each time, logical pages /
 * hot_decay steps per host write on average (2 with the labs' period of half the logical
 * pages; hot_decay's floor of 1024 bounds it on small devices).
 */
#include "place/heat.h"

#include <stdlib.h>

static bool classifying(const struct ftl *ftl)
{
    return ftl->cfg.placement == FTL_PLACEMENT_HOTCOLD;
}

bool heat_init(struct ftl *ftl)
{
    if (!classifying(ftl) || ftl->cfg.hot_decay == 0) {
        return true;
    }
    ftl->heat = calloc(ftl->geo.logical_pages ? ftl->geo.logical_pages : 1, sizeof(uint16_t));
    return ftl->heat != NULL;
}

/* Every aged count halved; hot_pages counted again on the way. */
static void halve_all(struct ftl *ftl)
{
    uint64_t hot = 0, thr = ftl->cfg.hot_threshold;
    for (uint64_t lpn = 0; lpn < ftl->geo.logical_pages; lpn++) {
        uint16_t h = ftl->heat[lpn] >> 1;
        ftl->heat[lpn] = h;
        hot += h > thr;
    }
    ftl->hot_pages = hot;
}

void heat_write(struct ftl *ftl, uint32_t lpn, uint32_t wc_before, struct heat_undo *undo)
{
    uint64_t thr = ftl->cfg.hot_threshold;

    undo->halved = false;
    undo->before = 0;
    if (!classifying(ftl)) {
        return;
    }
    if (!ftl->heat) {
        uint32_t after = wc_get(ftl, lpn);
        ftl->hot_pages += wc_before <= thr && after > thr;
        return;
    }
    if (++ftl->heat_ticks >= ftl->cfg.hot_decay) {
        ftl->heat_ticks = 0;
        halve_all(ftl);
        undo->halved = true;
    }
    uint16_t h = ftl->heat[lpn];
    undo->before = h;
    if (h < HEAT_MAX) {
        ftl->heat[lpn] = h + 1;
        ftl->hot_pages += h <= thr && (uint64_t)h + 1 > thr;
    }
}

void heat_unwrite(struct ftl *ftl, uint32_t lpn, uint32_t wc_before,
                  const struct heat_undo *undo)
{
    uint64_t thr = ftl->cfg.hot_threshold;

    if (!classifying(ftl)) {
        return;
    }
    if (!ftl->heat) {
        /* the exact count was one more (or saturated) before it went back */
        uint32_t was = wc_before == UINT32_MAX ? wc_before : wc_before + 1;
        ftl->hot_pages -= was > thr && wc_before <= thr;
        return;
    }
    uint16_t now = ftl->heat[lpn];
    ftl->heat[lpn] = undo->before;
    ftl->hot_pages -= now > thr && undo->before <= thr;
    /* A halving this write's tick caused stays (it is the passing of time); the tick
     * goes back unless it was the one that wrapped. */
    if (!undo->halved && ftl->heat_ticks) {
        ftl->heat_ticks--;
    }
}

void heat_forget(struct ftl *ftl, uint32_t lpn)
{
    if (!classifying(ftl)) {
        return;
    }
    ftl->hot_pages -= heat_is_hot(ftl, lpn);
    if (ftl->heat) {
        ftl->heat[lpn] = 0;
    }
}

void heat_recount(struct ftl *ftl)
{
    uint64_t hot = 0;
    if (classifying(ftl)) {
        for (uint64_t lpn = 0; lpn < ftl->geo.logical_pages; lpn++) {
            hot += heat_is_hot(ftl, (uint32_t)lpn);
        }
    }
    ftl->hot_pages = hot;
}
