/* Host page programs that may still be in flight (inflight.c): what a power cut tears. */
#ifndef FEMU_FTL_HOSTIO_INFLIGHT_H
#define FEMU_FTL_HOSTIO_INFLIGHT_H

#include "flash/ftl_handle.h"

/* Room for one more program issued at now_ns: the ring forgets programs ended by then
 * (no cut may come before now_ns) and grows if still full. false: out of memory. */
bool inflight_reserve(struct ftl *ftl, uint64_t now_ns);
/* Host page lpn is being programmed at ppa until end_ns (after inflight_reserve). */
void inflight_note(struct ftl *ftl, uint32_t lpn, uint32_t ppa, uint64_t end_ns);
/*
 * A power cut at now_ns: call fn once for each LPN, in LPN order, whose mapped flash copy
 * is a program that ends after now_ns (a page rewritten or trimmed since holds no torn
 * copy: only the program the map points at counts), then forget every program. Returns
 * how many LPNs.
 */
uint64_t inflight_take_torn(struct ftl *ftl, uint64_t now_ns,
                            void (*fn)(void *ctx, uint32_t lpn), void *ctx);
/* Every program ended (a power-on, a restore): the ring is empty. */
void inflight_clear(struct ftl *ftl);
void inflight_free(struct ftl *ftl);
size_t inflight_metadata_bytes(const struct ftl *ftl);

#endif
