/*
 * --unit-log: every GC unit a write pointer opens and every victim GC chooses, as
 * units.csv in --stats-dir (one row each, femu_ftl/ftl.h's ftl_unit_event), and per write
 * pointer the victims of the measured part and their valid pages and ages for the summary.
 * A victim's age is the host page writes since its unit was opened (a unit opened before
 * the log began, by --state-in's run, counts from host page 0).
 */
#ifndef FTL_SIM_UNIT_LOG_H
#define FTL_SIM_UNIT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "femu_ftl/ftl.h"

struct unit_log;

/* Observe ftl, writing DIR/units.csv; NULL with the reason in err. */
struct unit_log *unit_log_open(struct ftl *ftl, const char *dir, char *err, size_t errlen);
/* The measured part starts: the per-write-pointer figures count from here. */
void unit_log_mark(struct unit_log *log);
/* Stop observing, close the file (the figures stay for the summary); -1 with the reason
 * when writing failed. NULL: nothing. */
int unit_log_close(struct unit_log *log, char *err, size_t errlen);
void unit_log_free(struct unit_log *log);

/* "  \"units\": [...],\n": one object per data write pointer, then the map's. */
void unit_log_json(const struct unit_log *log, const struct ftl *ftl, FILE *f);
/* One line per write pointer that opened or lost a unit in the measured part. */
void unit_log_text(const struct unit_log *log, const struct ftl *ftl, FILE *f);

#endif
