/*
 * The device's parts that keep a section of their own in a state file, in file order
 * (top/state_parts.c): the composer that knows every part hands this list to the
 * state file (top/state.c), which knows none of their fields.
 */
#ifndef HW_FEMU_BACKEND_STATE_PARTS_H
#define HW_FEMU_BACKEND_STATE_PARTS_H

#include "top/state.h"

extern const FemuStatePart *const femu_state_parts[];

#endif
