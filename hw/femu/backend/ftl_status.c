/*
 * FTL results (enum ftl_status, femu_ftl/ftl.h) as NVMe statuses: the one map the device has.
 *
 * An error the guest's input caused gets its NVMe status with DNR, since the same command
 * would fail the same way: a range or field the FTL refuses, every zone rule (each FTL
 * code is named after the NVMe status it stands for), and a flash page that failed to read
 * (the poller then marks the page, so the read fails again), and every rule of the Key Value
 * command set (each FTL_E_KV_* code likewise). What the guest did not cause
 * (no free line, no memory, a code this table does not know) is Internal Error, which a
 * retry may get past.
 *
 * The commands the FTL serves without admission reach it checked (ranges against the
 * namespace, streams against nstreams, formats in whole pages), so from them only an
 * unreadable page or the internal errors come back.
 */
#include "qemu/osdep.h"

#include "backend/ftl_status.h"

static const uint16_t femu_ftl_statuses[] = {
    [-FTL_E_RANGE] = NVME_LBA_RANGE | NVME_DNR,
    [-FTL_E_NOSPC] = NVME_INTERNAL_DEV_ERROR,
    [-FTL_E_INVAL] = NVME_INVALID_FIELD | NVME_DNR,
    [-FTL_E_NOMEM] = NVME_INTERNAL_DEV_ERROR,
    [-FTL_E_UNCORRECTABLE] = NVME_UNRECOVERED_READ | NVME_DNR,
    [-FTL_E_ZONE_BOUNDARY] = NVME_ZONE_BOUNDARY_ERROR | NVME_DNR,
    [-FTL_E_ZONE_FULL] = NVME_ZONE_FULL | NVME_DNR,
    [-FTL_E_ZONE_READ_ONLY] = NVME_ZONE_READ_ONLY | NVME_DNR,
    [-FTL_E_ZONE_OFFLINE] = NVME_ZONE_OFFLINE | NVME_DNR,
    [-FTL_E_ZONE_INVALID_WRITE] = NVME_ZONE_INVALID_WRITE | NVME_DNR,
    [-FTL_E_TOO_MANY_ACTIVE] = NVME_ZONE_TOO_MANY_ACTIVE | NVME_DNR,
    [-FTL_E_TOO_MANY_OPEN] = NVME_ZONE_TOO_MANY_OPEN | NVME_DNR,
    [-FTL_E_ZONE_TRANSITION] = NVME_ZONE_INVAL_TRANSITION | NVME_DNR,
    [-FTL_E_ZONE_INVALID_OP] = NVME_INVALID_ZONE_OP | NVME_DNR,
    [-FTL_E_ZRWA_UNAVAILABLE] = NVME_NOZRWA | NVME_DNR,
    /* the Key Value command set's (femu.h) */
    [-FTL_E_KV_NO_KEY] = NVME_KV_KEY_NOT_EXIST | NVME_DNR,
    [-FTL_E_KV_KEY_EXISTS] = NVME_KV_KEY_EXISTS | NVME_DNR,
    [-FTL_E_KV_CAPACITY] = NVME_CAP_EXCEEDED | NVME_DNR,
    [-FTL_E_KV_VALUE_SIZE] = NVME_KV_INVALID_VALUE_SIZE | NVME_DNR,
    [-FTL_E_KV_KEY_SIZE] = NVME_KV_INVALID_KEY_SIZE | NVME_DNR,
};

uint16_t femu_ftl_status(int rc)
{
    if (rc == FTL_OK) {
        return NVME_SUCCESS;
    }
    if (rc > 0 || -rc >= ARRAY_SIZE(femu_ftl_statuses) || !femu_ftl_statuses[-rc]) {
        return NVME_INTERNAL_DEV_ERROR;
    }
    return femu_ftl_statuses[-rc];
}
