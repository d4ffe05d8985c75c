/*
 * Interrupts. The poller posts completions without the BQL, but raising an MSI-X
 * message or a pin needs it, so the poller marks the vector and schedules a bottom half
 * (thread-safe), which delivers every marked vector under the BQL in the main loop.
 * Under KVM, unmasked MSI-X vectors skip the main loop through irqfds (ctrl/irqfd.c).
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/main-loop.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"

#include "ctrl/irq.h"
#include "ctrl/irqfd.h"
#include "ctrl/regs.h"
#include "trace.h"

/* Pin level (one line for all vectors): some interrupt-enabled CQ holds entries the host
 * has not consumed. */
void femu_irq_update_pin(FemuCtrl *n)
{
    PCIDevice *pci = PCI_DEVICE(n);
    bool level = false;

    if (msix_enabled(pci)) {
        return;
    }
    if (!(femu_reg_read32(n, NVME_REG_INTMS) & 1)) {
        for (unsigned qid = 0; qid <= n->queues && !level; qid++) {
            FemuCQueue *cq = &n->cq[qid];

            level = qatomic_read(&cq->valid) && cq->irq_enabled &&
                    qatomic_read(&cq->tail) != qatomic_read(&cq->db_head);
        }
    }
    trace_femu_irq_pin(level);
    pci_set_irq(pci, level);
}

/*
 * Raise every vector the poller marked. An MSI-X message is a write to a guest-chosen
 * address, which may be another device's register that unplugs this one on the spot; a
 * reference keeps the device's memory valid and the loop stops once it is unrealized.
 */
static void femu_irq_bh(void *opaque)
{
    FemuCtrl *n = opaque;
    PCIDevice *pci = PCI_DEVICE(n);
    bool pin = false;

    object_ref(OBJECT(n));
    for (unsigned word = 0; word < ARRAY_SIZE(n->irq_pending); word++) {
        uint64_t bits = qatomic_xchg(&n->irq_pending[word], 0);

        while (bits && n->irq_bh) {
            unsigned vector = word * 64 + ctz64(bits);

            bits &= bits - 1;
            if (msix_enabled(pci)) {
                if (vector < n->num_vectors) {
                    trace_femu_irq_msix(vector);
                    msix_notify(pci, vector);
                }
            } else {
                pin = true;
            }
        }
    }
    if (pin && n->irq_bh) {
        femu_irq_update_pin(n);
    }
    object_unref(OBJECT(n));
}

void femu_irq_request(FemuCtrl *n, FemuCQueue *cq)
{
    if (!cq->irq_enabled) {
        return;
    }
    if (msix_enabled(PCI_DEVICE(n)) && femu_irqfd_notify(n, cq->vector)) {
        return;
    }
    qatomic_or(&n->irq_pending[cq->vector / 64], UINT64_C(1) << (cq->vector % 64));
    qemu_bh_schedule(n->irq_bh);
}

/* BQL, after a reset: the interrupts the poller asked for before it are void. */
void femu_irq_forget_pending(FemuCtrl *n)
{
    for (unsigned word = 0; word < ARRAY_SIZE(n->irq_pending); word++) {
        qatomic_set(&n->irq_pending[word], 0);
    }
}

void femu_irq_discard_pending(FemuCtrl *n)
{
    femu_irq_forget_pending(n);
    femu_irq_update_pin(n);
}

void femu_irq_init(FemuCtrl *n)
{
    n->irq_bh = qemu_bh_new_guarded(femu_irq_bh, n, &DEVICE(n)->mem_reentrancy_guard);
}

void femu_irq_cleanup(FemuCtrl *n)
{
    if (n->irq_bh) {
        qemu_bh_delete(n->irq_bh);
        n->irq_bh = NULL;
    }
}
