/*
 * Flash work owed: what collections done in the maps still owe the flash (debt.h). A
 * ring of operations from gc_debt_head; gc_debt_moves counts the moves among them. The
 * order of moves is only their timing, so a move whose LUNs are idle may be taken out of
 * order; an erase is charged only in order, after every move before it (its unit's pages
 * are read before the block is erased).
 */
#include "flash/debt.h"

#include "flash/timing.h"

static struct gc_debt_op *op_at(struct ftl *ftl, uint32_t i)
{
    return &ftl->gc_debt[(ftl->gc_debt_head + i) % debt_capacity(ftl)];
}

void debt_push_move(struct ftl *ftl, uint32_t src, uint32_t dst, uint8_t kind, uint32_t wp)
{
    /* debt_make_room left room for a whole unit before its collection began */
    *op_at(ftl, ftl->gc_debt_count++) = (struct gc_debt_op){ src, dst,
                                                             (uint32_t)kind << 8 | wp };
    ftl->gc_debt_moves++;
}

void debt_push_erase(struct ftl *ftl, uint32_t lun, uint32_t unit)
{
    *op_at(ftl, ftl->gc_debt_count++) = (struct gc_debt_op){ lun, GC_DEBT_ERASE, unit };
    ftl->gc_debt_units += !ftl->lines[unit].erase_owed;
    ftl->lines[unit].erase_owed = true;
}

static void charge(struct ftl *ftl, struct gc_debt_op op, uint64_t now_ns)
{
    if (op.dst == GC_DEBT_ERASE) {
        nand_erase(ftl, op.src, now_ns);
        /* its unit's erases are together: the last one clears the mark */
        ftl->lines[op.unit].erase_owed = ftl->gc_debt_count &&
                                         op_at(ftl, 0)->dst == GC_DEBT_ERASE &&
                                         op_at(ftl, 0)->unit == op.unit;
        ftl->gc_debt_units -= !ftl->lines[op.unit].erase_owed;
    } else {
        nand_program(ftl, op.dst, nand_read(ftl, op.src, now_ns));
        count_gc_move(ftl, (uint8_t)(op.unit >> 8), op.unit & 0xff);
        ftl->gc_debt_moves--;
    }
}

/* Charge the head and drop it; with nothing left owed, nothing is owed toward it. */
static void charge_head(struct ftl *ftl, uint64_t now_ns)
{
    struct gc_debt_op op = *op_at(ftl, 0);
    ftl->gc_debt_head = (ftl->gc_debt_head + 1) % debt_capacity(ftl);
    ftl->gc_debt_count--;
    charge(ftl, op, now_ns);
    if (!ftl->gc_debt_count) {
        ftl->gc_owed = 0;
    }
}

void debt_charge(struct ftl *ftl, uint64_t max, uint64_t now_ns)
{
    uint64_t moves = 0;

    while (ftl->gc_debt_count && (moves < max || op_at(ftl, 0)->dst == GC_DEBT_ERASE)) {
        moves += op_at(ftl, 0)->dst != GC_DEBT_ERASE;
        charge_head(ftl, now_ns);
    }
}

void debt_charge_idle(struct ftl *ftl, uint64_t now_ns)
{
    uint32_t window = 4 * ftl->luns, charged = 0, i = 0;

    /* Only up to the first erase: a move taken from behind it would swap places with
     * the head, which may be a move of the erased unit. */
    while (i < ftl->gc_debt_count && i < window && charged < ftl->luns) {
        struct gc_debt_op *op = op_at(ftl, i);
        if (op->dst == GC_DEBT_ERASE) {
            if (i) {
                break;
            }
            charge_head(ftl, now_ns);   /* every move before it is charged */
            continue;
        }
        if (ftl->lun_avail_ns[op->src] > now_ns || ftl->lun_avail_ns[op->dst] > now_ns) {
            i++;
            continue;
        }
        struct gc_debt_op mine = *op;   /* to the head, the head to its place */
        *op = *op_at(ftl, 0);
        *op_at(ftl, 0) = mine;
        charge_head(ftl, now_ns);
        charged++;
        i = i ? i - 1 : 0;      /* the ring moved up by one */
    }
    while (ftl->gc_debt_count && op_at(ftl, 0)->dst == GC_DEBT_ERASE) {
        charge_head(ftl, now_ns);
    }
}

void debt_make_room(struct ftl *ftl, uint64_t now_ns)
{
    uint32_t unit = ftl->pgs_per_line + ftl->line_luns;

    while (ftl->gc_debt_count + unit > debt_capacity(ftl)) {
        charge_head(ftl, now_ns);
    }
}

void debt_settle_through(struct ftl *ftl, uint32_t unit, uint64_t now_ns)
{
    while (ftl->lines[unit].erase_owed && ftl->gc_debt_count) {
        charge_head(ftl, now_ns);
    }
}
