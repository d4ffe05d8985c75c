/*
 * The SLC cache's scalars (FSLC, only with slc_cache=on): its write pointer, the FIFO of
 * closed SLC units (head, tail, count: the order follows the lines' links) and the fold
 * cursor. Each unit's SLC mode is FLIN's, the counters FCOR's. Layouts 3 to 5 kept the same
 * bytes in FCOR (always, with the cache off all empty); layout 2 had no cache.
 */
#include "state/ftl_state_section.h"

#include "flash/ftl_handle.h"

static void put_slc(struct state_buf *b, const struct ftl *ftl, uint64_t now_ns)
{
    state_buf_u32(b, ftl->slc_wp.line);
    state_buf_u32(b, ftl->slc_wp.offset);
    state_buf_u32(b, ftl->slc_wp.next_pool);
    state_buf_u64(b, state_time_age(now_ns, ftl->slc_wp.opened_ns));
    state_buf_u32(b, ftl->slc_head);
    state_buf_u32(b, ftl->slc_tail);
    state_buf_u32(b, ftl->slc_count);
    state_buf_u32(b, ftl->slc_fold_off);
}

void state_slc_none(struct ftl *ftl)
{
    ftl->slc_wp = (struct write_pointer){ .line = NO_LINE };
    ftl->slc_head = ftl->slc_tail = NO_LINE;
    ftl->slc_count = ftl->slc_fold_off = 0;
}

static bool line_or_none(const struct ftl *ftl, uint32_t line)
{
    return line == NO_LINE || line < ftl->nunits;
}

/* Each held to this FTL: nothing with slc_cache=off, else indices and offsets within the
 * units (ftl_check checks the FIFO itself). */
bool state_slc_get(struct ftl *ftl, struct state_cursor *c, uint64_t now_ns)
{
    ftl->slc_wp.line = state_cur_u32(c);
    ftl->slc_wp.offset = state_cur_u32(c);
    ftl->slc_wp.next_pool = state_cur_u32(c);
    ftl->slc_wp.opened_ns = state_time_rebase(now_ns, state_cur_u64(c));
    ftl->slc_head = state_cur_u32(c);
    ftl->slc_tail = state_cur_u32(c);
    ftl->slc_count = state_cur_u32(c);
    ftl->slc_fold_off = state_cur_u32(c);
    bool any = ftl->slc_wp.line != NO_LINE || ftl->slc_head != NO_LINE ||
               ftl->slc_tail != NO_LINE || ftl->slc_count || ftl->slc_fold_off;
    if (!ftl->cfg.slc_cache) {
        return !any;
    }
    return line_or_none(ftl, ftl->slc_wp.line) && line_or_none(ftl, ftl->slc_head) &&
           line_or_none(ftl, ftl->slc_tail) && ftl->slc_wp.next_pool < ftl->npools &&
           (ftl->slc_wp.line == NO_LINE || ftl->slc_wp.offset < ftl->slc_end) &&
           ftl->slc_count <= ftl->nunits && ftl->slc_fold_off <= ftl->slc_end;
}

size_t ftl_state_slc_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    if (!ftl->cfg.slc_cache) {
        return 0;
    }
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_SLC, 4 + STATE_SLC_BYTES };
    return 1;
}

int ftl_state_save_slc(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                       char *err, size_t errlen)
{
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_SLC_VERSION);
    put_slc(&b, ftl, now_ns);
    return state_buf_section(&b, w, STATE_TAG_FTL_SLC, err, errlen);
}

int state_slc_error(struct state_reader *r, uint32_t tag, const struct ftl *ftl, char *err,
                    size_t errlen)
{
    return state_section_error(r, tag, err, errlen, "the SLC cache (write pointer %u "
                               "offset %u, FIFO %u..%u of %u units, fold cursor %u) out "
                               "of range or with slc_cache=off", ftl->slc_wp.line,
                               ftl->slc_wp.offset, ftl->slc_head, ftl->slc_tail,
                               ftl->slc_count, ftl->slc_fold_off);
}

int ftl_state_load_slc(struct ftl *ftl, struct state_reader *r, uint64_t now_ns, char *err,
                       size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_SLC;
    struct state_cursor c;
    uint32_t version;
    if (state_section_open_range(r, tag, 4 + STATE_SLC_BYTES, 4 + STATE_SLC_BYTES, 1,
                                 FTL_STATE_SLC_VERSION, &c, &version, err, errlen)) {
        return -1;
    }
    bool ok = state_slc_get(ftl, &c, now_ns);
    state_cursor_free(&c);
    return ok ? 0 : state_slc_error(r, tag, ftl, err, errlen);
}
