/*
 * Hot/cold placement's aged counts (FHOT, only with placement=hotcold and hot_decay on):
 * the host page writes since the last halving, then every logical page's aged count.
 * Both keys must match for a restore (placement always does; hot_decay is not among the
 * keys that may differ), so a file has this section exactly when the restoring FTL
 * expects it. The pages classified hot are counted again after every restore (heat.c).
 */

#include "state/ftl_state_section.h"

#include "femu_ftl/error.h"
#include "flash/ftl_handle.h"
#include "place/heat.h"

#define HEAT_HEADER_BYTES (4 + 8 + 8)   /* version, ticks, pages */

static uint64_t heat_bytes(const struct ftl *ftl)
{
    return HEAT_HEADER_BYTES + 2 * ftl->geo.logical_pages;
}

size_t ftl_state_heat_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_HEAT, heat_bytes(ftl) };
    return 1;
}

int ftl_state_save_heat(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen)
{
    struct state_buf s = { 0 };

    state_buf_u32(&s, FTL_STATE_SECTION_VERSION);
    state_buf_u64(&s, ftl->heat_ticks);
    state_buf_u64(&s, ftl->geo.logical_pages);
    for (uint64_t lpn = 0; lpn < ftl->geo.logical_pages; lpn++) {
        state_buf_u8(&s, (uint8_t)(ftl->heat[lpn] & 0xff));
        state_buf_u8(&s, (uint8_t)(ftl->heat[lpn] >> 8));
    }
    return state_buf_section(&s, w, STATE_TAG_FTL_HEAT, err, errlen);
}

int ftl_state_load_heat(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_HEAT;
    struct state_cursor c;

    if (state_section_open(r, tag, heat_bytes(ftl), heat_bytes(ftl), &c, err, errlen)) {
        return -1;
    }
    uint64_t ticks = state_cur_u64(&c), pages = state_cur_u64(&c);
    int rc = 0;
    if (pages != ftl->geo.logical_pages || ticks >= ftl->cfg.hot_decay) {
        rc = state_section_error(r, tag, err, errlen, "%llu pages, %llu writes since the last "
                                 "halving: not this device's (%llu pages, hot_decay %llu)",
                                 (unsigned long long)pages, (unsigned long long)ticks,
                                 (unsigned long long)ftl->geo.logical_pages,
                                 (unsigned long long)ftl->cfg.hot_decay);
    }
    for (uint64_t lpn = 0; lpn < pages && rc == 0; lpn++) {
        uint16_t lo = state_cur_u8(&c);
        ftl->heat[lpn] = (uint16_t)(lo | (uint16_t)state_cur_u8(&c) << 8);
    }
    ftl->heat_ticks = ticks;
    state_cursor_free(&c);
    return rc;  /* ftl_check holds every aged count to its page's write count */
}
