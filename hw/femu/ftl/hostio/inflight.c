/*
 * Host page programs that may still be in flight, so that a power cut knows which pages
 * it tears. A LUN's operations end in order, but the ring holds every LUN's programs in
 * issue order, so a later entry may end before an earlier one: the ring forgets entries
 * from its oldest while they have ended, and a cut checks each entry's end itself. Times
 * never go backwards past the newest seen and no cut falls before it, so an entry ended
 * by the time of a later program can never be in flight at a cut: the ring holds about
 * the programs queued on the LUNs, not the run's history.
 */
#include "hostio/inflight.h"

#include <stdlib.h>

#include "map/page_map.h"

#define INFLIGHT_FIRST 64

static struct inflight_prog *slot(struct ftl *ftl, uint32_t i)
{
    uint32_t at = ftl->inflight_head + i;
    return &ftl->inflight[at >= ftl->inflight_cap ? at - ftl->inflight_cap : at];
}

/* Copy the ring, oldest first, into a larger array at its start. */
static bool grow(struct ftl *ftl)
{
    uint32_t cap = ftl->inflight_cap ? ftl->inflight_cap * 2 : INFLIGHT_FIRST;
    if (cap <= ftl->inflight_cap) {
        return false;   /* 2^32 programs in flight: not a real device */
    }
    struct inflight_prog *ring = malloc((size_t)cap * sizeof(*ring));
    if (!ring) {
        return false;
    }
    for (uint32_t i = 0; i < ftl->inflight_count; i++) {
        ring[i] = *slot(ftl, i);
    }
    free(ftl->inflight);
    ftl->inflight = ring;
    ftl->inflight_head = 0;
    ftl->inflight_cap = cap;
    return true;
}

bool inflight_reserve(struct ftl *ftl, uint64_t now_ns)
{
    while (ftl->inflight_count && slot(ftl, 0)->end_ns <= now_ns) {
        ftl->inflight_head = ftl->inflight_head + 1 == ftl->inflight_cap
                             ? 0 : ftl->inflight_head + 1;
        ftl->inflight_count--;
    }
    return ftl->inflight_count < ftl->inflight_cap || grow(ftl);
}

void inflight_note(struct ftl *ftl, uint32_t lpn, uint32_t ppa, uint64_t end_ns)
{
    *slot(ftl, ftl->inflight_count++) = (struct inflight_prog){ .lpn = lpn, .ppa = ppa,
                                                                .end_ns = end_ns };
}

static void reverse(struct inflight_prog *p, uint32_t from, uint32_t to)
{
    while (from + 1 < to) {
        struct inflight_prog t = p[from];
        p[from++] = p[--to];
        p[to] = t;
    }
}

/* Rotate the ring in place so that it starts at index 0 (three reversals: no memory). */
static void straighten(struct ftl *ftl)
{
    uint32_t head = ftl->inflight_head, cap = ftl->inflight_cap;
    reverse(ftl->inflight, 0, head);
    reverse(ftl->inflight, head, cap);
    reverse(ftl->inflight, 0, cap);
    ftl->inflight_head = 0;
}

static int by_lpn(const void *a, const void *b)
{
    const struct inflight_prog *x = a, *y = b;
    return x->lpn < y->lpn ? -1 : x->lpn > y->lpn;
}

uint64_t inflight_take_torn(struct ftl *ftl, uint64_t now_ns,
                            void (*fn)(void *ctx, uint32_t lpn), void *ctx)
{
    uint32_t n = ftl->inflight_count;
    uint64_t torn = 0;

    if (n == 0) {
        /* nothing programmed yet: the ring may not even exist (qsort wants a real array) */
        inflight_clear(ftl);
        return 0;
    }
    if (ftl->inflight_head + n > ftl->inflight_cap) {
        straighten(ftl);
    }
    struct inflight_prog *p = slot(ftl, 0);
    qsort(p, n, sizeof(*p), by_lpn);
    for (uint32_t i = 0; i < n; i++) {
        bool last_of_lpn = i + 1 == n || p[i + 1].lpn != p[i].lpn;
        bool in_flight = p[i].end_ns > now_ns && l2p_get(ftl, p[i].lpn) == p[i].ppa;
        if (in_flight) {
            fn(ctx, p[i].lpn);
            torn++;
            while (!last_of_lpn) {  /* one report per page */
                i++;
                last_of_lpn = i + 1 == n || p[i + 1].lpn != p[i].lpn;
            }
        }
    }
    inflight_clear(ftl);
    return torn;
}

void inflight_clear(struct ftl *ftl)
{
    ftl->inflight_head = 0;
    ftl->inflight_count = 0;
}

void inflight_free(struct ftl *ftl)
{
    free(ftl->inflight);
    ftl->inflight = NULL;
    ftl->inflight_cap = 0;
    inflight_clear(ftl);
}

size_t inflight_metadata_bytes(const struct ftl *ftl)
{
    return (size_t)ftl->inflight_cap * sizeof(*ftl->inflight);
}
