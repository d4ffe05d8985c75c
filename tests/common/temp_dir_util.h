/* A test's temporary folder: made under $TMPDIR (else /tmp) from a name prefix, and
 * removed with every file in it (each removal checked). Include check.h first. */
#ifndef TEMP_DIR_UTIL_H
#define TEMP_DIR_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void temp_dir_make(char *dir, size_t len, const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(dir, len, "%s/%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", prefix);
    if (n < 0 || (size_t)n >= len || !mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
}

static inline void temp_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    CHECK(d != NULL);
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            CHECK(unlink(path) == 0);
        }
    }
    if (d) {
        closedir(d);
    }
    CHECK(rmdir(dir) == 0);
}

#endif
