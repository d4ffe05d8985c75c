/* The PCIe link's two pipes: see pcie_link.h. */
#include "front/pcie_link.h"

/* Per generation: mega-transfers a second a lane, and the line code's data bits per
 * transmitted bits (8b/10b for 1.x and 2.x, 128b/130b from 3.0). */
struct pcie_generation {
    uint32_t mtps, code_num, code_den;
};

static const struct pcie_generation generations[] = {
    [1] = { 2500, 8, 10 },
    [2] = { 5000, 8, 10 },
    [3] = { 8000, 128, 130 },
    [4] = { 16000, 128, 130 },
    [5] = { 32000, 128, 130 },
};

void pcie_link_init(struct pcie_link *link, const struct ftl_config *cfg)
{
    *link = (struct pcie_link){ .on = cfg->pcie_gen >= 1 && cfg->pcie_gen <= 5,
                                .mps = (uint32_t)cfg->pcie_mps };
    if (!link->on) {
        return;
    }
    /* A byte is 8 data bits; a lane moves mtps x 10^6 x num / den data bits a second:
     * ps a byte = 8 x 10^12 x den / (mtps x 10^6 x num x lanes). */
    const struct pcie_generation *g = &generations[cfg->pcie_gen];
    link->ps_num = UINT64_C(8000000) * g->code_den;
    link->ps_den = (uint64_t)g->mtps * g->code_num * cfg->pcie_lanes;
}

uint64_t pcie_link_ps(const struct pcie_link *link, uint64_t bytes)
{
    if (!link->on) {
        return 0;
    }
    unsigned __int128 t = (unsigned __int128)bytes * link->ps_num;
    t = (t + link->ps_den - 1) / link->ps_den;
    return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

uint64_t pcie_wire_bytes(const struct pcie_link *link, uint64_t payload, uint32_t header,
                         uint64_t *tlps)
{
    uint64_t n = payload ? payload / link->mps + (payload % link->mps != 0) : 1;
    *tlps = n;
    return payload + n * (header + PCIE_TLP_FRAMING);
}

static uint64_t pipe_send(struct pcie_link *link, struct ftl_counters *ctr,
                          enum pcie_dir dir, uint64_t at_ps, uint64_t bytes)
{
    uint64_t ps = pcie_link_ps(link, bytes);
    uint64_t end = link_pipe_fill(&link->pipe[dir], at_ps, ps);

    if (dir == PCIE_UP) {
        ctr->link_up_bytes += bytes;
        ctr->link_up_busy_ps += ps;
    } else {
        ctr->link_down_bytes += bytes;
        ctr->link_down_busy_ps += ps;
    }
    return end;
}

void pcie_link_prune(struct pcie_link *link, uint64_t horizon_ps)
{
    link_pipe_prune(&link->pipe[PCIE_UP], horizon_ps);
    link_pipe_prune(&link->pipe[PCIE_DOWN], horizon_ps);
}

uint64_t pcie_link_send(struct pcie_link *link, struct ftl_counters *ctr, enum pcie_dir dir,
                        uint64_t at_ps, uint64_t wire, uint64_t acks)
{
    if (!link->on) {
        return at_ps;
    }
    if (acks) {
        (void)pipe_send(link, ctr, dir == PCIE_UP ? PCIE_DOWN : PCIE_UP, at_ps,
                        acks * PCIE_DLLP_BYTES);
    }
    return pipe_send(link, ctr, dir, at_ps, wire);
}
