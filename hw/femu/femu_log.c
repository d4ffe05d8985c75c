/*
 * Log pages (poller thread): the error log the controller keeps and the pages Get Log
 * Page returns.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"

#include "femu_ctrl.h"

/* A 128-bit little-endian SMART counter (the packed struct forbids member pointers). */
#define FEMU_SMART_PUT(log, field, value) \
    stq_le_p((uint8_t *)(log) + offsetof(NvmeSmartLog, field), (value))

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

uint16_t femu_get_log_page(FemuCtrl *n, const NvmeCmd *cmd)
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

