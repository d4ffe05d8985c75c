/*
 * The stores of one FTL (femu_ftl/kv.h): sizing a store's region, creating and forgetting
 * stores, their figures.
 *
 * The list hangs off struct ftl's kv pointer, created by the first ftl_kv_create. core
 * (ftl_destroy, ftl_get_gauges) sits below this layer and may not call it by name, so the
 * list's destructor goes into the handle's kv_free when the list is made, and the gauges
 * into its kv_keys / kv_live_bytes after every change (kv_stores.c).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "config/config_checks.h"
#include "femu_ftl/error.h"
#include "flash/ftl_handle.h"
#include "kv/kv_check.h"
#include "kv/kv_index.h"
#include "kv/kv_log.h"
#include "kv/kv_map.h"
#include "kv/kv_stores.h"
#include "kv/kv_treap.h"

/* What a store of capacity_bytes is made of. */
struct kv_layout {
    uint64_t max_keys, index_pages, seg_pages, nsegs, pages;
};

/*
 * The layout of a store of cap bytes; false when cap is 0 or it would not fit the FTL.
 *
 * Admission lets live values reach cap bytes under max_keys keys, so the live records
 * take at most cap + max_keys * (header + largest key) bytes. A segment may end in up to
 * one largest record less a byte of padding, so it is sure to hold only seg_bytes -
 * (largest record - 1) bytes of records. The log holds the live records' worst case plus
 * kv_op_pct of it in such segments, plus the slack and the head: then the closed segment
 * with the fewest live bytes always holds less than a segment's sure room, so every
 * compaction gains free bytes and the log never refuses what admission accepted.
 */
static bool kv_layout_of(const struct ftl *ftl, uint64_t cap, struct kv_layout *out)
{
    const struct ftl_config *cfg = &ftl->cfg;
    uint64_t pb = ftl->geo.page_bytes;
    uint64_t epp = pb / KV_INDEX_ENTRY;
    struct kv_layout k = { .seg_pages = config_kv_segment_pages(cfg, &ftl->geo) };
    uint64_t overhead, records, need, seg_bytes, sure, segs, log_total;
    uint64_t rec_max = KV_REC_HEADER + FTL_KV_KEY_MAX + (uint64_t)cfg->kv_max_value;
    if (cap == 0 || epp == 0 || k.seg_pages == 0 || !mul_ok(k.seg_pages, pb, &seg_bytes) ||
        seg_bytes < rec_max) {
        return false;
    }
    k.max_keys = cfg->kv_max_keys;
    if (k.max_keys == 0) {
        k.max_keys = cap / 1024 < epp ? epp : cap / 1024;   /* one index page at least */
    }
    k.index_pages = k.max_keys / epp + (k.max_keys % epp != 0);
    if (!mul_ok(k.max_keys, KV_REC_HEADER + FTL_KV_KEY_MAX, &overhead) ||
        cap > UINT64_MAX - overhead) {
        return false;
    }
    records = cap + overhead;
    if (records > UINT64_MAX / (100 + cfg->kv_op_pct)) {
        return false;
    }
    need = records * (100 + cfg->kv_op_pct) / 100;
    sure = seg_bytes - (rec_max - 1);
    segs = need / sure + (need % sure != 0) + KV_SLACK_SEGMENTS + 1;   /* + the head */
    if (!mul_ok(segs, k.seg_pages, &log_total) || segs > UINT32_MAX - 1) {
        return false;
    }
    k.nsegs = segs;
    k.pages = k.index_pages + log_total;
    if (k.pages < log_total || k.pages > ftl->geo.logical_pages) {
        return false;
    }
    *out = k;
    return true;
}

uint64_t ftl_kv_region_sectors(const struct ftl *ftl, uint64_t capacity_bytes)
{
    struct kv_layout k;
    return kv_layout_of(ftl, capacity_bytes, &k) ? k.pages * ftl->secs_per_pg : 0;
}

uint64_t ftl_kv_capacity(const struct ftl *ftl, uint64_t sectors)
{
    /* region_sectors grows with the capacity, and a store's values take less than its
     * region's bytes: the largest fitting capacity by bisection below that bound */
    uint64_t lo = 0, hi;
    if (!mul_ok(sectors, ftl->cfg.secsz, &hi)) {
        hi = UINT64_MAX;
    }
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        uint64_t need = ftl_kv_region_sectors(ftl, mid);
        if (need != 0 && need <= sectors) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

static void store_free(struct kv_store *s)
{
    kv_adm_free(&s->adm);
    kv_map_free(&s->map);
    kv_log_free(&s->log);
    kv_index_free(&s->cache);
    free(s);
}

static void stores_free(struct ftl *ftl)
{
    struct kv_stores *all = ftl->kv;
    for (uint32_t i = 0; all && i < all->n; i++) {
        store_free(all->v[i]);
    }
    if (all) {
        free(all->v);
        free(all);
    }
    ftl->kv = NULL;
    ftl->kv_keys = ftl->kv_live_bytes = ftl->kv_host_bytes = 0;
}

/* The list, made on first use, with room for one more store. */
static bool stores_reserve(struct ftl *ftl)
{
    if (!ftl->kv) {
        ftl->kv = calloc(1, sizeof(*ftl->kv));
        if (!ftl->kv) {
            return false;
        }
        ftl->kv_free = stores_free;
        ftl->kv_check = kv_check_tables;
    }
    struct kv_stores *all = ftl->kv;
    if (all->n < all->cap) {
        return true;
    }
    uint32_t cap = all->cap ? all->cap * 2 : 4;
    struct kv_store **v = realloc(all->v, cap * sizeof(*v));
    if (!v) {
        return false;
    }
    all->v = v;
    all->cap = cap;
    return true;
}

/* The range: whole pages inside the conventional space, overlapping no other store. */
static int check_range(const struct ftl *ftl, uint64_t base, uint64_t sectors, char *err,
                       size_t errlen)
{
    uint64_t spp = ftl->secs_per_pg;
    if (sectors == 0 || base % spp || sectors % spp || base > ftl->geo.logical_sectors ||
        sectors > ftl->geo.logical_sectors - base) {
        return ftl_error(err, errlen, "kv: sectors [%" PRIu64 ", +%" PRIu64 ") are not whole "
                         "%" PRIu64 "-sector pages inside the %" PRIu64 " sectors", base,
                         sectors, spp, ftl->geo.logical_sectors);
    }
    const struct kv_stores *all = ftl->kv;
    for (uint32_t i = 0; all && i < all->n; i++) {
        const struct kv_store *o = all->v[i];
        if (base < o->base_sector + o->sectors && o->base_sector < base + sectors) {
            return ftl_error(err, errlen, "kv: sectors [%" PRIu64 ", +%" PRIu64 ") overlap "
                             "namespace %" PRIu32 "'s store", base, sectors, o->nsid);
        }
    }
    return 0;
}

static int store_init(struct kv_store *s, const struct kv_layout *k, uint32_t cache_pages)
{
    s->max_keys = k->max_keys;
    s->index_pages = k->index_pages;
    s->seg_pages = k->seg_pages;
    if (kv_adm_init(&s->adm) != FTL_OK || kv_map_init(&s->map) != FTL_OK ||
        kv_log_init(&s->log, (uint32_t)k->nsegs) != FTL_OK ||
        kv_index_init(s, cache_pages) != FTL_OK) {
        return FTL_E_NOMEM;
    }
    return FTL_OK;
}

int ftl_kv_create(struct ftl *ftl, uint32_t nsid, uint64_t base_sector, uint64_t sectors,
                  uint64_t capacity_bytes, char *err, size_t errlen)
{
    struct kv_layout k;
    if (kv_store_of(ftl, nsid)) {
        return ftl_error(err, errlen, "kv: namespace %" PRIu32 " already has a store", nsid);
    }
    if (check_range(ftl, base_sector, sectors, err, errlen)) {
        return -1;
    }
    if (!kv_layout_of(ftl, capacity_bytes, &k) || k.pages * ftl->secs_per_pg > sectors) {
        return ftl_error(err, errlen, "kv: a store of %" PRIu64 " bytes does not fit %" PRIu64
                         " sectors (at most %" PRIu64 " bytes)", capacity_bytes, sectors,
                         ftl_kv_capacity(ftl, sectors));
    }
    if (ftl->cfg.kv_index_cache_pages > ftl->geo.logical_pages) {
        return ftl_error(err, errlen, "kv_index_cache_pages: %" PRIu64 " pages is more than "
                         "the device's %" PRIu64 " pages", ftl->cfg.kv_index_cache_pages,
                         ftl->geo.logical_pages);
    }
    /* A flash read that fails under read_uncor_ppm has no KV status (kv_pages.c): refuse
     * the combination rather than answer such a read as if it had worked. */
    if (ftl->cfg.read_uncor_ppm > 0) {
        return ftl_error(err, errlen, "read_uncor_ppm: failed flash reads are not modeled "
                         "under a key-value store; set it to 0 with kv");
    }
    /* a cache larger than the store's index holds the whole index */
    uint64_t cache = ftl->cfg.kv_index_cache_pages < k.index_pages ?
                     ftl->cfg.kv_index_cache_pages : k.index_pages;
    uint64_t all_caches = cache;
    for (uint32_t i = 0; ftl->kv && i < ftl->kv->n; i++) {
        all_caches += ftl->kv->v[i]->cache.cap;
    }
    if (config_check_kv_dram(&ftl->cfg, &ftl->geo, all_caches, err, errlen)) {
        return -1;
    }
    struct kv_store *s = calloc(1, sizeof(*s));
    if (!s || !stores_reserve(ftl)) {
        free(s);
        return ftl_error(err, errlen, "kv: out of memory");
    }
    *s = (struct kv_store){
        .nsid = nsid, .base_sector = base_sector, .sectors = sectors,
        .capacity_bytes = capacity_bytes, .max_value_bytes = (uint32_t)ftl->cfg.kv_max_value,
        .page_bytes = ftl->geo.page_bytes,
    };
    if (store_init(s, &k, (uint32_t)cache) != FTL_OK) {
        store_free(s);
        return ftl_error(err, errlen, "kv: out of memory for a store of %" PRIu64 " bytes",
                         capacity_bytes);
    }
    ftl->kv->v[ftl->kv->n++] = s;
    kv_gauges_update(ftl);
    return 0;
}

void ftl_kv_destroy(struct ftl *ftl, uint32_t nsid)
{
    struct kv_stores *all = ftl->kv;
    for (uint32_t i = 0; all && i < all->n; i++) {
        if (all->v[i]->nsid == nsid) {
            store_free(all->v[i]);
            for (uint32_t j = i + 1; j < all->n; j++) {
                all->v[j - 1] = all->v[j];
            }
            all->n--;
            kv_gauges_update(ftl);
            return;
        }
    }
}

void ftl_kv_clear(struct ftl *ftl, uint32_t nsid)
{
    struct kv_store *s = kv_store_of(ftl, nsid);
    if (s) {
        kv_adm_clear(&s->adm);
    }
}

bool ftl_kv_info(const struct ftl *ftl, uint32_t nsid, struct ftl_kv_info *out)
{
    const struct kv_store *s = kv_store_of(ftl, nsid);
    if (!s) {
        return false;
    }
    if (out) {
        *out = (struct ftl_kv_info){
            .capacity_bytes = s->capacity_bytes, .used_bytes = s->adm.live_bytes,
            .keys = s->adm.keys, .max_keys = s->max_keys,
            .max_value_bytes = s->max_value_bytes, .base_sector = s->base_sector,
            .sectors = s->sectors,
        };
    }
    return true;
}
