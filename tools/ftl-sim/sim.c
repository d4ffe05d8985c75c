/* The closed loop: a min-heap of outstanding completions drives simulated time. */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STALL_LIMIT 10000000u  /* completions in a row without simulated time passing */

struct inflight {
    uint64_t done_ns, issued_ns, bytes;
    enum request_op op;
};

struct inflight_heap {
    struct inflight *items;
    unsigned count;
};

static void heap_push(struct inflight_heap *h, struct inflight item)
{
    unsigned pos = h->count++;
    while (pos > 0 && h->items[(pos - 1) / 2].done_ns > item.done_ns) {
        h->items[pos] = h->items[(pos - 1) / 2];
        pos = (pos - 1) / 2;
    }
    h->items[pos] = item;
}

static struct inflight heap_pop(struct inflight_heap *h)
{
    struct inflight top = h->items[0], last = h->items[--h->count];
    unsigned pos = 0;
    for (;;) {
        unsigned child = 2 * pos + 1;
        if (child >= h->count) {
            break;
        }
        if (child + 1 < h->count && h->items[child + 1].done_ns < h->items[child].done_ns) {
            child++;
        }
        if (h->items[child].done_ns >= last.done_ns) {
            break;
        }
        h->items[pos] = h->items[child];
        pos = child;
    }
    if (h->count) {
        h->items[pos] = last;
    }
    return top;
}

static int issue(struct ftl *ftl, struct workload *w, uint64_t now, uint64_t secsz,
                 struct inflight *out, char *err, size_t errlen)
{
    struct request req;
    int rc = workload_next(w, &req, err, errlen);
    if (rc <= 0) {
        return rc < 0 ? SIM_E_WORKLOAD : 0;
    }
    struct ftl_io io = { .now_ns = now, .slba = req.slba, .nlb = req.nlb,
                         .stream = req.stream };
    uint64_t done;
    int status = req.op == REQ_WRITE ? ftl_write(ftl, &io, &done) : ftl_read(ftl, &io, &done);
    if (status != FTL_OK) {
        snprintf(err, errlen, "%s of sectors %llu+%llu failed: %s",
                 req.op == REQ_WRITE ? "write" : "read", (unsigned long long)req.slba,
                 (unsigned long long)req.nlb, ftl_status_str(status));
        return -1;
    }
    ftl_background_gc(ftl, now);  /* as FEMU: after each request */
    *out = (struct inflight){ .done_ns = done, .issued_ns = now, .bytes = req.nlb * secsz,
                              .op = req.op };
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
    struct inflight_heap heap = { calloc(qd, sizeof(struct inflight)), 0 };
    if (!heap.items) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint64_t now = *now_ns, issued_bytes = 0, stalled = 0, requests = 0;
    double last_shown = wall_seconds();
    bool issuing = true, shown = false;
    int rc = 0;

    while (rc == 0) {
        /* fill the queue at the current time */
        while (issuing && heap.count < qd) {
            if ((limits->io_bytes && issued_bytes >= limits->io_bytes) ||
                (limits->runtime_ns && now - out->start_ns >= limits->runtime_ns)) {
                issuing = false;
                break;
            }
            if (stats && ftl_stats_advance(stats, now, err, errlen)) {
                rc = -1;
                break;
            }
            struct inflight item;
            int got = issue(ftl, w, now, secsz, &item, err, errlen);
            if (got < 0) {
                rc = got;
                break;
            }
            if (got == 0) {
                issuing = false;  /* the trace ended */
                break;
            }
            issued_bytes += item.bytes;
            heap_push(&heap, item);
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
        if (rc || heap.count == 0) {
            break;
        }
        struct inflight done = heap_pop(&heap);
        /* Reads of never-written pages take no flash time: with only a time limit such a
         * workload would never end. */
        stalled = done.done_ns == now ? stalled + 1 : 0;
        if (stalled > STALL_LIMIT && !limits->io_bytes) {
            snprintf(err, errlen, "simulated time stopped advancing: the workload reads "
                     "pages never written (they cost no flash time); precondition the "
                     "device (--precondition seq) or give --io-size");
            rc = -1;
            break;
        }
        now = done.done_ns;
        latency_hist_add(&out->latency, done.done_ns - done.issued_ns);
        if (done.op == REQ_WRITE) {
            out->writes++;
            out->write_bytes += done.bytes;
        } else {
            out->reads++;
            out->read_bytes += done.bytes;
        }
    }
    free(heap.items);
    if (shown) {
        fputs("\r\033[K", stderr);  /* erase the progress line */
    }
    if (stats && rc == 0 && ftl_stats_advance(stats, now, err, errlen)) {
        rc = -1;
    }
    out->end_ns = now;
    ftl_get_counters(ftl, &out->after);
    *now_ns = now;
    return rc;
}
