/*
 * spsc_ring: see spsc_ring.h for the contract.
 *
 * Indices are free-running counters (never masked when stored): the fill level is
 * tail - head in unsigned arithmetic, which stays correct across size_t wrap-around
 * because the capacity is a power of two and so divides 2^(bits of size_t).
 */
#include "spsc_ring.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * 128 rather than 64 bytes: common x86 cores prefetch cache lines in adjacent pairs and
 * some ARM cores use 128-byte lines, so 64 could still leave the two sides interfering.
 */
#define SPSC_RING_LINE 128

struct spsc_ring {
    /* Producer's line: only the producer writes here. */
    alignas(SPSC_RING_LINE) atomic_size_t tail;     /* next slot to fill */
    size_t head_cache;      /* producer's last view of head; refreshed only when it looks full */

    /* Consumer's line: only the consumer writes here. */
    alignas(SPSC_RING_LINE) atomic_size_t head;     /* next slot to drain */
    size_t tail_cache;      /* consumer's last view of tail; refreshed only when it looks empty */

    /* Read-only after create, so both sides keep it cached in the shared state. */
    alignas(SPSC_RING_LINE) size_t mask;
    size_t capacity;
    void **slots;
};

static void ring_error(char *err, size_t errlen, const char *msg, size_t capacity)
{
    if (err && errlen > 0) {
        snprintf(err, errlen, "spsc_ring: %s (capacity %zu)", msg, capacity);
    }
}

struct spsc_ring *spsc_ring_create(size_t capacity, char *err, size_t errlen)
{
    if (capacity == 0 || (capacity & (capacity - 1)) != 0) {
        ring_error(err, errlen, "capacity must be a power of two", capacity);
        return NULL;
    }
    if (capacity > SPSC_RING_MAX_CAPACITY) {
        ring_error(err, errlen, "capacity exceeds SPSC_RING_MAX_CAPACITY", capacity);
        return NULL;
    }
    /* sizeof is a multiple of the alignment, as aligned_alloc requires. */
    struct spsc_ring *r = aligned_alloc(alignof(struct spsc_ring), sizeof(*r));
    void **slots = calloc(capacity, sizeof(*slots));
    if (!r || !slots) {
        free(r);
        free(slots);
        ring_error(err, errlen, "out of memory", capacity);
        return NULL;
    }
    atomic_init(&r->tail, 0);
    r->head_cache = 0;
    atomic_init(&r->head, 0);
    r->tail_cache = 0;
    r->mask = capacity - 1;
    r->capacity = capacity;
    r->slots = slots;
    return r;
}

void spsc_ring_destroy(struct spsc_ring *r)
{
    if (r) {
        free(r->slots);
        free(r);
    }
}

bool spsc_ring_push(struct spsc_ring *r, void *item)
{
    /* Relaxed: the producer is the only writer of tail, so it reads its own last store. */
    size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

    if (tail - r->head_cache == r->capacity) {
        /* Acquire: the consumer's reads of the slots it freed finish before we overwrite. */
        r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
        if (tail - r->head_cache == r->capacity) {
            return false;
        }
    }
    r->slots[tail & r->mask] = item;
    /* Release: the slot (and whatever item points to) is visible before the new tail. */
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
    return true;
}

/* Items the consumer may take now, refreshing its view of tail only when it needs more. */
static size_t consumer_available(struct spsc_ring *r, size_t head, size_t wanted)
{
    size_t avail = r->tail_cache - head;

    if (avail < wanted) {
        /* Acquire: pairs with the producer's release store of tail. */
        r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
        avail = r->tail_cache - head;
    }
    return avail;
}

bool spsc_ring_pop(struct spsc_ring *r, void **item)
{
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);

    if (consumer_available(r, head, 1) == 0) {
        return false;
    }
    *item = r->slots[head & r->mask];
    /* Release: our read of the slot completes before the producer may reuse it. */
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
    return true;
}

size_t spsc_ring_pop_batch(struct spsc_ring *r, void **items, size_t max)
{
    if (max == 0) {
        return 0;
    }
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t n = consumer_available(r, head, max);

    if (n > max) {
        n = max;
    }
    for (size_t i = 0; i < n; i++) {
        items[i] = r->slots[(head + i) & r->mask];
    }
    if (n > 0) {
        /* One release store publishes the whole batch of freed slots. */
        atomic_store_explicit(&r->head, head + n, memory_order_release);
    }
    return n;
}

size_t spsc_ring_count(const struct spsc_ring *r)
{
    /* The atomic loads do not modify the ring; the cast only satisfies older compilers. */
    struct spsc_ring *m = (struct spsc_ring *)r;
    /*
     * head first: a tail loaded afterwards is at least that head, so the difference cannot
     * go negative. From a third thread the producer may run ahead between the two loads,
     * hence the clamp to capacity.
     */
    size_t head = atomic_load_explicit(&m->head, memory_order_acquire);
    size_t tail = atomic_load_explicit(&m->tail, memory_order_acquire);
    size_t n = tail - head;

    return n > r->capacity ? r->capacity : n;
}

size_t spsc_ring_capacity(const struct spsc_ring *r)
{
    return r->capacity;
}
