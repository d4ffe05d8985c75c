/* A batch of pages moved inside the device (Copy), priced together (page_moves.c). */
#ifndef FEMU_FTL_FLASH_PAGE_MOVES_H
#define FEMU_FTL_FLASH_PAGE_MOVES_H

#include <stddef.h>

#include "flash/ftl_handle.h"

enum page_move_kind {
    PAGE_MOVE_READ_PROGRAM,     /* read on slun, over the channels, program on dlun */
    PAGE_MOVE_COPYBACK,         /* sense and program on dlun (the source's LUN) */
    PAGE_MOVE_PROGRAM,          /* program only: the data is in DRAM (or none) */
};

struct page_move {
    uint64_t ready_ns;      /* its first operation may start then (arrival, a map lookup) */
    uint64_t data_ns;       /* when its read ends (once issued) */
    uint32_t slun, dlun;
    uint32_t next_read, next_program;   /* the per-LUN lists, in the order added */
    uint8_t kind;
    bool read_issued;
};

struct page_moves {
    struct page_move *move;
    size_t count, cap;
    uint32_t *lists;        /* [4 * luns]: read head, read tail, program head, tail */
    uint32_t *active;       /* the LUNs the batch uses */
    uint32_t nactive;
};

/* Room for cap moves; FTL_E_NOMEM (and nothing to free) when it cannot get it. */
int page_moves_init(struct page_moves *b, const struct ftl *ftl, size_t cap);
/* Add a move; its program goes after the batch's earlier ones on dlun (block order). */
void page_moves_add(struct page_moves *b, enum page_move_kind kind, uint32_t slun,
                    uint32_t dlun, uint64_t ready_ns);
/* Issue the batch's flash operations; returns the latest program's end (done_ns if
 * later, or with no move). */
uint64_t page_moves_price(struct ftl *ftl, struct page_moves *b, uint64_t done_ns);
void page_moves_free(struct page_moves *b);

#endif
