/*
 * KVM fast path for MSI-X: one eventfd per vector wired to the guest's interrupt through
 * a KVM irqfd, so the poller signals the guest directly instead of waking the main loop.
 * Used only when KVM routes MSIs through irqfds; under TCG (and for pin interrupts) the
 * bottom half in ctrl/irq.c delivers everything.
 *
 * A vector is wired while the guest leaves it unmasked: QEMU's MSI-X code calls the use
 * notifier on unmask and whenever an unmasked vector's message changes, and the release
 * notifier on mask. Anything KVM refuses (a full route table, interrupt remapping turning
 * down a guest-written message) leaves the vector on the bottom-half path: the use
 * notifier always returns success, because QEMU asserts on a failure.
 *
 * Per-vector lock: the poller signals only while holding it and seeing the vector wired,
 * and masking unwires under it, so each interrupt goes exactly one way (irqfd, the PBA
 * pending bit when it was caught mid-mask, or the bottom half), never two.
 */
#include "qemu/osdep.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "system/kvm.h"

#include "ctrl/irqfd.h"
#include "trace.h"

/* Under irqfd->lock: stop using the irqfd; a signal KVM has not taken becomes pending. */
static void femu_irqfd_unwire(FemuCtrl *n, unsigned vector)
{
    FemuIrqfd *irqfd = &n->irqfd[vector];

    if (!irqfd->active) {
        return;
    }
    irqfd->active = false;
    kvm_irqchip_remove_irqfd_notifier_gsi(kvm_state, &irqfd->notifier, irqfd->virq);
    if (event_notifier_test_and_clear(&irqfd->notifier)) {
        msix_set_pending(PCI_DEVICE(n), vector);
    }
}

/* Under irqfd->lock: route the message; false when KVM refuses it. */
static bool femu_irqfd_route(FemuCtrl *n, unsigned vector, MSIMessage msg)
{
    FemuIrqfd *irqfd = &n->irqfd[vector];
    PCIDevice *pci = PCI_DEVICE(n);

    if (irqfd->virq < 0) {
        KVMRouteChange change = kvm_irqchip_begin_route_changes(kvm_state);
        int virq = kvm_irqchip_add_msi_route(&change, vector, pci);

        if (virq < 0) {
            return false;
        }
        kvm_irqchip_commit_route_changes(&change);
        irqfd->virq = virq;
        return true;
    }
    if (kvm_irqchip_update_msi_route(kvm_state, irqfd->virq, msg, pci) < 0) {
        return false;
    }
    kvm_irqchip_commit_routes(kvm_state);
    return true;
}

static int femu_irqfd_use(PCIDevice *pci, unsigned vector, MSIMessage msg)
{
    FemuCtrl *n = FEMU(pci);
    FemuIrqfd *irqfd = &n->irqfd[vector];

    qemu_mutex_lock(&irqfd->lock);
    if (!femu_irqfd_route(n, vector, msg)) {
        femu_irqfd_unwire(n, vector);   /* an old route must not carry the new message */
    } else if (!irqfd->active) {
        irqfd->active = kvm_irqchip_add_irqfd_notifier_gsi(kvm_state, &irqfd->notifier,
                                                           NULL, irqfd->virq) == 0;
    }
    qemu_mutex_unlock(&irqfd->lock);
    return 0;   /* a refused fast path is not an error: the bottom half delivers */
}

static void femu_irqfd_release(PCIDevice *pci, unsigned vector)
{
    FemuCtrl *n = FEMU(pci);

    qemu_mutex_lock(&n->irqfd[vector].lock);
    femu_irqfd_unwire(n, vector);
    qemu_mutex_unlock(&n->irqfd[vector].lock);
}

static void femu_irqfd_free(FemuCtrl *n, unsigned count)
{
    for (unsigned v = 0; v < count; v++) {
        event_notifier_cleanup(&n->irqfd[v].notifier);
        qemu_mutex_destroy(&n->irqfd[v].lock);
    }
}

void femu_irqfd_init(FemuCtrl *n)
{
    if (!kvm_msi_via_irqfd_enabled()) {
        return;
    }
    for (unsigned v = 0; v < n->num_vectors; v++) {
        n->irqfd[v].virq = -1;
        n->irqfd[v].active = false;
        if (event_notifier_init(&n->irqfd[v].notifier, 0) < 0) {
            femu_irqfd_free(n, v);
            return;   /* no fast path; the bottom half serves every vector */
        }
        qemu_mutex_init(&n->irqfd[v].lock);
    }
    if (msix_set_vector_notifiers(PCI_DEVICE(n), femu_irqfd_use, femu_irqfd_release,
                                  NULL) < 0) {
        femu_irqfd_free(n, n->num_vectors);
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
    }
    femu_irqfd_free(n, n->num_vectors);
    n->irqfd_enabled = false;
}

/* Poller: signal the vector's irqfd; false when the bottom half must deliver instead. */
bool femu_irqfd_notify(FemuCtrl *n, unsigned vector)
{
    FemuIrqfd *irqfd = &n->irqfd[vector];
    bool wired;

    if (!n->irqfd_enabled || vector >= n->num_vectors) {
        return false;
    }
    qemu_mutex_lock(&irqfd->lock);
    wired = irqfd->active;
    if (wired) {
        trace_femu_irqfd(vector);
        event_notifier_set(&irqfd->notifier);
    }
    qemu_mutex_unlock(&irqfd->lock);
    return wired;
}
