/* Per write pointer and FDP figures of the measured phase (summary_placement.h). */
#include "summary_placement.h"

#include <stdbool.h>

#include "femu_ftl/fdp.h"

/* One write pointer's pages over the phase: media is every program into its units. */
struct wp_pages {
    uint64_t host, gc, fold, media;
};

static struct wp_pages wp_pages_of(const struct sim_phase_result *m, unsigned i)
{
    struct wp_pages p = { .host = m->after.wp_host_pages[i] - m->before.wp_host_pages[i],
                          .gc = m->after.wp_gc_pages[i] - m->before.wp_gc_pages[i],
                          .fold = m->after.wp_fold_pages[i] - m->before.wp_fold_pages[i] };
    p.media = p.host + p.gc + p.fold;
    return p;
}

/* What a write pointer is called, by what it holds: the single stream, the hot or the cold
 * one (hot/cold placement), the host's stream N (placement=stream), an FDP handle N, or
 * the GC write pointer of initially isolated handles. */
static void wp_name(const struct ftl *ftl, unsigned i, char *buf, size_t len)
{
    uint32_t ruhs = ftl_fdp_ruhs(ftl);
    switch (ftl_config_of(ftl)->placement) {
    case FTL_PLACEMENT_SINGLE:
        snprintf(buf, len, "single stream");
        break;
    case FTL_PLACEMENT_HOTCOLD:
        snprintf(buf, len, "%s stream", i == 0 ? "hot" : "cold");
        break;
    case FTL_PLACEMENT_FDP:
        if (i >= ruhs) {
            snprintf(buf, len, "GC write pointer %u", i);
        } else {
            snprintf(buf, len, "handle %u", i);
        }
        break;
    default:
        snprintf(buf, len, "stream %u", i);
        break;
    }
}

/* Hot/cold placement's classifier at the end: its rule and how many pages it calls hot. */
static void hot_set(const struct ftl *ftl, char *buf, size_t len)
{
    const struct ftl_config *cfg = ftl_config_of(ftl);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    char decay[32] = "off";
    if (cfg->hot_decay) {
        snprintf(decay, sizeof(decay), "%llu", (unsigned long long)cfg->hot_decay);
    }
    snprintf(buf, len, "%llu of %llu logical pages hot at the end (count above hot_threshold "
             "%llu; hot_decay %s)", (unsigned long long)g.hot_pages,
             (unsigned long long)ftl_geometry_of(ftl)->logical_pages,
             (unsigned long long)cfg->hot_threshold, decay);
}

#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)

static unsigned long long events_taken(const struct sim_phase_result *m)
{
    unsigned long long n = 0;
    for (size_t t = 0; t < sizeof(m->fdp_events) / sizeof(m->fdp_events[0]); t++) {
        n += m->fdp_events[t];
    }
    return n;
}

void summary_json_placement(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    uint64_t page = ftl_geometry_of(ftl)->page_bytes;
    char name[48];
    fputs("  \"write_pointers\": [", f);
    for (unsigned i = 0; i < ftl_write_pointer_count(ftl); i++) {
        struct wp_pages p = wp_pages_of(m, i);
        wp_name(ftl, i, name, sizeof(name));
        fprintf(f, "%s{\"name\": \"%s\", \"host_pages\": %llu, \"gc_pages\": %llu, "
                "\"fold_pages\": %llu, \"host_bytes\": %llu, \"media_pages\": %llu, "
                "\"media_bytes\": %llu, \"waf\": ", i ? ", " : "", name,
                (unsigned long long)p.host, (unsigned long long)p.gc,
                (unsigned long long)p.fold, (unsigned long long)(p.host * page),
                (unsigned long long)p.media, (unsigned long long)(p.media * page));
        if (p.host) {
            fprintf(f, "%.4f}", (double)p.media / (double)p.host);
        } else {
            fputs("null}", f);
        }
    }
    const struct ftl_config *cfg = ftl_config_of(ftl);
    fprintf(f, "],\n  \"fdp\": {\"ruhs\": %u, \"ruh_type\": \"%s\", \"ru_pages\": %llu, "
            "\"ruh_updates\": %llu, \"ru_updates\": %llu, \"ru_time_limits\": %llu, "
            "\"unwritten_pages\": %llu, \"events_taken\": %llu, "
            "\"events_not_fully_written\": %llu, \"events_time_limit\": %llu, "
            "\"events_lost\": %llu},\n",
            ftl_fdp_ruhs(ftl), ftl_ruh_type_name(cfg->fdp_ruh_type),
            (unsigned long long)(ftl_fdp_ruhs(ftl) ? ftl_fdp_ru_pages(ftl) : 0),
            (unsigned long long)m->ruh_updates, DELTA(fdp_ru_updates),
            DELTA(fdp_ru_time_limits), DELTA(fdp_unwritten_pages), events_taken(m),
            (unsigned long long)m->fdp_events[FTL_FDP_EVENT_RU_NOT_FULLY_WRITTEN],
            (unsigned long long)m->fdp_events[FTL_FDP_EVENT_RU_TIME_LIMIT],
            (unsigned long long)m->fdp_events_lost);
    if (cfg->placement == FTL_PLACEMENT_HOTCOLD) {
        struct ftl_gauges g;
        ftl_get_gauges(ftl, &g);
        fprintf(f, "  \"hot_pages\": %llu, \"hot_decay\": %llu,\n",
                (unsigned long long)g.hot_pages, (unsigned long long)cfg->hot_decay);
    }
}

void summary_print_placement(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    double mib = (double)ftl_geometry_of(ftl)->page_bytes / 1048576.0;
    char name[160];
    for (unsigned i = 0; i < ftl_write_pointer_count(ftl); i++) {
        struct wp_pages p = wp_pages_of(m, i);
        wp_name(ftl, i, name, sizeof(name));
        fprintf(f, "%s: %llu host pages, %llu GC pages", name, (unsigned long long)p.host,
                (unsigned long long)p.gc);
        if (ftl_config_of(ftl)->slc_cache) {
            fprintf(f, ", %llu folded", (unsigned long long)p.fold);
        }
        fprintf(f, "; media %llu pages (%.1f MiB), WAF ", (unsigned long long)p.media,
                (double)p.media * mib);
        if (p.host) {
            fprintf(f, "%.3f\n", (double)p.media / (double)p.host);
        } else {
            fputs("undefined\n", f);
        }
    }
    if (ftl_config_of(ftl)->placement == FTL_PLACEMENT_HOTCOLD) {
        hot_set(ftl, name, sizeof(name));
        fprintf(f, "hot/cold: %s\n", name);
    }
    if (!ftl_fdp_ruhs(ftl)) {
        return;
    }
    fprintf(f, "FDP: %u handles (%s), %llu RU updates, %llu time limits, %llu unwritten "
            "pages; %llu events taken, %llu lost\n", ftl_fdp_ruhs(ftl),
            ftl_ruh_type_name(ftl_config_of(ftl)->fdp_ruh_type), DELTA(fdp_ru_updates),
            DELTA(fdp_ru_time_limits), DELTA(fdp_unwritten_pages), events_taken(m),
            (unsigned long long)m->fdp_events_lost);
}
