/* The flash's geometry and timing keys, and the host's logical capacity. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const struct config_key keys[] = {
    UKEY(secsz, 512, 65536, "bytes per sector (LBA), a power of two"),
    UKEY(secs_per_pg, 1, 1024, "sectors per flash page"),
    UKEY(pgs_per_blk, 1, 65536, "pages per erase block"),
    UKEY(blks_per_pl, 1, 1u << 20, "blocks per plane"),
    UKEY(pls_per_lun, 1, 64, "planes per LUN"),
    UKEY(luns_per_ch, 1, 1024, "LUNs (dies) per channel"),
    UKEY(nchs, 1, 1024, "channels"),
    { "devsz_mb", "ssd_size", KEY_UINT, offsetof(struct ftl_config, devsz_mb), 1,
      UINT64_MAX / MIB, "logical capacity seen by the host, MiB", NULL },
    UKEY(pg_rd_lat, 0, MAX_LATENCY_NS, "page read latency, ns"),
    UKEY(pg_wr_lat, 0, MAX_LATENCY_NS, "page program latency, ns"),
    UKEY(blk_er_lat, 0, MAX_LATENCY_NS, "block erase latency, ns"),
    UKEY(ch_xfer_lat, 0, MAX_LATENCY_NS, "channel transfer time per page, ns (0: bus not modelled)"),
};

const struct config_key_group config_flash_keys = KEY_GROUP(keys);

int config_check_flash(const struct ftl_config *cfg, char *err, size_t errlen)
{
    if (cfg->secsz & (cfg->secsz - 1)) {
        return ftl_error(err, errlen, "secsz: %" PRIu64 " is not a power of two", cfg->secsz);
    }
    return 0;
}
