/* `key=value  # comment` configuration files: one parser for every host. */
#include "ftl_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#define MAX_LINE 1024
#define MAX_KEYS_PER_FILE 64

static int file_fail(char *err, size_t errlen, const char *path, unsigned line,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int file_fail(char *err, size_t errlen, const char *path, unsigned line,
                     const char *fmt, ...)
{
    if (err && errlen) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (line) {
            snprintf(err, errlen, "%s:%u: %s", path, line, msg);
        } else {
            snprintf(err, errlen, "%s: %s", path, msg);
        }
    }
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) {
        s++;
    }
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) {
        s[--n] = '\0';
    }
    return s;
}

/* Canonical key name, so that `ssd_size` and `devsz_mb` count as the same key. */
static const char *canonical(const char *key)
{
    return strcmp(key, "ssd_size") == 0 ? "devsz_mb" : key;
}

int ftl_config_load_file(struct ftl_config *cfg, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return file_fail(err, errlen, path, 0, "cannot open: %s", strerror(errno));
    }
    struct ftl_config next = *cfg;  /* applied only if the whole file is good */
    char seen[MAX_KEYS_PER_FILE][32];
    unsigned nseen = 0;
    char buf[MAX_LINE + 2];
    unsigned lineno = 0;
    int rc = 0;

    while (fgets(buf, sizeof(buf), f)) {
        lineno++;
        size_t len = strlen(buf);
        if (len == sizeof(buf) - 1 && buf[len - 1] != '\n' && !feof(f)) {
            rc = file_fail(err, errlen, path, lineno, "line longer than %d characters", MAX_LINE);
            break;
        }
        char *hash = strchr(buf, '#');
        if (hash) {
            *hash = '\0';
        }
        char *line = trim(buf);
        if (*line == '\0') {
            continue;
        }
        char *eq = strchr(line, '=');
        if (!eq) {
            rc = file_fail(err, errlen, path, lineno, "expected key=value, got '%s'", line);
            break;
        }
        *eq = '\0';
        char *key = trim(line);
        char *value = trim(eq + 1);
        if (*key == '\0') {
            rc = file_fail(err, errlen, path, lineno, "missing key before '='");
            break;
        }
        if (*value == '\0') {
            rc = file_fail(err, errlen, path, lineno, "%s: missing value", key);
            break;
        }
        const char *name = canonical(key);
        bool duplicate = false;
        for (unsigned i = 0; i < nseen; i++) {
            duplicate |= strcmp(seen[i], name) == 0;
        }
        if (duplicate) {
            rc = file_fail(err, errlen, path, lineno, "%s: set twice in this file", key);
            break;
        }
        char msg[256];
        if (ftl_config_set(&next, key, value, msg, sizeof(msg))) {
            rc = file_fail(err, errlen, path, lineno, "%s", msg);
            break;
        }
        if (nseen < MAX_KEYS_PER_FILE && strlen(name) < sizeof(seen[0])) {
            strcpy(seen[nseen++], name);
        }
    }
    if (rc == 0 && ferror(f)) {
        rc = file_fail(err, errlen, path, 0, "read error: %s", strerror(errno));
    }
    fclose(f);
    if (rc == 0) {
        *cfg = next;
    }
    return rc;
}
