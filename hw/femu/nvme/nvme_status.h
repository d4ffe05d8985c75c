/*
 * NVMe completion status values used by femu's QEMU-free NVMe helpers.
 *
 * Names and values follow the NVM Express Base Specification (revision 2.x, "Status Field"
 * and "Generic Command Status Values"). Only the codes femu's helpers produce are listed; add
 * more here, from the spec, as helpers need them.
 *
 * Layout: a status is (SCT << 8) | SC, i.e. the Status Field of the completion queue entry
 * without the Phase Tag, shifted down by one bit. Generic codes have SCT 0, so their status is
 * the plain SC value. Helpers return these values without DNR; the caller decides whether to
 * set it when it builds the completion.
 */
#ifndef FEMU_NVME_STATUS_H
#define FEMU_NVME_STATUS_H

#include <stdint.h>

/* Status Code Type (SCT) values. */
#define NVME_SCT_GENERIC            0x0
#define NVME_SCT_COMMAND_SPECIFIC   0x1
#define NVME_SCT_MEDIA_ERROR        0x2
#define NVME_SCT_PATH_RELATED       0x3

/* Generic Command Status (SCT 0) Status Code (SC) values. */
#define NVME_SC_SUCCESS                 0x00    /* Successful Completion */
#define NVME_SC_INVALID_FIELD           0x02    /* Invalid Field in Command */
#define NVME_SC_DATA_TRANSFER_ERROR     0x04    /* Data Transfer Error */
#define NVME_SC_INTERNAL_ERROR          0x06    /* Internal Error */
#define NVME_SC_PRP_OFFSET_INVALID      0x13    /* PRP Offset Invalid */

/* Do Not Retry: bit 14 of the layout above (bit 15 of the CQE's status half-word). */
#define NVME_STATUS_DNR                 0x4000u

static inline uint16_t nvme_status_make(unsigned sct, unsigned sc)
{
    return (uint16_t)(((sct & 0x7u) << 8) | (sc & 0xffu));
}

static inline unsigned nvme_status_sct(uint16_t status)
{
    return (status >> 8) & 0x7u;
}

static inline unsigned nvme_status_sc(uint16_t status)
{
    return status & 0xffu;
}

#endif
