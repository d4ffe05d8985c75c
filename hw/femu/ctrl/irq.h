/*
 * Interrupts (ctrl/irq.c): the poller asks, a bottom half raises MSI-X messages or the pin
 * under the BQL; KVM irqfds (ctrl/irqfd.h) skip the main loop where they can.
 */
#ifndef HW_FEMU_CTRL_IRQ_H
#define HW_FEMU_CTRL_IRQ_H

#include "femu.h"

void femu_irq_init(FemuCtrl *n);
void femu_irq_cleanup(FemuCtrl *n);
void femu_irq_request(FemuCtrl *n, FemuCQueue *cq);    /* poller */
void femu_irq_update_pin(FemuCtrl *n);                  /* BQL */
void femu_irq_discard_pending(FemuCtrl *n);             /* BQL, after a reset */
/* Poller: forget what was asked for, leaving the pin to the bottom half. */
void femu_irq_forget_pending(FemuCtrl *n);

#endif
