/*
 * One direction of the PCIe link as a work-conserving pipe: TLPs of different transfers
 * interleave on a real link, so a transfer ready at t takes the pipe's free time from t
 * on, in the gaps other transfers left, until its bytes are through. The pipe keeps the
 * busy intervals that may still matter (those ending after the newest arrival) sorted
 * and merged; past LINK_PIPE_SPANS of them the oldest gap is given up (counted busy for
 * placement, not in the busy time), which can only delay a transfer, never lose one.
 */
#ifndef FTL_FRONT_LINK_PIPE_H
#define FTL_FRONT_LINK_PIPE_H

#include <stdint.h>

#define LINK_PIPE_SPANS 1024

struct link_span {
    uint64_t start, end;        /* ps, start < end */
};

struct link_pipe {
    uint32_t count;
    struct link_span spans[LINK_PIPE_SPANS];
};

/* Forget the spans that end at or before horizon_ps (nothing can start before it). */
void link_pipe_prune(struct link_pipe *p, uint64_t horizon_ps);

/* Place dur_ps of transfer ready at ready_ps in the pipe's free time; returns its end. */
uint64_t link_pipe_fill(struct link_pipe *p, uint64_t ready_ps, uint64_t dur_ps);

#endif
