/*
 * Admin commands (poller thread): the dispatch by opcode and the commands that have no
 * file of their own (Identify: cmd/identify.c, log pages: cmd/log.c, Get/Set Features:
 * cmd/features.c). Field checks and status codes follow the NVMe base specification;
 * CONTROLLER.md lists femu's choices where the spec leaves one.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"

#include "backend/state_save.h"
#include "cmd/admin.h"
#include "cmd/aer.h"
#include "cmd/cmd.h"
#include "cmd/features.h"
#include "cmd/identify.h"
#include "cmd/log.h"
#include "cmd/media.h"
#include "cmd/ns.h"
#include "ctrl/dma.h"
#include "ctrl/queue.h"

#define FEMU_VENDOR_LPN_DUMP    0xc0    /* write lpn_access_count.csv now */
#define FEMU_VENDOR_PHASE       0xc1    /* phase marker into phases.csv */
#define FEMU_VENDOR_SAVE_STATE  0xc2    /* write the device state to state_out now */
#define FEMU_PHASE_NAME_LEN     16      /* CDW12..CDW15 */

/* ---- Queues ---- */

static uint16_t femu_create_cq(FemuCtrl *n, const NvmeCmd *cmd)
{
    uint32_t dw10 = femu_cdw(cmd, 10), dw11 = femu_cdw(cmd, 11);

    return femu_cq_create(n, dw10 & 0xffff, le64_to_cpu(cmd->dptr.prp1), (dw10 >> 16) + 1,
                          dw11 & 1, dw11 & 2, dw11 >> 16);
}

static uint16_t femu_create_sq(FemuCtrl *n, const NvmeCmd *cmd)
{
    uint32_t dw10 = femu_cdw(cmd, 10), dw11 = femu_cdw(cmd, 11);

    return femu_sq_create(n, dw10 & 0xffff, le64_to_cpu(cmd->dptr.prp1), (dw10 >> 16) + 1,
                          dw11 & 1, dw11 >> 16);
}

static uint16_t femu_delete_sq(FemuCtrl *n, const NvmeCmd *cmd)
{
    return femu_sq_delete(n, femu_cdw(cmd, 10) & 0xffff);
}

static uint16_t femu_delete_cq(FemuCtrl *n, const NvmeCmd *cmd)
{
    return femu_cq_delete(n, femu_cdw(cmd, 10) & 0xffff);
}

static uint16_t femu_dbbuf_config(FemuCtrl *n, const NvmeCmd *cmd)
{
    uint64_t shadow = le64_to_cpu(cmd->dptr.prp1);
    uint64_t eventidx = le64_to_cpu(cmd->dptr.prp2);

    if (!shadow || !eventidx || (shadow & (n->page_size - 1)) ||
        (eventidx & (n->page_size - 1)) || !femu_dma_ram(n, shadow, n->page_size, true) ||
        !femu_dma_ram(n, eventidx, n->page_size, true)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    /* The newest doorbell values, read where the host wrote them until now. */
    uint32_t tails[FEMU_MAX_QUEUES + 1] = { 0 }, heads[FEMU_MAX_QUEUES + 1] = { 0 };

    for (unsigned qid = 1; qid <= n->queues; qid++) {
        if (n->sq[qid].valid) {
            tails[qid] = femu_sq_tail(n, qid);
            tails[qid] = tails[qid] < n->sq[qid].size ? tails[qid] : n->sq[qid].head;
        }
        if (n->cq[qid].valid) {
            femu_cq_full(n, &n->cq[qid]);   /* brings cq->head up to date */
            heads[qid] = n->cq[qid].head;
        }
    }
    n->dbbuf_shadow = shadow;
    n->dbbuf_eventidx = eventidx;
    for (unsigned qid = 1; qid <= n->queues; qid++) {
        if (n->sq[qid].valid) {
            femu_dbbuf_init(n, qid, false, tails[qid]);
        }
        if (n->cq[qid].valid) {
            femu_dbbuf_init(n, qid, true, heads[qid]);
        }
    }
    return NVME_SUCCESS;
}

/* ---- Events, abort, vendor ---- */

static uint16_t femu_abort(FemuRequest *req)
{
    req->result = 1;   /* not aborted: commands are already with the flash when fetched */
    return NVME_SUCCESS;
}

static uint16_t femu_vendor_lpn_dump(FemuCtrl *n, FemuRequest *req)
{
    if (!n->stats_dir) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    req->op = FEMU_OP_LPN_DUMP;
    return NVME_SUCCESS;
}

static uint16_t femu_vendor_phase(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    char name[FEMU_PHASE_NAME_LEN + 1] = { 0 };
    size_t len;

    if (!n->stats_dir || n->phase_markers >= FEMU_MAX_PHASE_MARKERS) {
        return femu_dnr(NVME_INVALID_FIELD);   /* phases.csv stays a bounded file */
    }
    for (unsigned i = 0; i < 4; i++) {
        stl_le_p(name + 4 * i, femu_cdw(cmd, 12 + i));
    }
    len = strlen(name);
    if (len == 0) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    for (size_t i = 0; i < FEMU_PHASE_NAME_LEN; i++) {
        bool ok = i < len ? (g_ascii_isalnum(name[i]) || strchr("_.-", name[i]))
                          : name[i] == '\0';

        if (!ok) {
            return femu_dnr(NVME_INVALID_FIELD);
        }
    }
    memcpy(req->phase, name, sizeof(req->phase));
    req->op = FEMU_OP_PHASE;
    n->phase_markers++;
    return NVME_SUCCESS;
}

uint16_t femu_admin_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    switch (cmd->opcode) {
    case NVME_ADM_CMD_DELETE_SQ:
        return femu_delete_sq(n, cmd);
    case NVME_ADM_CMD_CREATE_SQ:
        return femu_create_sq(n, cmd);
    case NVME_ADM_CMD_GET_LOG_PAGE:
        return femu_get_log_page(n, cmd);
    case NVME_ADM_CMD_DELETE_CQ:
        return femu_delete_cq(n, cmd);
    case NVME_ADM_CMD_CREATE_CQ:
        return femu_create_cq(n, cmd);
    case NVME_ADM_CMD_IDENTIFY:
        return femu_identify(n, cmd);
    case NVME_ADM_CMD_ABORT:
        return femu_abort(req);
    case NVME_ADM_CMD_SET_FEATURES:
        return femu_set_features(n, cmd, req);
    case NVME_ADM_CMD_GET_FEATURES:
        return femu_get_features(n, cmd, req);
    case NVME_ADM_CMD_ASYNC_EV_REQ:
        return femu_aer_request(n, req);
    case FEMU_ADM_CMD_NS_MANAGEMENT:
        return femu_ns_management(n, cmd, req);
    case FEMU_ADM_CMD_GET_LBA_STATUS:
        return femu_get_lba_status(n, cmd);
    case NVME_ADM_CMD_NS_ATTACHMENT:
        return femu_ns_attachment(n, cmd);
    case NVME_ADM_CMD_FORMAT_NVM:
        return femu_format_nvm(n, cmd, req);
    case NVME_ADM_CMD_DBBUF_CONFIG:
        return femu_dbbuf_config(n, cmd);
    case FEMU_VENDOR_LPN_DUMP:
        return femu_vendor_lpn_dump(n, req);
    case FEMU_VENDOR_PHASE:
        return femu_vendor_phase(n, cmd, req);
    case FEMU_VENDOR_SAVE_STATE:
        return femu_state_vendor_save(n);
    default:
        return femu_dnr(NVME_INVALID_OPCODE);
    }
}
