/* The DRAM write buffer (write_buffer.c; write_buffer_sectors > 0): only called when
 * ftl->wbuf is set. */
#ifndef FEMU_FTL_WBUF_WRITE_BUFFER_H
#define FEMU_FTL_WBUF_WRITE_BUFFER_H

#include "flash/ftl_handle.h"

int wbuf_init(struct ftl *ftl);             /* FTL_OK or FTL_E_NOMEM */
void wbuf_free(struct ftl *ftl);
/* A host write into the buffer (range checked by the caller); flushes LRU pages past the
 * watermark. *done_ns: buf_wr_lat after arrival, or later when it needed room
 * (buf_flush_mode: when the flushes it started end, or when enough in flight ended). */
int wbuf_write(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns);
/* A page of a FUA write, or any write with the cache off (accepted by the caller):
 * programmed now. A page with sectors buffered takes them along (mask merged into its
 * entry, which is flushed: a fill read first if holes remain), so the flash copy is the
 * newest; any other page is programmed as without a buffer. Raises *done. */
int wbuf_write_through(struct ftl *ftl, uint32_t lpn, uint64_t mask, uint32_t stream,
                       uint64_t now_ns, uint64_t *done);
/* Each buffered page, least recently written first: its LPN and buffered sectors (bit i:
 * sector i of the page). */
void wbuf_for_each(const struct ftl *ftl, void (*fn)(void *ctx, uint32_t lpn, uint64_t mask),
                   void *ctx);
/* Pages buffered now. */
uint32_t wbuf_pages(const struct ftl *ftl);
/* The buffered sectors of lpn (0: none). */
uint64_t wbuf_mask(const struct ftl *ftl, uint32_t lpn);
/* Whether every sector of lpn set in mask (bit i: sector i of the page) is buffered. */
bool wbuf_covers(const struct ftl *ftl, uint32_t lpn, uint64_t mask);
/* Write the `pages` least recently written buffered pages to flash (all there are, if
 * fewer); *done_ns when the last program ends. */
int wbuf_flush_oldest(struct ftl *ftl, uint64_t pages, uint64_t now_ns, uint64_t *done_ns);
/* Write every buffered page to flash; *done_ns when the last program ends, its own or
 * (ahead) one an earlier write's flush started. */
int wbuf_flush_all(struct ftl *ftl, uint64_t now_ns, uint64_t *done_ns);
/* A power cut or a restore: no flush is programming any more. */
void wbuf_forget_flights(struct ftl *ftl);
/* Forget buffered pages in [start, end) (trim, format, a Copy onto them, a power cut):
 * their data is gone (buf_dropped_pages). */
void wbuf_drop(struct ftl *ftl, uint64_t start, uint64_t end);
uint64_t wbuf_sectors(const struct ftl *ftl);
int wbuf_check(const struct ftl *ftl, char *err, size_t errlen);
size_t wbuf_metadata_bytes(const struct ftl *ftl);

#endif
