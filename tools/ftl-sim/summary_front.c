/* The link and controller figures of the measured phase (summary_front.h). */
#include "summary_front.h"

#include "json_out.h"

struct front_phase {
    double secs;
    uint64_t up_bytes, down_bytes;
    double up_util, down_util, ctrl_util;
};

static bool front_phase(const struct ftl *ftl, const struct sim_phase_result *m,
                        struct front_phase *p)
{
    const struct ftl_config *cfg = ftl_config_of(ftl);
    if (!ftl_config_front_on(cfg)) {
        return false;
    }
    p->secs = m->end_ns > m->start_ns ? (double)(m->end_ns - m->start_ns) / 1e9 : 0;
    p->up_bytes = m->after.link_up_bytes - m->before.link_up_bytes;
    p->down_bytes = m->after.link_down_bytes - m->before.link_down_bytes;
    double span_ps = p->secs * 1e12, span_ns = p->secs * 1e9;
    p->up_util = span_ps > 0 ? (double)(m->after.link_up_busy_ps -
                                        m->before.link_up_busy_ps) / span_ps : 0;
    p->down_util = span_ps > 0 ? (double)(m->after.link_down_busy_ps -
                                          m->before.link_down_busy_ps) / span_ps : 0;
    p->ctrl_util = span_ns > 0 && cfg->ctrl_cores
                   ? (double)(m->after.ctrl_busy_ns - m->before.ctrl_busy_ns) /
                     (span_ns * (double)cfg->ctrl_cores) : 0;
    return true;
}

static double mean_us(uint64_t sum_ns, uint64_t count)
{
    return count ? (double)sum_ns / (double)count / 1e3 : 0;
}

static void json_split(FILE *f, const char *name, const struct split_sums *s)
{
    fprintf(f, "  \"%s\": {\"count\": %llu, \"flash\": %.3f, \"link\": %.3f, "
            "\"ctrl\": %.3f, \"wait\": %.3f},\n", name, (unsigned long long)s->count,
            mean_us(s->flash_ns, s->count), mean_us(s->link_ns, s->count),
            mean_us(s->ctrl_ns, s->count), mean_us(s->wait_ns, s->count));
}

void summary_json_front(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    struct front_phase p;
    if (!front_phase(ftl, m, &p)) {
        return;
    }
    fprintf(f, "  \"link_up_bytes\": %llu,\n  \"link_down_bytes\": %llu,\n"
            "  \"link_up_util\": %.6f,\n  \"link_down_util\": %.6f,\n"
            "  \"ctrl_util\": %.6f,\n", (unsigned long long)p.up_bytes,
            (unsigned long long)p.down_bytes, p.up_util, p.down_util, p.ctrl_util);
    json_split(f, "read_split_us", &m->read_split);
    json_split(f, "write_split_us", &m->write_split);
}

static void print_split(FILE *f, const char *name, const struct split_sums *s)
{
    if (s->count) {
        fprintf(f, "%s: mean %.3f us flash, %.3f link, %.3f controller, %.3f waiting\n",
                name, mean_us(s->flash_ns, s->count), mean_us(s->link_ns, s->count),
                mean_us(s->ctrl_ns, s->count), mean_us(s->wait_ns, s->count));
    }
}

void summary_print_front(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    struct front_phase p;
    if (!front_phase(ftl, m, &p)) {
        return;
    }
    fprintf(f, "link: up %.1f %% busy (%llu bytes on the wire), down %.1f %% (%llu); "
            "controller cores %.1f %% busy\n", p.up_util * 100,
            (unsigned long long)p.up_bytes, p.down_util * 100,
            (unsigned long long)p.down_bytes, p.ctrl_util * 100);
    print_split(f, "reads", &m->read_split);
    print_split(f, "writes", &m->write_split);
}
