/*
 * A store's region pages through the FTL's own host path (core's ftl_read, ftl_write,
 * ftl_trim), so flash timing, placement, GC, wear, DFTL and the page-FTL statistics all
 * apply under the KV layer. Writes carry Force Unit Access: no page of a store waits in
 * a volatile write buffer.
 */
#include "flash/ftl_handle.h"
#include "kv/kv_pages.h"

/* One page's I/O of region page p; its end folded into *done. A failed flash read
 * (read_uncor_ppm) cannot happen: ftl_kv_create refuses a store under it. */
static int page_io(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t n,
                   int kind, uint64_t now_ns, uint64_t *done)
{
    struct ftl_io io = { .now_ns = now_ns, .slba = s->base_sector + p * ftl->secs_per_pg,
                         .nlb = n * ftl->secs_per_pg, .fua = true };
    uint64_t end = now_ns;
    int rc = kind == 0 ? ftl_read(ftl, &io, &end)
             : kind == 1 ? ftl_write(ftl, &io, &end) : ftl_trim(ftl, &io, &end);
    if (rc == FTL_E_UNCORRECTABLE) {
        rc = FTL_OK;
    }
    if (rc == FTL_OK && end > *done) {
        *done = end;
    }
    return rc;
}

int kv_page_read(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t now_ns,
                 uint64_t *done)
{
    return page_io(ftl, s, p, 1, 0, now_ns, done);
}

int kv_page_write(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t now_ns,
                  uint64_t *done)
{
    return page_io(ftl, s, p, 1, 1, now_ns, done);
}

int kv_pages_trim(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t n,
                  uint64_t now_ns, uint64_t *done)
{
    return page_io(ftl, s, p, n, 2, now_ns, done);
}
