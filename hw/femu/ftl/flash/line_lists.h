/* Where closed and free lines wait (line_lists.c): the free queue, the full list, the
 * victim heap, and the line state changes between them. */
#ifndef FEMU_FTL_FLASH_LINE_LISTS_H
#define FEMU_FTL_FLASH_LINE_LISTS_H

#include "flash/ftl_handle.h"

/* Every LUN's pool: victims_list's (and GC's) "any LUN". */
#define GC_ANY_LUN UINT32_MAX

void lines_init(struct ftl *ftl);
/* A free unit from pool `pool` (the next pools in turn when it is empty); NO_LINE when
 * every pool is empty. */
uint32_t free_queue_pop(struct ftl *ftl, uint32_t pool);
void free_queue_push(struct ftl *ftl, uint32_t line);
/* The unit free_queue_pop(pool) would return, left in the queue. */
uint32_t free_queue_peek(const struct ftl *ftl, uint32_t pool);
/* An SLC unit full (open -> LINE_SLC): the youngest of the SLC FIFO. */
void slc_line_close(struct ftl *ftl, uint32_t line, uint64_t now_ns);
/* Take the oldest closed SLC unit out of the FIFO (NO_LINE: none); its state is the
 * caller's to set, and the fold cursor starts over. */
uint32_t slc_pop_oldest(struct ftl *ftl);
/* open -> full list or victim heap; now_ns: when its last page was programmed */
void line_close(struct ftl *ftl, uint32_t line, uint64_t now_ns);
uint32_t victim_peek(const struct ftl *ftl);         /* fewest valid of all; NO_LINE: none */
uint32_t victim_peek_pool(const struct ftl *ftl, uint32_t pool);    /* the same in one pool */
/* The victim lines of one LUN's pool (GC_ANY_LUN: all), copied into out (room for every
 * line); returns how many. Pool by pool, each in its heap's array order. */
uint32_t victims_list(const struct ftl *ftl, uint32_t lun, uint32_t *out);
void victim_remove(struct ftl *ftl, uint32_t line);
void line_page_invalidated(struct ftl *ftl, uint32_t line);  /* after valid--, invalid++ */

#endif
