/* A store's region pages through the FTL's host path (kv_pages.c). */
#ifndef FEMU_FTL_KV_KV_PAGES_H
#define FEMU_FTL_KV_KV_PAGES_H

#include <stdint.h>

#include "kv/kv_tables.h"

struct ftl;

/*
 * One page of the store's region (region page p) through the FTL's host path at now_ns;
 * writes with fua so no page of a store waits in a volatile buffer. The time the page's
 * I/O ends is folded into *done (the max). FTL status.
 */
int kv_page_read(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t now_ns,
                 uint64_t *done);
int kv_page_write(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t now_ns,
                  uint64_t *done);
int kv_pages_trim(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t n,
                  uint64_t now_ns, uint64_t *done);

#endif
