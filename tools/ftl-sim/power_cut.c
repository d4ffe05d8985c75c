/* --power-cut-at: see power_cut.h. */
#include "power_cut.h"

#include <stdlib.h>

#include "json_out.h"

int sim_power_cut(struct ftl *ftl, uint64_t at_ns, bool plp, struct sim_power_cut *out,
                  char *err, size_t errlen)
{
    out->at_ns = at_ns;
    out->plp = plp;
    int rc = ftl_power_cut(ftl, at_ns, plp, ftl_loss_list_add, &out->lost, &out->res, err,
                           errlen);
    if (rc == FTL_OK && out->lost.failed) {
        snprintf(err, errlen, "out of memory listing the lost ranges");
    }
    if (rc != FTL_OK || out->lost.failed) {
        ftl_loss_list_free(&out->lost);
        return -1;
    }
    ftl_loss_list_merge(&out->lost);
    return 0;
}

int sim_power_cut_write_csv(const struct sim_power_cut *pc, FILE *f)
{
    fputs("kind,slba,nlb\n", f);
    for (size_t i = 0; i < pc->lost.n; i++) {
        const struct ftl_loss_range *r = &pc->lost.v[i];
        fprintf(f, "%s,%llu,%llu\n", ftl_loss_kind_name(r->kind), (unsigned long long)r->slba,
                (unsigned long long)r->nlb);
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
            (unsigned long long)pc->lost.n);
    json_string_or_null(f, lost_out);
    fputs("},\n", f);
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
    ftl_loss_list_free(&pc->lost);
}
