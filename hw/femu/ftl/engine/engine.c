/* The FTL engine: see femu_ftl/engine.h. */
#include "femu_ftl/engine.h"

#include <stdlib.h>

#include "femu_ftl/trace.h"
#include "completion_heap.h"
#include "core/copy.h"     /* Copy's pricing */
#include "flash/ftl_handle.h"   /* the counters the link and the cores add to */
#include "front/front.h"   /* the link and the controller's cores */
#include "kv/kv_flash.h"    /* the key-value stores' flash work */
#include "power/power_state.h"  /* the NVMe power states */
#include "zns/zns.h"       /* the zoned namespace's flash work */

#define ENGINE_ERR_LEN 256

struct ftl_engine {
    struct ftl *ftl;
    struct ftl_stats_writer *stats;
    struct ftl_engine_hooks hooks;
    struct completion_heap done;
    struct io_trace_writer *trace;
    struct front front;
    struct power_model power;
};

/* The statistics' rows read the power states' time as it is at each row's end
 * (ftl->counters_at, while the engine lives). */
static void engine_counters_at(void *opaque, uint64_t t_ns, struct ftl_counters *c)
{
    const struct ftl_engine *e = opaque;

    power_counters_at(&e->power, t_ns, c);
}

struct ftl_engine *ftl_engine_create(struct ftl *ftl, struct ftl_stats_writer *stats,
                                     const struct ftl_engine_hooks *hooks)
{
    struct ftl_engine *e = calloc(1, sizeof(*e));

    if (!e) {
        return NULL;
    }
    e->ftl = ftl;
    e->stats = stats;
    if (hooks) {
        e->hooks = *hooks;
    }
    if (!completion_heap_init(&e->done, 64)) {
        free(e);
        return NULL;
    }
    front_init(&e->front, &ftl->cfg);
    power_init(&e->power, &ftl->cfg);
    ftl->counters_at = engine_counters_at;
    ftl->counters_opaque = e;
    return e;
}

void ftl_engine_destroy(struct ftl_engine *e)
{
    if (e) {
        if (e->ftl->counters_opaque == e) {     /* the FTL (and its writer) outlive it */
            e->ftl->counters_at = NULL;
            e->ftl->counters_opaque = NULL;
        }
        completion_heap_destroy(&e->done);
        free(e);
    }
}

struct ftl *ftl_engine_ftl(const struct ftl_engine *e)
{
    return e->ftl;
}

void ftl_engine_record(struct ftl_engine *e, struct io_trace_writer *trace)
{
    e->trace = trace;
}

static void engine_stats_error(struct ftl_engine *e, const char *what, const char *err)
{
    if (e->hooks.stats_error) {
        e->hooks.stats_error(e->hooks.opaque, what, err);
    }
}

/* The trace writer fails once; the run goes on without it. */
static void engine_trace_result(struct ftl_engine *e, int rc, const char *err)
{
    if (rc != 0 && e->hooks.trace_error) {
        e->hooks.trace_error(e->hooks.opaque, err);
    }
}

static void engine_stats_advance(struct ftl_engine *e, uint64_t now_ns)
{
    char err[ENGINE_ERR_LEN];

    if (e->stats && ftl_stats_advance(e->stats, now_ns, err, sizeof(err)) != 0) {
        engine_stats_error(e, "writing rows", err);
    }
}

void ftl_engine_counters_at(const struct ftl_engine *e, uint64_t now_ns,
                            struct ftl_counters *c)
{
    ftl_get_counters(e->ftl, c);
    power_counters_at(&e->power, now_ns, c);
}

void ftl_engine_advance(struct ftl_engine *e, uint64_t now_ns)
{
    char err[ENGINE_ERR_LEN];

    if (e->trace) {
        engine_trace_result(e, io_trace_write_advance(e->trace, now_ns, err, sizeof(err)),
                            err);
    }
    engine_stats_advance(e, now_ns);
    power_advance(&e->power, &e->ftl->ctr, now_ns);
}

int ftl_engine_phase(struct ftl_engine *e, uint64_t now_ns, const char *phase)
{
    char err[ENGINE_ERR_LEN];

    if (e->trace) {
        engine_trace_result(e, io_trace_write_phase(e->trace, now_ns, phase, err,
                                                    sizeof(err)), err);
    }
    int rc = 0;
    if (e->stats && ftl_stats_phase(e->stats, now_ns, phase, err, sizeof(err)) != 0) {
        engine_stats_error(e, "phases.csv", err);
        rc = -1;
    }
    power_advance(&e->power, &e->ftl->ctr, now_ns);
    return rc;
}

static bool engine_stopping(const struct ftl_engine *e)
{
    return e->hooks.stop && e->hooks.stop(e->hooks.opaque);
}

/* A deallocate of several ranges: done when the last range is. */
static int engine_trim_ranges(struct ftl_engine *e, const struct ftl_request *r,
                              uint64_t *done_ns)
{
    uint64_t done = r->arrival_ns;

    for (uint32_t i = 0; i < r->nranges && !engine_stopping(e); i++) {
        struct ftl_io io = { .now_ns = r->arrival_ns, .slba = r->ranges[i].slba,
                             .nlb = r->ranges[i].nlb };
        uint64_t range_done = r->arrival_ns;

        if (io.nlb == 0) {
            continue;
        }
        int rc = ftl_trim(e->ftl, &io, &range_done);
        if (rc != FTL_OK) {
            return rc;
        }
        done = range_done > done ? range_done : done;
    }
    *done_ns = done;
    return FTL_OK;
}

/* A zone write or Zone Append: admitted here unless the caller did, then priced at the
 * sectors it was given. */
static int engine_zone_write(struct ftl *ftl, const struct ftl_request *r, uint64_t *done_ns)
{
    bool append = (r->flags & FTL_REQ_APPEND) != 0;
    uint64_t start = append ? r->assigned : r->slba;

    if (!(r->flags & FTL_REQ_ADMITTED)) {
        int rc = ftl_zone_admit_write(ftl, r->slba, r->nlb, append, &start);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return zns_write(ftl, start, r->nlb, append, r->arrival_ns, done_ns);
}

static int engine_zone_read(struct ftl *ftl, const struct ftl_request *r, uint64_t *done_ns)
{
    if (!(r->flags & FTL_REQ_ADMITTED)) {
        int rc = ftl_zone_admit_read(ftl, r->slba, r->nlb);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return zns_read(ftl, r->slba, r->nlb, r->arrival_ns, done_ns);
}

/* The ZRWA actions act on slba alone: the explicit flush commits up to it, Open with
 * ZRWAA gives the zone there its window (a zone closed for room costs nothing). */
static int engine_zone_zrwa(struct ftl *ftl, const struct ftl_request *r, uint64_t *done_ns)
{
    enum ftl_zone_action action = (enum ftl_zone_action)r->zone_action;
    if (!(r->flags & FTL_REQ_ADMITTED)) {
        int rc = ftl_zone_admit_mgmt(ftl, r->slba, action, (r->flags & FTL_REQ_ZONE_ALL) != 0,
                                     NULL, NULL);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    if (action == FTL_ZONE_ACTION_ZRWA_FLUSH) {
        return zns_zrwa_flush(ftl, r->slba, r->arrival_ns, done_ns);
    }
    uint64_t zone = r->slba / ftl_zone_size_sectors(ftl);
    if (zone >= ftl_zone_count(ftl)) {
        return FTL_E_INVAL;
    }
    zns_zrwa_open(ftl, zone);
    *done_ns = r->arrival_ns;
    return FTL_OK;
}

/* Zone Management Send: the zones the action changed (admission's list, or the caller's
 * ranges when it admitted), each priced from the arrival; done when the last is. */
static int engine_zone_mgmt(struct ftl *ftl, const struct ftl_request *r, uint64_t *done_ns)
{
    uint64_t done = r->arrival_ns, zone_done;
    uint64_t zone_sectors = ftl_zone_size_sectors(ftl);

    if (r->zone_action == FTL_ZONE_ACTION_ZRWA_FLUSH ||
        r->zone_action == FTL_ZONE_ACTION_OPEN_ZRWA) {
        return engine_zone_zrwa(ftl, r, done_ns);
    }

    if (!(r->flags & FTL_REQ_ADMITTED)) {
        uint64_t *zones = zns_changed_scratch(ftl);
        size_t n = 0;
        int rc = ftl_zone_admit_mgmt(ftl, r->slba, (enum ftl_zone_action)r->zone_action,
                                     (r->flags & FTL_REQ_ZONE_ALL) != 0, zones, &n);
        if (rc != FTL_OK) {
            return rc;
        }
        for (size_t i = 0; i < n; i++) {
            zns_manage(ftl, (enum ftl_zone_action)r->zone_action, zones[i], r->arrival_ns,
                       &zone_done);
            done = zone_done > done ? zone_done : done;
        }
    } else {
        for (uint32_t i = 0; i < r->nranges; i++) {
            int rc = zns_manage(ftl, (enum ftl_zone_action)r->zone_action,
                                r->ranges[i].slba / zone_sectors, r->arrival_ns, &zone_done);
            if (rc != FTL_OK) {
                return rc;
            }
            done = zone_done > done ? zone_done : done;
        }
    }
    *done_ns = done;
    return FTL_OK;
}

/* The zoned namespace's operations: FTL_E_INVAL on an FTL without zones. */
static int engine_price_zoned(struct ftl_engine *e, const struct ftl_request *r,
                              uint64_t *done_ns)
{
    struct ftl *ftl = e->ftl;

    if (ftl_zone_count(ftl) == 0) {
        return FTL_E_INVAL;
    }
    switch (r->op) {
    case FTL_OP_ZONE_WRITE:
        return engine_zone_write(ftl, r, done_ns);
    case FTL_OP_ZONE_READ:
        return engine_zone_read(ftl, r, done_ns);
    case FTL_OP_ZONE_MGMT:
        return engine_zone_mgmt(ftl, r, done_ns);
    default:
        break;
    }
    if (!(r->flags & FTL_REQ_ADMITTED)) {   /* a Copy in the zoned namespace */
        int rc = ftl_zone_admit_copy(ftl, r->ranges, r->nranges, r->slba);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return ftl_copy(ftl, r->ranges, r->nranges, r->slba, true, r->arrival_ns, done_ns);
}

/* A key-value command: admitted here unless the caller did (an error: done at arrival,
 * nothing counted), then the store's flash work. */
static int engine_price_kv(struct ftl *ftl, const struct ftl_request *r, uint64_t *done_ns)
{
    if (!(r->flags & FTL_REQ_ADMITTED)) {
        int rc = kv_admit_request(ftl, r);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return kv_flash_serve(ftl, r, done_ns);
}

static int engine_price(struct ftl_engine *e, const struct ftl_request *r, uint64_t *done_ns)
{
    struct ftl_io io = { .now_ns = r->arrival_ns, .slba = r->slba, .nlb = r->nlb,
                         .stream = r->stream, .fua = (r->flags & FTL_REQ_FUA) != 0 };

    switch (r->op) {
    case FTL_OP_READ:
        return ftl_read(e->ftl, &io, done_ns);
    case FTL_OP_WRITE:
        return ftl_write(e->ftl, &io, done_ns);
    case FTL_OP_TRIM:
        return r->nranges ? engine_trim_ranges(e, r, done_ns) : ftl_trim(e->ftl, &io, done_ns);
    case FTL_OP_FLUSH:
        return ftl_flush(e->ftl, r->arrival_ns, done_ns);
    case FTL_OP_VERIFY:
        return ftl_verify(e->ftl, &io, done_ns);
    case FTL_OP_FORMAT:
        kv_life_format(e->ftl, r);     /* a store's range: every key gone */
        return ftl_format(e->ftl, &io, (r->flags & FTL_REQ_ERASE) != 0, done_ns);
    case FTL_OP_ZONE_WRITE:
    case FTL_OP_ZONE_READ:
    case FTL_OP_ZONE_MGMT:
        return engine_price_zoned(e, r, done_ns);
    case FTL_OP_COPY:
        if (r->flags & FTL_REQ_ZONED) {
            return engine_price_zoned(e, r, done_ns);
        }
        return ftl_copy(e->ftl, r->ranges, r->nranges, r->slba, false, r->arrival_ns, done_ns);
    case FTL_OP_RUH_UPDATE:
        return ftl_fdp_ruh_update(e->ftl, r->stream, r->arrival_ns, NULL);
    case FTL_OP_SET_WRITE_CACHE:
        return ftl_set_write_cache(e->ftl, (r->flags & FTL_REQ_WCE) != 0, r->arrival_ns,
                                   done_ns);
    case FTL_OP_KV_STORE:
    case FTL_OP_KV_RETRIEVE:
    case FTL_OP_KV_DELETE:
    case FTL_OP_KV_EXIST:
    case FTL_OP_KV_LIST:
        return engine_price_kv(e->ftl, r, done_ns);
    case FTL_OP_KV_CREATE:
    case FTL_OP_KV_DESTROY:
        return kv_life_serve(e->ftl, r);
    case FTL_OP_ADMIN:
        return FTL_OK;      /* no FTL work: done when the FTL takes it */
    case FTL_OP_POWER:      /* takes effect at its arrival (ftl_engine_serve) */
        return FTL_OK;
    }
    return FTL_E_INVAL;
}

/* What GC did between two snapshots of the FTL's counters. */
static struct ftl_gc_work engine_gc_between(const struct ftl_counters *before,
                                            const struct ftl_counters *after)
{
    return (struct ftl_gc_work){
        .lines = after->gc_runs - before->gc_runs,
        .moved_pages = after->gc_moved_pages - before->gc_moved_pages,
        .erased_blocks = after->gc_erased_blocks - before->gc_erased_blocks,
    };
}

/* An admin command (FTL_OP_ADMIN without FTL_REQ_IO): NVMe serves it in a
 * non-operational state without leaving it, and only I/O queues' commands end the idle
 * time APST counts, so it neither wakes the drive nor keeps it busy. */
static bool engine_admin_only(const struct ftl_request *r)
{
    return r->op == FTL_OP_ADMIN && !(r->flags & FTL_REQ_IO);
}

/*
 * The power states at r's arrival (power/power_state.h): APST's moves by then, then a
 * power command acts (at its arrival, waking nothing: a refused one is returned), an
 * admin command is served in the state as it is, or any other command wakes a sleeping
 * drive and is taken after the exit (*woken: r as the drive takes it), at the flash
 * speed of the state it runs in.
 */
static int engine_power_arrival(struct ftl_engine *e, const struct ftl_request *r,
                                struct ftl_request *woken, struct ftl_served *out)
{
    int rc = FTL_OK;

    power_advance(&e->power, &e->ftl->ctr, r->arrival_ns);
    *woken = *r;
    if (r->op == FTL_OP_POWER) {
        rc = power_command(&e->power, &e->ftl->ctr, r->arrival_ns, r->power);
    } else if (!engine_admin_only(r)) {
        woken->arrival_ns = power_wake(&e->power, &e->ftl->ctr, r->arrival_ns);
        out->done_ns = woken->arrival_ns;
        e->ftl->flash_perf_pcent = power_perf_pcent(&e->power);
    }
    out->power_state = e->power.cur;
    return rc;
}

int ftl_engine_serve(struct ftl_engine *e, const struct ftl_request *r,
                     struct ftl_served *out)
{
    struct ftl_served ignored;
    struct ftl_counters before, priced, collected;
    const uint64_t arrival = r->arrival_ns;
    uint64_t done = r->arrival_ns;

    if (!out) {
        out = &ignored;
    }
    *out = (struct ftl_served){ .done_ns = r->arrival_ns };
    if (e->trace) {
        char err[ENGINE_ERR_LEN];

        engine_trace_result(e, io_trace_write_request(e->trace, r, err, sizeof(err)), err);
    }
    engine_stats_advance(e, r->arrival_ns);
    /* the power states first: the link and controller are off too in a non-op state */
    struct ftl_request woken;
    int prc = engine_power_arrival(e, r, &woken, out);
    if (prc != FTL_OK) {
        return prc;
    }
    r = &woken;
    /* A command without FTL work gives the FTL no step of its own (engine.h) */
    bool ftl_work = r->op != FTL_OP_ADMIN && r->op != FTL_OP_POWER;
    /* slc_cache: the idle flash time before this arrival folds SLC units (nothing when
     * off); after the request, ftl_background_gc takes what the request left idle */
    if (ftl_work) {
        (void)ftl_background_fold(e->ftl, r->arrival_ns);
    }
    ftl_get_counters(e->ftl, &before);
    /* the link and the controller first: the FTL takes it when its data is in */
    struct front_trip trip;
    struct ftl_request at_ftl = *r;
    at_ftl.arrival_ns = front_before(&e->front, &e->ftl->cfg, &e->ftl->ctr, r, &trip);
    done = at_ftl.arrival_ns;
    int rc = engine_price(e, &at_ftl, &done);
    ftl_get_counters(e->ftl, &priced);
    out->fg = engine_gc_between(&before, &priced);
    /* A failed flash read was still served: it took its flash time. An error found
     * before the flash is answered at once: the front charges it nothing more. */
    if (rc != FTL_OK && rc != FTL_E_UNCORRECTABLE) {
        power_busy_until(&e->power, out->done_ns);
        return rc;
    }
    out->done_ns = front_after(&e->front, &e->ftl->cfg, &e->ftl->ctr, r, &trip, done,
                               &out->split);
    out->split.wait_ns += woken.arrival_ns - arrival;   /* a power-state exit */
    if ((r->op != FTL_OP_POWER || r->power->action != FTL_POWER_GET_STATE) &&
        !engine_admin_only(r)) {
        power_busy_until(&e->power, out->done_ns);
    }
    /* Not this request's failure: a collection that cannot run shows on the next write
     * that needs the space. */
    if (ftl_work) {
        (void)ftl_background_gc(e->ftl, r->arrival_ns);
    }
    ftl_get_counters(e->ftl, &collected);
    out->bg = engine_gc_between(&priced, &collected);
    return rc;
}

int ftl_engine_submit(struct ftl_engine *e, const struct ftl_request *r, void *tag,
                      struct ftl_served *out)
{
    struct ftl_served served;

    /* Room first, so a request is never served and then lost. */
    if (!completion_heap_reserve(&e->done, completion_heap_count(&e->done) + 1)) {
        return FTL_E_NOMEM;
    }
    int rc = ftl_engine_serve(e, r, &served);
    completion_heap_push(&e->done, served.done_ns, tag);
    if (out) {
        *out = served;
    }
    return rc;
}

bool ftl_engine_next_due(const struct ftl_engine *e, uint64_t *due_ns)
{
    return completion_heap_peek(&e->done, due_ns, NULL);
}

size_t ftl_engine_queued(const struct ftl_engine *e)
{
    return completion_heap_count(&e->done);
}

size_t ftl_engine_pop_due(struct ftl_engine *e, uint64_t now_ns, void **tags, size_t max)
{
    return completion_heap_pop_due(&e->done, now_ns, tags, max);
}
