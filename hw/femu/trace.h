/* QEMU generates the trace functions from hw/femu/trace-events. */
#include "trace/trace-hw_femu.h"
