/*
 * The FDP log pages (poller thread), NVMe base specification 2.1. Each is the endurance
 * group's: LSI (CDW11 bits 31:16) must name group 1 (else Invalid Field); the NSID is not
 * used. 20h can be read whether FDP is on or not (it lists what can be enabled); 21h, 22h
 * and 23h are FDP Disabled while it is off. Offsets and lengths follow Get Log Page's
 * rules (cmd/admin/log.c). Every field is little endian.
 *
 *   20h  one configuration: FDPA valid (bit 7), RGIF 0, FDPVWC (bit 4) with a write
 *        buffer; NRG 1; NRUH = fdp_ruhs; MAXPIDS NRUH - 1 (0-based); NNSS 32; RUNS the
 *        FTL's GC unit in bytes; ERUTL fdp_ru_time_limit_s; a descriptor per handle with
 *        RUHT 1 (initially isolated) or 2 (persistently isolated), by fdp_ruh_type.
 *   21h  per handle its attribute: 0 unused, 1 host specified (a namespace's placement
 *        handle list names it; also the lists realize gives), 2 controller specified.
 *   22h  HBMW: bytes the host wrote (the FTL's host_write_bytes, plus Copy's destination
 *        pages); MBMW: every flash page programmed (ftl_nand_programs: host, GC, map,
 *        Copy; and Copy's copybacks) x page size; MBE: blocks erased x block size. 128
 *        bits each, counted since the configuration was (re)enabled. Over an interval
 *        MBMW / HBMW is the FTL's WAF (ftl_waf counts copybacks as programs too).
 *   23h  LSP bit 0 set: the host events (backend/fdp_events.c); clear: the controller
 *        events, of which femu has none.
 */
#include "qemu/osdep.h"
#include "qemu/host-utils.h"

#include "backend/fdp_events.h"
#include "backend/ftl_view.h"
#include "cmd/fdp/fdp.h"
#include "cmd/fdp/fdp_log.h"

#define FEMU_FDPA_VALID         (1u << 7)
#define FEMU_FDPA_VWC           (1u << 4)
#define FEMU_RUHT_INITIAL       1
#define FEMU_RUHT_PERSISTENT    2

/* FDP Configurations: the header, then one descriptor per configuration. */
typedef struct QEMU_PACKED FemuFdpConfigsHeader {
    uint16_t numfdpc;           /* 0-based */
    uint8_t version;
    uint8_t reserved3;
    uint32_t size;              /* the whole page */
    uint8_t reserved8[8];
} FemuFdpConfigsHeader;

typedef struct QEMU_PACKED FemuFdpConfigDesc {
    uint16_t dsze;              /* this descriptor with its RUH descriptors, 8-byte padded */
    uint8_t fdpa;
    uint8_t vss;
    uint32_t nrg;
    uint16_t nruh;
    uint16_t maxpids;           /* 0-based */
    uint32_t nnss;
    uint64_t runs;
    uint32_t erutl;             /* seconds; 0: not reported */
    uint8_t reserved28[36];
} FemuFdpConfigDesc;

typedef struct QEMU_PACKED FemuFdpRuhDesc {
    uint8_t ruht;
    uint8_t reserved1[3];
} FemuFdpRuhDesc;

/* Reclaim Unit Handle Usage: the header, then a descriptor per handle. */
typedef struct QEMU_PACKED FemuFdpUsageHeader {
    uint16_t nruh;
    uint8_t reserved2[6];
} FemuFdpUsageHeader;

typedef struct QEMU_PACKED FemuFdpUsageDesc {
    uint8_t ruha;
    uint8_t reserved1[7];
} FemuFdpUsageDesc;

typedef struct QEMU_PACKED FemuFdpStatsLog {
    uint8_t hbmw[16];
    uint8_t mbmw[16];
    uint8_t mbe[16];
    uint8_t reserved48[16];
} FemuFdpStatsLog;

QEMU_BUILD_BUG_ON(sizeof(FemuFdpConfigsHeader) != 16);
QEMU_BUILD_BUG_ON(sizeof(FemuFdpConfigDesc) != 64);
QEMU_BUILD_BUG_ON(offsetof(FemuFdpConfigDesc, runs) != 16);
QEMU_BUILD_BUG_ON(sizeof(FemuFdpUsageHeader) != 8 || sizeof(FemuFdpUsageDesc) != 8);
QEMU_BUILD_BUG_ON(sizeof(FemuFdpStatsLog) != FEMU_FDP_STATS_LOG_BYTES);

/* LSI names the group; the pages other than 20h need FDP on. */
static uint16_t femu_fdp_log_check(FemuCtrl *n, uint16_t lsi, bool needs_enabled)
{
    if (lsi != FEMU_ENDGID) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (needs_enabled && !n->fdp.enabled) {
        return femu_dnr(NVME_FDP_DISABLED);
    }
    return NVME_SUCCESS;
}

uint16_t femu_fdp_configs_log(FemuCtrl *n, uint16_t lsi, uint8_t **buf, size_t *size)
{
    const struct ftl_config *cfg = &n->ftl_config;
    uint32_t ruhs = n->fdp.ruhs;
    size_t dsze = ROUND_UP(sizeof(FemuFdpConfigDesc) + ruhs * sizeof(FemuFdpRuhDesc), 8);
    uint16_t status = femu_fdp_log_check(n, lsi, false);
    FemuFdpConfigsHeader *header;
    FemuFdpConfigDesc *desc;
    FemuFdpRuhDesc *ruh_desc;

    if (status) {
        return status;
    }
    *size = sizeof(*header) + dsze;
    *buf = g_malloc0(*size);
    header = (FemuFdpConfigsHeader *)*buf;
    desc = (FemuFdpConfigDesc *)(*buf + sizeof(*header));
    ruh_desc = (FemuFdpRuhDesc *)(desc + 1);

    header->numfdpc = cpu_to_le16(0);              /* one configuration */
    header->size = cpu_to_le32(*size);
    desc->dsze = cpu_to_le16(dsze);
    desc->fdpa = FEMU_FDPA_VALID | (femu_has_write_cache(n) ? FEMU_FDPA_VWC : 0);
    desc->nrg = cpu_to_le32(1);
    desc->nruh = cpu_to_le16(ruhs);
    desc->maxpids = cpu_to_le16(ruhs - 1);
    desc->nnss = cpu_to_le32(FEMU_MAX_NAMESPACES);
    desc->runs = cpu_to_le64(n->fdp.ru_bytes);
    desc->erutl = cpu_to_le32(MIN(cfg->fdp_ru_time_limit_s, UINT32_MAX));
    for (uint32_t i = 0; i < ruhs; i++) {
        ruh_desc[i].ruht = cfg->fdp_ruh_type == FTL_RUH_INITIAL ? FEMU_RUHT_INITIAL :
                           FEMU_RUHT_PERSISTENT;
    }
    return NVME_SUCCESS;
}

uint16_t femu_fdp_usage_log(FemuCtrl *n, uint16_t lsi, uint8_t **buf, size_t *size)
{
    uint32_t ruhs = n->fdp.ruhs;
    uint16_t status = femu_fdp_log_check(n, lsi, true);
    FemuFdpUsageHeader *header;
    FemuFdpUsageDesc *desc;

    if (status) {
        return status;
    }
    *size = sizeof(*header) + ruhs * sizeof(*desc);
    *buf = g_malloc0(*size);
    header = (FemuFdpUsageHeader *)*buf;
    desc = (FemuFdpUsageDesc *)(header + 1);
    header->nruh = cpu_to_le16(ruhs);
    for (uint32_t ruh = 0; ruh < ruhs; ruh++) {
        desc[ruh].ruha = femu_fdp_ruh_usage(n, ruh);
    }
    return NVME_SUCCESS;
}

/* A 128-bit field: count * unit bytes. */
static void femu_fdp_put_bytes(uint8_t field[16], uint64_t count, uint64_t unit)
{
    uint64_t lo, hi;

    mulu64(&lo, &hi, count, unit);
    stq_le_p(field, lo);
    stq_le_p(field + 8, hi);
}

uint16_t femu_fdp_stats_log(FemuCtrl *n, uint16_t lsi, uint8_t *buf)
{
    FemuFdpStatsLog *log = (FemuFdpStatsLog *)buf;
    uint64_t page = n->geometry.page_bytes;
    uint64_t block = page * n->ftl_config.pgs_per_blk;
    uint16_t status = femu_fdp_log_check(n, lsi, true);
    FemuFtlView view;

    if (status) {
        return status;
    }
    femu_ftl_view_get(n, &view);
    /* HBMW: host bytes and Copy's pages (which the FTL's WAF counts as host pages) */
    femu_fdp_put_bytes(log->hbmw, 1, view.ctr.host_write_bytes - n->fdp.base_host_bytes +
                       (view.ctr.copy_pages - n->fdp.base_copy_pages) * page);
    femu_fdp_put_bytes(log->mbmw, femu_fdp_media_pages(&view.ctr) - n->fdp.base_programs,
                       page);
    femu_fdp_put_bytes(log->mbe, view.ctr.nand_erases - n->fdp.base_erases, block);
    return NVME_SUCCESS;
}

uint16_t femu_fdp_events_log_page(FemuCtrl *n, uint16_t lsi, uint8_t lsp, uint8_t *buf)
{
    uint16_t status = femu_fdp_log_check(n, lsi, true);

    if (status == NVME_SUCCESS) {
        femu_fdp_events_log(n, lsp & 1, buf);
    }
    return status;
}
