/* replace_target.c - see replace_target.h. */
#include "replace_target.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *kind_of(mode_t mode)
{
    return S_ISLNK(mode) ? "a symbolic link" : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : S_ISDIR(mode) ? "a folder"
           : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

int replace_target_check(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) {
            return 0;
        }
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode)) {
        return 0;
    }
    snprintf(err, errlen, "%s: is %s: only a regular file is replaced (the output is "
             "written beside it and renamed over it); give a file's path", path,
             kind_of(st.st_mode));
    return -1;
}
