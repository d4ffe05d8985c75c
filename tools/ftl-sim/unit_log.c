/* --unit-log (unit_log.h): units.csv and the victims per write pointer. */
#include "unit_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WPS (FTL_UNIT_MAP_WP + 1)

/* Victims of one write pointer over the measured part (map: FTL_UNIT_MAP_WP): every
 * victim, then those of the defragmenting fallback among them. */
struct unit_log_victims {
    uint64_t opened, victims, valid_pages, age_host_pages;
    uint64_t above_high;    /* GC's (not the fallback's) chosen while free units were above
                             * the foreground threshold: background GC's */
    uint64_t fallback, fallback_valid_pages;
};

struct unit_log {
    struct ftl *ftl;
    FILE *f;
    bool failed;
    uint64_t *opened_at;    /* [units] host pages written when each unit was last opened */
    uint64_t units;
    uint64_t high;          /* the foreground threshold (free units) */
    struct unit_log_victims wp[WPS];
};

static const char *const kind_names[] = {
    [FTL_UNIT_OPENED] = "opened", [FTL_UNIT_VICTIM] = "victim",
    [FTL_UNIT_VICTIM_MAP] = "map_victim", [FTL_UNIT_VICTIM_FALLBACK] = "fallback_victim",
};

static void observe(void *ctx, const struct ftl_unit_event *e)
{
    struct unit_log *log = ctx;
    if (e->unit >= log->units || e->wp >= WPS) {
        return;     /* not a unit of this geometry: never, but no write out of bounds */
    }
    struct unit_log_victims *v = &log->wp[e->wp];
    uint64_t age = 0;
    if (e->kind == FTL_UNIT_OPENED) {
        log->opened_at[e->unit] = e->host_pages;
        v->opened++;
    } else {
        age = e->host_pages - log->opened_at[e->unit];
        v->victims++;
        v->valid_pages += e->valid;
        v->age_host_pages += age;
        if (e->kind == FTL_UNIT_VICTIM_FALLBACK) {
            v->fallback++;
            v->fallback_valid_pages += e->valid;
        } else {
            v->above_high += e->free_units > log->high;
        }
    }
    char stream[16];
    if (e->wp == FTL_UNIT_MAP_WP) {
        snprintf(stream, sizeof(stream), "map");
    } else {
        snprintf(stream, sizeof(stream), "%u", e->wp);
    }
    if (fprintf(log->f, "%s,%llu,%llu,%u,%u,%s,%u,%u,%u,%llu,%llu\n", kind_names[e->kind],
                (unsigned long long)e->host_pages, (unsigned long long)e->now_ns, e->unit,
                e->pool, stream, e->valid, e->invalid, e->capacity,
                (unsigned long long)e->free_units, (unsigned long long)age) < 0) {
        log->failed = true;
    }
}

struct unit_log *unit_log_open(struct ftl *ftl, const char *dir, char *err, size_t errlen)
{
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    struct unit_log *log = calloc(1, sizeof(*log));
    char path[4096];

    snprintf(path, sizeof(path), "%s/units.csv", dir);
    if (log) {
        log->opened_at = calloc(g->units ? g->units : 1, sizeof(*log->opened_at));
    }
    if (!log || !log->opened_at) {
        snprintf(err, errlen, "--unit-log: out of memory");
        if (log) {
            free(log);
        }
        return NULL;
    }
    log->f = fopen(path, "w");
    if (!log->f) {
        snprintf(err, errlen, "--unit-log: cannot create %s: %s", path, strerror(errno));
        free(log->opened_at);
        free(log);
        return NULL;
    }
    log->ftl = ftl;
    log->units = g->units;
    log->high = g->gc_thres_lines_high;
    fputs("event,host_pages,time_ns,unit,lun,stream,valid,invalid,capacity,free_units,"
          "age_host_pages\n", log->f);
    ftl_set_unit_observer(ftl, observe, log);
    return log;
}

void unit_log_mark(struct unit_log *log)
{
    if (log) {
        memset(log->wp, 0, sizeof(log->wp));
    }
}

int unit_log_close(struct unit_log *log, char *err, size_t errlen)
{
    if (!log) {
        return 0;
    }
    ftl_set_unit_observer(log->ftl, NULL, NULL);
    bool failed = log->failed | (fclose(log->f) != 0);
    free(log->opened_at);
    log->opened_at = NULL;
    log->f = NULL;
    if (failed) {
        snprintf(err, errlen, "--unit-log: units.csv: write failed");
        return -1;
    }
    return 0;
}

void unit_log_free(struct unit_log *log)
{
    free(log);
}

static double per_victim(uint64_t sum, uint64_t victims)
{
    return victims ? (double)sum / (double)victims : 0.0;
}

static void json_one(FILE *f, const char *name, const struct unit_log_victims *v)
{
    fprintf(f, "{\"write_pointer\": \"%s\", \"opened\": %llu, \"victims\": %llu, "
            "\"victims_above_high\": %llu, \"valid_per_victim\": %.4f, "
            "\"age_host_pages_per_victim\": %.1f, \"fallback_victims\": %llu, "
            "\"valid_per_fallback_victim\": %.4f, \"valid_per_gc_victim\": %.4f}", name,
            (unsigned long long)v->opened, (unsigned long long)v->victims,
            (unsigned long long)v->above_high, per_victim(v->valid_pages, v->victims),
            per_victim(v->age_host_pages, v->victims), (unsigned long long)v->fallback,
            per_victim(v->fallback_valid_pages, v->fallback),
            per_victim(v->valid_pages - v->fallback_valid_pages, v->victims - v->fallback));
}

void unit_log_json(const struct unit_log *log, const struct ftl *ftl, FILE *f)
{
    char name[16];
    fputs("  \"units\": [", f);
    for (unsigned i = 0; i < ftl_write_pointer_count(ftl); i++) {
        snprintf(name, sizeof(name), "%u", i);
        fputs(i ? ", " : "", f);
        json_one(f, name, &log->wp[i]);
    }
    fputs(ftl_write_pointer_count(ftl) ? ", " : "", f);
    json_one(f, "map", &log->wp[FTL_UNIT_MAP_WP]);
    fputs("],\n", f);
}

static void text_one(FILE *f, const char *name, const struct unit_log_victims *v,
                     uint32_t pages)
{
    if (!v->opened && !v->victims) {
        return;
    }
    fprintf(f, "units of %s: %llu opened, %llu victims, %.2f of %u pages valid per victim, "
            "age %.0f host pages; GC's %llu (%llu chosen above the foreground threshold), "
            "%.2f valid each", name, (unsigned long long)v->opened,
            (unsigned long long)v->victims, per_victim(v->valid_pages, v->victims), pages,
            per_victim(v->age_host_pages, v->victims),
            (unsigned long long)(v->victims - v->fallback), (unsigned long long)v->above_high,
            per_victim(v->valid_pages - v->fallback_valid_pages, v->victims - v->fallback));
    if (v->fallback) {
        fprintf(f, "; the fallback's %llu, %.2f valid each", (unsigned long long)v->fallback,
                per_victim(v->fallback_valid_pages, v->fallback));
    }
    fputc('\n', f);
}

void unit_log_text(const struct unit_log *log, const struct ftl *ftl, FILE *f)
{
    uint32_t pages = (uint32_t)ftl_geometry_of(ftl)->pgs_per_unit;
    char name[32];
    for (unsigned i = 0; i < ftl_write_pointer_count(ftl); i++) {
        snprintf(name, sizeof(name), "write pointer %u", i);
        text_one(f, name, &log->wp[i], pages);
    }
    text_one(f, "translation pages", &log->wp[FTL_UNIT_MAP_WP], pages);
}
