/* The read cache's figures of the measured phase (summary_cache.h). */
#include "summary_cache.h"

#include "json_out.h"

struct cache_phase {
    uint64_t hits, misses, evictions;
};

static bool cache_phase(const struct ftl *ftl, const struct sim_phase_result *m,
                        struct cache_phase *p)
{
    if (!ftl_config_of(ftl)->read_cache_pages) {
        return false;
    }
    p->hits = m->after.rcache_hits - m->before.rcache_hits;
    p->misses = m->after.rcache_misses - m->before.rcache_misses;
    p->evictions = m->after.rcache_evictions - m->before.rcache_evictions;
    return true;
}

void summary_json_read_cache(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    struct cache_phase p;
    if (!cache_phase(ftl, m, &p)) {
        return;
    }
    fputs("  \"read_cache_policy\": ", f);
    json_string(f, ftl_read_cache_policy_name(ftl_config_of(ftl)->read_cache_policy));
    fprintf(f, ",\n  \"rcache_hits\": %llu,\n  \"rcache_misses\": %llu,\n"
            "  \"rcache_evictions\": %llu,\n  \"rcache_hit_rate\": ",
            (unsigned long long)p.hits, (unsigned long long)p.misses,
            (unsigned long long)p.evictions);
    if (p.hits + p.misses) {
        fprintf(f, "%.6f,\n", (double)p.hits / (double)(p.hits + p.misses));
    } else {
        fputs("null,\n", f);   /* no read reached the cache */
    }
}

void summary_print_read_cache(FILE *f, const struct ftl *ftl,
                              const struct sim_phase_result *m)
{
    struct cache_phase p;
    if (!cache_phase(ftl, m, &p)) {
        return;
    }
    const struct ftl_config *cfg = ftl_config_of(ftl);
    fprintf(f, "read cache (%s, %llu pages): %llu hits, %llu misses",
            ftl_read_cache_policy_name(cfg->read_cache_policy),
            (unsigned long long)cfg->read_cache_pages, (unsigned long long)p.hits,
            (unsigned long long)p.misses);
    if (p.hits + p.misses) {
        fprintf(f, " (hit rate %.2f%%)", 100.0 * (double)p.hits / (double)(p.hits + p.misses));
    }
    fprintf(f, ", %llu evictions\n", (unsigned long long)p.evictions);
}
