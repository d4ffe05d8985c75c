/* One figure of this process from /proc/self/status, for tests that count memory. */
#ifndef PROC_STATUS_H
#define PROC_STATUS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The "FIELD: N kB" line's value in bytes (e.g. "VmRSS", "RssAnon"), 0 when absent. */
static inline uint64_t proc_status_bytes(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long kib = 0;
    size_t len = strlen(field);

    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, field, len) == 0 && line[len] == ':' &&
            sscanf(line + len + 1, "%llu kB", &kib) == 1) {
            break;
        }
    }
    if (f) {
        fclose(f);
    }
    return (uint64_t)kib * 1024;
}

#endif
