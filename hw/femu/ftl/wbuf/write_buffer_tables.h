/*
 * The write buffer's tables (write_buffer.c), shared only with its state section
 * (state/ftl_state_wbuf.c), which saves and restores them; everything else goes through
 * the wbuf_* calls in wbuf/write_buffer.h.
 */
#ifndef FEMU_FTL_WBUF_WRITE_BUFFER_TABLES_H
#define FEMU_FTL_WBUF_WRITE_BUFFER_TABLES_H

#include <stdint.h>

#include "base/lpn_table.h"
#include "base/lru_list.h"
#include "wbuf/flush_ahead.h"

struct wbuf_entry {
    struct lru_link link;   /* in LRU order of the last write (free entries: older
                             * chains the free list) */
    uint32_t lpn;
    uint32_t stream;        /* of the last write: the placement stream of the flush */
    uint64_t mask;          /* sectors buffered: bit i = sector i of the page */
};

struct wbuf {
    struct lpn_table where;     /* LPN -> entry of a buffered page */
    struct wbuf_entry *entries; /* [nentries] */
    uint32_t nentries, used;    /* slots [0, used) were ever taken; free ones are chained */
    uint32_t free_head;         /* free slots, through link.older */
    struct lru_list order;      /* of the buffered pages */
    uint32_t pages;             /* pages buffered */
    uint64_t sectors;           /* sectors buffered */
    uint64_t watermark;         /* flush while sectors > this */
    uint64_t full_mask;         /* every sector of a page */
    bool ahead;                 /* buf_flush_mode=ahead: flights counts against capacity */
    struct flights flights;     /* ahead: flushes still programming */
};

#endif
