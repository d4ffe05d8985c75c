/*
 * Get Log Page (poller thread). The pages are built where their data lives (the error
 * log, SMART, namespaces, media errors, the OCP page, the command sets); this file holds
 * the table of pages and the rules every page shares.
 *
 * Get Log Page is driven by one table indexed by Log Page Identifier. A row names the
 * function that builds the page into a heap buffer of the page's own size, and the size
 * when it is fixed. Building changes nothing; a page whose reading changes the device
 * (the Changed Namespace List and LBA Status Information without RAE clear and re-arm,
 * with RAE the latter is kept) names a second function, called only once the page has
 * reached the host, so a command that fails (a bad offset, a PRP the device cannot
 * write) consumes nothing. The offset and length rules are applied once, for every page.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"

#include "backend/fdp_events.h"
#include "cmd/admin/log.h"
#include "cmd/admin/ns.h"
#include "cmd/core/cmd.h"
#include "cmd/core/cmd_set.h"
#include "cmd/fdp/fdp.h"
#include "cmd/fdp/fdp_log.h"
#include "cmd/health/error_log.h"
#include "cmd/health/media.h"
#include "cmd/health/ocp_log.h"
#include "cmd/health/smart.h"
#include "ctrl/dma.h"

#define FEMU_CHANGED_NS_LOG_BYTES           4096
#define FEMU_GET_LOG_RAE                    (1u << 15)      /* CDW10: Retain Async Event */

/* What a page builder is told about the command. */
typedef struct FemuLogArgs {
    uint32_t nsid;
    bool rae;
    uint8_t csi;        /* CDW14[31:24]: the command set of a command set specific page */
    uint8_t lsp;        /* CDW10[14:8]: Log Specific Parameter */
    uint16_t lsi;       /* CDW11[31:16]: Log Specific Identifier (an endurance group) */
} FemuLogArgs;

/* A page as built: heap memory the dispatcher frees. */
typedef struct FemuLogData {
    uint8_t *buf;
    size_t size;
} FemuLogData;

typedef struct FemuLogPage {
    /* Bytes of a fixed-size page: the dispatcher allocates them zeroed before build. 0: the
     * builder allocates (g_malloc) and sets the size itself. */
    size_t size;
    /* NVME_SUCCESS, or the status for an NSID (or other field) the page refuses. */
    uint16_t (*build)(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data);
    /* Optional: what reading the page does, after it was copied to the host. */
    void (*read)(FemuCtrl *n, const FemuLogArgs *args, const FemuLogData *data);
    /* Optional: whether the controller offers the page now (else Invalid Log Page). */
    bool (*offered)(FemuCtrl *n);
} FemuLogPage;

/* 01h Error Information (cmd/health/error_log.c). */
static uint16_t femu_log_error_info(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    femu_error_log_page(n, (NvmeErrorLog *)data->buf);
    return NVME_SUCCESS;
}

/* 02h SMART / Health Information (cmd/health/smart.c), the controller's or a namespace's. */
static uint16_t femu_log_smart(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    return femu_smart_log(n, args->nsid, (NvmeSmartLog *)data->buf);
}

/* 03h Firmware Slot Information: one slot, active. */
static uint16_t femu_log_fw_slot(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    NvmeFwSlotInfoLog *log = (NvmeFwSlotInfoLog *)data->buf;

    log->afi = 1;
    strpadcpy((char *)log->frs1, sizeof(log->frs1), FEMU_FIRMWARE, ' ');
    return NVME_SUCCESS;
}

/* 04h Changed Namespace List (cmd/admin/ns.c): read without RAE, it clears and re-arms. */
static uint16_t femu_log_changed_ns(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    data->size = femu_ns_changed_log(n, data->buf, data->size);
    return NVME_SUCCESS;
}

static void femu_log_changed_ns_read(FemuCtrl *n, const FemuLogArgs *args,
                                     const FemuLogData *data)
{
    femu_ns_changed_log_read(n, args->rae);
}

/* 05h Commands Supported and Effects of the command set CSI names (cmd/core/cmd_set.c). */
static uint16_t femu_log_effects(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    QEMU_BUILD_BUG_ON(sizeof(NvmeEffectsLog) != 4096);
    return femu_cmd_effects_log(n, args->csi, (NvmeEffectsLog *)data->buf);
}

/* 0Eh LBA Status Information (cmd/health/media.c), of a size only it knows. */
static uint16_t femu_log_lba_status(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    data->size = femu_lba_status_log(n, &data->buf, args->rae);
    return NVME_SUCCESS;
}

static void femu_log_lba_status_read(FemuCtrl *n, const FemuLogArgs *args,
                                     const FemuLogData *data)
{
    femu_lba_status_log_read(n, args->rae, data->buf, data->size);
}

/* C0h: OCP SMART / Health Information Extended (cmd/health/ocp_log.c). Not admin opcode C0h. */
static uint16_t femu_log_ocp_smart(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    femu_ocp_smart_log(n, data->buf);
    return NVME_SUCCESS;
}

/* 20h-23h: Flexible Data Placement (cmd/fdp/fdp_log.c), with placement=fdp. */
static uint16_t femu_log_fdp_configs(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    return femu_fdp_configs_log(n, args->lsi, &data->buf, &data->size);
}

static uint16_t femu_log_fdp_usage(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    return femu_fdp_usage_log(n, args->lsi, &data->buf, &data->size);
}

static uint16_t femu_log_fdp_stats(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    return femu_fdp_stats_log(n, args->lsi, data->buf);
}

static uint16_t femu_log_fdp_events(FemuCtrl *n, const FemuLogArgs *args, FemuLogData *data)
{
    return femu_fdp_events_log_page(n, args->lsi, args->lsp, data->buf);
}

static const FemuLogPage femu_log_pages[256] = {
    [NVME_LOG_ERROR_INFO] = {
        .size = sizeof(NvmeErrorLog) * (FEMU_ELPE + 1), .build = femu_log_error_info,
    },
    [NVME_LOG_SMART_INFO] = { .size = sizeof(NvmeSmartLog), .build = femu_log_smart },
    [NVME_LOG_FW_SLOT_INFO] = { .size = sizeof(NvmeFwSlotInfoLog), .build = femu_log_fw_slot },
    [NVME_LOG_CHANGED_NSLIST] = {
        .size = FEMU_CHANGED_NS_LOG_BYTES, .build = femu_log_changed_ns,
        .read = femu_log_changed_ns_read,
    },
    [NVME_LOG_CMD_EFFECTS] = { .size = sizeof(NvmeEffectsLog), .build = femu_log_effects },
    [FEMU_LOG_LBA_STATUS] = {
        .build = femu_log_lba_status, .read = femu_log_lba_status_read,
    },
    [FEMU_LOG_FDP_CONFIGS] = { .build = femu_log_fdp_configs, .offered = femu_fdp_offered },
    [FEMU_LOG_FDP_RUH_USAGE] = { .build = femu_log_fdp_usage, .offered = femu_fdp_offered },
    [FEMU_LOG_FDP_STATS] = {
        .size = FEMU_FDP_STATS_LOG_BYTES, .build = femu_log_fdp_stats,
        .offered = femu_fdp_offered,
    },
    [FEMU_LOG_FDP_EVENTS] = {
        .size = FEMU_FDP_EVENTS_LOG_BYTES, .build = femu_log_fdp_events,
        .offered = femu_fdp_offered,
    },
    [FEMU_LOG_OCP_SMART] = { .size = FEMU_OCP_SMART_LOG_BYTES, .build = femu_log_ocp_smart },
};

/* Offset (LPOL/LPOU) dword aligned and inside the page. */
static bool femu_log_offset_ok(uint64_t offset, size_t size)
{
    return !(offset & 3) && offset < size;
}

uint16_t femu_get_log_page(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw10 = femu_cdw(cmd, 10);
    uint64_t numd = ((uint64_t)(femu_cdw(cmd, 11) & 0xffff) << 16 | dw10 >> 16) + 1;
    uint64_t offset = femu_cdw(cmd, 12) | (uint64_t)femu_cdw(cmd, 13) << 32;
    const FemuLogPage *page = &femu_log_pages[dw10 & 0xff];
    const FemuLogArgs args = {
        .nsid = le32_to_cpu(cmd->nsid), .rae = dw10 & FEMU_GET_LOG_RAE,
        .csi = femu_cdw(cmd, 14) >> 24, .lsp = (dw10 >> 8) & 0x7f,
        .lsi = femu_cdw(cmd, 11) >> 16,
    };
    FemuLogData data = { .size = page->size };
    uint16_t status;

    if (!page->build || (page->offered && !page->offered(n))) {
        return femu_dnr(NVME_INVALID_LOG_ID);
    }
    if (page->size) {
        if (!femu_log_offset_ok(offset, page->size)) {
            return femu_dnr(NVME_INVALID_FIELD);
        }
        data.buf = g_malloc0(page->size);
    }
    status = page->build(n, &args, &data);
    if (status == NVME_SUCCESS && !femu_log_offset_ok(offset, data.size)) {
        status = femu_dnr(NVME_INVALID_FIELD);
    }
    if (status == NVME_SUCCESS) {
        uint64_t len = MIN(numd * 4, data.size - offset);

        status = femu_dma_prp_part(n, cmd, data.buf + offset, len, numd * 4, UINT64_MAX,
                                   FEMU_TO_GUEST);
        status = status ? femu_dnr(status) : NVME_SUCCESS;
    }
    if (status == NVME_SUCCESS && page->read) {
        page->read(n, &args, &data);
    }
    g_free(data.buf);
    return status;
}
