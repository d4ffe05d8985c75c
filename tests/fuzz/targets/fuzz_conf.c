/*
 * libFuzzer target: a configuration file (key=value lines, comments, include), then the
 * cross-key validation and, for a valid one, ftl_create and ftl_destroy. A refusal must
 * be one line naming the file and line. Seeds: the .conf files of the repository and the
 * targets' own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/config.h"
#include "femu_ftl/ftl.h"
#include "fuzz_target.h"

/* Geometries a fuzzed file may ask for are capped so that one input cannot take the
 * process past libFuzzer's memory limit: the FTL allocates by raw size. */
#define FUZZ_MAX_RAW_PAGES (UINT64_C(1) << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    struct ftl_config cfg;
    struct ftl_geometry geo;
    char err[1024] = "";
    ftl_config_defaults(&cfg);
    if (ftl_config_load_file(&cfg, path, err, sizeof(err)) != 0) {
        /* an included file's fault names it first, then "(included from PATH:LINE)" */
        if (!err[0] || strchr(err, '\n') || !strstr(err, path)) {
            fprintf(stderr, "fuzz: a refusal that does not name the file on one line: "
                    "'%s'\n", err);
            abort();
        }
        return 0;
    }
    if (ftl_config_validate(&cfg, &geo, err, sizeof(err)) != 0) {
        if (!err[0] || strchr(err, '\n')) {
            fprintf(stderr, "fuzz: a validation refusal that is not one line: '%s'\n", err);
            abort();
        }
        return 0;
    }
    if (geo.phys_pages <= FUZZ_MAX_RAW_PAGES) {
        struct ftl *ftl = ftl_create(&cfg, err, sizeof(err));
        ftl_destroy(ftl);
    }
    return 0;
}
