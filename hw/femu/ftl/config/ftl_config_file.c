/*
 * `key=value  # comment` configuration files: one parser for every host. A file may
 * `include PATH` another (a geometry and a NAND profile combine this way); keys apply in
 * the order read, so a later key wins, and the caller may remember which file and line
 * set each key (struct ftl_config_origins) to say where a refused value came from.
 */
#include "femu_ftl/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config_keys.h"

#define MAX_LINE 1024
/* A configuration is a few hundred lines at most; a bigger file is not one (and /dev/zero
 * or a FIFO named by an include must not keep the reader busy or blocked). */
#define MAX_FILE_BYTES (1024 * 1024)
#define MAX_PATH 4096

/* The line of one file that set each key, by key index (0: not set in this file). */
struct file_keys {
    unsigned line[FTL_CONFIG_ORIGIN_KEYS];
};

/* One file being read, and the files that include it (to refuse a cycle). */
struct open_file {
    const char *path;
    dev_t dev;
    ino_t ino;
    const struct open_file *includer;
    unsigned depth;     /* 0 for the file the caller named */
};

struct loader {
    struct ftl_config *cfg;                 /* the combined configuration, built up */
    struct ftl_config_origins *origins;     /* NULL: not tracked */
    char *err;
    size_t errlen;
};

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

/* The key's place in ftl_config_key() order, or -1 (unknown, or beyond what is tracked). */
static int key_index(const char *key)
{
    const char *name = canonical(key);
    for (size_t i = 0; i < FTL_CONFIG_ORIGIN_KEYS && ftl_config_key(i); i++) {
        if (strcmp(ftl_config_key(i), name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

void ftl_config_origin_note(struct ftl_config_origins *origins, const char *key,
                            const char *where)
{
    int i = origins ? key_index(key) : -1;
    if (i >= 0) {
        snprintf(origins->where[i], sizeof(origins->where[i]), "%s", where ? where : "");
    }
}

const char *ftl_config_origin_of(const struct ftl_config_origins *origins, const char *key)
{
    int i = origins ? key_index(key) : -1;
    return i >= 0 && origins->where[i][0] ? origins->where[i] : NULL;
}

/* An include's path is relative to the directory of the file that names it. */
static int include_path(const char *includer, const char *path, char *out, size_t outlen)
{
    const char *slash = strrchr(includer, '/');
    int n = path[0] == '/' || !slash
            ? snprintf(out, outlen, "%s", path)
            : snprintf(out, outlen, "%.*s/%s", (int)(slash - includer), includer, path);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static int load(struct loader *l, const struct open_file *file);

/* `include PATH` at line `lineno` of `file`: read PATH now, at this point of the file. */
static int include_file(struct loader *l, const struct open_file *file, unsigned lineno,
                        const char *path)
{
    char full[MAX_PATH];
    struct stat st;

    if (*path == '\0') {
        return file_fail(l->err, l->errlen, file->path, lineno, "include: missing path");
    }
    if (include_path(file->path, path, full, sizeof(full))) {
        return file_fail(l->err, l->errlen, file->path, lineno, "include %s: path too long",
                         path);
    }
    if (stat(full, &st) != 0) {
        return file_fail(l->err, l->errlen, file->path, lineno, "include %s: cannot open "
                         "%s: %s", path, full, strerror(errno));
    }
    for (const struct open_file *f = file; f; f = f->includer) {
        if (f->dev == st.st_dev && f->ino == st.st_ino) {
            return file_fail(l->err, l->errlen, file->path, lineno, "include %s: an include "
                             "cycle (%s is already being read)", path, f->path);
        }
    }
    if (file->depth + 1 > FTL_CONFIG_MAX_INCLUDE_DEPTH) {
        return file_fail(l->err, l->errlen, file->path, lineno, "include %s: includes nested "
                         "deeper than %d", path, FTL_CONFIG_MAX_INCLUDE_DEPTH);
    }
    struct open_file inner = { .path = full, .dev = st.st_dev, .ino = st.st_ino,
                               .includer = file, .depth = file->depth + 1 };
    if (load(l, &inner) == 0) {
        return 0;
    }
    /* Say which line included the file at fault (once: the message stays short). */
    if (l->err && l->errlen && !strstr(l->err, " (included from ")) {
        size_t used = strlen(l->err);
        snprintf(l->err + used, l->errlen - used, " (included from %s:%u)", file->path,
                 lineno);
    }
    return -1;
}

/* One `key=value` line: applied now, so a later line or file overrides it. */
static int set_key(struct loader *l, const struct open_file *file, unsigned lineno, char *line,
                   struct file_keys *keys)
{
    char *eq = strchr(line, '=');
    if (!eq) {
        return file_fail(l->err, l->errlen, file->path, lineno, "expected key=value or "
                         "include PATH, got '%s'", line);
    }
    *eq = '\0';
    char *key = trim(line);
    char *value = trim(eq + 1);
    if (*key == '\0') {
        return file_fail(l->err, l->errlen, file->path, lineno, "missing key before '='");
    }
    if (*value == '\0') {
        return file_fail(l->err, l->errlen, file->path, lineno, "%s: missing value", key);
    }
    int i = key_index(key);
    if (i >= 0 && keys->line[i]) {
        return file_fail(l->err, l->errlen, file->path, lineno, "%s: set twice in this "
                         "file", key);
    }
    char msg[256];
    if (ftl_config_set(l->cfg, key, value, msg, sizeof(msg))) {
        return file_fail(l->err, l->errlen, file->path, lineno, "%s", msg);
    }
    if (i >= 0) {
        keys->line[i] = lineno;
    }
    if (l->origins) {
        char where[FTL_CONFIG_ORIGIN_LEN];
        snprintf(where, sizeof(where), "%s:%u", file->path, lineno);
        ftl_config_origin_note(l->origins, key, where);
    }
    return 0;
}

/*
 * A power state this file set that a ps_count after it (a later line, or a file it
 * includes) dropped: one file contradicting itself, refused rather than lost. A later
 * file or --set may shorten a table; the file that writes the states may not.
 */
static int check_dropped(struct loader *l, const struct open_file *file,
                         const struct file_keys *keys)
{
    for (size_t i = 0; i < FTL_CONFIG_ORIGIN_KEYS && ftl_config_key(i); i++) {
        const char *key = ftl_config_key(i);
        if (keys->line[i] && ftl_config_key_unused(l->cfg, key)) {
            return file_fail(l->err, l->errlen, file->path, keys->line[i], "%s: set, but "
                             "ps_count is %" PRIu64 " (power states 0-%" PRIu64 ")", key,
                             l->cfg->ps_count, l->cfg->ps_count - 1);
        }
    }
    return 0;
}

/* `include` followed by a blank starts an include line. */
static bool is_include(const char *line)
{
    return strncmp(line, "include", 7) == 0 && isspace((unsigned char)line[7]);
}

/* The file opened for reading: a regular file of at most MAX_FILE_BYTES, opened without
 * blocking (a FIFO would wait for a writer); NULL with the reason in l->err. */
static FILE *open_config(struct loader *l, const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        file_fail(l->err, l->errlen, path, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        file_fail(l->err, l->errlen, path, 0, "not a regular file");
    } else if (st.st_size > MAX_FILE_BYTES) {
        file_fail(l->err, l->errlen, path, 0, "%lld bytes, more than a configuration file "
                  "holds (%d)", (long long)st.st_size, MAX_FILE_BYTES);
    } else {
        FILE *f = fdopen(fd, "r");
        if (f) {
            return f;
        }
        file_fail(l->err, l->errlen, path, 0, "cannot open: %s", strerror(errno));
    }
    close(fd);
    return NULL;
}

static int load(struct loader *l, const struct open_file *file)
{
    FILE *f = open_config(l, file->path);
    if (!f) {
        return -1;
    }
    struct file_keys *keys = calloc(1, sizeof(*keys));
    if (!keys) {
        fclose(f);
        return file_fail(l->err, l->errlen, file->path, 0, "out of memory");
    }
    char buf[MAX_LINE + 2];
    unsigned lineno = 0;
    int rc = 0;

    while (rc == 0 && fgets(buf, sizeof(buf), f)) {
        lineno++;
        size_t len = strlen(buf);
        if (len == sizeof(buf) - 1 && buf[len - 1] != '\n' && !feof(f)) {
            rc = file_fail(l->err, l->errlen, file->path, lineno, "line longer than %d "
                           "characters", MAX_LINE);
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
        rc = is_include(line) ? include_file(l, file, lineno, trim(line + 7))
                              : set_key(l, file, lineno, line, keys);
    }
    if (rc == 0 && ferror(f)) {
        rc = file_fail(l->err, l->errlen, file->path, 0, "read error: %s", strerror(errno));
    }
    if (rc == 0) {
        rc = check_dropped(l, file, keys);
    }
    free(keys);
    fclose(f);
    return rc;
}

int ftl_config_combine_file(struct ftl_config *cfg, struct ftl_config_origins *origins,
                            const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return file_fail(err, errlen, path, 0, "cannot open: %s", strerror(errno));
    }
    /* Applied only if every line of every file is good: a bad file changes nothing. */
    struct ftl_config next = *cfg;
    struct ftl_config_origins *scratch = NULL;
    if (origins && !(scratch = malloc(sizeof(*scratch)))) {
        return file_fail(err, errlen, path, 0, "out of memory");
    }
    if (scratch) {
        *scratch = *origins;
    }
    struct loader l = { .cfg = &next, .origins = scratch, .err = err, .errlen = errlen };
    struct open_file top = { .path = path, .dev = st.st_dev, .ino = st.st_ino };
    int rc = load(&l, &top);
    if (rc == 0) {
        *cfg = next;
        if (origins) {
            *origins = *scratch;
        }
    }
    free(scratch);
    return rc;
}

int ftl_config_load_file(struct ftl_config *cfg, const char *path, char *err, size_t errlen)
{
    return ftl_config_combine_file(cfg, NULL, path, err, errlen);
}

/*
 * A NAND figure energy=on found missing was set by no file: say where the others came
 * from (the profile that left it out) or, with none, where energy=on was set, as
 * " (...)" in note; "" when nothing is known or key is no such figure.
 */
static void missing_figure_note(const struct ftl_config_origins *origins, const char *key,
                                char *note, size_t len)
{
    bool figure = false;
    const char *other = NULL, *where = NULL;

    note[0] = '\0';
    for (size_t i = 0; config_energy_figure(i); i++) {
        const char *f = config_energy_figure(i);
        if (strcmp(f, key) == 0) {
            figure = true;
        } else if (!where && (where = ftl_config_origin_of(origins, f))) {
            other = f;
        }
    }
    if (!figure) {
        return;
    }
    if (where) {
        const char *colon = strrchr(where, ':');
        int file_len = colon ? (int)(colon - where) : (int)strlen(where);
        snprintf(note, len, " (%.*s gives %s but not %s)", file_len, where, other, key);
    } else if ((where = ftl_config_origin_of(origins, "energy"))) {
        snprintf(note, len, " (energy=on at %s; no NAND profile with energy figures was "
                 "read)", where);
    }
}

int ftl_config_validate_combined(const struct ftl_config *cfg,
                                 const struct ftl_config_origins *origins,
                                 struct ftl_geometry *geo, char *err, size_t errlen)
{
    char msg[512];
    if (ftl_config_validate(cfg, geo, msg, sizeof(msg)) == 0) {
        return 0;
    }
    /* The message starts with the key at fault: put where it was set last in front. */
    char key[64] = "";
    size_t n = strcspn(msg, ":");
    if (n < sizeof(key)) {
        memcpy(key, msg, n);
        key[n] = '\0';
    }
    const char *where = ftl_config_origin_of(origins, key);
    char note[FTL_CONFIG_ORIGIN_LEN + 128] = "";
    if (!where) {
        missing_figure_note(origins, key, note, sizeof(note));   /* a key left out */
    }
    if (err && errlen) {
        if (where) {
            snprintf(err, errlen, "%s: %s", where, msg);
        } else {
            snprintf(err, errlen, "%s%s", msg, note);
        }
    }
    return -1;
}
