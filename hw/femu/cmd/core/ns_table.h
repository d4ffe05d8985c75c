/*
 * The namespace table (n->ns, by NSID) as the commands read it (cmd/core/ns_table.c). A
 * namespace's LBA is 2^lba_shift FTL sectors from its base_sector.
 */
#ifndef HW_FEMU_CMD_NS_TABLE_H
#define HW_FEMU_CMD_NS_TABLE_H

#include "femu.h"

bool femu_nsid_valid(uint32_t nsid);                /* 1..FEMU_MAX_NAMESPACES */
/* The namespace an NSID names when it is allocated, else NULL. */
FemuNamespace *femu_ns_allocated(FemuCtrl *n, uint32_t nsid);
/* The namespace an NSID names when it is attached (active), else NULL. */
FemuNamespace *femu_ns_active(FemuCtrl *n, uint32_t nsid);
/*
 * The namespace an I/O command addresses: NVME_SUCCESS with *ns, or the status for an
 * NSID that is out of range or not active (with DNR).
 */
uint16_t femu_ns_for_io(FemuCtrl *n, uint32_t nsid, FemuNamespace **ns);
/* LBAs of ns holding host data (NUSE). */
uint64_t femu_ns_nuse(FemuCtrl *n, const FemuNamespace *ns);
uint64_t femu_ns_unallocated_bytes(FemuCtrl *n);                    /* UNVMCAP */
unsigned femu_lbafs(FemuCtrl *n, uint64_t bytes[FEMU_MAX_LBAF]);    /* LBA sizes offered */

static inline uint64_t femu_ns_sector(const FemuNamespace *ns, uint64_t lba)
{
    return ns->base_sector + (lba << ns->lba_shift);
}

/* The command set of a namespace: its CSI. */
static inline uint8_t femu_ns_csi(const FemuNamespace *ns)
{
    return ns->kv ? FEMU_CSI_KV : ns->zoned ? NVME_CSI_ZONED : NVME_CSI_NVM;
}

/* Whether the Key Value command set is offered (kv_ns_mb given), and enabled (CC.CSS
 * 110b: then the KV namespaces are active). */
static inline bool femu_kv_offered(FemuCtrl *n)
{
    return n->kv_offered;
}

static inline bool femu_kv_enabled(FemuCtrl *n)
{
    return n->kv_offered && n->css_all;
}

/* Whether the zoned namespace's command set is enabled (CC.CSS 110b). */
static inline bool femu_zns_enabled(FemuCtrl *n)
{
    return n->zoned_sectors > 0 && n->css_all;
}

#endif
