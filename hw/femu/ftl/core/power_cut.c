/*
 * Power loss (docs/ftl.md, "Power loss"): what a cut at an instant loses, and the FTL as
 * after the power-on that follows. One model for the device and ftl-sim.
 *
 * Without power-loss protection the DRAM write buffer is gone (its sectors were
 * acknowledged but the map never pointed at them: the page's previous flash copy is what
 * reads back) and host page programs in flight are torn (the map, journalled when the
 * program was issued, points at a page that reads back uncorrectable). GC moves and SLC
 * folds lose nothing: their source stays valid until the move ends, as a drive keeps it,
 * and the map is the drive's journal. With protection the buffer is programmed from
 * stored energy and programs in flight end.
 *
 * Zone Random Write Areas are controller memory of the same kind: what their windows
 * hold was never committed, so without protection it is lost like the buffer (the
 * committed write pointers, on flash, stay); with it the windows are kept as they were
 * (saved and restored by the stored energy, no program: committing would move the
 * write pointers, which only the host does).
 */
#include "femu_ftl/ftl.h"

#include <stdlib.h>

#include "femu_ftl/error.h"
#include "flash/ftl_handle.h"
#include "flash/timing.h"
#include "hostio/inflight.h"
#include "rcache/read_cache.h"
#include "wbuf/write_buffer.h"
#include "zns/zns.h"

struct loss_report {
    const struct ftl *ftl;
    ftl_loss_fn fn;
    void *ctx;
    struct ftl_power_cut_result *res;
};

/* A buffered page: each run of its buffered sectors is one lost range. */
static void report_buffered(void *ctx, uint32_t lpn, uint64_t mask)
{
    struct loss_report *r = ctx;
    uint64_t spp = r->ftl->secs_per_pg, base = (uint64_t)lpn * spp;

    r->res->buffered_pages++;
    for (uint64_t s = 0; s < spp;) {
        if (!(mask >> s & 1)) {
            s++;
            continue;
        }
        uint64_t run = s;
        while (run < spp && (mask >> run & 1)) {
            run++;
        }
        r->res->buffered_sectors += run - s;
        if (r->fn) {
            r->fn(r->ctx, FTL_LOSS_BUFFERED, base + s, run - s);
        }
        s = run;
    }
}

/* A torn page: all its sectors read back uncorrectable. */
static void report_torn(void *ctx, uint32_t lpn)
{
    struct loss_report *r = ctx;
    uint64_t spp = r->ftl->secs_per_pg;

    if (r->fn) {
        r->fn(r->ctx, FTL_LOSS_TORN, (uint64_t)lpn * spp, spp);
    }
}

/* What is left in the buffer is lost: each page's runs reported, then forgotten. */
static void lose_buffer(struct ftl *ftl, struct loss_report *r)
{
    if (ftl->wbuf) {
        wbuf_for_each(ftl, report_buffered, r);
        wbuf_drop(ftl, 0, ftl->geo.logical_pages);
    }
    ftl->ctr.power_cut_lost_pages += r->res->buffered_pages;
}

/* Without protection: report the buffer and the torn pages, then forget both. */
static void lose_volatile(struct ftl *ftl, uint64_t now_ns, struct loss_report *r)
{
    lose_buffer(ftl, r);
    r->res->torn_pages = inflight_take_torn(ftl, now_ns, report_torn, r);
    ftl->ctr.power_cut_torn_pages += r->res->torn_pages;
}

/* With protection: the buffer is programmed on stored energy, least recently written
 * first, as far as plp_budget_pages goes (0: all of it); what the energy does not reach
 * is lost. Programs in flight end. The flash time this takes lies before the power-on:
 * timing_power_cut drops it. */
static int save_volatile(struct ftl *ftl, uint64_t now_ns, struct loss_report *r)
{
    uint64_t done, budget = ftl->cfg.plp_budget_pages;
    if (ftl->wbuf) {
        uint64_t before = ftl->ctr.buf_flushed_pages;
        int rc = wbuf_flush_oldest(ftl, budget ? budget : UINT64_MAX, now_ns, &done);
        r->res->plp_pages = ftl->ctr.buf_flushed_pages - before;
        ftl->ctr.power_cut_plp_pages += r->res->plp_pages;
        if (rc != FTL_OK) {
            return rc;
        }
        lose_buffer(ftl, r);    /* beyond the budget */
    }
    inflight_clear(ftl);
    return FTL_OK;
}

int ftl_power_cut(struct ftl *ftl, uint64_t now_ns, bool plp, ftl_loss_fn lost, void *ctx,
                  struct ftl_power_cut_result *result, char *err, size_t errlen)
{
    struct ftl_power_cut_result ignored;
    if (!result) {
        result = &ignored;
    }
    *result = (struct ftl_power_cut_result){ 0 };
    if (now_ns < ftl->newest_ns) {
        ftl_error(err, errlen, "a cut time in the past: %llu ns is before %llu ns, the "
                  "newest time the FTL was given", (unsigned long long)now_ns,
                  (unsigned long long)ftl->newest_ns);
        return FTL_E_INVAL;
    }
    struct loss_report r = { .ftl = ftl, .fn = lost, .ctx = ctx, .res = result };
    int rc = FTL_OK;
    if (plp) {
        rc = save_volatile(ftl, now_ns, &r);
    } else {
        lose_volatile(ftl, now_ns, &r);
    }
    if (ftl->wbuf) {
        wbuf_forget_flights(ftl);   /* ended (plp) or torn: none holds DRAM after power-on */
    }
    result->zrwa_lost_sectors = zns_zrwa_power_cut(ftl, plp);
    /* the power-on: nothing in flight, the flash idle from now on, the cache on, the
     * read cache empty (DRAM; clean pages, so plp has nothing of it to save) */
    timing_power_cut(ftl, now_ns);
    if (ftl->rcache) {
        rcache_clear(ftl->rcache);
    }
    ftl->write_cache_off = false;
    ftl->newest_ns = now_ns;
    ftl->ctr.power_cuts++;
    return rc;
}

void ftl_loss_list_add(void *list, enum ftl_loss_kind kind, uint64_t slba, uint64_t nlb)
{
    struct ftl_loss_list *l = list;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct ftl_loss_range *v = realloc(l->v, cap * sizeof(*v));
        if (!v) {
            l->failed = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (struct ftl_loss_range){ .kind = kind, .slba = slba, .nlb = nlb };
}

static int by_kind_then_lba(const void *a, const void *b)
{
    const struct ftl_loss_range *x = a, *y = b;
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    return x->slba < y->slba ? -1 : x->slba > y->slba;
}

void ftl_loss_list_merge(struct ftl_loss_list *l)
{
    size_t out = 0;
    if (!l->n) {
        return;
    }
    qsort(l->v, l->n, sizeof(*l->v), by_kind_then_lba);
    for (size_t i = 0; i < l->n; i++) {
        struct ftl_loss_range *last = out ? &l->v[out - 1] : NULL;
        if (last && last->kind == l->v[i].kind && l->v[i].slba <= last->slba + last->nlb) {
            uint64_t end = l->v[i].slba + l->v[i].nlb;
            if (end > last->slba + last->nlb) {
                last->nlb = end - last->slba;
            }
            continue;
        }
        l->v[out++] = l->v[i];
    }
    l->n = out;
}

void ftl_loss_list_free(struct ftl_loss_list *l)
{
    free(l->v);
    *l = (struct ftl_loss_list){ 0 };
}

const char *ftl_loss_kind_name(enum ftl_loss_kind kind)
{
    return kind == FTL_LOSS_BUFFERED ? "buffered" : "torn";
}
