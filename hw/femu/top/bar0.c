/*
 * BAR0 as the host sees it: the controller registers and the doorbells.
 *
 * These handlers run in vCPU threads with the BQL held. They only store values and wake
 * the poller, which owns every consequence (enable, reset, fetching, completions), so a
 * register write never waits for the data path; the one wait, for a reset, is the state
 * machine's (top/ctrl_state.c).
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "hw/pci/msix.h"
#include "qemu/log.h"

#include "ctrl/irq.h"
#include "ctrl/regs.h"
#include "ctrl/wake.h"
#include "top/bar0.h"
#include "top/ctrl_state.h"
#include "trace.h"

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
