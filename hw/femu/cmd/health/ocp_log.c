/*
 * Log page C0h (poller thread): "SMART / Health Information Extended" of the OCP
 * Datacenter NVMe SSD Specification 2.0 (log page version 3), the page
 * `nvme ocp smart-add-log` decodes. femu is not an OCP device: it fills what its FTL
 * knows (media units, bad blocks, erase counts, free blocks, read errors, NUSE, an
 * endurance estimate) and leaves the rest zero; CONTROLLER.md lists every field.
 *
 * Log page C0h is this page only; the vendor admin opcode C0h (lpn_access_count.csv) is
 * a different thing.
 */
#include "qemu/osdep.h"
#include "qemu/host-utils.h"

#include "backend/ftl_view.h"
#include "cmd/core/ns_table.h"
#include "cmd/health/ocp_log.h"
#include "cmd/health/smart.h"

#define FEMU_OCP_SMART_VERSION  3   /* OCP 1.0: 2, 2.0: 3, 2.5: 4 */

/* Log Page GUID AFD514C97C6F4F9CA4F2BFEA2810AFC5h, least significant byte first. */
static const uint8_t femu_ocp_smart_guid[16] = {
    0xc5, 0xaf, 0x10, 0x28, 0xea, 0xbf, 0xf2, 0xa4,
    0x9c, 0x4f, 0x6f, 0x7c, 0xc9, 0x14, 0xd5, 0xaf,
};

/* The page, field by field (OCP 2.0 names); every field little endian. */
typedef struct QEMU_PACKED FemuOcpSmartLog {
    uint8_t physical_media_units_written[16];   /* bytes, 128 bits */
    uint8_t physical_media_units_read[16];
    uint8_t bad_user_nand_blocks_raw[6];
    uint16_t bad_user_nand_blocks_normalized;
    uint8_t bad_system_nand_blocks_raw[6];
    uint16_t bad_system_nand_blocks_normalized;
    uint64_t xor_recovery_count;
    uint64_t uncorrectable_read_error_count;
    uint64_t soft_ecc_error_count;
    uint32_t end_to_end_detected_errors;
    uint32_t end_to_end_corrected_errors;
    uint8_t system_data_percent_used;
    uint8_t refresh_counts[7];
    uint32_t user_data_erase_count_max;
    uint32_t user_data_erase_count_min;
    uint8_t thermal_throttling_events;
    uint8_t thermal_throttling_status;
    uint8_t dssd_errata_version;
    uint16_t dssd_point_version;
    uint16_t dssd_minor_version;
    uint8_t dssd_major_version;
    uint64_t pcie_correctable_error_count;
    uint32_t incomplete_shutdowns;
    uint8_t reserved116[4];
    uint8_t percent_free_blocks;
    uint8_t reserved121[7];
    uint16_t capacitor_health;
    uint8_t nvme_errata_version;
    uint8_t reserved131[5];
    uint64_t unaligned_io;
    uint64_t security_version_number;
    uint64_t total_nuse;
    uint8_t plp_start_count[16];
    uint8_t endurance_estimate[16];             /* bytes, 128 bits */
    uint64_t pcie_link_retraining_count;
    uint64_t power_state_change_count;
    uint8_t reserved208[286];
    uint16_t log_page_version;
    uint8_t log_page_guid[16];
} FemuOcpSmartLog;

QEMU_BUILD_BUG_ON(sizeof(FemuOcpSmartLog) != FEMU_OCP_SMART_LOG_BYTES);
QEMU_BUILD_BUG_ON(offsetof(FemuOcpSmartLog, bad_user_nand_blocks_raw) != 32);
QEMU_BUILD_BUG_ON(offsetof(FemuOcpSmartLog, uncorrectable_read_error_count) != 56);
QEMU_BUILD_BUG_ON(offsetof(FemuOcpSmartLog, user_data_erase_count_max) != 88);
QEMU_BUILD_BUG_ON(offsetof(FemuOcpSmartLog, dssd_major_version) != 103);
QEMU_BUILD_BUG_ON(offsetof(FemuOcpSmartLog, percent_free_blocks) != 120);
QEMU_BUILD_BUG_ON(offsetof(FemuOcpSmartLog, total_nuse) != 152);
QEMU_BUILD_BUG_ON(offsetof(FemuOcpSmartLog, endurance_estimate) != 176);
QEMU_BUILD_BUG_ON(offsetof(FemuOcpSmartLog, log_page_version) != 494);

/* A 128-bit field: a * b. */
static void femu_ocp_put_product(uint8_t field[16], uint64_t a, uint64_t b)
{
    uint64_t lo, hi;

    mulu64(&lo, &hi, a, b);
    stq_le_p(field, lo);
    stq_le_p(field + 8, hi);
}

/* A 48-bit raw count (saturating). */
static void femu_ocp_put_48(uint8_t field[6], uint64_t value)
{
    uint8_t bytes[8];

    stq_le_p(bytes, MIN(value, (UINT64_C(1) << 48) - 1));
    memcpy(field, bytes, 6);
}

/* NUSE of every allocated namespace, added up (each in its own LBAs). */
static uint64_t femu_ocp_total_nuse(FemuCtrl *n)
{
    uint64_t total = 0;

    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (n->ns[nsid].allocated) {
            total += femu_ns_nuse(n, &n->ns[nsid]);
        }
    }
    return total;
}

void femu_ocp_smart_log(FemuCtrl *n, uint8_t *buf)
{
    FemuOcpSmartLog *log = (FemuOcpSmartLog *)buf;
    const struct ftl_geometry *geo = &n->geometry;
    FemuFtlView view;
    struct ftl_gauges gauges;
    uint64_t good_blocks;

    femu_ftl_view_get(n, &view);
    femu_ftl_view_get_gauges(n, &gauges);
    memset(log, 0, sizeof(*log));

    femu_ocp_put_product(log->physical_media_units_written,
                         view.ctr.nand_user_programs + view.ctr.nand_gc_programs,
                         geo->page_bytes);
    femu_ocp_put_product(log->physical_media_units_read,
                         view.ctr.nand_user_reads + view.ctr.nand_gc_reads, geo->page_bytes);
    femu_ocp_put_48(log->bad_user_nand_blocks_raw, view.wear.bad_blocks);
    log->bad_user_nand_blocks_normalized = cpu_to_le16(femu_available_spare(&view.wear));
    log->bad_system_nand_blocks_normalized = cpu_to_le16(100);    /* no system area */
    log->uncorrectable_read_error_count = cpu_to_le64(view.ctr.read_errors);
    log->user_data_erase_count_max = cpu_to_le32(view.wear.erase_max);
    log->user_data_erase_count_min = cpu_to_le32(view.wear.erase_min);
    log->percent_free_blocks = geo->units ? gauges.free_lines * 100 / geo->units : 0;
    log->power_state_change_count = cpu_to_le64(view.ctr.ps_transitions);   /* APST's too */
    log->total_nuse = cpu_to_le64(femu_ocp_total_nuse(n));
    /* What the host may write over the good blocks' rated cycles at a WAF of 1. */
    good_blocks = view.wear.blocks - view.wear.bad_blocks;
    femu_ocp_put_product(log->endurance_estimate,
                         good_blocks * n->ftl_config.pgs_per_blk * geo->page_bytes,
                         view.wear.pe_cycles);
    log->log_page_version = cpu_to_le16(FEMU_OCP_SMART_VERSION);
    memcpy(log->log_page_guid, femu_ocp_smart_guid, sizeof(log->log_page_guid));
}
