/*
 * Saving and restoring a whole FTL (femu_ftl/state.h): CONF, then the core sections, paced
 * GC's debt, the FDP events and the SLC cache, the maps and each configured module's own
 * (the hybrid mappings' tables), the key-value stores last.
 * A restore fills an FTL fresh from ftl_create(), checks every index as it goes and runs
 * ftl_check() on the result, so a file that passed its CRCs but does not hold together is
 * refused, never half used.
 */
#include "femu_ftl/state.h"

#include "femu_ftl/error.h"
#include "flash/timing.h"
#include "hostio/inflight.h"
#include "place/heat.h"
#include "wbuf/write_buffer.h"
#include "state_codec.h"
#include "flash/ftl_handle.h"
#include "state/ftl_state_section.h"

/* What this build cannot save or restore yet; NULL when it can. */
static const char *unsupported(void)
{
    if (!state_host_is_little_endian()) {
        return "state files need a little-endian host";
    }
    return NULL;
}

size_t ftl_state_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    size_t n = ftl_state_conf_limits(out);
    n += ftl_state_core_limits(ftl, out + n);
    n += ftl_state_debt_limits(ftl, out + n);
    n += ftl_state_fdp_events_limits(ftl, out + n);
    n += ftl_state_slc_limits(ftl, out + n);
    n += ftl_state_maps_limits(ftl, out + n);
    n += ftl->zns ? ftl_state_zns_limits(ftl, out + n) : 0;
    n += ftl->dftl ? ftl_state_dftl_limits(ftl, out + n) : 0;
    n += ftl->wbuf ? ftl_state_wbuf_limits(ftl, out + n) : 0;
    n += ftl->heat ? ftl_state_heat_limits(ftl, out + n) : 0;
    n += ftl_state_hybrid_limits(ftl, out + n);     /* always: see its comment */
    n += ftl_state_kv_limits(ftl, out + n);
    return n;
}

int ftl_state_save(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                   char *err, size_t errlen)
{
    const char *why = unsupported();
    if (why) {
        return ftl_error(err, errlen, "%s", why);
    }
    if (ftl_state_save_conf(&ftl->cfg, w, err, errlen) ||
        ftl_state_save_core(ftl, w, now_ns, err, errlen) ||
        ftl_state_save_debt(ftl, w, err, errlen) ||
        ftl_state_save_fdp_events(ftl, w, now_ns, err, errlen) ||
        (ftl->cfg.slc_cache && ftl_state_save_slc(ftl, w, now_ns, err, errlen)) ||
        ftl_state_save_maps(ftl, w, err, errlen) ||
        (ftl->zns && ftl_state_save_zns(ftl, w, err, errlen)) ||
        (ftl->dftl && ftl_state_save_dftl(ftl, w, err, errlen)) ||
        (ftl->wbuf && ftl_state_save_wbuf(ftl, w, err, errlen)) ||
        (ftl->heat && ftl_state_save_heat(ftl, w, err, errlen)) ||
        (ftl->hybrid && ftl_state_save_hybrid(ftl, w, err, errlen)) ||
        ftl_state_save_kv(ftl, w, err, errlen)) {
        return -1;
    }
    return 0;
}

/* Paced GC's debt, the FDP events and the SLC cache, in files of layout 6 on (older ones
 * keep them in FCOR); without slc_cache there is no FSLC and the cache stays empty. */
static int load_own_sections(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                             char *err, size_t errlen)
{
    if (ftl_state_load_debt(ftl, r, err, errlen) ||
        ftl_state_load_fdp_events(ftl, r, now_ns, err, errlen)) {
        return -1;
    }
    if (!ftl->cfg.slc_cache) {
        state_slc_none(ftl);
        return 0;
    }
    return ftl_state_load_slc(ftl, r, now_ns, err, errlen);
}

int ftl_state_load(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                   char *err, size_t errlen)
{
    const char *path = state_reader_path(r);
    const char *why = unsupported();
    if (why) {
        return ftl_error(err, errlen, "%s: %s", path, why);
    }
    uint32_t layout;
    if (ftl_state_load_core(ftl, r, now_ns, &layout, err, errlen) ||
        (layout >= FTL_STATE_LAYOUT_OWN_SECTIONS &&
         load_own_sections(ftl, r, now_ns, err, errlen)) ||
        ftl_state_load_maps(ftl, r, err, errlen) ||
        (ftl->zns && ftl_state_load_zns(ftl, r, err, errlen)) ||
        (ftl->dftl && ftl_state_load_dftl(ftl, r, err, errlen)) ||
        (ftl->wbuf && ftl_state_load_wbuf(ftl, r, err, errlen)) ||
        (ftl->heat && ftl_state_load_heat(ftl, r, err, errlen)) ||
        (ftl->hybrid && ftl_state_load_hybrid(ftl, r, err, errlen))) {
        return -1;
    }
    if (layout >= FTL_STATE_LAYOUT_KV ? ftl_state_load_kv(ftl, r, err, errlen) != 0
                                      : (ftl_state_kv_none(ftl), false)) {
        return -1;
    }
    heat_recount(ftl);              /* hot_threshold may differ from the saved device's */
    if (ftl->wbuf) {
        wbuf_forget_flights(ftl);   /* the saved device's flushes all ended */
    }
    char what[384];
    if (ftl_check(ftl, what, sizeof(what))) {
        return ftl_error(err, errlen, "%s: inconsistent state: %s", path, what);
    }
    timing_restart(ftl, now_ns);    /* the flash idles from the restore on, not before */
    inflight_clear(ftl);            /* every program of the saved device ended */
    ftl->newest_ns = now_ns;
    return 0;
}

int ftl_state_save_file(const struct ftl *ftl, const char *path, const char *producer,
                        uint64_t now_ns, char *err, size_t errlen)
{
    struct state_writer *w = state_writer_open(path, err, errlen);
    if (!w) {
        return -1;
    }
    char why[384];
    if (state_writer_meta(w, producer, false) ||
        ftl_state_save(ftl, w, now_ns, why, sizeof(why))) {
        const char *failure = state_writer_error(w);
        ftl_error(err, errlen, "%s: %s", path, failure ? failure : why);
        state_writer_abort(w);
        return -1;
    }
    return state_writer_commit(w, err, errlen);
}

int ftl_state_load_file(struct ftl *ftl, const char *path, uint64_t now_ns,
                        char *err, size_t errlen)
{
    struct state_section_limit limits[FTL_STATE_MAX_SECTIONS];
    size_t nlimits = ftl_state_limits(ftl, limits);
    struct state_reader *r = state_reader_open(path, limits, nlimits, err, errlen);
    if (!r) {
        return -1;
    }
    /* the configuration first: a file of another one says which key differs */
    int rc = ftl_state_check_config(r, &ftl->cfg, err, errlen);
    rc = rc ? rc : state_reader_verify(r, err, errlen);
    if (rc == 0) {
        rc = ftl_state_load(ftl, r, now_ns, err, errlen);
    }
    state_reader_close(r);
    return rc;
}
