/* The NVMe power-state model: see power_state.h. */
#include "power/power_state.h"

#include <string.h>

#include "base/max_u64.h"

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull

void power_init(struct power_model *m, const struct ftl_config *cfg)
{
    *m = (struct power_model){ .ps = cfg->ps, .count = (uint32_t)cfg->ps_count };
    if (m->count == 0 || m->count > FTL_PS_MAX) {
        m->count = 1;   /* a configuration built in C without validation */
    }
}

/* The time in cur up to t. */
static void charge(struct power_model *m, struct ftl_counters *ctr, uint64_t t)
{
    if (t > m->counted_ns) {
        ctr->ps_time_ns[m->cur] += t - m->counted_ns;
        m->counted_ns = t;
    }
}

static void enter(struct power_model *m, struct ftl_counters *ctr, uint32_t next, uint64_t t)
{
    charge(m, ctr, t);
    if (next != m->cur) {
        ctr->ps_transitions++;
        m->cur = next;
    }
    m->since_ns = t;
    if (!m->ps[next].nonop) {
        m->last_op = next;
    }
}

/* When APST moves the drive on from cur (UINT64_MAX: never). */
static uint64_t apst_due(const struct power_model *m)
{
    const struct ftl_apst_entry *a = &m->apst[m->cur];

    if (!m->apst_enabled || a->itpt_ms == 0 || a->itps == m->cur) {
        return UINT64_MAX;
    }
    return max_u64(m->since_ns, m->idle_from_ns) + a->itpt_ms * NS_PER_MS;
}

/*
 * The drive, idle, has come back to the state it entered at t_ns by a cycle of APST
 * entries (a table may point a deep state back at a shallower one): skip the whole
 * cycles that end by `until`, each state getting its itpt and each step a transition,
 * so a long idle time costs a few steps, not one per cycle.
 */
static void skip_cycles(struct power_model *m, struct ftl_counters *ctr, uint64_t until)
{
    uint64_t period = 0, steps = 0;
    uint32_t s = m->cur;

    do {
        period += m->apst[s].itpt_ms * NS_PER_MS;
        steps++;
        s = m->apst[s].itps;
    } while (s != m->cur && steps <= FTL_PS_MAX);
    if (s != m->cur || period == 0 || until - m->since_ns < period) {
        return;
    }
    uint64_t n = (until - m->since_ns) / period;
    s = m->cur;
    do {
        ctr->ps_time_ns[s] += n * m->apst[s].itpt_ms * NS_PER_MS;
        s = m->apst[s].itps;
    } while (s != m->cur);
    ctr->ps_transitions += n * steps;
    m->since_ns += n * period;
    m->counted_ns = m->since_ns;
}

void power_advance(struct power_model *m, struct ftl_counters *ctr, uint64_t t_ns)
{
    uint32_t seen = 0;  /* states APST entered in this call */
    bool skipped = false;

    if (!m->started) {
        m->started = true;
        m->since_ns = m->counted_ns = m->idle_from_ns = m->ready_ns = t_ns;
    }
    if (t_ns < m->counted_ns) {
        return;
    }
    for (uint64_t due; (due = apst_due(m)) <= t_ns;) {
        enter(m, ctr, m->apst[m->cur].itps, due);
        if ((seen >> m->cur) & 1u && !skipped) {
            skip_cycles(m, ctr, t_ns);
            skipped = true;
        }
        seen |= 1u << m->cur;
    }
    charge(m, ctr, t_ns);
}

void power_counters_at(const struct power_model *m, uint64_t t_ns, struct ftl_counters *c)
{
    struct power_model copy = *m;

    if (m->started) {
        power_advance(&copy, c, t_ns);
    }
}

uint64_t power_wake(struct power_model *m, struct ftl_counters *ctr, uint64_t t_ns)
{
    const struct ftl_ps_desc *d = &m->ps[m->cur];
    uint64_t start = max_u64(t_ns, m->ready_ns);

    if (d->nonop) {
        uint64_t entered = m->since_ns + d->enlat_us * NS_PER_US;
        start = max_u64(start, entered) + d->exlat_us * NS_PER_US;
        enter(m, ctr, m->last_op, t_ns);
        m->ready_ns = start;
        ctr->ps_exits++;
    }
    ctr->ps_exit_wait_ns += start - t_ns;
    return start;
}

void power_busy_until(struct power_model *m, uint64_t done_ns)
{
    m->idle_from_ns = max_u64(m->idle_from_ns, done_ns);
}

uint32_t power_perf_pcent(const struct power_model *m)
{
    const struct ftl_ps_desc *d = &m->ps[m->cur];
    return d->nonop || d->perf_pcent == 0 ? 100 : (uint32_t)d->perf_pcent;
}

bool power_apst_valid(const struct ftl_ps_desc *ps, uint32_t count,
                      const struct ftl_apst_entry *apst)
{
    for (uint32_t i = 0; i < FTL_PS_MAX; i++) {
        const struct ftl_apst_entry *a = &apst[i];
        if (a->itpt_ms == 0) {
            continue;   /* no transition from state i */
        }
        if (i >= count || a->itpt_ms > POWER_ITPT_MAX_MS || a->itps >= count ||
            !ps[a->itps].nonop) {
            return false;
        }
    }
    return true;
}

/* The host sets state ps: leaving a non-operational state is an exit like a command's
 * (the commands after it wait for its end). */
static int set_state(struct power_model *m, struct ftl_counters *ctr, uint64_t t_ns,
                     uint32_t ps)
{
    const struct ftl_ps_desc *d = &m->ps[m->cur];

    if (ps >= m->count) {
        return FTL_E_INVAL;
    }
    if (ps == m->cur) {
        return FTL_OK;
    }
    if (d->nonop && !m->ps[ps].nonop) {
        uint64_t entered = m->since_ns + d->enlat_us * NS_PER_US;
        m->ready_ns = max_u64(max_u64(t_ns, m->ready_ns), entered) + d->exlat_us * NS_PER_US;
        ctr->ps_exits++;
    }
    enter(m, ctr, ps, t_ns);
    m->idle_from_ns = max_u64(m->idle_from_ns, t_ns);
    return FTL_OK;
}

int power_command(struct power_model *m, struct ftl_counters *ctr, uint64_t t_ns,
                  const struct ftl_power_cmd *cmd)
{
    if (!cmd) {
        return FTL_E_INVAL;
    }
    switch (cmd->action) {
    case FTL_POWER_SET_STATE:
        return set_state(m, ctr, t_ns, cmd->ps);
    case FTL_POWER_SET_APST:
        if (!power_apst_valid(m->ps, m->count, cmd->apst)) {
            return FTL_E_INVAL;
        }
        m->apst_enabled = cmd->apst_enabled;
        memcpy(m->apst, cmd->apst, sizeof(m->apst));
        m->idle_from_ns = max_u64(m->idle_from_ns, t_ns);
        return FTL_OK;
    case FTL_POWER_GET_STATE:
        return FTL_OK;
    }
    return FTL_E_INVAL;
}
