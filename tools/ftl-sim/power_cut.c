/* --power-cut-at: see power_cut.h. */
#include "power_cut.h"

#include <stdlib.h>

struct collector {
    struct sim_loss *v;
    size_t n, cap;
    bool failed;
};

static void collect(void *ctx, enum ftl_loss_kind kind, uint64_t slba, uint64_t nlb)
{
    struct collector *c = ctx;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        struct sim_loss *v = realloc(c->v, cap * sizeof(*v));
        if (!v) {
            c->failed = true;
            return;
        }
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = (struct sim_loss){ .kind = kind, .slba = slba, .nlb = nlb };
}

static int by_kind_then_lba(const void *a, const void *b)
{
    const struct sim_loss *x = a, *y = b;
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    return x->slba < y->slba ? -1 : x->slba > y->slba;
}

/* Sort, then fold each range into the one before when it is of the same kind and starts
 * at or before that one's end. */
static size_t sort_and_merge(struct sim_loss *v, size_t n)
{
    size_t out = 0;
    qsort(v, n, sizeof(*v), by_kind_then_lba);
    for (size_t i = 0; i < n; i++) {
        struct sim_loss *last = out ? &v[out - 1] : NULL;
        if (last && last->kind == v[i].kind && v[i].slba <= last->slba + last->nlb) {
            uint64_t end = v[i].slba + v[i].nlb;
            if (end > last->slba + last->nlb) {
                last->nlb = end - last->slba;
            }
            continue;
        }
        v[out++] = v[i];
    }
    return out;
}

int sim_power_cut(struct ftl *ftl, uint64_t at_ns, bool plp, struct sim_power_cut *out,
                  char *err, size_t errlen)
{
    struct collector c = { 0 };
    out->at_ns = at_ns;
    out->plp = plp;
    int rc = ftl_power_cut(ftl, at_ns, plp, collect, &c, &out->res, err, errlen);
    if (rc != FTL_OK) {
        free(c.v);
        return -1;
    }
    if (c.failed) {
        free(c.v);
        snprintf(err, errlen, "out of memory listing the lost ranges");
        return -1;
    }
    out->nlost = sort_and_merge(c.v, c.n);
    out->lost = c.v;
    return 0;
}

static const char *kind_name(enum ftl_loss_kind kind)
{
    return kind == FTL_LOSS_BUFFERED ? "buffered" : "torn";
}

int sim_power_cut_write_csv(const struct sim_power_cut *pc, FILE *f)
{
    fputs("kind,slba,nlb\n", f);
    for (size_t i = 0; i < pc->nlost; i++) {
        fprintf(f, "%s,%llu,%llu\n", kind_name(pc->lost[i].kind),
                (unsigned long long)pc->lost[i].slba, (unsigned long long)pc->lost[i].nlb);
    }
    return ferror(f) ? -1 : 0;
}

void sim_power_cut_json(const struct sim_power_cut *pc, const char *lost_out, FILE *f)
{
    fprintf(f, "  \"power_cut\": {\"at_s\": %.9f, \"plp\": %s, \"requests_cut\": %llu, "
            "\"buffered_pages\": %llu, \"buffered_sectors\": %llu, \"torn_pages\": %llu, "
            "\"plp_pages\": %llu, \"lost_ranges\": %llu, \"lost_out\": ",
            (double)pc->at_ns / 1e9, pc->plp ? "true" : "false",
            (unsigned long long)pc->cut_requests,
            (unsigned long long)pc->res.buffered_pages,
            (unsigned long long)pc->res.buffered_sectors,
            (unsigned long long)pc->res.torn_pages, (unsigned long long)pc->res.plp_pages,
            (unsigned long long)pc->nlost);
    if (lost_out) {
        fputc('"', f);
        for (const char *p = lost_out; *p; p++) {
            if (*p == '"' || *p == '\\') {
                fputc('\\', f);
            }
            fputc(*p, f);
        }
        fputs("\"},\n", f);
    } else {
        fputs("null},\n", f);
    }
}

void sim_power_cut_text(const struct sim_power_cut *pc, FILE *f)
{
    fprintf(f, "power cut at %.6f s%s: %llu requests in flight, %llu buffered sectors lost "
            "(%llu pages), %llu pages torn, %llu pages saved by plp\n",
            (double)pc->at_ns / 1e9, pc->plp ? " (plp)" : "",
            (unsigned long long)pc->cut_requests,
            (unsigned long long)pc->res.buffered_sectors,
            (unsigned long long)pc->res.buffered_pages,
            (unsigned long long)pc->res.torn_pages, (unsigned long long)pc->res.plp_pages);
}

void sim_power_cut_free(struct sim_power_cut *pc)
{
    free(pc->lost);
    pc->lost = NULL;
    pc->nlost = 0;
}
