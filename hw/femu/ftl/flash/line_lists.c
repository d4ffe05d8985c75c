/*
 * Where closed and free lines (GC units) wait: FIFOs of free lines (one, or one per LUN
 * with gc_unit=block), a list of full lines (every page
 * valid) and a min-heap of victim lines keyed on valid pages, so greedy GC finds the line
 * with the fewest valid pages in O(1) and each invalidation costs O(log lines).
 */
#include "flash/line_lists.h"

#include <string.h>

#include "flash/geometry.h"

void lines_init(struct ftl *ftl)
{
    uint32_t nlines = ftl->nunits;
    for (uint32_t p = 0; p < ftl->npools; p++) {
        ftl->pool_head[p] = ftl->pool_count[p] = 0;
    }
    ftl->free_count = 0;
    ftl->free_pages = 0;
    for (uint32_t i = 0; i < nlines; i++) {
        uint32_t capacity = ftl->lines[i].capacity;   /* set by faults_init */
        ftl->lines[i] = (struct line){ .state = LINE_DEAD, .prev = NO_LINE, .next = NO_LINE,
                                       .capacity = capacity };
        if (capacity) {
            free_queue_push(ftl, i);    /* a line of bad blocks only is never used */
        }
    }
    ftl->full_head = ftl->full_tail = NO_LINE;
    ftl->full_count = 0;
    ftl->victim_count = 0;
    memset(ftl->victims_by_wp, 0, sizeof(ftl->victims_by_wp));
    for (uint32_t p = 0; p < ftl->npools; p++) {
        ftl->heap_count[p] = 0;
    }
    ftl->close_seq_next = 0;
    ftl->slc_head = ftl->slc_tail = NO_LINE;
    ftl->slc_count = 0;
    ftl->slc_fold_off = 0;
}

uint32_t free_queue_pop(struct ftl *ftl, uint32_t pool)
{
    if (ftl->free_count == 0) {
        return NO_LINE;
    }
    while (ftl->pool_count[pool] == 0) {
        pool = pool + 1 == ftl->npools ? 0 : pool + 1;
    }
    uint32_t *head = &ftl->pool_head[pool];
    uint32_t line = ftl->free_queue[pool * ftl->pool_cap + *head];
    *head = *head + 1 == ftl->pool_cap ? 0 : *head + 1;
    ftl->pool_count[pool]--;
    ftl->free_count--;
    ftl->free_pages -= ftl->lines[line].capacity;
    return line;
}

uint32_t free_queue_peek(const struct ftl *ftl, uint32_t pool)
{
    if (ftl->free_count == 0) {
        return NO_LINE;
    }
    while (ftl->pool_count[pool] == 0) {
        pool = pool + 1 == ftl->npools ? 0 : pool + 1;
    }
    return ftl->free_queue[pool * ftl->pool_cap + ftl->pool_head[pool]];
}

void free_queue_push(struct ftl *ftl, uint32_t line)
{
    uint32_t pool = unit_pool(ftl, line);
    uint32_t tail = (uint32_t)((ftl->pool_head[pool] + (uint64_t)ftl->pool_count[pool]) %
                               ftl->pool_cap);
    ftl->free_queue[pool * ftl->pool_cap + tail] = line;
    ftl->pool_count[pool]++;
    ftl->free_count++;
    ftl->free_pages += ftl->lines[line].capacity;
    ftl->lines[line].state = LINE_FREE;
}

/* ---- full list ---- */

static void full_list_append(struct ftl *ftl, uint32_t id)
{
    struct line *l = &ftl->lines[id];
    l->state = LINE_FULL;
    l->prev = ftl->full_tail;
    l->next = NO_LINE;
    if (ftl->full_tail != NO_LINE) {
        ftl->lines[ftl->full_tail].next = id;
    } else {
        ftl->full_head = id;
    }
    ftl->full_tail = id;
    ftl->full_count++;
}

static void full_list_remove(struct ftl *ftl, uint32_t id)
{
    struct line *l = &ftl->lines[id];
    if (l->prev != NO_LINE) {
        ftl->lines[l->prev].next = l->next;
    } else {
        ftl->full_head = l->next;
    }
    if (l->next != NO_LINE) {
        ftl->lines[l->next].prev = l->prev;
    } else {
        ftl->full_tail = l->prev;
    }
    l->prev = l->next = NO_LINE;
    ftl->full_count--;
}

/* ---- the SLC FIFO: closed SLC units in close order, linked like the full list ---- */

void slc_line_close(struct ftl *ftl, uint32_t id, uint64_t now_ns)
{
    struct line *l = &ftl->lines[id];
    l->written_ns = now_ns;
    l->close_seq = ++ftl->close_seq_next;
    l->state = LINE_SLC;
    l->prev = ftl->slc_tail;
    l->next = NO_LINE;
    if (ftl->slc_tail != NO_LINE) {
        ftl->lines[ftl->slc_tail].next = id;
    } else {
        ftl->slc_head = id;
    }
    ftl->slc_tail = id;
    ftl->slc_count++;
}

uint32_t slc_pop_oldest(struct ftl *ftl)
{
    uint32_t id = ftl->slc_head;
    if (id == NO_LINE) {
        return NO_LINE;
    }
    struct line *l = &ftl->lines[id];
    ftl->slc_head = l->next;
    if (l->next != NO_LINE) {
        ftl->lines[l->next].prev = NO_LINE;
    } else {
        ftl->slc_tail = NO_LINE;
    }
    l->prev = l->next = NO_LINE;
    ftl->slc_count--;
    ftl->slc_fold_off = 0;      /* the next one is folded from its first page */
    return id;
}

/* ---- victim heaps: one per free pool, pool p's in victim_heap[p * pool_cap, ...) ---- */

/* The heap a line belongs to: its first entry and its size. */
struct heap {
    uint32_t *ids;
    uint32_t *count;
};

static struct heap heap_of(struct ftl *ftl, uint32_t id)
{
    uint32_t pool = unit_pool(ftl, id);
    return (struct heap){ ftl->victim_heap + (size_t)pool * ftl->pool_cap,
                          &ftl->heap_count[pool] };
}

static void heap_place(struct ftl *ftl, struct heap h, uint32_t pos, uint32_t id)
{
    h.ids[pos] = id;
    ftl->lines[id].heap_pos = pos;
}

static void heap_sift_up(struct ftl *ftl, struct heap h, uint32_t pos)
{
    uint32_t id = h.ids[pos];
    uint32_t key = ftl->lines[id].valid;
    while (pos > 0) {
        uint32_t parent = (pos - 1) / 2;
        uint32_t pid = h.ids[parent];
        if (ftl->lines[pid].valid <= key) {
            break;
        }
        heap_place(ftl, h, pos, pid);
        pos = parent;
    }
    heap_place(ftl, h, pos, id);
}

static void heap_sift_down(struct ftl *ftl, struct heap h, uint32_t pos)
{
    uint32_t id = h.ids[pos];
    uint32_t key = ftl->lines[id].valid;
    for (;;) {
        uint32_t child = 2 * pos + 1;
        if (child >= *h.count) {
            break;
        }
        if (child + 1 < *h.count &&
            ftl->lines[h.ids[child + 1]].valid < ftl->lines[h.ids[child]].valid) {
            child++;
        }
        uint32_t cid = h.ids[child];
        if (ftl->lines[cid].valid >= key) {
            break;
        }
        heap_place(ftl, h, pos, cid);
        pos = child;
    }
    heap_place(ftl, h, pos, id);
}

static void victim_insert(struct ftl *ftl, uint32_t id)
{
    struct heap h = heap_of(ftl, id);
    ftl->lines[id].state = LINE_VICTIM;
    heap_place(ftl, h, (*h.count)++, id);
    heap_sift_up(ftl, h, *h.count - 1);
    ftl->victim_count++;
    ftl->victims_by_wp[ftl->lines[id].wp]++;
}

uint32_t victim_peek_pool(const struct ftl *ftl, uint32_t pool)
{
    return ftl->heap_count[pool] ? ftl->victim_heap[(size_t)pool * ftl->pool_cap] : NO_LINE;
}

uint32_t victim_peek(const struct ftl *ftl)
{
    uint32_t best = NO_LINE;
    for (uint32_t p = 0; p < ftl->npools; p++) {
        uint32_t top = victim_peek_pool(ftl, p);
        if (top != NO_LINE && (best == NO_LINE || ftl->lines[top].valid < ftl->lines[best].valid)) {
            best = top;
        }
    }
    return best;
}

void victim_remove(struct ftl *ftl, uint32_t id)
{
    struct heap h = heap_of(ftl, id);
    uint32_t pos = ftl->lines[id].heap_pos;
    uint32_t last = h.ids[--*h.count];
    ftl->victim_count--;
    ftl->victims_by_wp[ftl->lines[id].wp]--;
    if (last != id) {
        heap_place(ftl, h, pos, last);
        heap_sift_up(ftl, h, pos);
        heap_sift_down(ftl, h, ftl->lines[last].heap_pos);
    }
}

uint32_t victims_list(const struct ftl *ftl, uint32_t lun, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < ftl->npools; p++) {
        if (lun != GC_ANY_LUN && p != lun) {
            continue;
        }
        const uint32_t *ids = ftl->victim_heap + (size_t)p * ftl->pool_cap;
        for (uint32_t k = 0; k < ftl->heap_count[p]; k++) {
            out[n++] = ids[k];
        }
    }
    return n;
}

/* ---- state changes ---- */

void line_close(struct ftl *ftl, uint32_t id, uint64_t now_ns)
{
    /* when and in which order lines were last written: cost-benefit and fifo GC ask */
    ftl->lines[id].written_ns = now_ns;
    ftl->lines[id].close_seq = ++ftl->close_seq_next;
    if (ftl->lines[id].invalid == 0) {
        full_list_append(ftl, id);
    } else {
        victim_insert(ftl, id);
    }
}

void line_page_invalidated(struct ftl *ftl, uint32_t id)
{
    switch (ftl->lines[id].state) {
    case LINE_FULL:
        full_list_remove(ftl, id);
        victim_insert(ftl, id);
        break;
    case LINE_VICTIM:   /* fewer valid pages: a better victim */
        heap_sift_up(ftl, heap_of(ftl, id), ftl->lines[id].heap_pos);
        break;
    default:  /* open lines and the line under GC wait for their own transitions */
        break;
    }
}
