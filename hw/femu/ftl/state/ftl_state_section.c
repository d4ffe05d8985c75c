/* What every section loader shares (ftl_state_section.h): opening a section with its
 * layout version checked, and errors that name the file and the section. */
#include "state/ftl_state_section.h"

#include <stdarg.h>
#include <stdio.h>

#include "femu_ftl/error.h"

int state_section_error(struct state_reader *r, uint32_t tag, char *err, size_t errlen,
                        const char *fmt, ...)
{
    char name[5], what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return ftl_error(err, errlen, "%s: section %s: %s", state_reader_path(r),
                     state_tag_name(tag, name), what);
}

int state_section_open_range(struct state_reader *r, uint32_t tag, uint64_t expected,
                             uint64_t max, uint32_t oldest, uint32_t newest,
                             struct state_cursor *c, uint32_t *version, char *err,
                             size_t errlen)
{
    if (state_cursor_load(r, tag, expected, max, c, err, errlen)) {
        return -1;
    }
    *version = state_cur_u32(c);
    if (c->overrun || *version < oldest || *version > newest) {
        state_cursor_free(c);
        return state_section_error(r, tag, err, errlen, "layout version %u, this build "
                                   "reads %u to %u", *version, oldest, newest);
    }
    return 0;
}

int state_section_open_version(struct state_reader *r, uint32_t tag, uint64_t expected,
                               uint64_t max, struct state_cursor *c, uint32_t *version,
                               char *err, size_t errlen)
{
    return state_section_open_range(r, tag, expected, max, FTL_STATE_SECTION_VERSION_OLDEST,
                                    FTL_STATE_SECTION_VERSION, c, version, err, errlen);
}

int state_section_open(struct state_reader *r, uint32_t tag, uint64_t expected, uint64_t max,
                       struct state_cursor *c, char *err, size_t errlen)
{
    uint32_t version;
    return state_section_open_version(r, tag, expected, max, c, &version, err, errlen);
}
