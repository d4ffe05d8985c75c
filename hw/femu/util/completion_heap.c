/*
 * completion_heap: see completion_heap.h. Array-backed binary heap, root at index 0,
 * children of i at 2i+1 and 2i+2. Sifting moves a "hole" rather than swapping, so each
 * level costs one entry copy instead of three.
 */
#include "completion_heap.h"

#include <stdint.h>
#include <stdlib.h>

/* First allocation when the heap started with none: enough for a small queue. */
#define COMPLETION_HEAP_MIN_CAPACITY 16

/* Strict (time, seq) order; seq is unique per heap, so no two entries compare equal. */
static bool entry_before(const struct completion_heap_entry *a,
                         const struct completion_heap_entry *b)
{
    return a->time_ns < b->time_ns || (a->time_ns == b->time_ns && a->seq < b->seq);
}

static bool heap_resize(struct completion_heap *h, size_t capacity)
{
    /* Refuse sizes whose byte count would overflow size_t rather than wrap. */
    if (capacity > SIZE_MAX / sizeof(*h->entries)) {
        return false;
    }
    struct completion_heap_entry *e = realloc(h->entries, capacity * sizeof(*e));
    if (!e) {
        return false;
    }
    h->entries = e;
    h->capacity = capacity;
    return true;
}

bool completion_heap_init(struct completion_heap *h, size_t initial_capacity)
{
    h->entries = NULL;
    h->count = 0;
    h->capacity = 0;
    h->next_seq = 0;
    return initial_capacity == 0 || heap_resize(h, initial_capacity);
}

void completion_heap_destroy(struct completion_heap *h)
{
    free(h->entries);
    h->entries = NULL;
    h->count = 0;
    h->capacity = 0;
}

bool completion_heap_reserve(struct completion_heap *h, size_t count)
{
    if (count <= h->capacity) {
        return true;
    }
    size_t want = h->capacity ? h->capacity : COMPLETION_HEAP_MIN_CAPACITY;
    while (want < count) {
        if (want > SIZE_MAX / 2) {
            return false;
        }
        want *= 2;
    }
    return heap_resize(h, want);
}

bool completion_heap_push(struct completion_heap *h, uint64_t time_ns, void *item)
{
    if (h->count == h->capacity) {
        size_t want = h->capacity ? h->capacity * 2 : COMPLETION_HEAP_MIN_CAPACITY;
        if (want < h->capacity || !heap_resize(h, want)) {
            return false;
        }
    }
    struct completion_heap_entry e = { time_ns, h->next_seq++, item };
    /* 2^64 pushes are out of reach, so seq never wraps and ties stay in push order. */
    size_t i = h->count++;

    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!entry_before(&e, &h->entries[parent])) {
            break;
        }
        h->entries[i] = h->entries[parent];
        i = parent;
    }
    h->entries[i] = e;
    return true;
}

bool completion_heap_peek(const struct completion_heap *h, uint64_t *time_ns, void **item)
{
    if (h->count == 0) {
        return false;
    }
    if (time_ns) {
        *time_ns = h->entries[0].time_ns;
    }
    if (item) {
        *item = h->entries[0].item;
    }
    return true;
}

bool completion_heap_pop(struct completion_heap *h, uint64_t *time_ns, void **item)
{
    if (!completion_heap_peek(h, time_ns, item)) {
        return false;
    }
    /* Re-seat the last entry from the root's hole downwards. */
    struct completion_heap_entry last = h->entries[--h->count];
    size_t n = h->count;
    size_t i = 0;

    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) {
            break;
        }
        if (child + 1 < n && entry_before(&h->entries[child + 1], &h->entries[child])) {
            child++;
        }
        if (!entry_before(&h->entries[child], &last)) {
            break;
        }
        h->entries[i] = h->entries[child];
        i = child;
    }
    if (n > 0) {
        h->entries[i] = last;
    }
    return true;
}

size_t completion_heap_count(const struct completion_heap *h)
{
    return h->count;
}

size_t completion_heap_pop_due(struct completion_heap *h, uint64_t now_ns,
                               void **items, size_t max)
{
    size_t n = 0;

    while (n < max && h->count > 0 && h->entries[0].time_ns <= now_ns) {
        completion_heap_pop(h, NULL, &items[n]);
        n++;
    }
    return n;
}
