/* A command's trip through the link and the controller: see front.h. */
#include "front/front.h"

#define SQE_BYTES 64u
#define CQE_BYTES 16u
#define MSIX_BYTES 4u
#define MEM_PAGE 4096u          /* the host's memory page (CC.MPS 0) */
#define PRP_ENTRY 8u

void front_init(struct front *f, const struct ftl_config *cfg)
{
    *f = (struct front){ 0 };
    pcie_link_init(&f->link, cfg);
    ctrl_cores_init(&f->cores, cfg->ctrl_cores);
    f->on = f->link.on || f->cores.count > 0;
}

/* Link time is kept in ps after the first arrival; requests are timed in ns. */
static uint64_t to_ps(const struct front *f, uint64_t ns)
{
    uint64_t rel = ns > f->origin_ns ? ns - f->origin_ns : 0, ps;
    return __builtin_mul_overflow(rel, UINT64_C(1000), &ps) ? UINT64_MAX / 2 : ps;
}

static uint64_t to_ns(const struct front *f, uint64_t ps)
{
    return f->origin_ns + ps / 1000 + (ps % 1000 != 0);
}

/* A device read of host memory: its read requests up (one per Max_Read_Request_Size),
 * the completions with the bytes down. Returns when the bytes are in (ps). */
static uint64_t fetch(struct front *f, struct ftl_counters *ctr, struct front_trip *trip,
                      uint64_t at_ps, uint64_t bytes)
{
    uint64_t reqs = bytes / PCIE_MRRS + (bytes % PCIE_MRRS != 0), tlps;
    uint64_t wire_req = reqs * (PCIE_MEM_HEADER + PCIE_TLP_FRAMING);
    uint64_t asked = pcie_link_send(&f->link, ctr, PCIE_UP, at_ps, wire_req, reqs);
    /* the first request's completion may start once that request is across */
    uint64_t first = at_ps + pcie_link_ps(&f->link, PCIE_MEM_HEADER + PCIE_TLP_FRAMING);
    uint64_t wire = pcie_wire_bytes(&f->link, bytes, PCIE_CPL_HEADER, &tlps);
    uint64_t in = pcie_link_send(&f->link, ctr, PCIE_DOWN, first < asked ? first : asked,
                                 wire, tlps);
    trip->link_ps += pcie_link_ps(&f->link, wire_req) + pcie_link_ps(&f->link, wire);
    return in;
}

/* A device write into host memory (posted): returns when the bytes are across (ps). */
static uint64_t post(struct front *f, struct ftl_counters *ctr, struct front_trip *trip,
                     uint64_t at_ps, uint64_t bytes)
{
    uint64_t tlps, wire = pcie_wire_bytes(&f->link, bytes, PCIE_MEM_HEADER, &tlps);
    trip->link_ps += pcie_link_ps(&f->link, wire);
    return pcie_link_send(&f->link, ctr, PCIE_UP, at_ps, wire, tlps);
}

/* The PRP list of a transfer of bytes: entries for every memory page after the first,
 * read when there are more than two (PRP2 then points at the list). */
static uint64_t prp_list_bytes(uint64_t bytes)
{
    uint64_t pages = bytes / MEM_PAGE + (bytes % MEM_PAGE != 0);
    return pages > 2 ? (pages - 1) * PRP_ENTRY : 0;
}

uint64_t front_before(struct front *f, const struct ftl_config *cfg, struct ftl_counters *ctr,
                      const struct ftl_request *r, struct front_trip *trip)
{
    struct front_moves *m = &trip->moves;
    uint64_t at = r->arrival_ns;

    *trip = (struct front_trip){ .arrival_ns = at, .ftl_ns = at, .core_end_ns = at,
                                 .cmt_misses = ctr->cmt_misses,
                                 .kv_index_misses = ctr->kv_index_misses,
                                 .kv_retrieve_bytes = ctr->kv_retrieve_bytes };
    if (!f->on) {
        return at;
    }
    if (!f->started) {
        f->started = true;
        f->origin_ns = at;
        f->last_ftl_ns = at;
    }
    front_moves_of(cfg, r, m);
    pcie_link_prune(&f->link, to_ps(f, at));
    if (m->command) {
        uint64_t ps = fetch(f, ctr, trip, to_ps(f, at), SQE_BYTES);
        at = ctrl_cores_run(&f->cores, ctr, to_ns(f, ps), m->cost_ns);
        trip->ctrl_ns = f->cores.count ? m->cost_ns : 0;
        trip->core_end_ns = at;
        uint64_t data = m->data_in ? m->data_in : m->data_out;
        ps = to_ps(f, at);
        if (m->prp && prp_list_bytes(data)) {
            ps = fetch(f, ctr, trip, ps, prp_list_bytes(data));
        }
        if (m->data_in) {
            ps = fetch(f, ctr, trip, ps, m->data_in);
        }
        at = to_ns(f, ps);
    }
    at = at > f->last_ftl_ns ? at : f->last_ftl_ns;
    f->last_ftl_ns = at;
    trip->ftl_ns = at;
    return at;
}

uint64_t front_after(struct front *f, const struct ftl_config *cfg, struct ftl_counters *ctr,
                     const struct ftl_request *r, struct front_trip *trip,
                     uint64_t flash_done_ns, struct ftl_time_split *split)
{
    uint64_t done = flash_done_ns > trip->ftl_ns ? flash_done_ns : trip->ftl_ns;

    if (split) {
        *split = (struct ftl_time_split){ .flash_ns = done - trip->ftl_ns };
    }
    if (!f->on) {
        return done;
    }
    /* misses found while the FTL looked the command's pages up: more core time */
    uint64_t misses = (ctr->cmt_misses - trip->cmt_misses) +
                      (ctr->kv_index_misses - trip->kv_index_misses);
    if (f->cores.count && misses && cfg->ctrl_map_miss_ns) {
        uint64_t more = misses > UINT64_MAX / 4 / cfg->ctrl_map_miss_ns
                        ? UINT64_MAX / 4 : misses * cfg->ctrl_map_miss_ns;
        trip->core_end_ns = ctrl_cores_extend(&f->cores, ctr, trip->core_end_ns, more);
        trip->ctrl_ns += more;
        done = done > trip->core_end_ns ? done : trip->core_end_ns;
    }
    if (trip->moves.command) {
        uint64_t out = r->op == FTL_OP_KV_RETRIEVE
                       ? ctr->kv_retrieve_bytes - trip->kv_retrieve_bytes
                       : trip->moves.data_out;
        uint64_t ps = to_ps(f, done);
        if (out) {
            ps = post(f, ctr, trip, ps, out);
        }
        ps = post(f, ctr, trip, ps, CQE_BYTES);
        ps = post(f, ctr, trip, ps, MSIX_BYTES);
        done = to_ns(f, ps);
    }
    if (split) {
        uint64_t total = done - trip->arrival_ns;
        uint64_t link = trip->link_ps / 1000 + (trip->link_ps % 1000 != 0);
        uint64_t known = split->flash_ns + link + trip->ctrl_ns;

        split->link_ns = link;
        split->ctrl_ns = trip->ctrl_ns;
        split->wait_ns = total > known ? total - known : 0;
    }
    return done;
}
