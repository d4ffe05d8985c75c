/*
 * A namespace's place in the FTL's logical space (cmd/admin/ns_space.c, poller): what the
 * NVM and Key Value namespace code share to make a namespace over a range.
 */
#ifndef HW_FEMU_CMD_NS_SPACE_H
#define HW_FEMU_CMD_NS_SPACE_H

#include "femu.h"

/* Namespace Management status codes block/nvme.h does not name (NVMe base 2.0). */
#define FEMU_NS_INSUFFICIENT_CAPACITY   0x0115
#define FEMU_NS_ID_UNAVAILABLE          0x0116

/* ns's LBA format flbas (its sizes follow): false when flbas is not one the device has. */
bool femu_ns_set_format(FemuCtrl *n, FemuNamespace *ns, unsigned flbas);
bool femu_ns_find_extent(FemuCtrl *n, uint64_t sectors, uint64_t *base);
/* ns allocated (not attached) over [base, base + sectors), LBA format flbas. */
void femu_ns_init(FemuCtrl *n, FemuNamespace *ns, uint32_t nsid, uint64_t base,
                  uint64_t sectors, unsigned flbas);
void femu_ns_forget_data(FemuCtrl *n, uint64_t base, uint64_t sectors);
uint32_t femu_ns_free_nsid(FemuCtrl *n);   /* the first free NSID, or 0 */

#endif
