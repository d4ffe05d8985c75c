/* The key-value stores' keys (femu_ftl/kv.h): index cache, log over-provisioning, largest
 * value, key count and the log's segment; the segment a configuration makes. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

/* A log record's bytes beyond its value: an 8-byte header and a key of up to 16 bytes. */
#define KV_RECORD_EXTRA 24u

static const struct config_key keys[] = {
    UKEY(kv_index_cache_pages, 1, UINT32_MAX, "kv: index pages a key-value store caches in "
         "DRAM, least recently used evicted (a cache larger than the store's index holds it "
         "all)"),
    UKEY(kv_op_pct, 1, 400, "kv: value-log over-provisioning, percent of a store's capacity"),
    UKEY(kv_max_value, 1, 1ull << 31, "kv: largest value in bytes"),
    UKEY(kv_max_keys, 0, UINT32_MAX - 1, "kv: keys a store holds (0: capacity / 1024, at "
         "least one index page's worth)"),
    UKEY(kv_segment_pages, 0, 1u << 20, "kv: pages of a value-log segment, the compaction "
         "unit, at least 2 (0: a block's pages, times the blocks the largest record needs)"),
};

const struct config_key_group config_kv_keys = KEY_GROUP(keys);

uint64_t config_kv_segment_pages(const struct ftl_config *cfg, const struct ftl_geometry *g)
{
    if (cfg->kv_segment_pages) {
        return cfg->kv_segment_pages;
    }
    uint64_t block_bytes = cfg->pgs_per_blk * g->page_bytes;    /* both capped */
    uint64_t record = cfg->kv_max_value + KV_RECORD_EXTRA;
    uint64_t pages = cfg->pgs_per_blk * ((record + block_bytes - 1) / block_bytes);
    return pages < 2 ? 2 : pages;
}

/* A segment of at least two pages, byte offsets in 32 bits, holding the largest record. */
int config_check_kv(const struct ftl_config *cfg, const struct ftl_geometry *g,
                    char *err, size_t errlen)
{
    if (cfg->kv_segment_pages == 1) {
        return ftl_error(err, errlen, "kv_segment_pages: a segment needs at least 2 pages");
    }
    uint64_t pages = config_kv_segment_pages(cfg, g), bytes;
    if (!mul_ok(pages, g->page_bytes, &bytes) || bytes > UINT32_MAX) {
        return ftl_error(err, errlen, "kv_segment_pages: %" PRIu64 " pages of %" PRIu64
                         " bytes make a segment of 4 GiB or more", pages, g->page_bytes);
    }
    if (cfg->kv_max_value + KV_RECORD_EXTRA > bytes) {
        return ftl_error(err, errlen, "kv_max_value: %" PRIu64 " bytes and a record's %u "
                         "bytes of header and key do not fit a segment of %" PRIu64 " bytes "
                         "(kv_segment_pages=%" PRIu64 ")", cfg->kv_max_value,
                         KV_RECORD_EXTRA, bytes, pages);
    }
    return 0;
}

/* With dram_mb, the stores' index caches (cache_pages in all) fit beside the read cache,
 * the map and the write buffer (config_check_read_cache's budget). */
int config_check_kv_dram(const struct ftl_config *cfg, const struct ftl_geometry *g,
                         uint64_t cache_pages, char *err, size_t errlen)
{
    if (cfg->dram_mb == 0) {
        return 0;
    }
    uint64_t index = config_kv_index_cache_bytes(g, cache_pages);
    uint64_t rest = cfg->read_cache_pages * g->page_bytes + config_device_map_bytes(cfg, g) +
                    cfg->write_buffer_sectors * cfg->secsz;
    uint64_t dram = cfg->dram_mb * MIB;
    if (index > dram || rest > dram - index) {
        return ftl_error(err, errlen, "kv_index_cache_pages: the key-value index caches (%"
                         PRIu64 " bytes) do not fit beside the read cache, the map and the "
                         "write buffer (%" PRIu64 " bytes) in dram_mb=%" PRIu64, index, rest,
                         cfg->dram_mb);
    }
    return 0;
}
