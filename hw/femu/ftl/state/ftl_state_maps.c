/*
 * The maps: L2P, P2L and per-LPN write counts as sparse sections of the arrays as they
 * lie in memory (mostly zero while a device is young: unmapped, erased, never written),
 * and the write-count overflow table slot by slot. mapped_bits is not saved: it follows
 * from the L2P.
 */

#include "state/ftl_state_section.h"

#include <stdlib.h>

#include "femu_ftl/error.h"
#include "flash/p2l.h"
#include "map/page_map.h"
#include "place/write_count.h"

#define MAP_CHUNK 4096u
#define SLOT_RECORD_BYTES 12u

static int sparse_failed(struct state_writer *w, uint32_t tag, char *err, size_t errlen)
{
    char name[5];
    const char *why = state_writer_error(w);
    return ftl_error(err, errlen, "section %s: %s", state_tag_name(tag, name),
                     why ? why : "write failed");
}

static int save_overflow(const struct ftl *ftl, struct state_writer *w, char *err,
                         size_t errlen)
{
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_SECTION_VERSION);
    state_buf_u32(&b, ftl->wc_nslots);
    state_buf_u32(&b, ftl->wc_used);
    for (uint32_t i = 0; i < ftl->wc_nslots; i++) {
        if (ftl->wc_slots[i].lpn_plus1) {
            state_buf_u32(&b, i);
            state_buf_u32(&b, ftl->wc_slots[i].lpn_plus1);
            state_buf_u32(&b, ftl->wc_slots[i].count);
        }
    }
    return state_buf_section(&b, w, STATE_TAG_FTL_WCOV, err, errlen);
}

int ftl_state_save_maps(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen)
{
    const struct ftl_geometry *g = &ftl->geo;
    if (state_writer_sparse(w, STATE_TAG_FTL_L2P, ftl->l2p_plus1, g->logical_pages * 4,
                            MAP_CHUNK)) {
        return sparse_failed(w, STATE_TAG_FTL_L2P, err, errlen);
    }
    if (state_writer_sparse(w, STATE_TAG_FTL_P2L, ftl->p2l_plus1, g->phys_pages * 4,
                            MAP_CHUNK)) {
        return sparse_failed(w, STATE_TAG_FTL_P2L, err, errlen);
    }
    if (state_writer_sparse(w, STATE_TAG_FTL_WCNT, ftl->write_count16,
                            g->logical_pages * 2, MAP_CHUNK)) {
        return sparse_failed(w, STATE_TAG_FTL_WCNT, err, errlen);
    }
    return save_overflow(ftl, w, err, errlen);
}

/* The overflow table is at most half full, with no more entries than logical pages:
 * twice those slots. */
static uint64_t overflow_max_slots(const struct ftl *ftl)
{
    uint64_t logical = ftl->geo.logical_pages;
    return 2 * logical < UINT32_MAX ? 2 * logical : UINT32_MAX;
}

static uint64_t overflow_max_bytes(const struct ftl *ftl)
{
    return 12 + (overflow_max_slots(ftl) / 2) * SLOT_RECORD_BYTES;
}

size_t ftl_state_maps_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    const struct ftl_geometry *g = &ftl->geo;
    out[0] = (struct state_section_limit){
        STATE_TAG_FTL_L2P, state_sparse_max_len(g->logical_pages * 4, MAP_CHUNK) };
    out[1] = (struct state_section_limit){
        STATE_TAG_FTL_P2L, state_sparse_max_len(g->phys_pages * 4, MAP_CHUNK) };
    out[2] = (struct state_section_limit){
        STATE_TAG_FTL_WCNT, state_sparse_max_len(g->logical_pages * 2, MAP_CHUNK) };
    out[3] = (struct state_section_limit){ STATE_TAG_FTL_WCOV, overflow_max_bytes(ftl) };
    return 4;
}

static int load_overflow(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_WCOV;
    uint64_t logical = ftl->geo.logical_pages, max_slots = overflow_max_slots(ftl);
    struct state_cursor c;
    if (state_section_open(r, tag, 0, overflow_max_bytes(ftl), &c, err, errlen)) {
        return -1;
    }
    uint32_t nslots = state_cur_u32(&c), used = state_cur_u32(&c);
    uint64_t stored = (c.len - c.pos) / SLOT_RECORD_BYTES;
    int rc = 0;
    if (c.overrun || (c.len - c.pos) % SLOT_RECORD_BYTES || stored != used ||
        (nslots & (nslots - 1)) || nslots > 2 * max_slots || (uint64_t)used * 2 > nslots) {
        rc = state_section_error(r, tag, err, errlen, "%u of %u slots used, %llu stored: "
                                 "not a table", used, nslots, (unsigned long long)stored);
    } else if (nslots) {
        ftl->wc_slots = calloc(nslots, sizeof(*ftl->wc_slots));
        if (!ftl->wc_slots) {
            rc = state_section_error(r, tag, err, errlen, "out of memory");
        } else {
            ftl->wc_nslots = nslots;
            ftl->wc_used = used;
        }
    }
    for (uint64_t k = 0; k < stored && rc == 0; k++) {
        uint32_t i = state_cur_u32(&c), key = state_cur_u32(&c), count = state_cur_u32(&c);
        if (i >= nslots || key == 0 || key > logical || ftl->wc_slots[i].lpn_plus1) {
            rc = state_section_error(r, tag, err, errlen, "slot %u (LPN + 1 = %u) out of "
                                     "range", i, key);
        } else {
            ftl->wc_slots[i] = (struct wc_slot){ .lpn_plus1 = key, .count = count };
        }
    }
    state_cursor_free(&c);
    return rc;
}

/* Every stored value names a page that exists (or a marker). */
static int check_map_values(struct ftl *ftl, struct state_reader *r, char *err,
                            size_t errlen)
{
    const struct ftl_geometry *g = &ftl->geo;
    for (uint64_t lpn = 0; lpn < g->logical_pages; lpn++) {
        if (ftl->l2p_plus1[lpn] > g->phys_pages) {
            return state_section_error(r, STATE_TAG_FTL_L2P, err, errlen, "LPN %llu maps "
                                       "to page %u, past the %llu physical pages",
                                       (unsigned long long)lpn, ftl->l2p_plus1[lpn] - 1,
                                       (unsigned long long)g->phys_pages);
        }
        if (ftl->l2p_plus1[lpn]) {
            mapped_set(ftl, lpn);
        }
    }
    uint64_t lpns = g->logical_pages + g->translation_pages;
    for (uint64_t ppa = 0; ppa < g->phys_pages; ppa++) {
        uint32_t lpn = p2l_get(ftl, ppa);
        if (lpn >= lpns && lpn != P2L_FREE && lpn != P2L_INVALID) {
            return state_section_error(r, STATE_TAG_FTL_P2L, err, errlen, "page %llu holds "
                                       "LPN %u, past the %llu logical pages",
                                       (unsigned long long)ppa, lpn, (unsigned long long)lpns);
        }
    }
    return 0;
}

int ftl_state_load_maps(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const struct ftl_geometry *g = &ftl->geo;
    if (state_reader_sparse(r, STATE_TAG_FTL_L2P, ftl->l2p_plus1, g->logical_pages * 4, err,
                            errlen) ||
        state_reader_sparse(r, STATE_TAG_FTL_P2L, ftl->p2l_plus1, g->phys_pages * 4, err,
                            errlen) ||
        state_reader_sparse(r, STATE_TAG_FTL_WCNT, ftl->write_count16, g->logical_pages * 2,
                            err, errlen) ||
        load_overflow(ftl, r, err, errlen)) {
        return -1;
    }
    return check_map_values(ftl, r, err, errlen);
}
