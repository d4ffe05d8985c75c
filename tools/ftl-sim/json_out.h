/* json_out.h - JSON string values for ftl-sim's summary, escaped in one place. */
#ifndef FTL_SIM_JSON_OUT_H
#define FTL_SIM_JSON_OUT_H

#include <stdbool.h>
#include <stdio.h>

/* s as a JSON string: quotes, backslashes and every control byte escaped. */
void json_string(FILE *f, const char *s);

/* The same, or null for NULL. */
void json_string_or_null(FILE *f, const char *s);

/* value with %.4f, or null when !have; then tail. */
void json_number_or_null(FILE *f, bool have, double value, const char *tail);

#endif
