/*
 * completion_heap: binary min-heap of (time_ns, item) for completions ordered in time.
 *
 * Entries with equal time_ns leave in insertion order (a per-heap sequence number breaks
 * ties), so commands due in the same ns complete in the order they were submitted.
 * Plain C11, no QEMU header, no globals, no threads: one caller at a time per heap.
 * Allocation failure is reported by a false return; nothing here aborts.
 */
#ifndef FEMU_COMPLETION_HEAP_H
#define FEMU_COMPLETION_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct completion_heap_entry {
    uint64_t time_ns;
    uint64_t seq;       /* insertion sequence: the tie-break for equal times */
    void *item;
};

/* Caller-owned so it can live inside the device state; treat the fields as private. */
struct completion_heap {
    struct completion_heap_entry *entries;
    size_t count;
    size_t capacity;
    uint64_t next_seq;
};

/*
 * Initialise an empty heap with room for initial_capacity entries (0 allocates on the
 * first push). Returns false on allocation failure, leaving a valid empty heap that
 * destroy accepts.
 */
bool completion_heap_init(struct completion_heap *h, size_t initial_capacity);
/* Free the storage; items are not touched. The heap may be initialised again. */
void completion_heap_destroy(struct completion_heap *h);

/* Make room for count entries in all, so pushes up to that cannot fail. False on OOM. */
bool completion_heap_reserve(struct completion_heap *h, size_t count);
/* Add an entry, doubling the storage when full. Returns false (heap unchanged) on OOM. */
bool completion_heap_push(struct completion_heap *h, uint64_t time_ns, void *item);
/* The earliest entry without removing it; false when empty. Either output may be NULL. */
bool completion_heap_peek(const struct completion_heap *h, uint64_t *time_ns, void **item);
/* Remove the earliest entry; false (outputs untouched) when empty. Outputs may be NULL. */
bool completion_heap_pop(struct completion_heap *h, uint64_t *time_ns, void **item);
size_t completion_heap_count(const struct completion_heap *h);

/*
 * Remove, in order, every entry with time_ns <= now_ns, at most max of them, into
 * items[0..n-1]; returns n. Entries left behind are due later or beyond max.
 */
size_t completion_heap_pop_due(struct completion_heap *h, uint64_t now_ns,
                               void **items, size_t max);

#ifdef __cplusplus
}
#endif

#endif
