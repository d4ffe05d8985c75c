/*
 * The FDP events the host has not yet taken (FEVT, femu_ftl/fdp.h): how many, how many the
 * full ring dropped, and each event oldest first, its time as an age. Layouts before
 * FTL_STATE_LAYOUT_OWN_SECTIONS kept them in FCOR as the whole ring, zeroes after the
 * count; this section holds only the events there are.
 */
#include "state/ftl_state_section.h"

#include "femu_ftl/fdp.h"
#include "flash/ftl_handle.h"

static void put_events(struct state_buf *b, const struct ftl *ftl, uint64_t now_ns)
{
    state_buf_u32(b, ftl->fdp_event_count);
    state_buf_u64(b, ftl->fdp_events_lost);
    for (uint32_t i = 0; i < ftl->fdp_event_count; i++) {
        const struct ftl_fdp_event *e =
            &ftl->fdp_events[(ftl->fdp_event_head + i) % FTL_FDP_EVENT_RING];
        state_buf_u64(b, state_time_age(now_ns, e->time_ns));
        state_buf_u64(b, e->unwritten_pages);
        state_buf_u32(b, e->ruh);
        state_buf_u32(b, e->ru);
        state_buf_u8(b, e->type);
    }
}

bool state_fdp_events_get(struct ftl *ftl, struct state_cursor *c, uint64_t now_ns,
                          bool whole_ring, bool ages)
{
    ftl->fdp_event_head = 0;
    ftl->fdp_event_count = state_cur_u32(c);
    ftl->fdp_events_lost = state_cur_u64(c);
    bool ok = ftl->fdp_event_count <= FTL_FDP_EVENT_RING;
    uint32_t records = whole_ring ? FTL_FDP_EVENT_RING : ok ? ftl->fdp_event_count : 0;
    for (uint32_t i = 0; i < records; i++) {
        struct ftl_fdp_event *e = &ftl->fdp_events[i];
        uint64_t t = state_cur_u64(c);
        e->time_ns = ages ? state_time_rebase(now_ns, t) : t;
        e->unwritten_pages = state_cur_u64(c);
        e->ruh = state_cur_u32(c);
        e->ru = state_cur_u32(c);
        e->type = state_cur_u8(c);
        ok &= i >= ftl->fdp_event_count ||
              (e->ruh < ftl->nwps && e->ru < ftl->nunits &&
               e->unwritten_pages <= ftl->pgs_per_line &&
               e->type <= FTL_FDP_EVENT_RU_TIME_LIMIT);
    }
    return ok;
}

int state_fdp_events_error(struct state_reader *r, uint32_t tag, const struct ftl *ftl,
                           char *err, size_t errlen)
{
    return state_section_error(r, tag, err, errlen, "FDP events (%u) out of range",
                               ftl->fdp_event_count);
}

static uint64_t fdp_events_max_bytes(void)
{
    return 4 + STATE_FDP_EVENTS_HEAD_BYTES + STATE_FDP_EVENT_BYTES * FTL_FDP_EVENT_RING;
}

size_t ftl_state_fdp_events_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    (void)ftl;
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_FEVT, fdp_events_max_bytes() };
    return 1;
}

int ftl_state_save_fdp_events(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                              char *err, size_t errlen)
{
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_FEVT_VERSION);
    put_events(&b, ftl, now_ns);
    return state_buf_section(&b, w, STATE_TAG_FTL_FEVT, err, errlen);
}

int ftl_state_load_fdp_events(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                              char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_FEVT;
    struct state_cursor c;
    uint32_t version;
    if (state_section_open_range(r, tag, 0, fdp_events_max_bytes(), 1, FTL_STATE_FEVT_VERSION,
                                 &c, &version, err, errlen)) {
        return -1;
    }
    bool ok = state_fdp_events_get(ftl, &c, now_ns, false, true);
    bool whole = !c.overrun && c.pos == c.len;
    state_cursor_free(&c);
    return ok && whole ? 0 : state_fdp_events_error(r, tag, ftl, err, errlen);
}
