/* info.h - femu-trace info: what a trace holds (counts, bytes, span, footprint, sizes). */
#ifndef FEMU_TRACE_INFO_H
#define FEMU_TRACE_INFO_H

#include <stdbool.h>

#include "options.h"

/* Read path and print its facts (JSON with json); the exit status (0, 1, 2). */
int info_run(const char *path, const struct tin_settings *s, bool json);

#endif
