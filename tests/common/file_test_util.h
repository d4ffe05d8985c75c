/* Whole-file helpers of the state file tests: read, write, and atomic-save leftovers. */
#ifndef FILE_TEST_UTIL_H
#define FILE_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's bytes (malloc'd, one spare byte) and their count; NULL and 0 when unreadable. */
static inline unsigned char *read_whole(const char *p, size_t *size)
{
    FILE *f = fopen(p, "rb");
    unsigned char *buf = NULL;
    *size = 0;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (buf) {
            *size = fread(buf, 1, (size_t)n, f);
        }
    }
    if (f) {
        fclose(f);
    }
    return buf;
}

static inline void write_whole(const char *p, const void *buf, size_t size)
{
    FILE *f = fopen(p, "wb");
    if (f) {
        fwrite(buf, 1, size, f);
        fclose(f);
    }
}

/* How many PATH.tmp.* files an interrupted or failed save left in folder. */
static inline int temporaries_left(const char *folder)
{
    DIR *d = opendir(folder);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        n += strstr(e->d_name, ".tmp.") != NULL;
    }
    if (d) {
        closedir(d);
    }
    return n;
}

#endif
