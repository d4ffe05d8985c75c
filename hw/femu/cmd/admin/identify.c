/*
 * Identify (poller thread): the controller, namespace and list data structures the
 * controller reports, one function per CNS value. With zoned=on or kv_ns_mb the I/O
 * command set specific ones (CNS 05h, 06h, 07h; CSI in CDW11[31:24]) describe the zoned
 * and Key Value namespaces too, while CC.CSS selects all I/O command sets.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "hw/pci/pci_ids.h"

#include "cmd/admin/identify.h"
#include "cmd/admin/power_desc.h"
#include "cmd/core/cmd.h"
#include "cmd/core/ns_table.h"
#include "cmd/fdp/fdp.h"
#include "cmd/io/copy.h"
#include "ctrl/dma.h"

/* Values block/nvme.h does not name (NVMe base specification 2.0). */
#define FEMU_OACS_GET_LBA_STATUS        (1u << 9)
#define FEMU_OAES_LBA_STATUS_INFO       (1u << 13)
#define FEMU_LPA_SMART_PER_NS           (1u << 0)
#define FEMU_LPA_CMD_EFFECTS            (1u << 1)
#define FEMU_LPA_EXTENDED_DATA          (1u << 2)
#define FEMU_ID_CNS_IO_CMD_SETS         0x1c    /* I/O Command Set data structure */
#define FEMU_CTRATT_FDPS                (1u << 19)  /* Flexible Data Placement */
#define FEMU_VWC_PRESENT                (1u << 0)   /* VWCP: a volatile write cache */
#define FEMU_VWC_FB_BROADCAST           (3u << 1)   /* FB 11b: Flush takes FFFFFFFFh */

/* A 128-bit little-endian capacity field. */
static void femu_put_u128(uint8_t *field, uint64_t value)
{
    stq_le_p(field, value);
    stq_le_p(field + 8, 0);
}

/* Identify Controller fields block/nvme.h keeps in reserved space. */
#define FEMU_ID_CTRL_MNAN   540     /* Maximum Allowed Namespaces, 4 bytes */

static void femu_identify_ctrl(FemuCtrl *n, NvmeIdCtrl *id)
{
    id->vid = cpu_to_le16(PCI_VENDOR_ID_INTEL);
    id->ssvid = cpu_to_le16(PCI_VENDOR_ID_INTEL);
    strpadcpy((char *)id->sn, sizeof(id->sn), n->serial_number, ' ');
    strpadcpy((char *)id->mn, sizeof(id->mn), FEMU_MODEL, ' ');
    strpadcpy((char *)id->fr, sizeof(id->fr), FEMU_FIRMWARE, ' ');
    id->rab = 6;
    id->mdts = n->mdts;
    id->cntlid = cpu_to_le16(FEMU_CNTLID);
    id->ver = cpu_to_le32(0x00010400);
    /* namespace attribute notices, LBA status information alerts */
    id->oaes = cpu_to_le32(NVME_OAES_NS_ATTR | FEMU_OAES_LBA_STATUS_INFO);
    id->cntrltype = 1;                              /* I/O controller */
    if (femu_fdp_offered(n)) {
        /* FDP in endurance group 1 (cmd/fdp/fdp.c); no Endurance Group Information log, so
         * CTRATT.EGS stays clear */
        id->ctratt = cpu_to_le32(FEMU_CTRATT_FDPS);
        id->endgidmax = cpu_to_le16(FEMU_ENDGID);
    }
    id->oacs = cpu_to_le16(NVME_OACS_FORMAT | NVME_OACS_NMS | NVME_OACS_DBCS |
                           FEMU_OACS_GET_LBA_STATUS);
    id->acl = FEMU_ACL;
    id->aerl = FEMU_AERL;
    id->frmw = 0x03;                                /* one slot, slot 1 read-only */
    /* SMART per namespace, extended Get Log Page data */
    id->lpa = FEMU_LPA_SMART_PER_NS | FEMU_LPA_EXTENDED_DATA;
    if (n->zoned_sectors || n->kv_offered) {
        id->lpa |= FEMU_LPA_CMD_EFFECTS;    /* log 05h: a zoned or KV host reads it per CSI */
    }
    id->elpe = FEMU_ELPE;
    id->wctemp = cpu_to_le16(FEMU_WCTEMP_K);
    id->cctemp = cpu_to_le16(FEMU_CCTEMP_K);
    femu_put_u128(id->tnvmcap, (n->capacity_sectors + n->zoned_sectors) * n->secsz);
    femu_put_u128(id->unvmcap, femu_ns_unallocated_bytes(n));
    id->sqes = 0x66;
    id->cqes = 0x44;
    id->nn = cpu_to_le32(FEMU_MAX_NAMESPACES);
    /* SSFS (NVME_ONCS_FEATURES): Get Features takes every SEL, and Set Features' SV is
     * taken by the saveable features (FDP's) */
    id->oncs = cpu_to_le16(NVME_ONCS_COMPARE | NVME_ONCS_WRITE_UNCORR | NVME_ONCS_DSM |
                           NVME_ONCS_WRITE_ZEROES | NVME_ONCS_FEATURES | NVME_ONCS_VERIFY |
                           NVME_ONCS_COPY);
    id->ocfs = cpu_to_le16(NVME_OCFS_COPY_FORMAT_0);    /* Copy: source range format 0 */
    id->fna = 0;        /* Format and its secure erase act on one namespace; no crypto */
    /* FB 11b: Flush takes NSID FFFFFFFFh (without a cache it has no effect, and
     * succeeds); VWCP: the FTL's write buffer is the volatile write cache. */
    id->vwc = FEMU_VWC_FB_BROADCAST |
              (femu_has_write_cache(n) ? FEMU_VWC_PRESENT : 0);
    stl_le_p((uint8_t *)id + FEMU_ID_CTRL_MNAN, FEMU_MAX_NAMESPACES);
    snprintf((char *)id->subnqn, sizeof(id->subnqn), "nqn.2026-11.io.femu:%s",
             n->serial_number);
    femu_power_identify(n, id);                     /* NPSS, APSTA, the descriptors */
}

/* NVM command set specific controller data (CNS 06h, CSI 00h): the Verify and DSM limits. */
static void femu_identify_ctrl_nvm(FemuCtrl *n, NvmeIdCtrlNvm *id)
{
    id->vsl = FEMU_VSL;                 /* Verify: at most 4 MiB (WUSL 0: no limit) */
    id->dmrl = FEMU_DMRL;
    id->dmrsl = cpu_to_le32(n->dmrsl);
    id->dmsl = cpu_to_le64(n->dmrsl);
}

/* The LBA formats every namespace may use (also the broadcast NSID's answer). */
static void femu_identify_lbafs(FemuCtrl *n, NvmeIdNs *id)
{
    uint64_t bytes[FEMU_MAX_LBAF];
    unsigned count = femu_lbafs(n, bytes);

    id->nlbaf = count - 1;
    for (unsigned i = 0; i < count; i++) {
        id->lbaf[i].ds = ctz64(bytes[i]);
        id->lbaf[i].rp = bytes[i] == n->geometry.page_bytes ? 0 : 1;  /* best: a page */
    }
}

static void femu_identify_ns(FemuCtrl *n, const FemuNamespace *ns, NvmeIdNs *id)
{
    /* The flash page in this namespace's LBAs, so hosts align writes and discards to it. */
    uint64_t lbas_per_pg = MAX(n->geometry.page_bytes / ns->lba_bytes, 1);

    id->nsze = cpu_to_le64(ns->nsze);
    id->ncap = cpu_to_le64(ns->nsze);
    id->nuse = cpu_to_le64(femu_ns_nuse(n, ns));     /* LBAs holding host data */
    id->nsfeat = 1u << 4;               /* NPWG/NPWA/NPDG/NPDA are valid */
    femu_identify_lbafs(n, id);
    id->flbas = ns->flbas;
    id->dlfeat = 0x09;                  /* deallocated blocks read zero; WZ DEAC works */
    id->npwg = cpu_to_le16(lbas_per_pg - 1);
    id->npwa = cpu_to_le16(lbas_per_pg - 1);
    id->npdg = cpu_to_le16(lbas_per_pg - 1);
    id->npda = cpu_to_le16(lbas_per_pg - 1);
    femu_put_u128(id->nvmcap, ns->nsze * ns->lba_bytes);
    if (femu_fdp_offered(n) && femu_fdp_in_group(ns)) {
        id->endgid = cpu_to_le16(FEMU_ENDGID);
    }
    femu_copy_limits(ns, id);
}

/* Allocated (or only attached) NSIDs above `after`, ascending, as a zero-ended list. */
static void femu_identify_ns_list(FemuCtrl *n, uint32_t after, bool attached_only,
                                  uint8_t *buf)
{
    unsigned count = 0;

    for (uint32_t nsid = after + 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (n->ns[nsid].allocated && (femu_ns_active(n, nsid) || !attached_only)) {
            stl_le_p(buf + 4 * count++, nsid);
        }
    }
}

/* Active NSIDs above `after` whose command set is csi (CNS 07h), as a zero-ended list. */
static void femu_identify_cs_ns_list(FemuCtrl *n, uint32_t after, uint8_t csi,
                                     uint8_t *buf)
{
    unsigned count = 0;

    for (uint32_t nsid = after + 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = femu_ns_active(n, nsid);

        if (ns && femu_ns_csi(ns) == csi) {
            stl_le_p(buf + 4 * count++, nsid);
        }
    }
}

/* A controller list holding this controller when `present` and its ID is >= from. */
static void femu_identify_ctrl_list(bool present, uint16_t from, uint8_t *buf)
{
    if (present && FEMU_CNTLID >= from) {
        stw_le_p(buf, 1);
        stw_le_p(buf + 2, FEMU_CNTLID);
    }
}

/*
 * Identify Namespace for an NSID (CNS 00h: active namespaces; CNS 11h: allocated ones).
 * An inactive or unallocated NSID gets zeroes, the broadcast NSID the formats all
 * namespaces share, an invalid NSID Invalid Namespace or Format.
 */
static uint16_t femu_identify_ns_cns(FemuCtrl *n, uint32_t nsid, bool allocated,
                                     uint8_t *buf)
{
    const FemuNamespace *ns;

    if (nsid == NVME_NSID_BROADCAST) {
        femu_identify_lbafs(n, (NvmeIdNs *)buf);
        return NVME_SUCCESS;
    }
    if (nsid == 0 || nsid > FEMU_MAX_NAMESPACES) {
        return femu_dnr(NVME_INVALID_NSID);
    }
    ns = &n->ns[nsid];
    /* a KV namespace has no NVM data structure: zeroes (its own is CNS 05h, CSI 01h) */
    if (ns->allocated && !ns->kv && (femu_ns_active(n, nsid) || allocated)) {
        femu_identify_ns(n, ns, (NvmeIdNs *)buf);
    }
    return NVME_SUCCESS;
}

/* A command set CNS 05h..07h may name: NVM, and Zoned or KV while CC.CSS enables it. */
static bool femu_csi_enabled(FemuCtrl *n, uint8_t csi)
{
    return csi == NVME_CSI_NVM || (csi == NVME_CSI_ZONED && femu_zns_enabled(n)) ||
           (csi == FEMU_CSI_KV && femu_kv_enabled(n));
}

/*
 * Key Value command set Identify Namespace (CNS 05h, CSI 01h; KV Command Set 1.0, laid out
 * as SPDK's struct spdk_nvme_kv_ns_data): NSZE (bytes 7:0) and NUSE (23:16) in bytes, the
 * FTL store's capacity and live value bytes; NKVF (byte 25) the KV formats less one
 * (0's based, as NLBAF is: femu has one format); the KV formats from byte 72, 16 bytes
 * each: maximum key length (bytes 1:0), maximum value length (7:4), maximum number of
 * keys (11:8).
 */
#define FEMU_KV_NS_NSZE     0
#define FEMU_KV_NS_NUSE     16
#define FEMU_KV_NS_NKVF     25
#define FEMU_KV_NS_ENDGID   46
#define FEMU_KV_NS_KVF      72
#define FEMU_KV_KVF_MKL     0
#define FEMU_KV_KVF_MVL     4
#define FEMU_KV_KVF_MNK     8

static void femu_identify_ns_kv(FemuCtrl *n, const FemuNamespace *ns, uint8_t *buf)
{
    struct ftl_kv_info info = { 0 };

    ftl_kv_info(n->ftl, ns->nsid, &info);
    stq_le_p(buf + FEMU_KV_NS_NSZE, info.capacity_bytes);
    stq_le_p(buf + FEMU_KV_NS_NUSE, info.used_bytes);
    buf[FEMU_KV_NS_NKVF] = 0;
    stw_le_p(buf + FEMU_KV_NS_KVF + FEMU_KV_KVF_MKL, FTL_KV_KEY_MAX);
    stl_le_p(buf + FEMU_KV_NS_KVF + FEMU_KV_KVF_MVL, info.max_value_bytes);
    stl_le_p(buf + FEMU_KV_NS_KVF + FEMU_KV_KVF_MNK, MIN(info.max_keys, UINT32_MAX));
}

/*
 * Zoned Namespace command set Identify Namespace: no zone operation characteristics (ZOC
 * 0; Linux refuses others), reads across zone boundaries allowed, the open and active
 * limits (0-based; FFFFFFFFh: none), and the zone size in LBAs of each format. With
 * zrwa_zones, the Zone Random Write Areas: ZRWASUP, NUMZRWA (0's based), ZRWAFG and ZRWAS
 * in this namespace's LBAs (realize refused sizes over 16 bits), explicit flush offered.
 */
static void femu_identify_ns_zoned(FemuCtrl *n, const FemuNamespace *ns, NvmeIdNsZoned *id)
{
    const struct ftl_config *cfg = &n->ftl_config;
    uint64_t bytes[FEMU_MAX_LBAF];
    unsigned count = femu_lbafs(n, bytes);
    uint16_t ozcs = NVME_ID_NS_ZONED_OZCS_RAZB;
    struct ftl_zrwa_geometry zrwa;

    QEMU_BUILD_BUG_ON(sizeof(NvmeIdNsZoned) != NVME_IDENTIFY_DATA_SIZE);
    id->zoc = 0;
    if (ftl_zrwa_geometry(n->ftl, &zrwa)) {
        ozcs |= NVME_ID_NS_ZONED_OZCS_ZRWASUP;
        id->numzrwa = cpu_to_le32(zrwa.resources - 1);
        id->zrwafg = cpu_to_le16(zrwa.flush_gran_sectors >> ns->lba_shift);
        id->zrwas = cpu_to_le16(zrwa.size_sectors >> ns->lba_shift);
        id->zrwacap = NVME_ID_NS_ZONED_ZRWACAP_EXPFLUSHSUP;
    }
    id->ozcs = cpu_to_le16(ozcs);
    id->mar = cpu_to_le32(cfg->max_active ? cfg->max_active - 1 : UINT32_MAX);
    id->mor = cpu_to_le32(cfg->max_open ? cfg->max_open - 1 : UINT32_MAX);
    for (unsigned i = 0; i < count; i++) {
        id->lbafe[i].zsze = cpu_to_le64(ftl_zone_size_sectors(n->ftl) * n->secsz / bytes[i]);
        id->lbafe[i].zdes = 0;      /* no zone descriptor extensions */
    }
}

/*
 * CNS 05h, I/O command set specific Identify Namespace: CSI 00h has no field femu sets
 * (zeroes), CSI 02h is the zoned structure, for the zoned namespace only. An inactive
 * NSID gets zeroes; an invalid one Invalid Namespace or Format; another CSI Invalid Field.
 */
static uint16_t femu_identify_cs_ns(FemuCtrl *n, uint32_t nsid, uint8_t csi, uint8_t *buf)
{
    const FemuNamespace *ns;

    if (!femu_csi_enabled(n, csi)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (nsid == 0 || nsid > FEMU_MAX_NAMESPACES) {
        return femu_dnr(NVME_INVALID_NSID);
    }
    ns = femu_ns_active(n, nsid);
    if (ns && csi == FEMU_CSI_KV) {
        if (!ns->kv) {
            return femu_dnr(NVME_INVALID_FIELD);   /* not a KV namespace */
        }
        femu_identify_ns_kv(n, ns, buf);
    } else if (ns && csi == NVME_CSI_ZONED) {
        if (!ns->zoned) {
            return femu_dnr(NVME_INVALID_FIELD);   /* not a zoned namespace */
        }
        femu_identify_ns_zoned(n, ns, (NvmeIdNsZoned *)buf);
    }
    return NVME_SUCCESS;
}

/* CNS 06h, I/O command set specific Identify Controller. */
static uint16_t femu_identify_cs_ctrl(FemuCtrl *n, uint8_t csi, uint8_t *buf)
{
    if (!femu_csi_enabled(n, csi)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (csi == NVME_CSI_NVM) {
        femu_identify_ctrl_nvm(n, (NvmeIdCtrlNvm *)buf);
    } else if (csi == FEMU_CSI_KV) {
        /* KV Command Set 1.0: no field femu sets (zeroes); the limits are per format */
    } else {
        ((NvmeIdCtrlZoned *)buf)->zasl = 0;    /* Zone Append: up to MDTS */
    }
    return NVME_SUCCESS;
}

/*
 * CNS 1Ch, I/O Command Set data structure: the combinations of command sets CC.CSS 110b
 * may enable, one 64-bit vector each by CSI bit; vector 0 is the one in use.
 */
static void femu_identify_io_cmd_sets(FemuCtrl *n, uint8_t *buf)
{
    uint64_t vector = 1u << NVME_CSI_NVM;

    if (n->zoned_sectors) {
        vector |= 1u << NVME_CSI_ZONED;
    }
    if (n->kv_offered) {
        vector |= 1u << FEMU_CSI_KV;
    }
    stq_le_p(buf, vector);
}

static uint16_t femu_identify_descriptors(FemuCtrl *n, uint32_t nsid, uint8_t *buf)
{
    const FemuNamespace *ns = femu_ns_active(n, nsid);
    NvmeIdNsDescr *descr = (NvmeIdNsDescr *)buf;

    if (!ns) {
        return femu_dnr(NVME_INVALID_NSID);
    }
    descr->nidt = NVME_NIDT_UUID;
    descr->nidl = NVME_NIDL_UUID;
    memcpy(buf + sizeof(*descr), ns->uuid, sizeof(ns->uuid));
    if (!n->zoned_sectors && !n->kv_offered) {
        return NVME_SUCCESS;
    }
    /* then, with I/O command sets (CAP.CSS bit 6), the Command Set Identifier: a host
     * that selected them all (CC.CSS 110b) needs it for every namespace */
    descr = (NvmeIdNsDescr *)(buf + sizeof(*descr) + NVME_NIDL_UUID);
    descr->nidt = NVME_NIDT_CSI;
    descr->nidl = NVME_NIDL_CSI;
    buf[2 * sizeof(*descr) + NVME_NIDL_UUID] = femu_ns_csi(ns);
    return NVME_SUCCESS;
}

/*
 * CNS 08h, I/O Command Set Independent Identify Namespace (NVMe base 2.0; block/nvme.h's
 * NvmeIdNsInd), for every namespace: what a host needs of a namespace whose command set
 * it has no driver for (Linux 6.12 asks it for every CSI but NVM and Zoned, then makes
 * /dev/ngXnY). NSTAT bit 0: the namespace is ready. An allocated but inactive NSID gets
 * zeroes, an invalid one Invalid Namespace or Format.
 */
#define FEMU_NSTAT_NRDY     (1u << 0)

static uint16_t femu_identify_cs_indep_ns(FemuCtrl *n, uint32_t nsid, uint8_t *buf)
{
    NvmeIdNsInd *id = (NvmeIdNsInd *)buf;
    const FemuNamespace *ns;

    QEMU_BUILD_BUG_ON(sizeof(NvmeIdNsInd) != NVME_IDENTIFY_DATA_SIZE);
    if (!femu_nsid_valid(nsid)) {
        return femu_dnr(NVME_INVALID_NSID);
    }
    ns = femu_ns_active(n, nsid);
    if (!ns) {
        return NVME_SUCCESS;
    }
    id->nstat = FEMU_NSTAT_NRDY;
    if (!ns->kv && femu_fdp_offered(n) && femu_fdp_in_group(ns)) {
        id->endgrpid = cpu_to_le16(FEMU_ENDGID);
    }
    return NVME_SUCCESS;
}

uint16_t femu_identify(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    uint16_t cntid = femu_cdw(cmd, 10) >> 16;
    uint8_t csi = femu_cdw(cmd, 11) >> 24;
    g_autofree uint8_t *buf = g_malloc0(NVME_IDENTIFY_DATA_SIZE);
    uint16_t status = NVME_SUCCESS;

    switch (femu_cdw(cmd, 10) & 0xff) {
    case NVME_ID_CNS_CTRL:
        femu_identify_ctrl(n, (NvmeIdCtrl *)buf);
        break;
    case NVME_ID_CNS_CS_NS:
        status = femu_identify_cs_ns(n, nsid, csi, buf);
        break;
    case NVME_ID_CNS_CS_CTRL:
        status = femu_identify_cs_ctrl(n, csi, buf);
        break;
    case NVME_ID_CNS_CS_NS_ACTIVE_LIST:
        if (nsid >= NVME_NSID_BROADCAST - 1) {
            status = femu_dnr(NVME_INVALID_NSID);
        } else if (!femu_csi_enabled(n, csi)) {
            status = femu_dnr(NVME_INVALID_FIELD);
        } else {
            femu_identify_cs_ns_list(n, nsid, csi, buf);
        }
        break;
    case FEMU_ID_CNS_IO_CMD_SETS:
        femu_identify_io_cmd_sets(n, buf);
        break;
    case NVME_ID_CNS_CS_IND_NS:
        status = femu_identify_cs_indep_ns(n, nsid, buf);
        break;
    case NVME_ID_CNS_NS:
        status = femu_identify_ns_cns(n, nsid, false, buf);
        break;
    case NVME_ID_CNS_NS_PRESENT:
        status = femu_identify_ns_cns(n, nsid, true, buf);
        break;
    case NVME_ID_CNS_NS_ACTIVE_LIST:
    case NVME_ID_CNS_NS_PRESENT_LIST:
        if (nsid >= NVME_NSID_BROADCAST - 1) {
            status = femu_dnr(NVME_INVALID_NSID);
            break;
        }
        femu_identify_ns_list(n, nsid, (femu_cdw(cmd, 10) & 0xff) == NVME_ID_CNS_NS_ACTIVE_LIST,
                              buf);
        break;
    case NVME_ID_CNS_NS_DESCR_LIST:
        status = femu_identify_descriptors(n, nsid, buf);
        break;
    case NVME_ID_CNS_NS_ATTACHED_CTRL_LIST: {
        const FemuNamespace *ns = nsid >= 1 && nsid <= FEMU_MAX_NAMESPACES ? &n->ns[nsid] : NULL;

        if (!ns) {
            status = femu_dnr(NVME_INVALID_NSID);
            break;
        }
        femu_identify_ctrl_list(femu_ns_active(n, nsid) != NULL, cntid, buf);
        break;
    }
    case NVME_ID_CNS_CTRL_LIST:
        femu_identify_ctrl_list(true, cntid, buf);
        break;
    default:
        status = femu_dnr(NVME_INVALID_FIELD);
        break;
    }
    if (status == NVME_SUCCESS) {
        status = femu_dma_prp(n, cmd, buf, NVME_IDENTIFY_DATA_SIZE, UINT64_MAX, FEMU_TO_GUEST);
        status = status ? femu_dnr(status) : status;
    }
    return status;
}
