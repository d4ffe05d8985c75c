/*
 * SMART / Health Information (poller thread): the counters the I/O commands add to, the
 * health figures the FTL's wear gives (also for the OCP page C0h), and log page 02h.
 */
#include "qemu/osdep.h"

#include "backend/ftl_view.h"
#include "cmd/core/ns_table.h"
#include "cmd/health/smart.h"

/* A 128-bit little-endian SMART counter (the packed struct forbids member pointers). */
#define FEMU_SMART_PUT(log, field, value) \
    stq_le_p((uint8_t *)(log) + offsetof(NvmeSmartLog, field), (value))

/* SMART / Health Information: Critical Warning bits (NVMe base specification). */
#define FEMU_SMART_SPARE_BELOW_THRESHOLD    (1u << 0)
#define FEMU_SMART_TEMPERATURE              (1u << 1)
#define FEMU_SMART_RELIABILITY_DEGRADED     (1u << 2)
#define FEMU_SMART_SPARE_THRESHOLD          10      /* percent */

/*
 * SMART counters, the controller's and the namespace's: Data Units Read count the LBAs of
 * Read, Compare and Verify; Host Read Commands count Read and Compare (cmds false for
 * Verify); a Read that fails on marked LBAs counts as a command and reads no data. Key
 * Value: Retrieve reads the bytes it returns, Store writes its value (cmd/io/kv.c).
 */
void femu_smart_read(FemuCtrl *n, FemuNamespace *ns, uint64_t bytes, bool cmds)
{
    FemuSmart *counters[] = { &n->smart, &ns->smart };

    for (unsigned i = 0; i < ARRAY_SIZE(counters); i++) {
        counters[i]->units_read += bytes;
        counters[i]->read_cmds += cmds;
    }
}

void femu_smart_write(FemuCtrl *n, FemuNamespace *ns, uint64_t bytes)
{
    FemuSmart *counters[] = { &n->smart, &ns->smart };

    for (unsigned i = 0; i < ARRAY_SIZE(counters); i++) {
        counters[i]->units_written += bytes;
        counters[i]->write_cmds++;
    }
}

uint8_t femu_available_spare(const struct ftl_wear *wear)
{
    if (wear->spare_blocks_total == 0) {
        return 100;     /* no spare to run out of */
    }
    return MIN(wear->spare_blocks, wear->spare_blocks_total) * 100 / wear->spare_blocks_total;
}

/*
 * Percentage Used: the most worn block's erase count against the rated P/E cycles,
 * rounded down (100 exactly when some block reached pe_cycles), at most 255.
 */
static uint8_t femu_percentage_used(const struct ftl_wear *wear)
{
    uint64_t used = wear->pe_cycles ? (uint64_t)wear->erase_max * 100 / wear->pe_cycles : 0;

    return MIN(used, 255);
}

static uint64_t femu_data_units(uint64_t bytes)
{
    return DIV_ROUND_UP(bytes, 512 * 1000);   /* thousands of 512-byte units, rounded up */
}

/*
 * 02h SMART / Health Information. NSID 0 or FFFFFFFFh: the controller's counters. An
 * active namespace's NSID: that namespace's data units, commands and media errors (the
 * rest is the controller's). A valid NSID that is not active: Invalid Field in Command,
 * any other NSID: Invalid Namespace or Format (the spec's rule for NSIDs).
 */
uint16_t femu_smart_log(FemuCtrl *n, uint32_t nsid, NvmeSmartLog *log)
{
    const FemuSmart *counters = &n->smart;
    uint64_t hours = (femu_now_ns() - n->smart.power_on_ns) / (3600 * NANOSECONDS_PER_SECOND);
    uint16_t temp = FEMU_TEMPERATURE_K;
    FemuFtlView view;

    if (nsid != 0 && nsid != NVME_NSID_BROADCAST) {
        FemuNamespace *ns;
        uint16_t status = femu_ns_for_io(n, nsid, &ns);

        if (status) {
            return status;
        }
        counters = &ns->smart;
    }
    femu_ftl_view_get(n, &view);
    log->available_spare = femu_available_spare(&view.wear);
    log->available_spare_threshold = FEMU_SMART_SPARE_THRESHOLD;
    log->percentage_used = femu_percentage_used(&view.wear);
    if (log->available_spare < log->available_spare_threshold) {
        log->critical_warning |= FEMU_SMART_SPARE_BELOW_THRESHOLD;
    }
    if (temp > n->features.temp_threshold[FEMU_THSEL_OVER] ||
        temp < n->features.temp_threshold[FEMU_THSEL_UNDER]) {
        log->critical_warning |= FEMU_SMART_TEMPERATURE;
    }
    if (log->percentage_used >= 100) {
        log->critical_warning |= FEMU_SMART_RELIABILITY_DEGRADED;   /* femu's choice */
    }
    log->temperature = cpu_to_le16(temp);
    FEMU_SMART_PUT(log, data_units_read, femu_data_units(counters->units_read));
    FEMU_SMART_PUT(log, data_units_written, femu_data_units(counters->units_written));
    FEMU_SMART_PUT(log, host_read_commands, counters->read_cmds);
    FEMU_SMART_PUT(log, host_write_commands, counters->write_cmds);
    FEMU_SMART_PUT(log, power_cycles, 1);
    FEMU_SMART_PUT(log, power_on_hours, hours);
    FEMU_SMART_PUT(log, media_errors, counters->media_errors);
    FEMU_SMART_PUT(log, number_of_error_log_entries, n->errlog.count);
    return NVME_SUCCESS;
}
