/*
 * Identify (poller thread): the controller, namespace and list data structures the
 * controller reports, one function per CNS value.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "hw/pci/pci_ids.h"

#include "femu_ctrl.h"

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

uint16_t femu_identify(FemuCtrl *n, const NvmeCmd *cmd)
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

