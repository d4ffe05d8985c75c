/*
 * The namespace table as the commands read it (poller thread): which namespace an NSID
 * names, how much of it holds data, the capacity no namespace has, the LBA formats femu
 * offers. What changes the table (realize, Namespace Management and Attachment, Format
 * NVM) is cmd/admin/ns.c.
 */
#include "qemu/osdep.h"

#include "cmd/core/ns_table.h"

bool femu_nsid_valid(uint32_t nsid)
{
    return nsid >= 1 && nsid <= FEMU_MAX_NAMESPACES;
}

FemuNamespace *femu_ns_allocated(FemuCtrl *n, uint32_t nsid)
{
    return femu_nsid_valid(nsid) && n->ns[nsid].allocated ? &n->ns[nsid] : NULL;
}

FemuNamespace *femu_ns_active(FemuCtrl *n, uint32_t nsid)
{
    FemuNamespace *ns = femu_ns_allocated(n, nsid);

    /* the zoned and KV namespaces only while CC.CSS selects all I/O command sets */
    return ns && ns->attached && (!ns->zoned || femu_zns_enabled(n)) &&
           (!ns->kv || n->css_all) ? ns : NULL;
}

uint16_t femu_ns_for_io(FemuCtrl *n, uint32_t nsid, FemuNamespace **ns)
{
    if (!femu_nsid_valid(nsid)) {
        return femu_dnr(NVME_INVALID_NSID);
    }
    *ns = femu_ns_active(n, nsid);
    /* A valid NSID that is not active: the spec's status for an inactive namespace. */
    return *ns ? NVME_SUCCESS : femu_dnr(NVME_INVALID_FIELD);
}

uint64_t femu_ns_nuse(FemuCtrl *n, const FemuNamespace *ns)
{
    uint64_t sectors = lba_bitmap_count_range(&n->written, ns->base_sector, ns->sectors);

    /* Written and deallocated whole LBAs at a time, so this divides exactly. */
    return sectors >> ns->lba_shift;
}

uint64_t femu_ns_unallocated_bytes(FemuCtrl *n)
{
    uint64_t used = 0;

    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = &n->ns[nsid];

        used += ns->allocated && !ns->zoned ? ns->sectors : 0;   /* zones: not capacity */
    }
    return (n->capacity_sectors - used) * n->secsz;
}

/*
 * The LBA sizes femu offers: the FTL sector itself (LBAF 0) and 4 KiB (LBAF 1) when that
 * is a whole number of sectors within one flash page. Returns how many; sizes in bytes.
 */
unsigned femu_lbafs(FemuCtrl *n, uint64_t bytes[FEMU_MAX_LBAF])
{
    unsigned count = 0;

    bytes[count++] = n->secsz;
    if (n->secsz < 4096 && 4096 % n->secsz == 0 &&
        n->geometry.page_bytes % 4096 == 0) {
        bytes[count++] = 4096;
    }
    return count;
}
