/*
 * What the libFuzzer targets share (tests/fuzz/targets): the input as a file, for the
 * parsers that read files, and the folder of the targets' configurations.
 */
#ifndef FEMU_FUZZ_TARGET_H
#define FEMU_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* FUZZ_CONF_DIR: set by meson, tests/fuzz/targets/conf in the source tree. */

/* The input written over one scratch file (made once per process); its path. Aborts
 * when the file cannot be written: that is the harness failing, not the target. */
const char *fuzz_input_file(const uint8_t *data, size_t size);

/* A configuration from FUZZ_CONF_DIR/name, validated; aborts on error (a harness bug). */
struct ftl_config;
void fuzz_load_conf(struct ftl_config *cfg, const char *name);

#endif
