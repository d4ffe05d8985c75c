/* one_line.c - see one_line.h. */
#include "one_line.h"

#include <stdarg.h>

void one_line(FILE *f, const char *tool, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    fprintf(f, "%s: ", tool);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
    }
    fputc('\n', f);
}
