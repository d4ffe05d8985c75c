/* The DRAM write buffer's keys and power-loss protection, which saves it at a cut. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const char *const flush_mode_names[] = {
    [FTL_BUF_FLUSH_WAIT] = "wait", [FTL_BUF_FLUSH_AHEAD] = "ahead",
};

static const struct config_key keys[] = {
    UKEY(write_buffer_sectors, 0, UINT32_MAX, "sectors of DRAM write buffer in front of "
         "the flash (0: none)"),
    UKEY(buf_wr_lat, 0, MAX_LATENCY_NS, "write buffer: ns a write into DRAM takes"),
    UKEY(buf_flush_pcent, 1, 100, "write buffer: flush least recently written pages while "
         "more than this percent of it is in use"),
    NKEY(buf_flush_mode, flush_mode_names, "write buffer: when a write that needs room "
         "completes: wait (when the flushes it started end, the default) | ahead (at "
         "buf_wr_lat, unless the buffered sectors plus those of its flushes still "
         "programming exceed write_buffer_sectors: then when enough of those end)"),
    SKEY(plp, "power-loss protection: off | on (a power cut programs the write buffer from "
         "stored energy and lets programs in flight end, so nothing acknowledged is lost; "
         "needs write_buffer_sectors > 0)"),
    UKEY(plp_budget_pages, 0, UINT32_MAX, "plp: pages the stored energy can program at a "
         "cut, least recently written first; the rest of the buffer is lost (0: the whole "
         "buffer, capacitors sized to it)"),
};

const struct config_key_group config_wbuf_keys = KEY_GROUP(keys);

/* The buffer keeps one bit per sector of a page and fits inside the device. */
int config_check_write_buffer(const struct ftl_config *cfg, const struct ftl_geometry *g,
                              char *err, size_t errlen)
{
    if (cfg->plp_budget_pages && !cfg->plp) {
        return ftl_error(err, errlen, "plp_budget_pages: an energy budget needs power-loss "
                         "protection (plp=on)");
    }
    if (cfg->write_buffer_sectors == 0) {
        /* without a buffer nothing waits in DRAM: no energy store has anything to save */
        if (cfg->buf_flush_mode != FTL_BUF_FLUSH_WAIT) {
            return ftl_error(err, errlen, "buf_flush_mode: ahead needs a write buffer "
                             "(write_buffer_sectors > 0)");
        }
        return cfg->plp ? ftl_error(err, errlen, "plp: power-loss protection needs a write "
                                    "buffer (write_buffer_sectors > 0)") : 0;
    }
    if (cfg->write_buffer_sectors > g->logical_sectors) {
        return ftl_error(err, errlen, "write_buffer_sectors: %" PRIu64 " is larger than the "
                         "device (%" PRIu64 " sectors)", cfg->write_buffer_sectors,
                         g->logical_sectors);
    }
    if (cfg->write_buffer_sectors < cfg->secs_per_pg) {
        return ftl_error(err, errlen, "write_buffer_sectors: %" PRIu64 " is smaller than one "
                         "page (%" PRIu64 " sectors)", cfg->write_buffer_sectors,
                         cfg->secs_per_pg);
    }
    if (cfg->secs_per_pg > 64) {
        return ftl_error(err, errlen, "write_buffer_sectors: the buffer needs secs_per_pg <= "
                         "64 (it is %" PRIu64 ")", cfg->secs_per_pg);
    }
    return 0;
}
