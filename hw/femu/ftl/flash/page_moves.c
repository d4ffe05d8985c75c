/*
 * A batch of page moves (a Copy's pages), priced as the device runs them once it holds
 * the whole command: every source read may start at its ready time on its own LUN, all
 * LUNs at once (as a host read's pages do); each program starts when its data is read
 * and its LUN is free, after the batch's earlier programs on that LUN (a block takes its
 * pages in order), so programs pipeline over the destination LUNs as a host write's do;
 * a copyback senses and programs on its LUN with no channel transfer.
 *
 * The operations go to the timing model (timing.c) one at a time, in the order they need
 * their LUN and channel: each LUN's next one (its read when that can start no later than
 * its program, since the read's data feeds another LUN), then of those the one needing
 * its channel first (a read after its sense, a program at its start). The model queues
 * each LUN and channel in the order it is called, so pricing page by page (read, then
 * program, then the next page's read) put a read behind a program issued before it on the
 * same LUN although the read could start first, and chained the pages.
 */
#include "flash/page_moves.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/max_u64.h"
#include "flash/timing.h"

#define NONE UINT32_MAX
#define READ_HEAD 0
#define READ_TAIL 1
#define PROGRAM_HEAD 2
#define PROGRAM_TAIL 3

void page_moves_free(struct page_moves *b)
{
    free(b->move);
    free(b->lists);
    free(b->active);
    *b = (struct page_moves){ 0 };
}

int page_moves_init(struct page_moves *b, const struct ftl *ftl, size_t cap)
{
    *b = (struct page_moves){ 0 };
    if (cap >= NONE || cap > SIZE_MAX / sizeof(*b->move)) {
        return FTL_E_NOMEM;
    }
    b->move = malloc((cap ? cap : 1) * sizeof(*b->move));
    b->lists = malloc(4 * (size_t)ftl->luns * sizeof(*b->lists));
    b->active = malloc((size_t)ftl->luns * sizeof(*b->active));
    if (!b->move || !b->lists || !b->active) {
        page_moves_free(b);
        return FTL_E_NOMEM;
    }
    b->cap = cap;
    for (size_t i = 0; i < 4 * (size_t)ftl->luns; i++) {
        b->lists[i] = NONE;
    }
    return FTL_OK;
}

/* Append move i to LUN lun's read (READ_HEAD) or program (PROGRAM_HEAD) list. */
static void list_append(struct page_moves *b, uint32_t lun, int which, uint32_t i)
{
    uint32_t *head = &b->lists[4 * (size_t)lun + which];
    uint32_t *tail = head + 1;
    if (b->lists[4 * (size_t)lun + READ_HEAD] == NONE &&
        b->lists[4 * (size_t)lun + PROGRAM_HEAD] == NONE) {
        b->active[b->nactive++] = lun;      /* first use of the LUN in this batch */
    }
    if (*head == NONE) {
        *head = i;
    } else if (which == READ_HEAD) {
        b->move[*tail].next_read = i;
    } else {
        b->move[*tail].next_program = i;
    }
    *tail = i;
}

void page_moves_add(struct page_moves *b, enum page_move_kind kind, uint32_t slun,
                    uint32_t dlun, uint64_t ready_ns)
{
    uint32_t i = (uint32_t)b->count++;
    b->move[i] = (struct page_move){ .ready_ns = ready_ns, .slun = slun, .dlun = dlun,
                                     .next_read = NONE, .next_program = NONE,
                                     .kind = (uint8_t)kind };
    if (kind == PAGE_MOVE_READ_PROGRAM) {
        list_append(b, slun, READ_HEAD, i);
    }
    list_append(b, dlun, PROGRAM_HEAD, i);
}

/* LUN lun's next operation and when it starts: its read when that starts no later than
 * its program (the read's data may feed another LUN), else its program once the data is
 * asked for. NONE when it has neither. */
static uint32_t lun_next(const struct ftl *ftl, const struct page_moves *b, uint32_t lun,
                         bool *read, uint64_t *start)
{
    uint64_t idle = ftl->lun_avail_ns[lun];
    uint32_t r = b->lists[4 * (size_t)lun + READ_HEAD];
    uint32_t p = b->lists[4 * (size_t)lun + PROGRAM_HEAD];
    *start = UINT64_MAX;
    if (p != NONE) {
        const struct page_move *m = &b->move[p];
        if (m->kind != PAGE_MOVE_READ_PROGRAM || m->read_issued) {
            *start = max_u64(m->kind == PAGE_MOVE_READ_PROGRAM ? m->data_ns : m->ready_ns,
                             idle);
        } else {
            p = NONE;   /* its data is not asked for yet: the LUN's programs wait */
        }
    }
    if (r != NONE && max_u64(b->move[r].ready_ns, idle) <= *start) {
        *start = max_u64(b->move[r].ready_ns, idle);
        *read = true;
        return r;
    }
    *read = false;
    return p;
}

/*
 * The next operation of the batch: of the LUNs' next ones, the one that needs its
 * channel first (a read after its sense, a program at its start), a read first at a tie.
 * The timing model queues a channel in the order it is called, so this order keeps a
 * program's transfer from waiting behind a read's that comes after it.
 */
static uint32_t next_operation(const struct ftl *ftl, const struct page_moves *b, bool *read)
{
    uint32_t pick = NONE;
    uint64_t pick_key = UINT64_MAX;
    uint64_t sense = ftl->cfg.ch_xfer_lat ? flash_stretch(ftl, ftl->cfg.pg_rd_lat) : 0;
    *read = false;
    for (uint32_t a = 0; a < b->nactive; a++) {
        bool is_read;
        uint64_t start;
        uint32_t i = lun_next(ftl, b, b->active[a], &is_read, &start);
        if (i == NONE) {
            continue;
        }
        uint64_t key = is_read ? start + sense : start;
        if (key < pick_key || (key == pick_key && is_read && !*read)) {
            pick = i, pick_key = key, *read = is_read;
        }
    }
    return pick;
}

uint64_t page_moves_price(struct ftl *ftl, struct page_moves *b, uint64_t done_ns)
{
    bool read = false;
    uint32_t i;
    while ((i = next_operation(ftl, b, &read)) != NONE) {
        struct page_move *m = &b->move[i];
        if (read) {
            b->lists[4 * (size_t)m->slun + READ_HEAD] = m->next_read;
            m->data_ns = nand_read(ftl, m->slun, m->ready_ns);
            m->read_issued = true;
            continue;
        }
        b->lists[4 * (size_t)m->dlun + PROGRAM_HEAD] = m->next_program;
        uint64_t end;
        switch (m->kind) {
        case PAGE_MOVE_COPYBACK:
            end = nand_copyback(ftl, m->dlun, m->ready_ns);
            break;
        case PAGE_MOVE_READ_PROGRAM:
            end = nand_program(ftl, m->dlun, m->data_ns);
            break;
        default:
            end = nand_program(ftl, m->dlun, m->ready_ns);
            break;
        }
        done_ns = max_u64(done_ns, end);
    }
    return done_ns;
}
