/*
 * Paced GC's debt (FDBT, flash/debt.h): the rates that set how many moves a host write
 * owes, the moves owed, and the FIFO of flash operations its collections have not yet
 * charged, oldest first. Layouts before FTL_STATE_LAYOUT_OWN_SECTIONS kept the same bytes
 * in FCOR (the head in its middle, the operations at its end): the getters serve both.
 */
#include "state/ftl_state_section.h"

#include "flash/debt.h"
#include "flash/ftl_handle.h"
#include "gc/gc.h"

static void put_debt_head(struct state_buf *b, const struct ftl *ftl)
{
    state_buf_u32(b, ftl->gc_rate_valid);
    state_buf_u32(b, ftl->gc_rate_invalid);
    state_buf_u64(b, ftl->gc_owed);
    state_buf_u32(b, ftl->gc_debt_count);
}

void state_debt_get_head(struct ftl *ftl, struct state_cursor *c)
{
    ftl->gc_rate_valid = state_cur_u32(c);
    ftl->gc_rate_invalid = state_cur_u32(c);
    ftl->gc_owed = state_cur_u64(c);
    ftl->gc_debt_head = 0;
    ftl->gc_debt_count = state_cur_u32(c);
    ftl->gc_debt_moves = 0;
}

static void put_debt_ops(struct state_buf *b, const struct ftl *ftl)
{
    for (uint32_t i = 0; i < ftl->gc_debt_count; i++) {     /* oldest first */
        const struct gc_debt_op *op = &ftl->gc_debt[(ftl->gc_debt_head + i) %
                                                    debt_capacity(ftl)];
        state_buf_u32(b, op->src);
        state_buf_u32(b, op->dst);
        state_buf_u32(b, op->unit);
    }
}

/* A move between LUNs for a write pointer and GC kind, or an erase of a unit on a LUN. */
static bool op_in_range(const struct ftl *ftl, const struct gc_debt_op *op)
{
    bool erase = op->dst == GC_DEBT_ERASE;
    return op->src < ftl->luns && (op->dst < ftl->luns || erase) &&
           (erase ? op->unit < ftl->nunits
                  : (op->unit & 0xff) <= MAP_WP && op->unit >> 8 <= GC_KIND_FALLBACK);
}

bool state_debt_get_ops(struct ftl *ftl, struct state_cursor *c)
{
    bool ok = !c->overrun && ftl->gc_debt_count <= debt_capacity(ftl) &&
              c->len - c->pos == STATE_DEBT_OP_BYTES * (uint64_t)ftl->gc_debt_count;
    for (uint32_t i = 0; ok && i < ftl->gc_debt_count; i++) {
        struct gc_debt_op *op = &ftl->gc_debt[i];
        op->src = state_cur_u32(c);     /* one read a statement: the order is the file's */
        op->dst = state_cur_u32(c);
        op->unit = state_cur_u32(c);
        bool erase = op->dst == GC_DEBT_ERASE;
        ok = op_in_range(ftl, op);
        if (ok && erase) {
            ftl->gc_debt_units += !ftl->lines[op->unit].erase_owed;
            ftl->lines[op->unit].erase_owed = true;
        }
        ftl->gc_debt_moves += !erase;
    }
    return ok;
}

int state_debt_error(struct state_reader *r, uint32_t tag, const struct ftl *ftl, char *err,
                     size_t errlen)
{
    return state_section_error(r, tag, err, errlen, "paced GC's owed work (%u operations) "
                               "out of range", ftl->gc_debt_count);
}

static uint64_t debt_max_bytes(const struct ftl *ftl)
{
    return 4 + STATE_DEBT_HEAD_BYTES + STATE_DEBT_OP_BYTES * (uint64_t)debt_capacity(ftl);
}

int ftl_state_save_debt(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen)
{
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_DEBT_VERSION);
    put_debt_head(&b, ftl);
    put_debt_ops(&b, ftl);
    return state_buf_section(&b, w, STATE_TAG_FTL_DEBT, err, errlen);
}

int ftl_state_load_debt(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_DEBT;
    struct state_cursor c;
    uint32_t version;
    if (state_section_open_range(r, tag, 0, debt_max_bytes(ftl), 1, FTL_STATE_DEBT_VERSION,
                                 &c, &version, err, errlen)) {
        return -1;
    }
    state_debt_get_head(ftl, &c);
    bool ok = state_debt_get_ops(ftl, &c);
    state_cursor_free(&c);
    return ok ? 0 : state_debt_error(r, tag, ftl, err, errlen);
}

size_t ftl_state_debt_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_DEBT, debt_max_bytes(ftl) };
    return 1;
}
