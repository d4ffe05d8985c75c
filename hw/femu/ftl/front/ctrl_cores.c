/* The controller's cores: see ctrl_cores.h. */
#include "front/ctrl_cores.h"

#include <string.h>

void ctrl_cores_init(struct ctrl_cores *c, uint64_t count)
{
    memset(c, 0, sizeof(*c));
    c->count = count > CTRL_MAX_CORES ? CTRL_MAX_CORES : (uint32_t)count;
}

uint64_t ctrl_cores_run(struct ctrl_cores *c, struct ftl_counters *ctr, uint64_t at_ns,
                        uint64_t cost_ns)
{
    if (c->count == 0) {
        return at_ns;
    }
    uint32_t best = 0;
    for (uint32_t i = 1; i < c->count; i++) {
        if (c->free_ns[i] < c->free_ns[best]) {
            best = i;
        }
    }
    uint64_t start = at_ns > c->free_ns[best] ? at_ns : c->free_ns[best];
    c->last = best;
    c->free_ns[best] = start + cost_ns;     /* cost_ns <= UINT64_MAX / 4, start a clock */
    ctr->ctrl_busy_ns += cost_ns;
    ctr->ctrl_cmds++;
    return start + cost_ns;
}

uint64_t ctrl_cores_extend(struct ctrl_cores *c, struct ftl_counters *ctr, uint64_t end_ns,
                           uint64_t more_ns)
{
    if (c->count == 0 || more_ns == 0) {
        return end_ns;
    }
    c->free_ns[c->last] += more_ns;
    ctr->ctrl_busy_ns += more_ns;
    return end_ns + more_ns;
}
