/*
 * spsc_ring: bounded single-producer single-consumer lock-free ring of pointers.
 *
 * Carries requests from a poller thread to the FTL thread (or any one thread to one
 * other) without locks. Plain C11 (<stdatomic.h>), no QEMU header, no globals.
 *
 * Threading contract: exactly one thread at a time may call spsc_ring_push (the producer)
 * and exactly one thread at a time may call spsc_ring_pop / spsc_ring_pop_batch (the
 * consumer); count and capacity may be called from any thread. Everything the producer
 * wrote before pushing an item happens-before everything the consumer does after popping
 * it (release on publish, acquire on observe). create and destroy must not race with any
 * other call; handing a role to another thread needs the caller's own synchronisation.
 */
#ifndef FEMU_SPSC_RING_H
#define FEMU_SPSC_RING_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest accepted capacity: 16 Mi slots (128 MiB of pointers on 64-bit hosts). */
#define SPSC_RING_MAX_CAPACITY ((size_t)1 << 24)

struct spsc_ring;

/*
 * Create an empty ring of `capacity` slots, a power of two in [1, SPSC_RING_MAX_CAPACITY].
 * On failure returns NULL with a one-line reason in err (if err is non-NULL and errlen > 0).
 */
struct spsc_ring *spsc_ring_create(size_t capacity, char *err, size_t errlen);
/* Free the ring (NULL is a no-op). Items still inside are not touched. */
void spsc_ring_destroy(struct spsc_ring *r);

/* Producer: append item (NULL is a valid item). Returns false, changing nothing, if full. */
bool spsc_ring_push(struct spsc_ring *r, void *item);

/* Consumer: remove the oldest item into *item. Returns false, *item untouched, if empty. */
bool spsc_ring_pop(struct spsc_ring *r, void **item);
/* Consumer: remove up to max oldest items into items[0..n-1] in order; returns n. */
size_t spsc_ring_pop_batch(struct spsc_ring *r, void **items, size_t max);

/*
 * Number of items inside, in [0, capacity]. Exact for the producer or consumer while the
 * other side is idle; otherwise a snapshot that may already be stale when it returns.
 */
size_t spsc_ring_count(const struct spsc_ring *r);
size_t spsc_ring_capacity(const struct spsc_ring *r);

#ifdef __cplusplus
}
#endif

#endif
