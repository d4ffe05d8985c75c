/*
 * KVM fast path for MSI-X: one eventfd per vector wired to the guest's interrupt through
 * a KVM irqfd, so the poller signals the guest directly instead of waking the main loop.
 * Used only when KVM routes MSIs through irqfds; under TCG (and for pin interrupts) the
 * bottom half in femu_irq.c delivers everything.
 *
 * A vector is wired while the guest leaves it unmasked: QEMU's MSI-X code calls the use
 * notifier on unmask (with the message to route) and the release notifier on mask.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "system/kvm.h"

#include "femu_ctrl.h"

static int femu_irqfd_use(PCIDevice *pci, unsigned vector, MSIMessage msg)
{
    FemuCtrl *n = FEMU(pci);
    FemuIrqfd *irqfd = &n->irqfd[vector];

    if (irqfd->virq < 0) {
        KVMRouteChange change = kvm_irqchip_begin_route_changes(kvm_state);

        irqfd->virq = kvm_irqchip_add_msi_route(&change, vector, pci);
        if (irqfd->virq < 0) {
            return irqfd->virq;
        }
        kvm_irqchip_commit_route_changes(&change);
    } else if (kvm_irqchip_update_msi_route(kvm_state, irqfd->virq, msg, pci) == 0) {
        kvm_irqchip_commit_routes(kvm_state);
    }
    if (kvm_irqchip_add_irqfd_notifier_gsi(kvm_state, &irqfd->notifier, NULL,
                                           irqfd->virq) < 0) {
        return -1;   /* the vector keeps using the bottom half */
    }
    qatomic_set(&irqfd->active, true);
    return 0;
}

static void femu_irqfd_release(PCIDevice *pci, unsigned vector)
{
    FemuCtrl *n = FEMU(pci);
    FemuIrqfd *irqfd = &n->irqfd[vector];

    if (!qatomic_read(&irqfd->active)) {
        return;
    }
    qatomic_set(&irqfd->active, false);
    kvm_irqchip_remove_irqfd_notifier_gsi(kvm_state, &irqfd->notifier, irqfd->virq);
    /* A signal that arrived as the vector was masked: keep it as the pending bit. */
    if (event_notifier_test_and_clear(&irqfd->notifier)) {
        msix_set_pending(pci, vector);
    }
}

void femu_irqfd_init(FemuCtrl *n)
{
    if (!kvm_msi_via_irqfd_enabled()) {
        return;
    }
    for (unsigned v = 0; v < n->num_vectors; v++) {
        n->irqfd[v].virq = -1;
        if (event_notifier_init(&n->irqfd[v].notifier, 0) < 0) {
            for (unsigned u = 0; u < v; u++) {
                event_notifier_cleanup(&n->irqfd[u].notifier);
            }
            return;   /* no fast path; the bottom half serves every vector */
        }
    }
    if (msix_set_vector_notifiers(PCI_DEVICE(n), femu_irqfd_use, femu_irqfd_release,
                                  NULL) < 0) {
        for (unsigned v = 0; v < n->num_vectors; v++) {
            event_notifier_cleanup(&n->irqfd[v].notifier);
        }
        return;
    }
    n->irqfd_enabled = true;
}

void femu_irqfd_cleanup(FemuCtrl *n)
{
    if (!n->irqfd_enabled) {
        return;
    }
    msix_unset_vector_notifiers(PCI_DEVICE(n));   /* releases the unmasked vectors */
    for (unsigned v = 0; v < n->num_vectors; v++) {
        if (n->irqfd[v].virq >= 0) {
            kvm_irqchip_release_virq(kvm_state, n->irqfd[v].virq);
        }
        event_notifier_cleanup(&n->irqfd[v].notifier);
    }
    n->irqfd_enabled = false;
}

/* Poller: signal the vector's irqfd; false when the bottom half must deliver instead. */
bool femu_irqfd_notify(FemuCtrl *n, unsigned vector)
{
    FemuIrqfd *irqfd = &n->irqfd[vector];

    if (!n->irqfd_enabled || vector >= n->num_vectors || !qatomic_read(&irqfd->active)) {
        return false;
    }
    event_notifier_set(&irqfd->notifier);
    /* Masked meanwhile: the signal may be lost with the irqfd, so deliver it the slow way too. */
    return qatomic_read(&irqfd->active);
}
