/* Helpers of the FTL state tests: a host-independent generator, the restore time, loading
 * a file into a fresh FTL, and the comparison of what two FTLs show a host. */
#ifndef FTL_STATE_TEST_UTIL_H
#define FTL_STATE_TEST_UTIL_H

#include <stddef.h>
#include <string.h>

#include "base/max_u64.h"
#include "map/page_map.h"
#include "femu_ftl/state.h"
#include "ftl_test_util.h"

/* The tests' own generator, so a workload is the same on every host. */
static inline uint64_t next_rand(uint64_t *s)
{
    *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return *s >> 33;
}

/* When every LUN and channel of ftl is idle: a restore starts there. */
static inline uint64_t idle_time(const struct ftl *ftl)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < ftl->luns; i++) {
        t = max_u64(t, ftl->lun_avail_ns[i]);
    }
    for (uint32_t i = 0; i < ftl->nchs; i++) {
        t = max_u64(t, ftl->ch_avail_ns[i]);
    }
    return t;
}

/* A fresh FTL of cfg restored from p at now, or NULL with the reason in err. */
static inline struct ftl *load_or_null(const struct ftl_config *cfg, const char *p,
                                       uint64_t now, char *err, size_t errlen)
{
    struct ftl *ftl = make_ftl(cfg);
    if (ftl_state_load_file(ftl, p, now, err, errlen)) {
        ftl_destroy(ftl);
        return NULL;
    }
    return ftl;
}

/* The counters a state file keeps: all before the power-cut tallies (ftl.h); those and
 * the ones after them (link, controller, the energy model's flash tallies, power states)
 * count a run's work, from 0 at a restore. */
#define KEPT_COUNTER_BYTES offsetof(struct ftl_counters, power_cuts)

/* What a host can see of two page-mapped FTLs agrees: counters, write counts, mappings,
 * reverse maps, gauges, wear and the injected read error. */
static inline void check_core_same(const struct ftl *a, const struct ftl *b, const char *what)
{
    struct ftl_counters ca = counters(a), cb = counters(b);
    if (!check_record(memcmp(&ca, &cb, KEPT_COUNTER_BYTES) == 0, __FILE__, __LINE__,
                      "counters")) {
        fprintf(stderr, "    %s: host writes %llu / %llu, GC moves %llu / %llu\n", what,
                (unsigned long long)ca.host_write_pages, (unsigned long long)cb.host_write_pages,
                (unsigned long long)ca.gc_moved_pages, (unsigned long long)cb.gc_moved_pages);
    }
    uint64_t bad_wc = 0, bad_map = 0;
    for (uint64_t lpn = 0; lpn < a->geo.logical_pages; lpn++) {
        bad_wc += ftl_lpn_write_count(a, lpn) != ftl_lpn_write_count(b, lpn);
        bad_map += l2p_get(a, lpn) != l2p_get(b, lpn);
    }
    CHECK_EQ_U64(bad_wc, 0);
    CHECK_EQ_U64(bad_map, 0);
    CHECK(memcmp(a->p2l_plus1, b->p2l_plus1, a->geo.phys_pages * 4) == 0);
    struct ftl_gauges ga, gb;
    ftl_get_gauges(a, &ga);
    ftl_get_gauges(b, &gb);
    CHECK(memcmp(&ga, &gb, sizeof(ga)) == 0);
    struct ftl_wear wa, wb;
    ftl_get_wear(a, &wa);
    ftl_get_wear(b, &wb);
    CHECK(memcmp(&wa, &wb, sizeof(wa)) == 0);
    CHECK_EQ_U64(ftl_read_error_lpn(a), ftl_read_error_lpn(b));
}

#endif
