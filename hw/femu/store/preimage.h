/*
 * Pre-images for power loss: for each logical page with sectors in the FTL's volatile
 * write buffer, the bytes those sectors held on flash when they entered it. The data
 * store only keeps the newest bytes; a power cut without protection loses the buffered
 * ones, and the device puts these back (backend/power_cut.c), so a lost LBA reads what
 * the flash still has. The host fills an entry sector by sector as the FTL reports
 * sectors entering the buffer, and drops entries of pages that left it.
 *
 * Plain C11, no QEMU header; one thread at a time (the device calls it under its
 * engine lock).
 */
#ifndef FEMU_PREIMAGE_H
#define FEMU_PREIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct preimage_table;

/* Pages of sectors_per_page (1..64) sectors of sector_bytes; NULL when out of memory
 * or the geometry is unusable. */
struct preimage_table *preimage_create(uint32_t sector_bytes, uint32_t sectors_per_page);
void preimage_destroy(struct preimage_table *t);

/*
 * Keep the flash bytes of the sectors of page lpn set in mask: sector i (i >= first) is
 * read at src + (i - first) * sector_bytes. fresh: the page had nothing buffered before,
 * so whatever the entry held is forgotten first. Returns false when out of memory (the
 * entry is then dropped: those sectors have no pre-image).
 */
bool preimage_save(struct preimage_table *t, uint64_t lpn, bool fresh, uint64_t mask,
                   const uint8_t *src, uint32_t first);

/* The kept bytes of sector `sector` of page lpn, or NULL when none are kept. */
const uint8_t *preimage_sector(const struct preimage_table *t, uint64_t lpn,
                               uint32_t sector);

void preimage_drop(struct preimage_table *t, uint64_t lpn);
/* Drop the entries whose page buffered(ctx, lpn) says has nothing buffered (0). */
void preimage_prune(struct preimage_table *t, uint64_t (*buffered)(void *ctx, uint64_t lpn),
                    void *ctx);
void preimage_clear(struct preimage_table *t);
/* Pages with an entry. */
size_t preimage_count(const struct preimage_table *t);

#endif
