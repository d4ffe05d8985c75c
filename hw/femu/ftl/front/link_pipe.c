/* A work-conserving link direction: see link_pipe.h. */
#include "front/link_pipe.h"

#include <string.h>

void link_pipe_prune(struct link_pipe *p, uint64_t horizon_ps)
{
    uint32_t drop = 0;
    while (drop < p->count && p->spans[drop].end <= horizon_ps) {
        drop++;
    }
    if (drop) {
        memmove(p->spans, p->spans + drop, (p->count - drop) * sizeof(p->spans[0]));
        p->count -= drop;
    }
}

/* Insert busy [start, end) at index i (spans[i - 1] ends at or before start, spans[i]
 * starts at or after end), merging with its neighbours when they touch. Returns the index
 * of the span that now holds it. */
static uint32_t insert_span(struct link_pipe *p, uint32_t i, uint64_t start, uint64_t end)
{
    if (i > 0 && p->spans[i - 1].end == start) {
        p->spans[i - 1].end = end;
        if (i < p->count && p->spans[i].start == end) {
            p->spans[i - 1].end = p->spans[i].end;
            memmove(p->spans + i, p->spans + i + 1, (p->count - i - 1) * sizeof(p->spans[0]));
            p->count--;
        }
        return i - 1;
    }
    if (i < p->count && p->spans[i].start == end) {
        p->spans[i].start = start;
        return i;
    }
    if (p->count == LINK_PIPE_SPANS) {
        /* full: give up the oldest gap (merge the first two spans), or the newest when
         * this span goes into the oldest */
        uint32_t k = i > 1 ? 0 : p->count - 2;
        p->spans[k].end = p->spans[k + 1].end;
        memmove(p->spans + k + 1, p->spans + k + 2,
                (p->count - k - 2) * sizeof(p->spans[0]));
        p->count--;
        i = k < i ? i - 1 : i;
    }
    memmove(p->spans + i + 1, p->spans + i, (p->count - i) * sizeof(p->spans[0]));
    p->spans[i] = (struct link_span){ start, end };
    p->count++;
    return i;
}

uint64_t link_pipe_fill(struct link_pipe *p, uint64_t ready_ps, uint64_t dur_ps)
{
    uint64_t cur = ready_ps, left = dur_ps;
    uint32_t i = 0;

    if (dur_ps == 0) {
        return ready_ps;
    }
    while (i < p->count && p->spans[i].end <= cur) {
        i++;
    }
    for (;;) {
        if (i < p->count && p->spans[i].start <= cur) {
            cur = p->spans[i].end;          /* busy: skip to its end */
            i++;
            continue;
        }
        uint64_t gap_end = i < p->count ? p->spans[i].start : UINT64_MAX;
        uint64_t take = gap_end - cur < left ? gap_end - cur : left;
        /* the span holding this piece may have swallowed the next busy one: the loop
         * skips past it */
        i = insert_span(p, i, cur, cur + take);
        cur += take;
        left -= take;
        if (left == 0) {
            return cur;
        }
    }
}
