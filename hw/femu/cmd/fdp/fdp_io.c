/*
 * I/O Management Receive (12h) and Send (1Dh), poller thread: FDP's reclaim unit handles
 * as a namespace sees them (NVMe base specification 2.1, NVM command set 1.1). Both need
 * FDP enabled (else FDP Disabled) and an active namespace (NSID 0 or FFFFFFFFh: Invalid
 * Namespace or Format, as for any I/O command); CDW10 bits 7:0 are the Management
 * Operation (MO), bits 31:16 its specific field (MOS). MO 0h does nothing; MO 1h is
 * below; any other is Invalid Field.
 *
 * Receive MO 1h, Reclaim Unit Handle Status: CDW11 NUMD (0-based dwords, within MDTS) is
 * the buffer. A 16-byte header (NRUHSD at bytes 15:14), then one 32-byte descriptor per
 * placement handle of the namespace (one reclaim group): PID (= the placement handle,
 * RGIF 0), RUHID, EARUTR (seconds left before fdp_ru_time_limit_s closes the RU, rounded
 * up; the whole limit when no RU is open yet; 0 when there is no limit or it ran out) and
 * RUAMW (the logical blocks the RU still takes). Only the bytes built are transferred.
 *
 * Send MO 1h, Reclaim Unit Handle Update: MOS NPID (0-based, at most MAXPIDS = NRUH - 1,
 * else Invalid Field), the data buffer NPID + 1 placement identifiers of two bytes. Every
 * one must name a placement handle of the namespace, else Invalid Field and nothing is
 * updated. The named handles' RUs are closed as they are (femu_ftl/fdp.h) through one
 * FTL_OP_RUH_UPDATE per handle, after the I/O fetched before; an RU holding no page is
 * kept. The command completes when the FTL did it.
 */
#include "qemu/osdep.h"

#include "backend/fdp_ftl.h"
#include "cmd/core/cmd.h"
#include "cmd/fdp/fdp.h"
#include "cmd/fdp/fdp_io.h"
#include "ctrl/dma.h"

#define FEMU_IO_MGMT_MO_NOP             0x00
#define FEMU_IO_MGMT_MO_RUH_STATUS      0x01    /* Receive */
#define FEMU_IO_MGMT_MO_RUH_UPDATE      0x01    /* Send */

typedef struct QEMU_PACKED FemuRuhStatusHeader {
    uint8_t reserved0[14];
    uint16_t nruhsd;
} FemuRuhStatusHeader;

typedef struct QEMU_PACKED FemuRuhStatusDesc {
    uint16_t pid;
    uint16_t ruhid;
    uint32_t earutr;            /* seconds */
    uint64_t ruamw;             /* logical blocks */
    uint8_t reserved16[16];
} FemuRuhStatusDesc;

QEMU_BUILD_BUG_ON(sizeof(FemuRuhStatusHeader) != 16);
QEMU_BUILD_BUG_ON(sizeof(FemuRuhStatusDesc) != 32);

/* Seconds the handle's RU has left under the time limit (see above). */
static uint32_t femu_fdp_earutr(FemuCtrl *n, const struct ftl_ruh_status *st, uint64_t now)
{
    uint64_t limit_ns = n->ftl_config.fdp_ru_time_limit_s * NANOSECONDS_PER_SECOND;
    uint64_t age;

    if (limit_ns == 0) {
        return 0;
    }
    if (st->ru == UINT32_MAX) {
        return MIN(n->ftl_config.fdp_ru_time_limit_s, UINT32_MAX);
    }
    age = now > st->opened_ns ? now - st->opened_ns : 0;
    if (age >= limit_ns) {
        return 0;
    }
    return MIN(DIV_ROUND_UP(limit_ns - age, NANOSECONDS_PER_SECOND), UINT32_MAX);
}

static uint16_t femu_fdp_ruh_status(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                                    FemuRequest *req)
{
    uint64_t len = ((uint64_t)femu_cdw(cmd, 11) + 1) * 4;
    size_t size = sizeof(FemuRuhStatusHeader) + ns->nphndls * sizeof(FemuRuhStatusDesc);
    g_autofree uint8_t *buf = g_malloc0(size);
    FemuRuhStatusHeader *header = (FemuRuhStatusHeader *)buf;
    FemuRuhStatusDesc *desc = (FemuRuhStatusDesc *)(header + 1);
    uint16_t status;

    if (len > femu_max_transfer(n)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    header->nruhsd = cpu_to_le16(ns->nphndls);
    for (uint32_t ph = 0; ph < ns->nphndls; ph++) {
        struct ftl_ruh_status st;
        uint32_t ruh = ns->phndl_ruh[ph];

        if (femu_fdp_ftl_ruh_status(n, ruh, &st) != FTL_OK) {
            return NVME_INTERNAL_DEV_ERROR;     /* the FTL has fewer handles: a bug */
        }
        desc[ph].pid = cpu_to_le16(ph);
        desc[ph].ruhid = cpu_to_le16(ruh);
        desc[ph].earutr = cpu_to_le32(femu_fdp_earutr(n, &st, req->ftl.arrival_ns));
        desc[ph].ruamw = cpu_to_le64(st.available_pages * n->geometry.page_bytes /
                                     ns->lba_bytes);
    }
    status = femu_dma_prp_part(n, cmd, buf, MIN(len, size), len, femu_max_transfer(n),
                               FEMU_TO_GUEST);
    return status ? femu_dnr(status) : NVME_SUCCESS;
}

uint16_t femu_fdp_io_mgmt_recv(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                               FemuRequest *req)
{
    if (!n->fdp.enabled) {
        return femu_dnr(NVME_FDP_DISABLED);
    }
    switch (femu_cdw(cmd, 10) & 0xff) {
    case FEMU_IO_MGMT_MO_NOP:
        return NVME_SUCCESS;
    case FEMU_IO_MGMT_MO_RUH_STATUS:
        return femu_fdp_ruh_status(n, ns, cmd, req);
    default:
        return femu_dnr(NVME_INVALID_FIELD);
    }
}

static uint16_t femu_fdp_ruh_update(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                                    FemuRequest *req)
{
    uint32_t npids = (femu_cdw(cmd, 10) >> 16) + 1;
    uint8_t pids[2 * FEMU_FDP_MAX_RUHS];
    uint16_t status;

    if (npids > n->fdp.ruhs) {          /* NPID above MAXPIDS */
        return femu_dnr(NVME_INVALID_FIELD);
    }
    status = femu_dma_prp(n, cmd, pids, 2 * npids, UINT64_MAX, FEMU_FROM_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    for (uint32_t i = 0; i < npids; i++) {
        uint16_t pid = lduw_le_p(pids + 2 * i);
        uint32_t ruh;

        if (!femu_fdp_handle(ns, pid, &ruh)) {
            req->ruh_update = req->fdp_named = 0;
            return femu_dnr(NVME_INVALID_FIELD);
        }
        req->ruh_update |= 1u << ruh;
        req->fdp_named |= 1u << ruh;
        req->fdp_phndl[ruh] = pid;
    }
    req->ftl.nsid = ns->nsid;
    femu_req_ftl(req, FTL_OP_RUH_UPDATE);
    return NVME_SUCCESS;
}

uint16_t femu_fdp_io_mgmt_send(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                               FemuRequest *req)
{
    if (!n->fdp.enabled) {
        return femu_dnr(NVME_FDP_DISABLED);
    }
    switch (femu_cdw(cmd, 10) & 0xff) {
    case FEMU_IO_MGMT_MO_NOP:
        return NVME_SUCCESS;
    case FEMU_IO_MGMT_MO_RUH_UPDATE:
        return femu_fdp_ruh_update(n, ns, cmd, req);
    default:
        return femu_dnr(NVME_INVALID_FIELD);
    }
}
