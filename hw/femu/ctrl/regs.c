/*
 * BAR0: the NVMe controller registers and the doorbells.
 *
 * These handlers run in vCPU threads with the BQL held. They only store values and wake
 * the poller, which owns every consequence (enable, reset, fetching, completions), so a
 * register write never waits for the data path; the one wait, for a reset, is the state
 * machine's (femu_ctrl_state.c).
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "hw/pci/msix.h"
#include "qemu/log.h"

#include "femu_ctrl.h"
#include "trace.h"

static uint32_t *femu_reg32(FemuCtrl *n, unsigned offset)
{
    return (uint32_t *)&n->regs[offset];
}

uint32_t femu_reg_read32(FemuCtrl *n, unsigned offset)
{
    return le32_to_cpu(qatomic_read(femu_reg32(n, offset)));
}

uint64_t femu_reg_read64(FemuCtrl *n, unsigned offset)
{
    return femu_reg_read32(n, offset) | (uint64_t)femu_reg_read32(n, offset + 4) << 32;
}

void femu_reg_write32(FemuCtrl *n, unsigned offset, uint32_t value)
{
    qatomic_set(femu_reg32(n, offset), cpu_to_le32(value));
}

void femu_regs_init(FemuCtrl *n)
{
    uint64_t cap = 0;

    memset(n->regs, 0, sizeof(n->regs));
    NVME_CAP_SET_MQES(cap, FEMU_MAX_QSIZE - 1);
    NVME_CAP_SET_CQR(cap, 1);
    NVME_CAP_SET_TO(cap, FEMU_CAP_TIMEOUT);
    NVME_CAP_SET_CSS(cap, NVME_CAP_CSS_NCSS);
    if (n->zoned_sectors) {
        /* CC.CSS 110b may then select the Zoned Namespace command set too */
        NVME_CAP_SET_CSS(cap, NVME_CAP_CSS_IOCSS);
    }
    NVME_CAP_SET_MPSMIN(cap, 0);
    NVME_CAP_SET_MPSMAX(cap, FEMU_MPSMAX);
    femu_reg_write32(n, NVME_REG_CAP, (uint32_t)cap);
    femu_reg_write32(n, NVME_REG_CAP + 4, (uint32_t)(cap >> 32));
    femu_reg_write32(n, NVME_REG_VS, 0x00010400);   /* NVMe 1.4 */
}

/*
 * Machine or function reset: registers back to their reset values and a controller reset
 * the poller has finished when this returns, whatever state the controller was in.
 */
void femu_regs_reset(FemuCtrl *n)
{
    static const unsigned cleared[] = {
        NVME_REG_INTMS, NVME_REG_INTMC, NVME_REG_AQA, NVME_REG_ASQ, NVME_REG_ASQ + 4,
        NVME_REG_ACQ, NVME_REG_ACQ + 4, NVME_REG_CC,
    };

    for (unsigned i = 0; i < ARRAY_SIZE(cleared); i++) {
        femu_reg_write32(n, cleared[i], 0);
    }
    femu_ctrl_machine_reset(n);
}

static void femu_doorbell_write(FemuCtrl *n, hwaddr offset, uint32_t value)
{
    unsigned index = (offset - FEMU_DOORBELL_BASE) >> 2;
    unsigned qid = index >> 1;
    uint32_t *size;

    if ((offset & 3) || qid > n->queues) {
        qemu_log_mask(LOG_GUEST_ERROR, "femu: write of %u to 0x%" PRIx64 ": no such doorbell, "
                      "ignored\n", value, (uint64_t)offset);
        return;   /* no such doorbell: ignored, like writes to reserved space */
    }
    /*
     * A value beyond the queue is ignored here, not stored: the poller reads doorbells
     * lazily, and storing it would hide a valid value written just before.
     */
    size = (index & 1) ? &n->cq[qid].size : &n->sq[qid].size;
    if (value >= qatomic_read(size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "femu: %s doorbell of queue %u: %u is beyond the "
                      "queue's %u entries, ignored\n", (index & 1) ? "CQ head" : "SQ tail",
                      qid, value, qatomic_read(size));
        return;
    }
    trace_femu_doorbell(qid, (index & 1) ? "cq head" : "sq tail", value);
    if (index & 1) {
        qatomic_set(&n->cq[qid].db_head, value & 0xffff);
        if (!msix_enabled(PCI_DEVICE(n))) {
            femu_irq_update_pin(n);   /* consumed entries may drop the level */
        }
    } else {
        qatomic_set(&n->sq[qid].db_tail, value & 0xffff);
    }
    femu_poller_kick(n);
}

static void femu_reg_store(FemuCtrl *n, hwaddr offset, uint32_t value)
{
    bool msix = msix_enabled(PCI_DEVICE(n));

    switch (offset) {
    case NVME_REG_INTMS:
        /* Only meaningful for pin and MSI interrupts; MSI-X has its own mask bits. */
        if (!msix) {
            uint32_t mask = femu_reg_read32(n, NVME_REG_INTMS) | value;
            femu_reg_write32(n, NVME_REG_INTMS, mask);
            femu_reg_write32(n, NVME_REG_INTMC, mask);
            femu_irq_update_pin(n);
        }
        break;
    case NVME_REG_INTMC:
        if (!msix) {
            uint32_t mask = femu_reg_read32(n, NVME_REG_INTMS) & ~value;
            femu_reg_write32(n, NVME_REG_INTMS, mask);
            femu_reg_write32(n, NVME_REG_INTMC, mask);
            femu_irq_update_pin(n);
        }
        break;
    case NVME_REG_CC: {
        uint32_t old = femu_reg_read32(n, NVME_REG_CC);

        femu_reg_write32(n, NVME_REG_CC, value);
        femu_ctrl_cc_written(n, old, value);   /* the state machine takes it from here */
        break;
    }
    case NVME_REG_AQA:
    case NVME_REG_ASQ:
    case NVME_REG_ASQ + 4:
    case NVME_REG_ACQ:
    case NVME_REG_ACQ + 4:
        /* Latched by the poller when the controller is enabled. */
        femu_reg_write32(n, offset, value);
        break;
    default:
        break;   /* read-only (CAP, VS, CSTS) or unsupported (NSSR, CMB, PMR): ignored */
    }
}

static uint64_t femu_bar0_read(void *opaque, hwaddr offset, unsigned size)
{
    FemuCtrl *n = opaque;

    if (offset >= FEMU_DOORBELL_BASE || (offset & (size - 1))) {
        return 0;   /* doorbells are write-only */
    }
    return size == 8 ? femu_reg_read64(n, offset) : femu_reg_read32(n, offset);
}

static void femu_bar0_write(void *opaque, hwaddr offset, uint64_t data, unsigned size)
{
    FemuCtrl *n = opaque;

    if (offset & (size - 1)) {
        return;
    }
    if (offset >= FEMU_DOORBELL_BASE) {
        if (size == 4) {
            femu_doorbell_write(n, offset, data);
        }
        return;
    }
    trace_femu_mmio_write(offset, data, size);
    femu_reg_store(n, offset, (uint32_t)data);
    if (size == 8) {
        femu_reg_store(n, offset + 4, (uint32_t)(data >> 32));
    }
}

const MemoryRegionOps femu_bar0_ops = {
    .read = femu_bar0_read,
    .write = femu_bar0_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
};
