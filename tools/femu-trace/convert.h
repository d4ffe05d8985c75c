/* convert.h - femu-trace convert: a trace in any readable format to fio, femu or MQSim. */
#ifndef FEMU_TRACE_CONVERT_H
#define FEMU_TRACE_CONVERT_H

#include "options.h"
#include "writers.h"

/* in to out (written under a temporary name, renamed at the end: a failure leaves
 * nothing); the exit status (0, 1 for a write failure, 2 for bad input). */
int convert_run(const char *in, const char *out, enum out_format to, const char *fio_file,
                struct tin_settings *s);

#endif
