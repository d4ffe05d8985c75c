/*
 * A namespace's place in the FTL's logical space (poller thread): its LBA format, the
 * first-fit search for a free extent, its initialisation over a range, the free NSID, and
 * forgetting a range's data. Used by the NVM (ns.c) and Key Value (ns_kv.c) namespaces.
 */
#include "qemu/osdep.h"

#include "cmd/admin/features.h"
#include "cmd/admin/ns_space.h"
#include "cmd/core/cmd_set.h"
#include "cmd/core/ns_table.h"
#include "util/fnv1a.h"

/* ---- A namespace's LBA format ---- */

bool femu_ns_set_format(FemuCtrl *n, FemuNamespace *ns, unsigned flbas)
{
    uint64_t bytes[FEMU_MAX_LBAF];

    if (flbas >= femu_lbafs(n, bytes)) {
        return false;
    }
    ns->flbas = flbas;
    ns->lba_bytes = bytes[flbas];
    ns->lba_shift = ctz64(ns->lba_bytes / n->secsz);
    ns->nsze = ns->bytes / ns->lba_bytes;
    ns->dmrsl = MIN(n->dmrsl, ns->nsze);
    return true;
}

/* ---- Capacity ---- */

/*
 * The first free extent of `sectors` (a multiple of a flash page) in the FTL's logical
 * space: *base, or false when no free extent is that large.
 */
bool femu_ns_find_extent(FemuCtrl *n, uint64_t sectors, uint64_t *base)
{
    uint64_t candidate = 0;
    bool moved;

    do {   /* slide past every namespace that overlaps the candidate extent */
        moved = false;
        for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
            const FemuNamespace *ns = &n->ns[nsid];

            if (ns->allocated && ns->base_sector < candidate + sectors &&
                candidate < ns->base_sector + ns->sectors) {
                candidate = ns->base_sector + ns->sectors;
                moved = true;
            }
        }
    } while (moved && candidate + sectors <= n->capacity_sectors);
    if (candidate + sectors > n->capacity_sectors) {
        return false;
    }
    *base = candidate;
    return true;
}

/* A UUID stable for a given serial, NSID and creation count (FNV-1a), RFC 4122 layout. */
static void femu_ns_derive_uuid(FemuCtrl *n, FemuNamespace *ns)
{
    uint64_t hash = FNV1A64_BASIS;
    uint64_t salt = (uint64_t)ns->nsid << 32 | n->ns_created;

    for (unsigned i = 0; i < sizeof(ns->uuid); i++) {
        for (const char *c = n->serial_number; *c; c++) {
            hash = fnv1a64_byte(hash, (uint8_t)*c ^ i);     /* i < 16: one byte */
        }
        for (unsigned b = 0; b < 8 && salt; b++) {
            hash = fnv1a64_byte(hash, (salt >> (8 * b)) & 0xff);
        }
        ns->uuid[i] = hash >> 56;
    }
    ns->uuid[6] = (ns->uuid[6] & 0x0f) | 0x40;   /* version 4 layout */
    ns->uuid[8] = (ns->uuid[8] & 0x3f) | 0x80;   /* RFC 4122 variant */
}

void femu_ns_init(FemuCtrl *n, FemuNamespace *ns, uint32_t nsid, uint64_t base,
              uint64_t sectors, unsigned flbas)
{
    memset(ns, 0, sizeof(*ns));
    ns->allocated = true;
    femu_cmd_set_select(n, ns);         /* conventional: the NVM command set */
    ns->nsid = nsid;
    ns->base_sector = base;
    ns->sectors = sectors;
    ns->bytes = sectors * n->secsz;
    femu_ns_set_format(n, ns, flbas);
    femu_ns_derive_uuid(n, ns);
    femu_features_ns_reset(n, nsid);    /* a reused NSID starts from the defaults */
    n->ns_created++;
}

/* Drop the data of sectors [base, base + sectors) from the poller's view. */
void femu_ns_forget_data(FemuCtrl *n, uint64_t base, uint64_t sectors)
{
    data_store_discard(n->store, base * n->secsz, sectors * n->secsz);
    lba_bitmap_clear(&n->written, base, sectors);
    lba_bitmap_clear(&n->uncorrectable, base, sectors);
}

/* The first free NSID, or 0. */
uint32_t femu_ns_free_nsid(FemuCtrl *n)
{
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (!n->ns[nsid].allocated) {
            return nsid;
        }
    }
    return 0;
}
