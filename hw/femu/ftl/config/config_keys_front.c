/* The drive in front of the flash (front/, docs/front.md): the PCIe link's generation,
 * lanes and Max_Payload_Size, and the controller's cores with each command kind's cost. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const struct config_key keys[] = {
    UKEY(pcie_gen, 0, 5, "PCIe generation of the link, 1-5 (2.5, 5, 8, 16, 32 GT/s a lane; "
         "8b/10b up to 2, 128b/130b from 3); 0: no link limit, transfers cost nothing"),
    UKEY(pcie_lanes, 1, 16, "PCIe lanes: 1, 2, 4, 8 or 16"),
    UKEY(pcie_mps, 128, 512, "PCIe Max_Payload_Size, bytes a TLP carries at most: 128, 256 "
         "or 512"),
    UKEY(ctrl_cores, 0, 64, "controller cores serving commands (each command takes the "
         "next free one for its cost); 0: commands cost no controller time"),
    UKEY(ctrl_read_ns, 0, MAX_LATENCY_NS, "controller: ns of core time a read takes (also "
         "zone reads, verify, KV retrieve, exist and list, and the I/O commands the device "
         "answers itself: zone reports)"),
    UKEY(ctrl_write_ns, 0, MAX_LATENCY_NS, "controller: ns a write takes (also zone writes "
         "and appends, Copy, KV store and delete)"),
    UKEY(ctrl_flush_ns, 0, MAX_LATENCY_NS, "controller: ns a Flush takes"),
    UKEY(ctrl_dsm_range_ns, 0, MAX_LATENCY_NS, "controller: ns each Dataset Management "
         "range (and each Copy source range) adds"),
    UKEY(ctrl_admin_ns, 0, MAX_LATENCY_NS, "controller: ns an admin command takes (Identify, "
         "log pages, features, Format, namespace management; also Zone Management Send)"),
    UKEY(ctrl_map_miss_ns, 0, MAX_LATENCY_NS, "controller: ns each mapping miss adds (DFTL "
         "cached-map misses, KV index cache misses)"),
};

const struct config_key_group config_front_keys = KEY_GROUP(keys);

/* Lanes and payload sizes the PCIe base specification defines (x12 and x32 left out: no
 * SSD uses them). */
int config_check_front(const struct ftl_config *cfg, char *err, size_t errlen)
{
    uint64_t lanes = cfg->pcie_lanes, mps = cfg->pcie_mps;

    if (lanes & (lanes - 1)) {
        return ftl_error(err, errlen, "pcie_lanes: %" PRIu64 " is not a lane count a PCIe "
                         "link has (1, 2, 4, 8 or 16)", lanes);
    }
    if (mps & (mps - 1)) {
        return ftl_error(err, errlen, "pcie_mps: %" PRIu64 " is not a power of two (128, "
                         "256 or 512)", mps);
    }
    return 0;
}

bool ftl_config_front_on(const struct ftl_config *cfg)
{
    return cfg->pcie_gen != 0 || cfg->ctrl_cores != 0;
}
