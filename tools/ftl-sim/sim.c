/* The simulation loop: the engine's queue of outstanding completions drives simulated time. */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kv_account.h"
#include "op_names.h"

#define STALL_LIMIT 10000000u  /* completions in a row without simulated time passing */

/* What the loop remembers of a request until the engine hands it back. */
struct inflight {
    uint64_t issued_ns, bytes;
    enum ftl_op op;
    bool refused;           /* the zone rules refused it (no flash work) */
    bool refused_kv;        /* replayed without --kv, a KV rule refused it */
    bool refused_power;     /* a power command naming a state the drive does not have */
    int kv_status;          /* a KV request: its status (the engine admitted it) */
    struct ftl_time_split split;    /* where its time went (the link and cores model) */
    struct inflight *next_free;
};

/* Slots for outstanding requests: qd of them closed-loop, as many as needed open-loop. */
struct slot_pool {
    struct inflight *free;
    struct inflight **blocks;
    size_t nblocks;
};

static struct inflight *slot_get(struct slot_pool *p)
{
    if (!p->free) {
        enum { PER_BLOCK = 256 };
        struct inflight **blocks = realloc(p->blocks, (p->nblocks + 1) * sizeof(*blocks));
        struct inflight *block = calloc(PER_BLOCK, sizeof(*block));
        if (!blocks || !block) {
            p->blocks = blocks ? blocks : p->blocks;
            free(block);
            return NULL;
        }
        p->blocks = blocks;
        p->blocks[p->nblocks++] = block;
        for (unsigned i = 0; i < PER_BLOCK; i++) {
            block[i].next_free = p->free;
            p->free = &block[i];
        }
    }
    struct inflight *slot = p->free;
    p->free = slot->next_free;
    return slot;
}

static void slot_put(struct slot_pool *p, struct inflight *slot)
{
    slot->next_free = p->free;
    p->free = slot;
}

static void slot_pool_destroy(struct slot_pool *p)
{
    for (size_t i = 0; i < p->nblocks; i++) {
        free(p->blocks[i]);
    }
    free(p->blocks);
}

/* The engine reports statistics and trace failures through hooks; the first one counts. */
static void stats_failed(void *opaque, const char *what, const char *err)
{
    struct sim_run *run = opaque;

    if (!run->failed) {
        run->failed = true;
        snprintf(run->failure, sizeof(run->failure), "statistics: %s: %s", what, err);
    }
}

static void trace_failed(void *opaque, const char *err)
{
    struct sim_run *run = opaque;

    if (!run->failed) {
        run->failed = true;
        snprintf(run->failure, sizeof(run->failure), "trace: %s", err);
    }
}

int sim_run_init(struct sim_run *run, struct ftl *ftl, struct ftl_stats_writer *stats,
                 struct io_trace_writer *trace, char *err, size_t errlen)
{
    struct ftl_engine_hooks hooks = { .opaque = run, .stats_error = stats_failed,
                                      .trace_error = trace_failed };

    memset(run, 0, sizeof(*run));
    run->engine = ftl_engine_create(ftl, stats, &hooks);
    if (!run->engine) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ftl_engine_record(run->engine, trace);
    ftl_engine_advance(run->engine, 0);     /* time runs from 0, the recording's origin */
    return 0;
}

void sim_run_destroy(struct sim_run *run)
{
    ftl_engine_destroy(run->engine);
    run->engine = NULL;
}

static int run_failure(const struct sim_run *run, char *err, size_t errlen)
{
    if (run->failed) {
        snprintf(err, errlen, "%s", run->failure);
        return -1;
    }
    return 0;
}

int sim_run_mark(struct sim_run *run, uint64_t now_ns, const char *phase, char *err,
                 size_t errlen)
{
    ftl_engine_phase(run->engine, now_ns, phase);
    return run_failure(run, err, errlen);
}

/* Zone commands and copies into the zoned namespace, which the engine admits first. */
static bool admitted_by_engine(const struct ftl_request *r)
{
    return r->op == FTL_OP_ZONE_WRITE || r->op == FTL_OP_ZONE_READ ||
           r->op == FTL_OP_ZONE_MGMT || (r->op == FTL_OP_COPY && (r->flags & FTL_REQ_ZONED));
}

/* Hand one request to the engine at arrival_ns. */
static int issue(struct sim_run *run, const struct request *req, uint64_t arrival_ns,
                 uint64_t secsz, struct inflight *slot, char *err, size_t errlen)
{
    struct ftl_engine *engine = run->engine;
    struct ftl_request r = req->ftl;
    r.arrival_ns = arrival_ns;
    bool moves_data = r.op == FTL_OP_READ || r.op == FTL_OP_WRITE ||
                      r.op == FTL_OP_ZONE_READ || r.op == FTL_OP_ZONE_WRITE;
    *slot = (struct inflight){ .issued_ns = arrival_ns, .op = r.op,
                               .bytes = moves_data ? r.nlb * secsz : 0 };
    struct ftl_served served = { 0 };
    int status = ftl_engine_submit(engine, &r, slot, &served);
    slot->split = served.split;
    /* A KV request completes with its status, an error or not; counted, the run goes on. */
    if (run->kv && kv_command(r.op) && status != FTL_E_NOMEM) {
        slot->kv_status = status;
        return kv_account_issued(run->kv, &r, req->kv_kind, status, err, errlen);
    }
    /* A zone command the zone rules refuse completes at once with its status, as in the
     * device: counted (zone_errors), and the run goes on. */
    if (status != FTL_OK && status != FTL_E_NOMEM && admitted_by_engine(&r)) {
        slot->refused = true;
        slot->bytes = 0;
        return 0;
    }
    /* A power command naming a state the drive does not have is refused (Invalid Field
     * in the device): counted (power_refused), the run goes on. */
    if (r.op == FTL_OP_POWER && status == FTL_E_INVAL) {
        slot->refused_power = true;
        return 0;
    }
    /* A replayed KV command the store's rules refuse completes with that status, as in
     * the device that recorded it: counted (kv_refused), the run goes on. */
    if (kv_command(r.op) && kv_rule_status(status)) {
        slot->refused_kv = true;
        slot->bytes = 0;
        return 0;
    }
    if (status != FTL_OK && (kv_command(r.op) || r.op == FTL_OP_KV_CREATE ||
                             r.op == FTL_OP_KV_DESTROY)) {
        snprintf(err, errlen, "%s of namespace %u failed: %s (a key-value record needs the "
                 "store a KC record or --state-in made, and a KC record a free range)",
                 sim_op_name(r.op), r.nsid ? r.nsid : 1, ftl_status_str(status));
        return -1;
    }
    /* A read that hit an injected flash error (read_uncor_ppm) completes like any other:
     * the device returns an error status for it, the run goes on; read_errors counts. */
    if (status != FTL_OK && status != FTL_E_UNCORRECTABLE) {
        snprintf(err, errlen, "%s of sectors %llu+%llu failed: %s", sim_op_name(r.op),
                 (unsigned long long)r.slba, (unsigned long long)r.nlb,
                 ftl_status_str(status));
        return -1;
    }
    return 0;
}

/* Take the FTL's FDP events as a host would after each command, and count them. */
static void take_fdp_events(struct ftl *ftl, struct sim_phase_result *out)
{
    struct ftl_fdp_event events[16];
    size_t n;
    uint64_t lost = 0;

    do {
        n = ftl_fdp_take_events(ftl, events, sizeof(events) / sizeof(events[0]), &lost);
        out->fdp_events_lost += lost;
        for (size_t i = 0; i < n; i++) {
            if (events[i].type <= FTL_FDP_EVENT_RU_TIME_LIMIT) {
                out->fdp_events[events[i].type]++;
            }
        }
    } while (n == sizeof(events) / sizeof(events[0]));
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One progress line per wall-clock second, rewritten in place. */
static void show_progress(const struct sim_limits *limits, uint64_t elapsed_ns,
                          uint64_t issued_bytes, double *last_shown)
{
    double now = wall_seconds();
    if (now - *last_shown < 1.0) {
        return;
    }
    *last_shown = now;
    if (limits->runtime_ns) {
        fprintf(stderr, "\r  simulated %.1f of %.1f s", (double)elapsed_ns / 1e9,
                (double)limits->runtime_ns / 1e9);
    } else if (limits->io_bytes) {
        fprintf(stderr, "\r  %.0f%% of the I/O issued", 100.0 * (double)issued_bytes /
                (double)limits->io_bytes);
    } else {
        fprintf(stderr, "\r  simulated %.1f s", (double)elapsed_ns / 1e9);
    }
}

/*
 * A recorded statistics event. Closed loop, its time means nothing: phases start now
 * (once the requests before them completed), advances and the end are dropped. Open loop, each happens at its recorded time.
 */
static void replay_event(struct sim_run *run, const struct request *req, bool open_loop,
                         uint64_t start_ns, uint64_t now_ns, struct sim_phase_result *out)
{
    uint64_t at = open_loop ? start_ns + req->time_ns : now_ns;

    switch (req->event) {
    case REPLAY_PHASE:
        ftl_engine_phase(run->engine, at, req->phase);
        break;
    case REPLAY_ADVANCE:
        if (open_loop) {
            ftl_engine_advance(run->engine, at);
        }
        break;
    default:
        if (open_loop) {
            out->recorded_end = true;
            out->recorded_end_ns = at;
        }
        break;
    }
}

static void count_done(struct sim_phase_result *out, const struct inflight *done, uint64_t due)
{
    if (done->refused) {
        out->zone_errors++;
        return;
    }
    if (done->refused_kv) {
        out->kv_refused++;
        return;
    }
    if (done->op == FTL_OP_ADMIN) {
        return;     /* a replayed admin command: no read, no write, not an I/O latency */
    }
    if (done->op == FTL_OP_POWER) {     /* nor a power command */
        out->power_cmds++;
        out->power_refused += done->refused_power;
        return;
    }
    latency_hist_add(&out->latency, due - done->issued_ns);
    switch (done->op) {
    case FTL_OP_WRITE:
    case FTL_OP_ZONE_WRITE:
        out->writes++;
        out->write_bytes += done->bytes;
        split_sums_add(&out->write_split, &done->split);
        break;
    case FTL_OP_READ:
    case FTL_OP_ZONE_READ:
        out->reads++;
        out->read_bytes += done->bytes;
        split_sums_add(&out->read_split, &done->split);
        break;
    case FTL_OP_COPY:
        out->copies++;
        break;
    case FTL_OP_ZONE_MGMT:
        out->zone_mgmts++;
        break;
    case FTL_OP_RUH_UPDATE:
        out->ruh_updates++;
        break;
    default:
        break;
    }
}

/*
 * The clock may not pass 2^53 ns, the latest time a recording or a statistics row may
 * hold (femu_ftl/trace.h): the options are bounded alone, not their sums with the
 * preconditioning's and the flash's time. SIM_E_WORKLOAD (exit 2) past it.
 */
static int clock_within_limit(uint64_t now, char *err, size_t errlen)
{
    if (now <= IO_TRACE_MAX_TIME_NS) {
        return 0;
    }
    snprintf(err, errlen, "the simulated clock reached %.0f s, beyond the 2^53 ns (104 days) "
             "a run may last: shorten --runtime, --idle or the preconditioning",
             (double)now / 1e9);
    return SIM_E_WORKLOAD;
}

/* Pages in the write buffer now, not yet on flash (0 without one). */
static uint64_t buffer_pending(const struct ftl *ftl)
{
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    return g.buf_pending_pages;
}

/* What the steps of one phase share (sim_run_phase). */
struct phase_loop {
    struct sim_run *run;
    struct workload *w;
    struct ftl *ftl;
    const struct sim_limits *limits;
    struct sim_phase_result *out;
    unsigned qd;
    uint64_t secsz;
    bool open_loop, fdp;
    struct slot_pool pool;
    uint64_t now, issued_bytes, stalled, requests;
    uint64_t idle_at;           /* the next pause, in issued bytes */
    uint64_t cut_at;            /* the power cut's time (UINT64_MAX: none) */
    unsigned outstanding;
    double last_shown;
    bool issuing, shown, have_next;
    struct request next;
    /* this turn: a phase waiting for the requests before it, a pause pending, the next
     * completion (any_due, due) and when the next request arrives */
    bool draining, pausing, any_due;
    uint64_t due, arrival;
    int rc;
    char *err;
    size_t errlen;
};

/* What a step of the loop tells it: go on to the next step, start the next turn (when
 * rc is still 0), or leave the loop. */
enum step { STEP_ON, STEP_AGAIN, STEP_STOP };

/* The next request or event from the workload, unless it arrives at or after the cut. */
static enum step take_next(struct phase_loop *L)
{
    if (L->issuing && !L->have_next) {
        int got = workload_next(L->w, &L->next, L->err, L->errlen);
        if (got < 0) {
            L->rc = SIM_E_WORKLOAD;
            return STEP_STOP;
        }
        L->issuing = got > 0;
        L->have_next = got > 0;
    }
    /* nothing recorded at or after the cut happens (a closed loop's events have no
     * time of their own: they happen now, which is before the cut) */
    if (L->have_next && L->open_loop && L->out->start_ns + L->next.time_ns >= L->cut_at) {
        L->issuing = L->have_next = false;
    }
    return STEP_ON;
}

/* A recorded statistics event, unless a phase must wait for the requests before it. */
static enum step take_event(struct phase_loop *L)
{
    /* Closed loop, a recorded phase starts once the requests before it completed,
     * as the recorded host's marker did (its job had finished). */
    L->draining = L->have_next && !L->open_loop && L->next.event == REPLAY_PHASE &&
                  L->outstanding > 0;
    if (L->have_next && L->next.event != REPLAY_NONE && !L->draining) {
        replay_event(L->run, &L->next, L->open_loop, L->out->start_ns, L->now, L->out);
        L->have_next = false;
        L->rc = run_failure(L->run, L->err, L->errlen);
        return STEP_AGAIN;
    }
    return STEP_ON;
}

/* The next completion and arrival; issuing stops at --io-size, --runtime or the cut. */
static enum step stop_at_limits(struct phase_loop *L)
{
    const struct sim_limits *limits = L->limits;
    L->due = 0;
    L->arrival = L->open_loop && L->have_next ? L->out->start_ns + L->next.time_ns : L->now;
    L->any_due = ftl_engine_next_due(L->run->engine, &L->due);
    if (L->have_next &&
        ((limits->io_bytes && L->issued_bytes >= limits->io_bytes) ||
         (limits->runtime_ns && L->arrival - L->out->start_ns >= limits->runtime_ns) ||
         L->arrival >= L->cut_at)) {
        L->issuing = L->have_next = false;
    }
    return STEP_ON;
}

/* A pause: once every request issued before it has completed, the device is left alone
 * for idle_ns (its statistics rows come as the clock passes them). */
static enum step pause_when_due(struct phase_loop *L)
{
    L->pausing = !L->open_loop && L->idle_at && L->issued_bytes >= L->idle_at;
    if (!L->pausing || L->outstanding != 0) {
        return STEP_ON;
    }
    uint64_t idle_ns = L->limits->idle_ns;
    L->now = L->now + idle_ns < L->cut_at ? L->now + idle_ns : L->cut_at;
    L->rc = clock_within_limit(L->now, L->err, L->errlen);
    if (L->rc != 0) {
        return STEP_STOP;
    }
    ftl_engine_advance(L->run->engine, L->now);
    L->idle_at = L->issued_bytes + L->limits->idle_every_bytes;
    L->rc = run_failure(L->run, L->err, L->errlen);
    return STEP_AGAIN;
}

/* --check-every's invariant check and the progress line, after each issued request. */
static enum step after_issue(struct phase_loop *L)
{
    const struct sim_limits *limits = L->limits;
    char why[256];
    if (limits->check_every && L->requests % limits->check_every == 0 &&
        ftl_check(L->ftl, why, sizeof(why))) {
        snprintf(L->err, L->errlen, "invariant check failed after %llu requests: %s",
                 (unsigned long long)L->requests, why);
        L->rc = -1;
        return STEP_STOP;
    }
    if (limits->progress && (L->requests & 0xffff) == 0) {
        show_progress(limits, L->now - L->out->start_ns, L->issued_bytes, &L->last_shown);
        L->shown = true;
    }
    return STEP_AGAIN;
}

/* Issue when there is room (closed loop) or when nothing completes before the request
 * arrives (open loop); otherwise the next step takes a completion. */
static enum step issue_next(struct phase_loop *L)
{
    if (!L->have_next || L->pausing || L->draining ||
        !(L->open_loop ? !L->any_due || L->due > L->arrival : L->outstanding < L->qd)) {
        return STEP_ON;
    }
    struct inflight *slot = slot_get(&L->pool);
    if (!slot) {
        snprintf(L->err, L->errlen, "out of memory");
        L->rc = -1;
        return STEP_STOP;
    }
    L->have_next = false;
    if (issue(L->run, &L->next, L->arrival, L->secsz, slot, L->err, L->errlen) != 0 ||
        run_failure(L->run, L->err, L->errlen) != 0) {
        L->rc = -1;
        return STEP_STOP;
    }
    if (L->fdp) {
        take_fdp_events(L->ftl, L->out);
    }
    L->now = L->arrival > L->now ? L->arrival : L->now;
    L->outstanding++;
    L->issued_bytes += slot->bytes;
    L->requests++;
    return after_issue(L);
}

/* The next completion, or the loop's end when none comes before the cut. */
static enum step complete_next(struct phase_loop *L)
{
    if (!L->any_due || L->due > L->cut_at) {
        return STEP_STOP;   /* done, or the rest completes after the power went */
    }
    void *tag;
    ftl_engine_pop_due(L->run->engine, L->due, &tag, 1);
    struct inflight *done = tag;
    L->outstanding--;
    /* Reads of never-written pages take no flash time: with only a time limit such a
     * workload would never end. */
    L->stalled = L->due <= L->now ? L->stalled + 1 : 0;
    if (L->stalled > STALL_LIMIT && !L->limits->io_bytes && !L->open_loop) {
        snprintf(L->err, L->errlen, "simulated time stopped advancing: the workload reads "
                 "pages never written (they cost no flash time); precondition the "
                 "device (--precondition seq) or give --io-size");
        L->rc = -1;
        return STEP_STOP;
    }
    L->now = L->due > L->now ? L->due : L->now;
    if (L->run->kv && kv_command(done->op)) {
        kv_account_done(L->run->kv, done->op, done->kv_status, L->due - done->issued_ns);
    }
    count_done(L->out, done, L->due);
    slot_put(&L->pool, done);
    L->rc = clock_within_limit(L->now, L->err, L->errlen);
    return STEP_AGAIN;
}

/* Each turn runs these in order until one starts the next turn or ends the loop. */
static enum step (*const loop_steps[])(struct phase_loop *) = {
    take_next, take_event, stop_at_limits, pause_when_due, issue_next, complete_next,
};

static void run_loop(struct phase_loop *L)
{
    while (L->rc == 0) {
        enum step s = STEP_ON;
        for (size_t i = 0; s == STEP_ON && i < sizeof(loop_steps) / sizeof(loop_steps[0]);
             i++) {
            s = loop_steps[i](L);
        }
        if (s == STEP_STOP) {
            break;
        }
    }
}

/* The phase's start: its counters, and the loop's state before the first turn. */
static void start_phase(struct phase_loop *L)
{
    struct sim_phase_result *out = L->out;
    memset(out, 0, sizeof(*out));
    latency_hist_init(&out->latency);
    out->start_ns = L->now;
    ftl_get_counters(L->ftl, &out->before);
    out->buf_pending_before = buffer_pending(L->ftl);
    L->secsz = ftl_config_of(L->ftl)->secsz;
    L->open_loop = L->limits->open_loop;
    L->fdp = ftl_fdp_ruhs(L->ftl) > 0;
    L->idle_at = L->limits->idle_every_bytes;
    L->last_shown = wall_seconds();
    L->issuing = true;
    L->cut_at = L->limits->cut ? out->start_ns + L->limits->cut_ns : UINT64_MAX;
}

/* The phase's end: at the cut (what was in flight never completes), or the last
 * completion, or where a recording ended; its counters after. */
static void end_phase(struct phase_loop *L)
{
    struct sim_phase_result *out = L->out;
    if (L->shown) {
        fputs("\r\033[K", stderr);  /* erase the progress line */
    }
    if (L->limits->cut && L->rc == 0) {
        L->now = L->cut_at;
        L->rc = clock_within_limit(L->now, L->err, L->errlen);
        void *tag;
        while (ftl_engine_pop_due(L->run->engine, UINT64_MAX, &tag, 1) == 1) {
            out->cut_requests++;
        }
        out->recorded_end = false;
    }
    /* A recording's statistics end where it ended, not at the last completion. */
    if (L->rc == 0 && !out->recorded_end) {
        ftl_engine_advance(L->run->engine, L->now);
        L->rc = run_failure(L->run, L->err, L->errlen);
    }
    slot_pool_destroy(&L->pool);
    out->end_ns = L->now;
    /* the time in each power state runs on to where the phase ended */
    ftl_engine_counters_at(L->run->engine, out->recorded_end ? out->recorded_end_ns : L->now,
                           &out->after);
    out->buf_pending_after = buffer_pending(L->ftl);
}

int sim_run_phase(struct sim_run *run, struct workload *w, unsigned qd,
                  const struct sim_limits *limits, uint64_t *now_ns,
                  struct sim_phase_result *out, char *err, size_t errlen)
{
    struct phase_loop L = { .run = run, .w = w, .ftl = ftl_engine_ftl(run->engine),
                            .limits = limits, .out = out, .qd = qd, .now = *now_ns,
                            .err = err, .errlen = errlen };
    start_phase(&L);
    run_loop(&L);
    end_phase(&L);
    *now_ns = L.now;
    return L.rc;
}
