/*
 * Power loss in the device: a cut loses what the FTL's model says (docs/ftl.md, "Power
 * loss"; ftl_power_cut, the same call ftl-sim makes), and the data store is made to match.
 *
 * The store holds the newest bytes of every LBA from the moment a write is fetched; the
 * FTL knows which sectors are only in its DRAM buffer. So that a lost sector reads back
 * what flash still holds, a write fetched while pre-images are kept (a buffer, and plp off
 * or with an energy budget)
 * carries the bytes it overwrites (pre_data), and the FTL thread, serving it, asks the
 * FTL which of its sectors entered the buffer (ftl_lpn_buffered_mask before and after):
 * those sectors' old bytes are their flash bytes, kept in store/preimage.c until the page
 * leaves the buffer. The FTL serves in fetch order, so this is exact whatever the queue
 * depth: every sector's kept bytes are from just before the write that buffered it.
 *
 * The cut itself (QMP power-cut, handed to the poller as save-state is): the poller stops
 * fetching, serves what the FTL has queued, cuts at the device's clock, puts the kept bytes
 * back for BUFFERED sectors and marks TORN pages uncorrectable (cmd/health/media.c: an Unrecovered
 * Read Error until rewritten), writes the lost ranges to stats_dir, drops every completion
 * not yet posted (never acknowledged), and the poller power cycles the controller: the
 * registers and the controller as at power-on (CSTS.RDY 0), so a running guest's driver
 * sees a controller that went away, and a rebooted guest a fresh one.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/visitor.h"

#include "backend/ftl_view.h"
#include "backend/power_cut.h"
#include "store/preimage.h"

#define FEMU_CUT_ERR_LEN 256
#define FEMU_CUT_MAX_COUNT 1000000000ull

bool femu_power_cut_realize(FemuCtrl *n, Error **errp)
{
    const struct ftl_config *cfg = &n->ftl_config;

    if (cfg->write_buffer_sectors == 0 || (cfg->plp && !cfg->plp_budget_pages)) {
        return true;    /* a cut can lose nothing from the buffer */
    }
    n->power_cut.pre = preimage_create(n->secsz, n->ftl_config.secs_per_pg);
    /* room for the pre-images of four buffers' worth of writes in flight, 64 MiB at least */
    n->power_cut.budget = MAX(UINT64_C(64) << 20, 4 * cfg->write_buffer_sectors * n->secsz);
    if (!n->power_cut.pre) {
        error_setg(errp, "cannot allocate the power-loss pre-images");
        return false;
    }
    return true;
}

void femu_power_cut_release(FemuCtrl *n)
{
    preimage_destroy(n->power_cut.pre);
    n->power_cut.pre = NULL;
    g_free(n->power_cut.masks);
    n->power_cut.masks = NULL;
    n->power_cut.masks_cap = 0;
}

void femu_power_cut_capture(FemuCtrl *n, FemuRequest *req, uint64_t first, uint64_t count)
{
    FemuPowerCut *pc = &n->power_cut;
    /* Only the last write_buffer_sectors (and a page each side) of a write can stay in
     * the buffer: the buffer evicts least recently written first, so what stays of one
     * write is its tail. */
    uint64_t tail = n->ftl_config.write_buffer_sectors + 2 * n->ftl_config.secs_per_pg;
    uint64_t keep = MIN(count, tail), bytes = keep * n->secsz;

    if (!pc->pre || count == 0) {
        return;
    }
    g_free(req->pre_data);
    req->pre_data = NULL;
    if (qatomic_read(&pc->captured) + bytes > pc->budget) {
        /* a guest with that many writes in flight: they keep nothing, and a cut that
         * loses their sectors reads back zeroes there (counted, in the status) */
        return;
    }
    qatomic_add(&pc->captured, bytes);
    req->pre_first = first + count - keep;
    req->pre_count = keep;
    req->pre_data = g_malloc(bytes);
    data_store_read(n->store, req->pre_first * n->secsz, req->pre_data, bytes);
}

/* The pages [first, last] a request's FTL sectors span. */
static void femu_pages_of(const FemuCtrl *n, const FemuRequest *req, uint64_t *first,
                          uint64_t *last)
{
    uint64_t spp = n->ftl_config.secs_per_pg;

    *first = req->ftl.slba / spp;
    *last = (req->ftl.slba + req->ftl.nlb - 1) / spp;
}

void femu_power_cut_before_serve(FemuCtrl *n, const FemuRequest *req)
{
    FemuPowerCut *pc = &n->power_cut;
    uint64_t first, last;

    femu_pages_of(n, req, &first, &last);
    if (last - first + 1 > pc->masks_cap) {
        pc->masks_cap = last - first + 1;
        pc->masks = g_renew(uint64_t, pc->masks, pc->masks_cap);
    }
    for (uint64_t p = first; p <= last; p++) {
        pc->masks[p - first] = ftl_lpn_buffered_mask(n->ftl, p);
    }
}

static uint64_t femu_buffered_mask(void *ctx, uint64_t lpn)
{
    return ftl_lpn_buffered_mask(ctx, lpn);
}

/*
 * Keep the pre-images few: none once the buffer is empty (a flush, the cache switched
 * off), and a sweep of the pages that left it when there are twice as many entries as the
 * buffer has pages (each sweep halves them at least: amortised O(1) a write).
 */
static void femu_pre_tidy(FemuCtrl *n)
{
    struct preimage_table *pre = n->power_cut.pre;
    size_t count = preimage_count(pre);
    uint64_t buffer_pages = n->ftl_config.write_buffer_sectors / n->ftl_config.secs_per_pg + 1;

    if (count && ftl_buffered_sectors(n->ftl) == 0) {
        preimage_clear(pre);
    } else if (count > 2 * buffer_pages + 64) {
        preimage_prune(pre, femu_buffered_mask, n->ftl);
    }
}

void femu_power_cut_after_serve(FemuCtrl *n, FemuRequest *req)
{
    FemuPowerCut *pc = &n->power_cut;
    uint64_t spp = n->ftl_config.secs_per_pg, first, last;
    uint64_t start = req->ftl.slba, end = req->ftl.slba + req->ftl.nlb;

    if (!pc->pre) {
        return;
    }
    if (req->pre_data) {
        femu_pages_of(n, req, &first, &last);
        for (uint64_t p = first; p <= last; p++) {
            uint64_t lo = MAX(start, p * spp), hi = MIN(end, (p + 1) * spp);
            uint64_t mine = (hi - lo == 64 ? UINT64_MAX : ((1ull << (hi - lo)) - 1))
                            << (lo - p * spp);
            uint64_t before = pc->masks[p - first], after = ftl_lpn_buffered_mask(n->ftl, p);
            uint64_t entered = after & ~before & mine;
            /* the bytes kept start at pre_first (only a write's tail can stay buffered) */
            uint64_t from = MAX(lo, req->pre_first) - p * spp;

            if (after == 0) {
                preimage_drop(pc->pre, p);
            } else if (entered & ((UINT64_C(1) << from) - 1)) {
                /* a sector before the kept tail entered: never, by the LRU order; were it
                 * to, a cut reads back zeroes there rather than another time's bytes */
                preimage_drop(pc->pre, p);
            } else if (entered &&
                       !preimage_save(pc->pre, p, before == 0, entered,
                                      req->pre_data +
                                      (p * spp + from - req->pre_first) * n->secsz,
                                      (uint32_t)from)) {
                error_report_once("femu: power cut: out of memory for a pre-image: a cut "
                                  "may read back zeroes for lost sectors");
            }
        }
        qatomic_sub(&pc->captured, req->pre_count * n->secsz);
        g_free(req->pre_data);
        req->pre_data = NULL;
    }
    femu_pre_tidy(n);
}

/* --- acknowledgements toward an armed cut (poller) --- */

void femu_power_cut_acked(FemuCtrl *n, const FemuRequest *req)
{
    FemuPowerCut *pc = &n->power_cut;
    int armed = qatomic_read(&pc->armed);
    enum ftl_op op = req->ftl.op;
    bool counts;

    if (armed == FEMU_CUT_NONE || req->sqid == 0 || req->work != FEMU_WORK_FTL ||
        req->status != NVME_SUCCESS) {
        return;
    }
    counts = armed == FEMU_CUT_AFTER_WRITES
             ? op == FTL_OP_WRITE || op == FTL_OP_ZONE_WRITE
             : op == FTL_OP_FLUSH;
    if (counts && --pc->left == 0) {
        qatomic_set(&pc->armed, FEMU_CUT_NONE);
        qatomic_set(&pc->asked, 1);
    }
}

/* --- the cut (poller) --- */

struct femu_cut_apply {
    FemuCtrl *n;
    struct ftl_loss_list lost;
};

/* One lost range: the store reads back flash's bytes, a torn page is uncorrectable. */
static void femu_cut_lost(void *ctx, enum ftl_loss_kind kind, uint64_t slba, uint64_t nlb)
{
    struct femu_cut_apply *a = ctx;
    FemuCtrl *n = a->n;
    uint64_t spp = n->ftl_config.secs_per_pg;

    ftl_loss_list_add(&a->lost, kind, slba, nlb);
    if (kind == FTL_LOSS_TORN) {
        lba_bitmap_set(&n->uncorrectable, slba, nlb);
        return;
    }
    for (uint64_t s = slba; s < slba + nlb; s++) {
        const uint8_t *kept = n->power_cut.pre
            ? preimage_sector(n->power_cut.pre, s / spp, (uint32_t)(s % spp)) : NULL;

        if (kept) {
            data_store_write(n->store, s * n->secsz, kept, n->secsz);
        } else {
            /* cannot happen while pre-images are kept: counted, so a test would see it */
            data_store_discard(n->store, s * n->secsz, n->secsz);
            n->power_cut.no_preimage++;
        }
    }
}

/*
 * Without plp a cut empties every Zone Random Write Area (ftl_power_cut counts the sectors
 * only): above each ZRWA zone's committed write pointer nothing reached flash, so the
 * window's LBAs, up to ZRWAS or the zone's capacity, read back unwritten. The zones keep
 * their ZRWAs and write pointers. Zoned sectors follow the conventional ones in the store.
 */
static void femu_cut_zrwa(FemuCtrl *n)
{
    struct ftl_zrwa_geometry zrwa;

    if (n->ftl_config.plp || !ftl_zrwa_geometry(n->ftl, &zrwa)) {
        return;
    }
    for (uint64_t z = 0; z < ftl_zone_count(n->ftl); z++) {
        struct ftl_zone_info info;
        uint64_t first, count;

        ftl_zone_get(n->ftl, z, &info);
        if (!info.zrwa || info.wp >= info.start + info.cap) {
            continue;
        }
        first = n->capacity_sectors + info.wp;
        count = MIN(zrwa.size_sectors, info.start + info.cap - info.wp);
        data_store_discard(n->store, first * n->secsz, count * n->secsz);
        lba_bitmap_clear(&n->written, first, count);
    }
}

static FILE *femu_cut_file(FemuCtrl *n, const char *name, const char *header)
{
    g_autofree char *path = g_build_filename(n->stats_dir, name, NULL);
    bool fresh = access(path, F_OK) != 0;
    FILE *f = fopen(path, "a");

    if (f && fresh) {
        fputs(header, f);
    }
    return f;
}

/* power_cuts.csv (a row a cut) and power_cut_lost.csv (its ranges, device sectors) in
 * stats_dir. false: a file could not be written. */
static bool femu_cut_write_files(FemuCtrl *n, uint64_t cut, uint64_t at_ns,
                                 const struct ftl_power_cut_result *res,
                                 const struct ftl_loss_list *lost)
{
    FILE *rows = femu_cut_file(n, "power_cuts.csv", "cut,at_ns,plp,buffered_pages,"
                               "buffered_sectors,torn_pages,plp_pages,lost_ranges\n");
    FILE *ranges = femu_cut_file(n, "power_cut_lost.csv", "cut,kind,slba,nlb\n");
    bool ok = rows && ranges;

    if (ok) {
        fprintf(rows, "%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
                PRIu64 ",%zu\n", cut, at_ns, n->ftl_config.plp ? 1 : 0, res->buffered_pages,
                res->buffered_sectors, res->torn_pages, res->plp_pages, lost->n);
        for (size_t i = 0; i < lost->n; i++) {
            fprintf(ranges, "%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 "\n", cut,
                    ftl_loss_kind_name(lost->v[i].kind), lost->v[i].slba, lost->v[i].nlb);
        }
    }
    ok &= !(rows && (ferror(rows) | fclose(rows)));
    ok &= !(ranges && (ferror(ranges) | fclose(ranges)));
    return ok;
}

static void femu_cut_set_status(FemuCtrl *n, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void femu_cut_set_status(FemuCtrl *n, const char *fmt, ...)
{
    va_list ap;

    qemu_mutex_lock(&n->power_cut.lock);
    va_start(ap, fmt);
    vsnprintf(n->power_cut.status, sizeof(n->power_cut.status), fmt, ap);
    va_end(ap);
    qemu_mutex_unlock(&n->power_cut.lock);
}

/* The outcome of the cut just taken, kept by the poller until the controller has been
 * power cycled (femu_power_cut_publish): a host polling the status must find the
 * controller as at power-on once it reads "cut K". */
static void femu_cut_set_outcome(FemuCtrl *n, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void femu_cut_set_outcome(FemuCtrl *n, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(n->power_cut.outcome, sizeof(n->power_cut.outcome), fmt, ap);
    va_end(ap);
}

void femu_power_cut_publish(FemuCtrl *n)
{
    qemu_mutex_lock(&n->power_cut.lock);
    pstrcpy(n->power_cut.status, sizeof(n->power_cut.status), n->power_cut.outcome);
    n->power_cut.cuts = n->power_cut.taken;
    qemu_mutex_unlock(&n->power_cut.lock);
}

bool femu_power_cut_due(FemuCtrl *n)
{
    return qatomic_read(&n->power_cut.asked) && !n->save_running;   /* a save ends first */
}

bool femu_power_cut_take(FemuCtrl *n)
{
    struct femu_cut_apply apply = { .n = n };
    struct ftl_power_cut_result res;
    char err[FEMU_CUT_ERR_LEN] = "";
    uint64_t now, cut;
    int rc;

    uint64_t unkept = n->power_cut.no_preimage;

    qatomic_set(&n->power_cut.asked, 0);
    now = femu_now_ns();
    rc = ftl_power_cut(n->ftl, now, n->ftl_config.plp, femu_cut_lost, &apply, &res, err,
                       sizeof(err));
    if (n->power_cut.pre) {
        preimage_clear(n->power_cut.pre);
    }
    /* the FTL after a cut is one a drive could power on with: checked (cuts are rare), so
     * a fuzzer cutting mid-flight sees any inconsistency at once */
    bool consistent = rc != FTL_OK || ftl_check(n->ftl, err, sizeof(err)) == 0;
    femu_ftl_view_publish(n);
    if (rc != FTL_OK) {
        femu_cut_set_status(n, "failed: %s", err);
        ftl_loss_list_free(&apply.lost);
        return false;
    }
    femu_cut_zrwa(n);
    ftl_loss_list_merge(&apply.lost);
    cut = ++n->power_cut.taken;

    uint64_t at_ns = now - n->stats_start_ns;   /* trace_out's and stats' time origin */
    if (!consistent) {
        error_report("femu: power cut %" PRIu64 ": the FTL fails its check: %s", cut, err);
        femu_cut_set_outcome(n, "failed: cut %" PRIu64 " left an FTL that fails its check: "
                             "%s", cut, err);
        ftl_loss_list_free(&apply.lost);
        return true;
    }
    bool written = !n->stats_dir ||
                   femu_cut_write_files(n, cut, at_ns, &res, &apply.lost);
    unkept = n->power_cut.no_preimage - unkept;
    g_autofree char *zeroes = unkept ? g_strdup_printf(" (%" PRIu64 " of them kept no flash "
                                                       "bytes: they read back zeroes)", unkept)
                                     : g_strdup("");
    femu_cut_set_outcome(n, "cut %" PRIu64 " at %" PRIu64 " ns: %" PRIu64 " buffered sectors "
                         "lost (%" PRIu64 " pages)%s, %" PRIu64 " pages torn, %" PRIu64
                         " pages saved by plp, %zu lost ranges, %" PRIu64 " ZRWA sectors "
                         "lost%s%s", cut, at_ns,
                         res.buffered_sectors, res.buffered_pages, zeroes, res.torn_pages,
                         res.plp_pages, apply.lost.n, res.zrwa_lost_sectors,
                         apply.lost.failed ? " (list incomplete: out of memory)" : "",
                         written ? "" :
                         " (power_cut_lost.csv could not be written)");
    ftl_loss_list_free(&apply.lost);
    return true;
}

/* --- QMP (main loop, BQL) --- */

/* "after-writes=N" / "after-flushes=N": N in [1, 1e9]. */
static bool femu_cut_parse_count(const char *value, const char *prefix, uint64_t *count)
{
    const char *end;
    uint64_t v;

    if (!g_str_has_prefix(value, prefix)) {
        return false;
    }
    value += strlen(prefix);
    if (qemu_strtou64(value, &end, 10, &v) != 0 || *end != '\0' || v < 1 ||
        v > FEMU_CUT_MAX_COUNT) {
        return false;
    }
    *count = v;
    return true;
}

static void femu_power_cut_qmp(Object *obj, const char *value, Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    FemuPowerCut *pc = &n->power_cut;
    uint64_t count = 0;
    int trigger;

    if (!n->state_ready || !n->threads_running) {
        error_setg(errp, "power-cut: the device is not running");
        return;
    }
    if (!value) {
        value = "";
    }
    if (strcmp(value, "now") == 0) {
        trigger = FEMU_CUT_NONE;
    } else if (strcmp(value, "off") == 0) {
        qatomic_set(&pc->armed, FEMU_CUT_NONE);
        femu_cut_set_status(n, "disarmed");
        return;
    } else if (femu_cut_parse_count(value, "after-writes=", &count)) {
        trigger = FEMU_CUT_AFTER_WRITES;
    } else if (femu_cut_parse_count(value, "after-flushes=", &count)) {
        trigger = FEMU_CUT_AFTER_FLUSHES;
    } else {
        error_setg(errp, "power-cut: '%.64s': want now, after-writes=N, after-flushes=N "
                   "(N from 1 to %llu) or off", value, FEMU_CUT_MAX_COUNT);
        return;
    }
    if (qatomic_read(&pc->asked) || qatomic_read(&pc->armed) != FEMU_CUT_NONE) {
        error_setg(errp, "power-cut: a cut is already %s (power-cut off disarms it)",
                   qatomic_read(&pc->asked) ? "under way" : "armed");
        return;
    }
    if (trigger == FEMU_CUT_NONE) {
        femu_cut_set_status(n, "cutting");
        qatomic_set(&pc->asked, 1);
    } else {
        femu_cut_set_status(n, "armed: %s%" PRIu64, trigger == FEMU_CUT_AFTER_WRITES
                            ? "after-writes=" : "after-flushes=", count);
        pc->left = count;       /* the poller reads it only once armed is set */
        qatomic_store_release(&pc->armed, trigger);
    }
    event_notifier_set(&n->poller_wake);
}

static char *femu_power_cut_status(Object *obj, Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    char *status;

    qemu_mutex_lock(&n->power_cut.lock);
    status = g_strdup(n->power_cut.status);
    qemu_mutex_unlock(&n->power_cut.lock);
    return status;
}

static void femu_power_cut_get_count(Object *obj, Visitor *v, const char *name,
                                     void *opaque, Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    uint64_t cuts;

    qemu_mutex_lock(&n->power_cut.lock);
    cuts = n->power_cut.cuts;
    qemu_mutex_unlock(&n->power_cut.lock);
    visit_type_uint64(v, name, &cuts, errp);
}

void femu_power_cut_instance_init(FemuCtrl *n)
{
    Object *obj = OBJECT(n);

    qemu_mutex_init(&n->power_cut.lock);
    pstrcpy(n->power_cut.status, sizeof(n->power_cut.status), "idle");
    object_property_add_str(obj, "power-cut", NULL, femu_power_cut_qmp);
    object_property_set_description(obj, "power-cut",
        "cut the power (host side only): now, after-writes=N or after-flushes=N (once N more "
        "are acknowledged), or off (disarm); power-cut-status tells the outcome");
    object_property_add_str(obj, "power-cut-status", femu_power_cut_status, NULL);
    object_property_set_description(obj, "power-cut-status",
        "idle, armed: ..., cutting, cut K at T ns: what was lost, or failed: REASON");
    object_property_add(obj, "power-cuts", "uint64", femu_power_cut_get_count, NULL, NULL,
                        NULL);
    object_property_set_description(obj, "power-cuts", "cuts done since the device started");
}

void femu_power_cut_instance_finalize(FemuCtrl *n)
{
    qemu_mutex_destroy(&n->power_cut.lock);
}
