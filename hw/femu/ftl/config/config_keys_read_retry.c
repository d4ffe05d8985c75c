/* Read retries' keys: the time of one retry step, the wear and age that add steps, and the
 * most steps a read takes. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

/* A page read with every retry step: a drive taking longer would have timed out. */
#define MAX_READ_NS 1000000000ull

static const struct config_key keys[] = {
    UKEY(read_retry_lat, 0, MAX_LATENCY_NS, "read retries: ns one retry step (a sense "
         "with shifted thresholds and its decode) adds to a host page read (0: no retries)"),
    UKEY(read_retry_pe_step, 0, UINT32_MAX, "read retries: erase cycles of a block per "
         "expected retry step (0: wear adds none)"),
    UKEY(read_retry_age_s, 0, UINT64_MAX / 1000000000u, "read retries: seconds since the "
         "block's first program per expected retry step (0: retention adds none)"),
    UKEY(read_retry_max, 0, 64, "read retries: steps a read takes at most (the length of "
         "the drive's retry table)"),
};

const struct config_key_group config_read_retry_keys = KEY_GROUP(keys);

int config_check_read_retry(const struct ftl_config *cfg, char *err, size_t errlen)
{
    /* The slowest read the model can give: every step taken, then the channel. */
    if (cfg->read_retry_lat &&
        cfg->pg_rd_lat + cfg->read_retry_max * cfg->read_retry_lat + cfg->ch_xfer_lat >
        MAX_READ_NS) {
        return ftl_error(err, errlen, "read_retry_max: %" PRIu64 " steps of read_retry_lat %"
                         PRIu64 " ns make a page read take over a second", cfg->read_retry_max,
                         cfg->read_retry_lat);
    }
    return 0;
}
