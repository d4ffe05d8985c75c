/*
 * The device's data store: the namespace's bytes in anonymous host memory, mapped lazily
 * so untouched space costs nothing, with deallocation that hands memory back to the host
 * (and reads back as zeroes, as the namespace's identify data promises).
 *
 * Plain C11 + POSIX, no QEMU header. Callers check ranges with data_store_range_ok()
 * (every other call assumes a valid range); concurrent calls on disjoint ranges are safe.
 */
#ifndef FEMU_DATA_STORE_H
#define FEMU_DATA_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct data_store;

/* Reserve `bytes` of address space (nothing is committed until written). */
struct data_store *data_store_create(uint64_t bytes, char *err, size_t errlen);
void data_store_destroy(struct data_store *ds);

uint64_t data_store_size(const struct data_store *ds);

/* Whether [offset, offset + len) lies inside the store, without overflow. */
bool data_store_range_ok(const struct data_store *ds, uint64_t offset, uint64_t len);

/* Direct access for DMA into or out of the store; the range must be valid. */
uint8_t *data_store_at(struct data_store *ds, uint64_t offset);

void data_store_read(const struct data_store *ds, uint64_t offset, void *buf, size_t len);
void data_store_write(struct data_store *ds, uint64_t offset, const void *buf, size_t len);

/*
 * Make the range read as zeroes. Whole host pages inside it are returned to the host;
 * the partial pages at its edges are cleared in place, and only if they hold data, so
 * discarding never-written space allocates nothing. Returns 0, or -1 if the host
 * refused to release pages (the range still reads as zeroes).
 */
int data_store_discard(struct data_store *ds, uint64_t offset, uint64_t len);

/* Bytes of the store backed by host memory now (page granular; for tests and stats). */
uint64_t data_store_resident_bytes(const struct data_store *ds);

#endif
