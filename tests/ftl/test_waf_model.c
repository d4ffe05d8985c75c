/*
 * Uniform random page writes against the analytic model of greedy GC (Desnoyers;
 * Hu et al.; Xiang and Kurkoski's closed form): with alpha = physical pages holding data /
 * logical pages, the fraction of still-valid pages in a victim u solves u = exp(-alpha (1 - u))
 * and WAF = 1 / (1 - u). For large lines greedy behaves like FIFO under uniform traffic,
 * so this is the value the FTL must reproduce. alpha uses the over-provisioning the FTL
 * really leaves to data: raw pages minus the free pages it keeps on average.
 */
#include <math.h>

#include "ftl_test_util.h"
#include "rng.h"

static double model_waf(double alpha)
{
    double u = 0.0;
    for (int i = 0; i < 10000; i++) {
        u = exp(-alpha * (1.0 - u));  /* converges up to the smallest root below 1 */
    }
    return 1.0 / (1.0 - u);
}

static void check_against_model(uint64_t devsz_mb)
{
    /* 8 ch x 4 LUNs x 64 pages of 512 bytes: 1 MiB lines, 64 of them */
    struct ftl_config cfg = small_config(8, 4, 64, 64, 1);
    cfg.devsz_mb = devsz_mb;
    struct ftl *ftl = make_ftl(&cfg);
    const struct ftl_geometry *geo = ftl_geometry_of(ftl);
    uint64_t logical = geo->logical_pages, done;
    struct rng rng;
    rng_seed(&rng, devsz_mb);
    for (uint64_t lpn = 0; lpn < logical; lpn++) {
        write_pages(ftl, 0, lpn, 1, &done);
    }
    for (uint64_t i = 0; i < 8 * logical; i++) {  /* reach steady state */
        write_pages(ftl, 0, rng_below(&rng, logical), 1, &done);
    }
    struct ftl_counters start, end;
    ftl_get_counters(ftl, &start);
    double free_sum = 0;
    uint64_t samples = 0, writes = 8 * logical;
    for (uint64_t i = 0; i < writes; i++) {
        CHECK(write_pages(ftl, 0, rng_below(&rng, logical), 1, &done) == FTL_OK);
        if (i % 64 == 0) {
            struct ftl_gauges g;
            ftl_get_gauges(ftl, &g);
            free_sum += (double)g.free_pages;
            samples++;
        }
    }
    ftl_get_counters(ftl, &end);
    double alpha = ((double)geo->phys_pages - free_sum / (double)samples) / (double)logical;
    double nominal = (double)geo->phys_pages / (double)logical;
    double sim = counters_waf(&start, &end), model = model_waf(alpha);
    printf("  %3llu MiB of 64: OP %.0f%%, effective alpha %.3f: WAF %.3f, model %.3f (%+.1f%%)\n",
           (unsigned long long)devsz_mb, (nominal - 1) * 100, alpha, sim, model,
           (sim / model - 1) * 100);
    CHECK(fabs(sim / model - 1) < 0.03);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

int main(void)
{
    check_against_model(40);
    check_against_model(48);
    check_against_model(54);
    return check_summary();
}
