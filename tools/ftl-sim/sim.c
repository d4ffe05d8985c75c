/* The closed loop: the engine's queue of outstanding completions drives simulated time. */
#include "sim.h"

#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STALL_LIMIT 10000000u  /* completions in a row without simulated time passing */

/* What the loop remembers of a request until the engine hands it back. */
struct inflight {
    uint64_t issued_ns, bytes;
    enum request_op op;
};

/* The engine reports statistics failures through a hook; the run stops at the first. */
struct stats_failure {
    bool failed;
    char text[256];
};

static void record_stats_error(void *opaque, const char *what, const char *err)
{
    struct stats_failure *f = opaque;

    if (!f->failed) {
        f->failed = true;
        snprintf(f->text, sizeof(f->text), "statistics: %s: %s", what, err);
    }
}

static int issue(struct ftl_engine *engine, struct workload *w, uint64_t now, uint64_t secsz,
                 struct inflight *slot, char *err, size_t errlen)
{
    struct request req;
    int rc = workload_next(w, &req, err, errlen);
    if (rc <= 0) {
        return rc < 0 ? SIM_E_WORKLOAD : 0;
    }
    struct ftl_request r = { .op = req.op == REQ_WRITE ? FTL_OP_WRITE : FTL_OP_READ,
                             .arrival_ns = now, .slba = req.slba, .nlb = req.nlb,
                             .stream = req.stream };
    uint64_t done;
    *slot = (struct inflight){ .issued_ns = now, .bytes = req.nlb * secsz, .op = req.op };
    int status = ftl_engine_submit(engine, &r, slot, &done);
    if (status != FTL_OK) {
        snprintf(err, errlen, "%s of sectors %llu+%llu failed: %s",
                 req.op == REQ_WRITE ? "write" : "read", (unsigned long long)req.slba,
                 (unsigned long long)req.nlb, ftl_status_str(status));
        return -1;
    }
    return 1;
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
    }
}

int sim_run_phase(struct ftl *ftl, struct workload *w, unsigned qd,
                  const struct sim_limits *limits, struct ftl_stats_writer *stats,
                  uint64_t *now_ns, struct sim_phase_result *out, char *err, size_t errlen)
{
    uint64_t secsz = ftl_config_of(ftl)->secsz;
    memset(out, 0, sizeof(*out));
    latency_hist_init(&out->latency);
    out->start_ns = *now_ns;
    ftl_get_counters(ftl, &out->before);
    struct stats_failure stats_failure = { 0 };
    struct ftl_engine_hooks hooks = { .opaque = &stats_failure,
                                      .stats_error = record_stats_error };
    struct ftl_engine *engine = ftl_engine_create(ftl, stats, &hooks);
    struct inflight *slots = calloc(qd, sizeof(*slots));
    struct inflight **free_slots = calloc(qd, sizeof(*free_slots));
    if (!engine || !slots || !free_slots) {
        ftl_engine_destroy(engine);
        free(slots);
        free(free_slots);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    unsigned nfree = qd;
    for (unsigned i = 0; i < qd; i++) {
        free_slots[i] = &slots[qd - 1 - i];
    }
    uint64_t now = *now_ns, issued_bytes = 0, stalled = 0, requests = 0;
    double last_shown = wall_seconds();
    bool issuing = true, shown = false;
    int rc = 0;

    while (rc == 0) {
        /* fill the queue at the current time */
        while (issuing && nfree > 0) {
            if ((limits->io_bytes && issued_bytes >= limits->io_bytes) ||
                (limits->runtime_ns && now - out->start_ns >= limits->runtime_ns)) {
                issuing = false;
                break;
            }
            struct inflight *slot = free_slots[nfree - 1];
            int got = issue(engine, w, now, secsz, slot, err, errlen);
            if (got == 0) {
                issuing = false;  /* the trace ended */
                break;
            }
            if (got > 0) {
                nfree--;
            }
            if (got > 0 && stats_failure.failed) {
                snprintf(err, errlen, "%s", stats_failure.text);
                got = -1;
            }
            if (got < 0) {
                rc = got;
                break;
            }
            issued_bytes += slot->bytes;
            requests++;
            char why[256];
            if (limits->check_every && requests % limits->check_every == 0 &&
                ftl_check(ftl, why, sizeof(why))) {
                snprintf(err, errlen, "invariant check failed after %llu requests: %s",
                         (unsigned long long)requests, why);
                rc = -1;
                break;
            }
            if (limits->progress && (requests & 0xffff) == 0) {
                show_progress(limits, now - out->start_ns, issued_bytes, &last_shown);
                shown = true;
            }
        }
        uint64_t due;
        if (rc || !ftl_engine_next_due(engine, &due)) {
            break;
        }
        void *tag;
        ftl_engine_pop_due(engine, due, &tag, 1);
        struct inflight *done = tag;
        free_slots[nfree++] = done;
        /* Reads of never-written pages take no flash time: with only a time limit such a
         * workload would never end. */
        stalled = due == now ? stalled + 1 : 0;
        if (stalled > STALL_LIMIT && !limits->io_bytes) {
            snprintf(err, errlen, "simulated time stopped advancing: the workload reads "
                     "pages never written (they cost no flash time); precondition the "
                     "device (--precondition seq) or give --io-size");
            rc = -1;
            break;
        }
        now = due;
        latency_hist_add(&out->latency, due - done->issued_ns);
        if (done->op == REQ_WRITE) {
            out->writes++;
            out->write_bytes += done->bytes;
        } else {
            out->reads++;
            out->read_bytes += done->bytes;
        }
    }
    if (shown) {
        fputs("\r\033[K", stderr);  /* erase the progress line */
    }
    if (rc == 0) {
        ftl_engine_advance(engine, now);
        if (stats_failure.failed) {
            snprintf(err, errlen, "%s", stats_failure.text);
            rc = -1;
        }
    }
    ftl_engine_destroy(engine);
    free(slots);
    free(free_slots);
    out->end_ns = now;
    ftl_get_counters(ftl, &out->after);
    *now_ns = now;
    return rc;
}
