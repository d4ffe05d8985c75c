/* The libFuzzer targets' shared helpers (fuzz_target.h). */
#include "fuzz_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "femu_ftl/config.h"

static char path[64];

static void remove_input_file(void)
{
    unlink(path);
}

const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof(path), "/tmp/femu-fuzz-%ld-XXXXXX", (long)getpid());
        int fd = mkstemp(path);
        if (fd < 0) {
            perror("fuzz: mkstemp");
            abort();
        }
        close(fd);
        atexit(remove_input_file);     /* libFuzzer ends with exit() */
    }
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
        perror("fuzz: writing the input file");
        abort();
    }
    return path;
}

void fuzz_load_conf(struct ftl_config *cfg, const char *name)
{
    char path[4096], err[512];
    snprintf(path, sizeof(path), "%s/%s", FUZZ_CONF_DIR, name);
    ftl_config_defaults(cfg);
    if (ftl_config_load_file(cfg, path, err, sizeof(err)) ||
        ftl_config_validate(cfg, NULL, err, sizeof(err))) {
        fprintf(stderr, "fuzz: %s\n", err);
        abort();
    }
}
