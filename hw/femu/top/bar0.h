/* BAR0 as the host sees it (vCPU threads, BQL held): register writes and doorbells. */
#ifndef HW_FEMU_CTRL_BAR0_H
#define HW_FEMU_CTRL_BAR0_H

#include "femu.h"

extern const MemoryRegionOps femu_bar0_ops;

#endif
