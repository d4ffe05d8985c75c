/* KVM irqfds for unmasked MSI-X vectors (ctrl/irqfd.c). */
#ifndef HW_FEMU_CTRL_IRQFD_H
#define HW_FEMU_CTRL_IRQFD_H

#include "femu.h"

void femu_irqfd_init(FemuCtrl *n);                      /* BQL, after MSI-X init */
void femu_irqfd_cleanup(FemuCtrl *n);
bool femu_irqfd_notify(FemuCtrl *n, unsigned vector);   /* poller */

#endif
