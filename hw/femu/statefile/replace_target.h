/*
 * replace_target.h - the one rule of every writer that builds a file beside its target and
 * renames it over (state files, femu-trace convert): only a regular file is replaced. A
 * rename over a symlink, a FIFO, a device or /dev/null would turn it into a regular file,
 * and as root replace /dev/stdout; such a target is refused before any work.
 */
#ifndef FEMU_REPLACE_TARGET_H
#define FEMU_REPLACE_TARGET_H

#include <stddef.h>

/* 0 when path does not exist or is a regular file (not through a symlink); else -1 with
 * "PATH: is a ...: only a regular file is replaced" in err. */
int replace_target_check(const char *path, char *err, size_t errlen);

#endif
