/* A test's scratch file: bytes written to a fresh temporary file (mkstemp under $TMPDIR,
 * else /tmp). The includer defines _POSIX_C_SOURCE 200809L before any header. */
#ifndef TEST_TEMP_FILE_H
#define TEST_TEMP_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Write len bytes to a new file named from prefix; its path in path (the caller unlinks
 * it). A failure ends the test program (status 2). */
static inline const char *write_temp_file(char *path, size_t pathlen, const char *prefix,
                                          const void *data, size_t len)
{
    const char *dir = getenv("TMPDIR");

    snprintf(path, pathlen, "%s/%s-XXXXXX", dir && dir[0] ? dir : "/tmp", prefix);
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        exit(2);
    }
    FILE *f = fdopen(fd, "w");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror("write temp file");
        exit(2);
    }
    return path;
}

#endif
