/*
 * Device state files: what one holds and how realize restores it (state_in=FILE).
 *
 * Besides the FTL's sections (femu_ftl/state.h) a state the device writes has its own:
 *   DNST  the namespace table (cmd/admin/ns_table_state.h)
 *   DWRT  the `written` map (NUSE), one bit per FTL sector, sparse
 *   DUNC  the `uncorrectable` map, likewise
 *   DFDP  with placement=fdp, Flexible Data Placement's endurance group (cmd/fdp/fdp_state.h)
 *   DKVV  with kv_ns_mb, the Key Value namespaces' values (cmd/admin/ns_kv_state.h),
 *         checked key for key against the FTL's KV stores (its section KVST)
 *   DATA  the data store, sparse: only chunks holding a non-zero byte are stored, and only
 *         chunks with a written sector are even read, so a save of a large, mostly empty
 *         device reads and writes little
 * DNST, DFDP and DKVV belong to parts of the device that code their own section: the top
 * hands this file their list (FemuStatePart, top/state_parts.c) and it walks the list, in
 * file order: FTL, the parts restored before the FTL, the maps, the parts restored after
 * it, the data. A restored device is a device powered on again: power-on hours, features,
 * the other logs and events start afresh.
 *
 * A restore takes the saved namespace table, whatever namespaces= says (the table is part
 * of the medium: a guest may have created or formatted namespaces), after checking it
 * fits this device. A state ftl-sim wrote (META data=absent) has no device sections: the
 * namespaces come from namespaces=, the data reads as zeroes, and the sectors of every
 * page the FTL maps count as written.
 *
 * Everything read is checked before it is used; any failure fails realize, which then
 * throws the whole device away: nothing is ever half restored.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qapi/error.h"

#include "backend/ftl_view.h"
#include "top/state.h"
#include "femu_ftl/state.h"

#define FEMU_STATE_TAG_WRITTEN  STATE_TAG('D', 'W', 'R', 'T')
#define FEMU_STATE_TAG_UNCORR   STATE_TAG('D', 'U', 'N', 'C')
#define FEMU_STATE_TAG_DATA     STATE_TAG('D', 'A', 'T', 'A')

#define FEMU_STATE_MAP_CHUNK    4096    /* bytes of a packed map stored or skipped whole */

/* ---- Packed sector maps ---- */

static void femu_bits_set(uint8_t *bits, uint64_t first, uint64_t count)
{
    for (; count && (first & 7); first++, count--) {
        bits[first >> 3] |= 1u << (first & 7);
    }
    memset(bits + (first >> 3), 0xff, count >> 3);
    first += count & ~UINT64_C(7);
    for (count &= 7; count; first++, count--) {
        bits[first >> 3] |= 1u << (first & 7);
    }
}

static bool femu_bit(const uint8_t *bits, uint64_t i)
{
    return bits[i >> 3] >> (i & 7) & 1;
}

/* The first run of set bits at or after from, below nbits: false when none. */
static bool femu_bits_next_run(const uint8_t *bits, uint64_t nbits, uint64_t from,
                               uint64_t *start, uint64_t *len)
{
    uint64_t i = from, j;

    while (i < nbits && !femu_bit(bits, i)) {
        i = (i & 7) == 0 && bits[i >> 3] == 0 ? i + 8 : i + 1;
    }
    if (i >= nbits) {
        return false;
    }
    j = i;
    while (j < nbits && femu_bit(bits, j)) {
        j = (j & 7) == 0 && bits[j >> 3] == 0xff ? j + 8 : j + 1;
    }
    *start = i;
    *len = MIN(j, nbits) - i;
    return true;
}

static uint64_t femu_map_bytes(uint64_t sectors)
{
    return DIV_ROUND_UP(sectors, 8);
}

static uint8_t *femu_map_pack(const struct lba_bitmap *bm, uint64_t sectors)
{
    uint8_t *bits = g_try_malloc0(femu_map_bytes(sectors));
    uint64_t from = 0, start, len;

    while (bits && lba_bitmap_next_run(bm, from, sectors, &start, &len)) {
        femu_bits_set(bits, start, len);
        from = start + len;
    }
    return bits;
}

/* ---- The instant of a save ---- */

bool femu_state_snapshot(FemuCtrl *n, const FemuStatePart *const *parts,
                         FemuStateSnapshot *s)
{
    bool ok = true;

    memset(s, 0, sizeof(*s));
    s->parts = parts;
    s->sectors = n->capacity_sectors + n->zoned_sectors;
    for (unsigned i = 0; parts[i]; i++) {
        if (parts[i]->encode && parts[i]->max_bytes(n)) {
            parts[i]->encode(n, &s->part[i]);
            ok = ok && !s->part[i].failed;
        }
    }
    s->written = femu_map_pack(&n->written, s->sectors);
    s->uncorrectable = femu_map_pack(&n->uncorrectable, s->sectors);
    if (!ok || !s->written || !s->uncorrectable) {
        femu_state_snapshot_free(s);
        return false;
    }
    return true;
}

void femu_state_snapshot_free(FemuStateSnapshot *s)
{
    for (unsigned i = 0; i < FEMU_STATE_MAX_PARTS; i++) {
        free(s->part[i].p);         /* state_buf's memory: realloc's */
    }
    g_free(s->written);
    g_free(s->uncorrectable);
    memset(s, 0, sizeof(*s));
}

/* ---- Saving ---- */

static uint64_t femu_data_chunk(FemuCtrl *n)
{
    return MAX(n->secsz, FEMU_STATE_MAP_CHUNK);   /* both powers of two */
}

/*
 * The data store's chunks that hold a written sector, straight from the store: nothing
 * writes it during a save (the poller makes the save, or both threads have stopped), and
 * the writer skips the chunks that are all zero, so no copy of the device is made.
 */
static int femu_state_write_data(FemuCtrl *n, struct state_writer *w,
                                 const FemuStateSnapshot *s)
{
    uint64_t chunk = femu_data_chunk(n), bytes = s->sectors * n->secsz;
    uint64_t from = 0, start, len, cursor = 0;
    int rc = state_writer_begin(w, FEMU_STATE_TAG_DATA);

    rc = rc ? rc : state_writer_sparse_header(w, bytes, chunk);
    while (rc == 0 && femu_bits_next_run(s->written, s->sectors, from, &start, &len)) {
        uint64_t first = MAX(QEMU_ALIGN_DOWN(start * n->secsz, chunk), cursor);
        /* the store need not end on a chunk boundary (512-byte pages) */
        uint64_t end = MIN(QEMU_ALIGN_UP((start + len) * n->secsz, chunk), bytes);

        from = start + len;
        if (end > first) {
            rc = state_writer_sparse_piece(w, data_store_at(n->store, first), first,
                                           end - first, chunk);
            cursor = end;
        }
    }
    return rc ? rc : state_writer_end(w);
}

/* The parts restored before the FTL (after_ftl false) or after it, as snapshot took them,
 * each with what it adds as the file is written (late: encode_at_write's), or as it
 * writes itself (why: its reason when it refuses). */
static int femu_state_write_parts(FemuCtrl *n, struct state_writer *w,
                                  const FemuStateSnapshot *s, struct state_buf *late,
                                  bool after_ftl, char *why, size_t whylen)
{
    int rc = 0;

    for (unsigned i = 0; rc == 0 && s->parts[i]; i++) {
        const FemuStatePart *part = s->parts[i];

        if (part->after_ftl != after_ftl || !part->max_bytes(n)) {
            continue;
        }
        rc = state_writer_begin(w, part->tag);
        if (part->write) {
            rc = rc ? rc : part->write(n, w, why, whylen);
        } else {
            rc = rc ? rc : state_writer_append(w, s->part[i].p, s->part[i].len);
            rc = rc ? rc : state_writer_append(w, late[i].p, late[i].len);
        }
        rc = rc ? rc : state_writer_end(w);
    }
    return rc;
}

/* What the parts add as the file is written: the FTL raised it while the save served
 * the requests queued for it. False when out of memory. */
static bool femu_state_encode_late(FemuCtrl *n, const FemuStateSnapshot *s,
                                   struct state_buf *late)
{
    bool ok = true;

    for (unsigned i = 0; s->parts[i]; i++) {
        if (s->parts[i]->encode_at_write && s->parts[i]->max_bytes(n)) {
            s->parts[i]->encode_at_write(n, &late[i]);
            ok = ok && !late[i].failed;
        }
    }
    return ok;
}

static int femu_state_write_sections(FemuCtrl *n, struct state_writer *w,
                                     const FemuStateSnapshot *s, struct state_buf *late,
                                     char *why, size_t whylen)
{
    uint64_t map_bytes = femu_map_bytes(s->sectors);
    int rc = femu_state_write_parts(n, w, s, late, false, why, whylen);

    rc = rc ? rc : state_writer_sparse(w, FEMU_STATE_TAG_WRITTEN, s->written, map_bytes,
                                       FEMU_STATE_MAP_CHUNK);
    rc = rc ? rc : state_writer_sparse(w, FEMU_STATE_TAG_UNCORR, s->uncorrectable,
                                       map_bytes, FEMU_STATE_MAP_CHUNK);
    rc = rc ? rc : femu_state_write_parts(n, w, s, late, true, why, whylen);
    return rc ? rc : femu_state_write_data(n, w, s);
}

int femu_state_write(FemuCtrl *n, const char *path, const FemuStateSnapshot *s,
                     uint64_t now_ns, char *err, size_t errlen)
{
    struct state_buf late[FEMU_STATE_MAX_PARTS] = { 0 };
    char reason[FEMU_STATE_ERR_LEN];
    struct state_writer *w = state_writer_open(path, err, errlen);
    int rc;

    if (!w) {
        return -1;
    }
    rc = state_writer_meta(w, FEMU_STATE_PRODUCER, true);
    if (rc == 0 && ftl_state_save(n->ftl, w, now_ns, reason, sizeof(reason)) != 0) {
        state_writer_abort(w);
        snprintf(err, errlen, "%s: %s", path, reason);
        return -1;
    }
    if (!femu_state_encode_late(n, s, late)) {
        state_writer_abort(w);
        snprintf(err, errlen, "%s: out of memory", path);
        rc = -1;
    } else {
        reason[0] = '\0';
        if (rc == 0) {
            femu_state_write_sections(n, w, s, late, reason, sizeof(reason));
        }
        if (reason[0]) {                            /* a part refused to write itself */
            state_writer_abort(w);
            snprintf(err, errlen, "%s: %s", path, reason);
            rc = -1;
        } else {
            rc = state_writer_commit(w, err, errlen);   /* says why any call above failed */
        }
    }
    for (unsigned i = 0; i < FEMU_STATE_MAX_PARTS; i++) {
        free(late[i].p);
    }
    return rc;
}

/* ---- Restoring ---- */

typedef struct FemuRestore {
    FemuCtrl *n;
    const FemuStatePart *const *parts;
    struct state_reader *r;
    const char *path;
    char err[FEMU_STATE_ERR_LEN];
} FemuRestore;

static bool G_GNUC_PRINTF(2, 3) femu_restore_fail(FemuRestore *rs, const char *fmt, ...)
{
    va_list ap;
    int len = snprintf(rs->err, sizeof(rs->err), "%s: ", rs->path);

    va_start(ap, fmt);
    vsnprintf(rs->err + len, sizeof(rs->err) - len, fmt, ap);
    va_end(ap);
    return false;
}

/* Whether sectors [first, first + count) all belong to allocated namespaces. */
static bool femu_restore_in_namespaces(FemuCtrl *n, uint64_t first, uint64_t count)
{
    uint64_t end = first + count;

    while (first < end) {
        const FemuNamespace *owner = NULL;

        for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES && !owner; nsid++) {
            const FemuNamespace *ns = &n->ns[nsid];

            if (ns->allocated && first >= ns->base_sector &&
                first < ns->base_sector + ns->sectors) {
                owner = ns;
            }
        }
        if (!owner) {
            return false;
        }
        first = MIN(end, owner->base_sector + owner->sectors);
    }
    return true;
}

static bool femu_restore_map(FemuRestore *rs, uint32_t tag, struct lba_bitmap *bm)
{
    uint64_t sectors = rs->n->capacity_sectors + rs->n->zoned_sectors;
    uint64_t from = 0, start, len;
    g_autofree uint8_t *bits = g_try_malloc0(femu_map_bytes(sectors));
    char name[5];

    if (!bits) {
        return femu_restore_fail(rs, "out of memory");
    }
    if (state_reader_sparse(rs->r, tag, bits, femu_map_bytes(sectors), rs->err,
                            sizeof(rs->err)) != 0) {
        return false;
    }
    while (femu_bits_next_run(bits, sectors, from, &start, &len)) {
        if (!femu_restore_in_namespaces(rs->n, start, len)) {
            return femu_restore_fail(rs, "section %s: sectors %" PRIu64 "+%" PRIu64
                                     " lie outside every namespace",
                                     state_tag_name(tag, name), start, len);
        }
        lba_bitmap_set(bm, start, len);
        from = start + len;
    }
    return true;
}

/* The stored chunks, straight into the store: no copy of the device in memory. */
static bool femu_restore_data(FemuRestore *rs)
{
    struct data_store *store = rs->n->store;
    uint64_t bytes, chunk, off, len;
    int more;

    if (state_reader_seek(rs->r, FEMU_STATE_TAG_DATA, rs->err, sizeof(rs->err)) != 0 ||
        state_reader_sparse_header(rs->r, &bytes, &chunk, rs->err, sizeof(rs->err)) != 0) {
        return false;
    }
    if (bytes != data_store_size(store)) {
        return femu_restore_fail(rs, "section DATA holds %" PRIu64 " bytes, this "
                                 "device's store %" PRIu64, bytes, data_store_size(store));
    }
    while ((more = state_reader_sparse_next(rs->r, bytes, &off, &len, rs->err,
                                            sizeof(rs->err))) == 1) {
        if (!data_store_range_ok(store, off, len) ||
            state_reader_read(rs->r, data_store_at(store, off), len, rs->err,
                              sizeof(rs->err)) != 0) {
            return rs->err[0] ? false :
                   femu_restore_fail(rs, "section DATA: a run outside the store");
        }
    }
    return more == 0;
}

/* A state with no data (ftl-sim's): what the FTL maps counts as written, reading zeroes. */
static void femu_restore_mark_mapped(FemuCtrl *n)
{
    uint64_t spp = n->ftl_config.secs_per_pg;

    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = &n->ns[nsid];

        if (!ns->allocated || ns->zoned) {
            continue;   /* zones: the FTL's zone state says what they hold */
        }
        for (uint64_t lpn = ns->base_sector / spp;
             lpn < (ns->base_sector + ns->sectors) / spp; lpn++) {
            if (ftl_lpn_is_mapped(n->ftl, lpn)) {
                lba_bitmap_set(&n->written, lpn * spp, spp);
            }
        }
    }
}

/* What this device's state file can hold: the FTL's sections and the device's own, each
 * no bigger than this configuration makes it (the reader refuses anything else unread). */
static size_t femu_restore_limits(FemuRestore *rs, struct state_section_limit *out)
{
    FemuCtrl *n = rs->n;
    uint64_t map_bytes = femu_map_bytes(n->capacity_sectors + n->zoned_sectors);
    size_t k = ftl_state_limits(n->ftl, out);

    for (unsigned i = 0; rs->parts[i]; i++) {
        uint64_t max = rs->parts[i]->max_bytes(n);

        if (max) {
            out[k++] = (struct state_section_limit){ rs->parts[i]->tag, max };
        }
    }
    out[k++] = (struct state_section_limit){
        FEMU_STATE_TAG_WRITTEN, state_sparse_max_len(map_bytes, FEMU_STATE_MAP_CHUNK) };
    out[k++] = (struct state_section_limit){
        FEMU_STATE_TAG_UNCORR, state_sparse_max_len(map_bytes, FEMU_STATE_MAP_CHUNK) };
    out[k++] = (struct state_section_limit){
        FEMU_STATE_TAG_DATA,
        state_sparse_max_len(data_store_size(n->store), femu_data_chunk(n)) };
    return k;
}

/* The parts restored before the FTL (after_ftl false) or after it: each section checked
 * and in place, or the part's word on a file without it. */
static bool femu_restore_parts(FemuRestore *rs, bool after_ftl)
{
    for (unsigned i = 0; rs->parts[i]; i++) {
        const FemuStatePart *part = rs->parts[i];
        char why[FEMU_STATE_ERR_LEN] = "";
        struct state_cursor c;
        uint64_t len = 0;
        bool ok;

        if (part->after_ftl != after_ftl) {
            continue;
        }
        if (!state_reader_has(rs->r, part->tag, &len)) {
            ok = part->absent(rs->n, why, sizeof(why));
        } else if (part->load) {
            if (state_reader_seek(rs->r, part->tag, rs->err, sizeof(rs->err)) != 0) {
                return false;
            }
            ok = part->load(rs->n, rs->r, len, why, sizeof(why));
        } else if (state_cursor_load(rs->r, part->tag, 0, part->max_bytes(rs->n), &c,
                                     rs->err, sizeof(rs->err)) != 0) {
            return false;
        } else {
            ok = part->restore(rs->n, &c, why, sizeof(why));
            state_cursor_free(&c);
        }
        if (!ok && strncmp(why, rs->path, strlen(rs->path)) == 0) {
            pstrcpy(rs->err, sizeof(rs->err), why);     /* the reader's: names the file */
            return false;
        }
        if (!ok) {
            return femu_restore_fail(rs, "%s", why);
        }
    }
    return true;
}

/* A state without the device's sections: each part's word on it, the FTL restored. */
static bool femu_restore_ftl_only(FemuRestore *rs)
{
    for (unsigned i = 0; rs->parts[i]; i++) {
        char why[FEMU_STATE_ERR_LEN] = "";

        if (rs->parts[i]->ftl_only && !rs->parts[i]->ftl_only(rs->n, why, sizeof(why))) {
            return femu_restore_fail(rs, "%s", why);
        }
    }
    return true;
}

/* A state without the device's sections has none of the parts restored after the FTL
 * (those before it are left unread, as ever). */
static bool femu_restore_no_late_parts(FemuRestore *rs)
{
    char name[5];

    for (unsigned i = 0; rs->parts[i]; i++) {
        if (rs->parts[i]->after_ftl && state_reader_has(rs->r, rs->parts[i]->tag, NULL)) {
            return femu_restore_fail(rs, "section %s in a state without the device's "
                                     "sections (data=absent)",
                                     state_tag_name(rs->parts[i]->tag, name));
        }
    }
    return true;
}

/* META's data= word: whether the device's sections are in the file. */
static bool femu_restore_open(FemuRestore *rs, bool *present)
{
    struct state_section_limit limits[FTL_STATE_MAX_SECTIONS + 3 + FEMU_STATE_MAX_PARTS];
    char data[16];

    rs->r = state_reader_open(rs->path, limits, femu_restore_limits(rs, limits), rs->err,
                              sizeof(rs->err));
    if (!rs->r) {
        return false;
    }
    if (!state_reader_meta(rs->r, "data", data, sizeof(data)) ||
        (strcmp(data, "present") != 0 && strcmp(data, "absent") != 0)) {
        return femu_restore_fail(rs, "META has no data=present or data=absent");
    }
    *present = strcmp(data, "present") == 0;
    /* the configuration first: a file of another one says which key differs */
    return ftl_state_check_config(rs->r, &rs->n->ftl_config, rs->err, sizeof(rs->err)) == 0 &&
           state_reader_verify(rs->r, rs->err, sizeof(rs->err)) == 0;
}

static bool femu_restore_run(FemuRestore *rs)
{
    FemuCtrl *n = rs->n;
    bool present = false;

    if (!femu_restore_open(rs, &present)) {
        return false;
    }
    /* The device's sections first: the cheap checks before the FTL's big ones. */
    if (present && (!femu_restore_parts(rs, false) ||
                    !femu_restore_map(rs, FEMU_STATE_TAG_WRITTEN, &n->written) ||
                    !femu_restore_map(rs, FEMU_STATE_TAG_UNCORR, &n->uncorrectable))) {
        return false;
    }
    /* at the statistics' and a recording's origin: a replay restores at its time 0, and
     * the ages cost-benefit GC weighs must agree with it to the nanosecond */
    if (ftl_state_load(n->ftl, rs->r, n->stats_start_ns, rs->err, sizeof(rs->err)) != 0) {
        if (strncmp(rs->err, rs->path, strlen(rs->path)) != 0) {
            g_autofree char *reason = g_strdup(rs->err);

            return femu_restore_fail(rs, "%s", reason);
        }
        return false;
    }
    if (present) {
        return femu_restore_parts(rs, true) && femu_restore_data(rs);
    }
    if (!femu_restore_no_late_parts(rs) || !femu_restore_ftl_only(rs)) {
        return false;
    }
    femu_restore_mark_mapped(n);
    warn_report("femu: state_in %s was made by ftl-sim: it holds no data, written LBAs "
                "read as zeroes", rs->path);
    return true;
}

bool femu_state_restore(FemuCtrl *n, const FemuStatePart *const *parts, Error **errp)
{
    FemuRestore rs = { .n = n, .parts = parts, .path = n->state_in };
    bool ok;

    if (!n->state_in) {
        return true;
    }
    if (!n->state_in[0]) {
        error_setg(errp, "state_in: empty path");
        return false;
    }
    ok = femu_restore_run(&rs);
    state_reader_close(rs.r);
    if (!ok) {
        error_setg(errp, "state_in: %s", rs.err);
        return false;
    }
    femu_ftl_view_publish(n);   /* the logs report the restored counters at once */
    for (unsigned i = 0; parts[i]; i++) {
        if (parts[i]->loaded) {
            parts[i]->loaded(n);    /* a power-on: e.g. FDP's saved features */
        }
    }
    return true;
}
