/* json_out.c - see json_out.h. */
#include "json_out.h"

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);   /* a tab or newline in a path stays one value */
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

void json_string_or_null(FILE *f, const char *s)
{
    if (s) {
        json_string(f, s);
    } else {
        fputs("null", f);
    }
}

void json_number_or_null(FILE *f, bool have, double value, const char *tail)
{
    if (have) {
        fprintf(f, "%.4f%s", value, tail);
    } else {
        fprintf(f, "null%s", tail);
    }
}
