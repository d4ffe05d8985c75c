/*
 * Admin commands (poller thread), one function per command, plus the controller's
 * error log and log pages (Get/Set Features: femu_features.c). Field checks and status
 * codes follow the NVMe base specification; CONTROLLER.md lists femu's choices where the
 * spec leaves one.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/cutils.h"
#include "hw/pci/pci_ids.h"

#include "femu_ctrl.h"

#define FEMU_MODEL          "femu SSD"
#define FEMU_FIRMWARE       "1.0"
#define FEMU_VENDOR_LPN_DUMP    0xc0    /* write lpn_access_count.csv now */
#define FEMU_VENDOR_PHASE       0xc1    /* phase marker into phases.csv */
#define FEMU_PHASE_NAME_LEN     16      /* CDW12..CDW15 */

/* Command dword 10..15. */
static uint32_t femu_cdw(const NvmeCmd *cmd, unsigned index)
{
    return ldl_le_p((const uint8_t *)cmd + offsetof(NvmeCmd, cdw10) + 4 * (index - 10));
}

/* A 128-bit little-endian SMART counter (the packed struct forbids member pointers). */
#define FEMU_SMART_PUT(log, field, value) \
    stq_le_p((uint8_t *)(log) + offsetof(NvmeSmartLog, field), (value))

/* ---- Identify ---- */

static void femu_identify_ctrl(FemuCtrl *n, NvmeIdCtrl *id)
{
    uint64_t capacity = n->nsze * n->lba_bytes;

    id->vid = cpu_to_le16(PCI_VENDOR_ID_INTEL);
    id->ssvid = cpu_to_le16(PCI_VENDOR_ID_INTEL);
    strpadcpy((char *)id->sn, sizeof(id->sn), n->serial_number, ' ');
    strpadcpy((char *)id->mn, sizeof(id->mn), FEMU_MODEL, ' ');
    strpadcpy((char *)id->fr, sizeof(id->fr), FEMU_FIRMWARE, ' ');
    id->rab = 6;
    id->mdts = n->mdts;
    id->ver = cpu_to_le32(0x00010400);
    id->cntrltype = 1;                              /* I/O controller */
    id->oacs = cpu_to_le16(NVME_OACS_DBCS);
    id->acl = FEMU_ACL;
    id->aerl = FEMU_AERL;
    id->frmw = 0x03;                                /* one slot, slot 1 read-only */
    id->lpa = 0x04;                                 /* extended Get Log Page data */
    id->elpe = FEMU_ELPE;
    id->wctemp = cpu_to_le16(FEMU_WCTEMP_K);
    id->cctemp = cpu_to_le16(FEMU_CCTEMP_K);
    memcpy(id->tnvmcap, &capacity, sizeof(capacity));   /* little-endian hosts only */
    id->sqes = 0x66;
    id->cqes = 0x44;
    id->nn = cpu_to_le32(1);
    id->oncs = cpu_to_le16(NVME_ONCS_DSM | NVME_ONCS_WRITE_ZEROES);
    id->vwc = 0x07;                                 /* present; flush accepts all NSIDs */
    snprintf((char *)id->subnqn, sizeof(id->subnqn), "nqn.2026-11.io.femu:%s",
             n->serial_number);
    id->psd[0].mp = cpu_to_le16(2500);              /* 25 W, in 0.01 W */
    id->psd[0].enlat = cpu_to_le32(16);
    id->psd[0].exlat = cpu_to_le32(4);
}

/* NVM command set specific controller data (CNS 06h, CSI 00h): the DSM limits. */
static void femu_identify_ctrl_nvm(FemuCtrl *n, NvmeIdCtrlNvm *id)
{
    id->dmrl = FEMU_DMRL;
    id->dmrsl = cpu_to_le32(n->dmrsl);
    id->dmsl = cpu_to_le64(n->dmrsl);
}

static void femu_identify_ns(FemuCtrl *n, NvmeIdNs *id)
{
    uint64_t secs_per_pg = n->ftl_config.secs_per_pg;

    id->nsze = cpu_to_le64(n->nsze);
    id->ncap = cpu_to_le64(n->nsze);
    id->nuse = cpu_to_le64(lba_bitmap_count(&n->written));   /* LBAs holding host data */
    id->nsfeat = 1u << 4;               /* NPWG/NPWA/NPDG/NPDA are valid */
    id->nlbaf = 0;
    id->flbas = 0;
    id->dlfeat = 0x09;                  /* deallocated blocks read zero; WZ DEAC works */
    /* Tell the host the flash page, so it aligns writes and discards to it. */
    id->npwg = cpu_to_le16(secs_per_pg - 1);
    id->npwa = cpu_to_le16(secs_per_pg - 1);
    id->npdg = cpu_to_le16(secs_per_pg - 1);
    id->npda = cpu_to_le16(secs_per_pg - 1);
    id->lbaf[0].ds = ctz64(n->lba_bytes);
}

static uint16_t femu_identify(FemuCtrl *n, const NvmeCmd *cmd)
{
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    uint8_t *buf = g_malloc0(NVME_IDENTIFY_DATA_SIZE);
    uint16_t status = NVME_SUCCESS;

    switch (femu_cdw(cmd, 10) & 0xff) {
    case NVME_ID_CNS_CTRL:
        femu_identify_ctrl(n, (NvmeIdCtrl *)buf);
        break;
    case NVME_ID_CNS_CS_CTRL:
        if (femu_cdw(cmd, 11) >> 24 != NVME_CSI_NVM) {
            status = femu_dnr(NVME_INVALID_FIELD);   /* only the NVM command set */
            break;
        }
        femu_identify_ctrl_nvm(n, (NvmeIdCtrlNvm *)buf);
        break;
    case NVME_ID_CNS_NS:
        if (nsid != 1) {
            status = femu_dnr(NVME_INVALID_NSID);
            break;
        }
        femu_identify_ns(n, (NvmeIdNs *)buf);
        break;
    case NVME_ID_CNS_NS_ACTIVE_LIST:
        if (nsid >= NVME_NSID_BROADCAST - 1) {
            status = femu_dnr(NVME_INVALID_NSID);
            break;
        }
        if (nsid < 1) {
            stl_le_p(buf, 1);   /* the list holds NSIDs greater than the one given */
        }
        break;
    case NVME_ID_CNS_NS_DESCR_LIST: {
        NvmeIdNsDescr *descr = (NvmeIdNsDescr *)buf;

        if (nsid != 1) {
            status = femu_dnr(NVME_INVALID_NSID);
            break;
        }
        descr->nidt = NVME_NIDT_UUID;
        descr->nidl = NVME_NIDL_UUID;
        memcpy(buf + sizeof(*descr), n->ns_uuid, sizeof(n->ns_uuid));
        break;
    }
    default:
        status = femu_dnr(NVME_INVALID_FIELD);
        break;
    }
    if (status == NVME_SUCCESS) {
        status = femu_dma_prp(n, cmd, buf, NVME_IDENTIFY_DATA_SIZE, UINT64_MAX, FEMU_TO_GUEST);
        status = status ? femu_dnr(status) : status;
    }
    g_free(buf);
    return status;
}

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

/* ---- Logs ---- */

void femu_error_log_add(FemuCtrl *n, const FemuRequest *req, uint32_t nsid, uint64_t lba)
{
    NvmeErrorLog *entry = &n->errlog.entries[n->errlog.next];

    memset(entry, 0, sizeof(*entry));
    entry->error_count = cpu_to_le64(++n->errlog.count);
    entry->sqid = cpu_to_le16(req->sqid);
    entry->cid = cpu_to_le16(req->cid);
    entry->status_field = cpu_to_le16(req->status << 1);
    entry->param_error_location = cpu_to_le16(0xffff);   /* not tracked */
    entry->lba = cpu_to_le64(lba);
    entry->nsid = cpu_to_le32(nsid);
    n->errlog.next = (n->errlog.next + 1) % ARRAY_SIZE(n->errlog.entries);
}

static size_t femu_error_log_page(FemuCtrl *n, uint8_t *buf)
{
    size_t entries = ARRAY_SIZE(n->errlog.entries);

    for (size_t i = 0; i < entries; i++) {   /* newest first */
        size_t index = (n->errlog.next + entries - 1 - i) % entries;

        memcpy(buf + i * sizeof(NvmeErrorLog), &n->errlog.entries[index],
               sizeof(NvmeErrorLog));
    }
    return entries * sizeof(NvmeErrorLog);
}

static uint64_t femu_data_units(uint64_t bytes)
{
    return DIV_ROUND_UP(bytes, 512 * 1000);   /* thousands of 512-byte units, rounded up */
}

static size_t femu_smart_log_page(FemuCtrl *n, uint8_t *buf)
{
    NvmeSmartLog *log = (NvmeSmartLog *)buf;
    uint64_t hours = (femu_now_ns() - n->smart.power_on_ns) / (3600 * NANOSECONDS_PER_SECOND);
    uint16_t temp = FEMU_TEMPERATURE_K;

    if (temp > n->features.temp_threshold[FEMU_THSEL_OVER] ||
        temp < n->features.temp_threshold[FEMU_THSEL_UNDER]) {
        log->critical_warning |= 1u << 1;   /* temperature threshold */
    }
    log->temperature = cpu_to_le16(temp);
    log->available_spare = 100;
    log->available_spare_threshold = 10;
    FEMU_SMART_PUT(log, data_units_read, femu_data_units(n->smart.units_read));
    FEMU_SMART_PUT(log, data_units_written, femu_data_units(n->smart.units_written));
    FEMU_SMART_PUT(log, host_read_commands, n->smart.read_cmds);
    FEMU_SMART_PUT(log, host_write_commands, n->smart.write_cmds);
    FEMU_SMART_PUT(log, power_cycles, 1);
    FEMU_SMART_PUT(log, power_on_hours, hours);
    FEMU_SMART_PUT(log, number_of_error_log_entries, n->errlog.count);
    return sizeof(*log);
}

static size_t femu_fw_slot_log_page(uint8_t *buf)
{
    NvmeFwSlotInfoLog *log = (NvmeFwSlotInfoLog *)buf;

    log->afi = 1;
    strpadcpy((char *)log->frs1, sizeof(log->frs1), FEMU_FIRMWARE, ' ');
    return sizeof(*log);
}

static uint16_t femu_get_log_page(FemuCtrl *n, const NvmeCmd *cmd)
{
    uint32_t dw10 = femu_cdw(cmd, 10);
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    uint64_t numd = ((uint64_t)(femu_cdw(cmd, 11) & 0xffff) << 16 | dw10 >> 16) + 1;
    uint64_t offset = femu_cdw(cmd, 12) | (uint64_t)femu_cdw(cmd, 13) << 32;
    uint8_t buf[sizeof(NvmeSmartLog) + sizeof(NvmeFwSlotInfoLog) + 256] = { 0 };
    size_t size;
    uint64_t len;
    uint16_t status;

    QEMU_BUILD_BUG_ON(sizeof(NvmeErrorLog) * (FEMU_ELPE + 1) > sizeof(buf));
    switch (dw10 & 0xff) {
    case NVME_LOG_ERROR_INFO:
        size = femu_error_log_page(n, buf);
        break;
    case NVME_LOG_SMART_INFO:
        if (nsid != 0 && nsid != 1 && nsid != NVME_NSID_BROADCAST) {
            return femu_dnr(NVME_INVALID_NSID);
        }
        size = femu_smart_log_page(n, buf);
        break;
    case NVME_LOG_FW_SLOT_INFO:
        size = femu_fw_slot_log_page(buf);
        break;
    default:
        return femu_dnr(NVME_INVALID_LOG_ID);
    }
    if ((offset & 3) || offset >= size) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    len = MIN(numd * 4, size - offset);
    status = femu_dma_prp(n, cmd, buf + offset, len, UINT64_MAX, FEMU_TO_GUEST);
    return status ? femu_dnr(status) : NVME_SUCCESS;
}

/* ---- Events, abort, vendor ---- */

static uint16_t femu_async_event_request(FemuCtrl *n)
{
    if (n->aer_outstanding > FEMU_AERL) {
        return femu_dnr(NVME_AER_LIMIT_EXCEEDED);
    }
    n->aer_outstanding++;
    return NVME_NO_COMPLETE;   /* femu raises no events: held until a reset */
}

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
        return femu_async_event_request(n);
    case NVME_ADM_CMD_DBBUF_CONFIG:
        return femu_dbbuf_config(n, cmd);
    case FEMU_VENDOR_LPN_DUMP:
        return femu_vendor_lpn_dump(n, req);
    case FEMU_VENDOR_PHASE:
        return femu_vendor_phase(n, cmd, req);
    default:
        return femu_dnr(NVME_INVALID_OPCODE);
    }
}
