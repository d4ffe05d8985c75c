/*
 * libFuzzer target: an FTL state file, through the container's reader (headers, limits,
 * CRCs) and every section loader, into the small plain device and the one with zones, DFTL
 * and a write buffer. Each input is tried on both; a refusal must be one line, an
 * accepted state must hold together (ftl_state_load runs ftl_check). Seeds: state files
 * ftl-sim saved for these configurations (corpus/state). CRCs make random bytes fail
 * early; the dictionary (state.dict) gives the tags, and -use_value_profile helps past
 * the CRC comparisons only so far: the seeds' sections carry the coverage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/config.h"
#include "femu_ftl/ftl.h"
#include "femu_ftl/state.h"
#include "fuzz_target.h"

static struct ftl_config configs[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_load_conf(&configs[0], "plain.conf");
    fuzz_load_conf(&configs[1], "full.conf");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    for (size_t i = 0; i < 2; i++) {
        char err[1024] = "";
        struct ftl *ftl = ftl_create(&configs[i], err, sizeof(err));
        if (!ftl) {
            fprintf(stderr, "fuzz: ftl_create: %s\n", err);
            abort();
        }
        if (ftl_state_load_file(ftl, path, 0, err, sizeof(err)) != 0 &&
            (!err[0] || strchr(err, '\n'))) {
            fprintf(stderr, "fuzz: a refusal that is not one line: '%s'\n", err);
            abort();
        }
        ftl_destroy(ftl);
    }
    return 0;
}
