/*
 * The admin commands that have no file of their own (poller thread): the queues, Doorbell
 * Buffer Config, Abort and the vendor commands. The admin command set's table
 * (top/cmd_tables.c) lists them with the others (Identify: cmd/admin/identify.c, log
 * pages: cmd/admin/log.c, Get/Set Features: cmd/admin/features.c, ...). Field checks and
 * status codes follow the NVMe base specification; CONTROLLER.md lists femu's choices where
 * the spec leaves one.
 */
#include "qemu/osdep.h"

#include "cmd/admin/admin.h"
#include "cmd/core/cmd.h"
#include "ctrl/dma.h"
#include "ctrl/queue.h"

#define FEMU_PHASE_NAME_LEN     16      /* CDW12..CDW15 */

/* ---- Queues ---- */

uint16_t femu_adm_create_cq(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw10 = femu_cdw(cmd, 10), dw11 = femu_cdw(cmd, 11);

    return femu_cq_create(n, dw10 & 0xffff, le64_to_cpu(cmd->dptr.prp1), (dw10 >> 16) + 1,
                          dw11 & 1, dw11 & 2, dw11 >> 16);
}

uint16_t femu_adm_create_sq(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw10 = femu_cdw(cmd, 10), dw11 = femu_cdw(cmd, 11);

    return femu_sq_create(n, dw10 & 0xffff, le64_to_cpu(cmd->dptr.prp1), (dw10 >> 16) + 1,
                          dw11 & 1, dw11 >> 16);
}

uint16_t femu_adm_delete_sq(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    return femu_sq_delete(n, femu_cdw(cmd, 10) & 0xffff);
}

uint16_t femu_adm_delete_cq(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    return femu_cq_delete(n, femu_cdw(cmd, 10) & 0xffff);
}

uint16_t femu_adm_dbbuf_config(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
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

/* ---- Abort, vendor ---- */

uint16_t femu_adm_abort(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    req->result = 1;   /* not aborted: commands are already with the flash when fetched */
    return NVME_SUCCESS;
}

uint16_t femu_vendor_lpn_dump(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    if (!n->stats_dir) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    req->work = FEMU_WORK_LPN_DUMP;
    return NVME_SUCCESS;
}

uint16_t femu_vendor_phase(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
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
    req->work = FEMU_WORK_PHASE;
    n->phase_markers++;
    return NVME_SUCCESS;
}
