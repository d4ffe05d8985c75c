/*
 * Device state files: what one holds and how realize restores it (state_in=FILE).
 *
 * Besides the FTL's sections (femu_ftl/state.h) a state the device writes has its own:
 *   DNST  the namespace table (allocated, attached, zoned, extent, LBA format, UUID and
 *         SMART counters of each NSID), the controller's SMART counters, ns_created
 *   DWRT  the `written` map (NUSE), one bit per FTL sector, sparse
 *   DUNC  the `uncorrectable` map, likewise
 *   DATA  the data store, sparse: only chunks holding a non-zero byte are stored, and only
 *         chunks with a written sector are even read, so a save of a large, mostly empty
 *         device reads and writes little
 *   DFDP  with placement=fdp, Flexible Data Placement's endurance group: features 1Dh
 *         (current and saved) and 1Eh (the saved enables), each namespace's placement
 *         handle list, the FDP statistics' origin and the FDP events log
 * A restored device is a device powered on again: power-on hours, features, the other
 * logs and events start afresh; FDP's saveable features take their saved values as after
 * a reset (cmd/fdp_features.c: 1Dh only where no namespace pins the current one), and
 * FDP's statistics and events log go on where they were.
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
#include "qemu/bswap.h"
#include "qemu/error-report.h"
#include "qapi/error.h"

#include "backend/ftl_view.h"
#include "top/state.h"
#include "cmd/fdp/fdp.h"
#include "backend/fdp_events.h"
#include "cmd/fdp/fdp_features.h"
#include "cmd/admin/features.h"
#include "cmd/core/ns_table.h"
#include "femu_ftl/state.h"

#define FEMU_STATE_TAG_TABLE    STATE_TAG('D', 'N', 'S', 'T')
#define FEMU_STATE_TAG_WRITTEN  STATE_TAG('D', 'W', 'R', 'T')
#define FEMU_STATE_TAG_UNCORR   STATE_TAG('D', 'U', 'N', 'C')
#define FEMU_STATE_TAG_DATA     STATE_TAG('D', 'A', 'T', 'A')

#define FEMU_STATE_SMART_BYTES  40      /* five u64 counters */
#define FEMU_STATE_NS_BYTES     (8 + 3 * 8 + 16 + FEMU_STATE_SMART_BYTES)
#define FEMU_STATE_TABLE_BYTES  \
    (8 + FEMU_STATE_SMART_BYTES + FEMU_MAX_NAMESPACES * FEMU_STATE_NS_BYTES)
#define FEMU_STATE_MAP_CHUNK    4096    /* bytes of a packed map stored or skipped whole */

/*
 * DFDP, little endian: u32 version, u32 NRUH, u32 NSIDs, u8 FDPE, u8 FDPCIDX, u8 saved
 * FDPE, u8 saved FDPCIDX, the statistics' origin (four u64: host bytes, Copy pages, media
 * pages programmed, blocks erased: the FTL's counters at the last configuration change),
 * then a u32 of saved 1Eh enables per RUH (bit 1 << event type), then per NSID its
 * placement handle list (u8 NPHNDLS, u8 chosen by the controller, NRUH bytes: the RUHs,
 * 0 after the list), then u32 NUMFDPE and the host events as log 23h holds them.
 */
#define FEMU_STATE_TAG_FDP      STATE_TAG('D', 'F', 'D', 'P')
#define FEMU_STATE_FDP_VERSION  1
#define FEMU_STATE_FDP_HEAD     48

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

/* ---- The namespace table ---- */

static uint8_t *femu_put_smart(uint8_t *p, const FemuSmart *s)
{
    stq_le_p(p, s->units_read);
    stq_le_p(p + 8, s->units_written);
    stq_le_p(p + 16, s->read_cmds);
    stq_le_p(p + 24, s->write_cmds);
    stq_le_p(p + 32, s->media_errors);
    return p + FEMU_STATE_SMART_BYTES;
}

static const uint8_t *femu_get_smart(const uint8_t *p, FemuSmart *s)
{
    s->units_read = ldq_le_p(p);
    s->units_written = ldq_le_p(p + 8);
    s->read_cmds = ldq_le_p(p + 16);
    s->write_cmds = ldq_le_p(p + 24);
    s->media_errors = ldq_le_p(p + 32);
    return p + FEMU_STATE_SMART_BYTES;
}

static uint8_t *femu_table_encode(FemuCtrl *n)
{
    uint8_t *table = g_malloc0(FEMU_STATE_TABLE_BYTES), *p = table;

    stl_le_p(p, FEMU_MAX_NAMESPACES);
    stl_le_p(p + 4, n->ns_created);
    p = femu_put_smart(p + 8, &n->smart);
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = &n->ns[nsid];

        p[0] = ns->allocated;
        p[1] = ns->attached;
        p[2] = ns->zoned;
        p[3] = ns->flbas;
        stq_le_p(p + 8, ns->base_sector);
        stq_le_p(p + 16, ns->sectors);
        stq_le_p(p + 24, ns->bytes);
        memcpy(p + 32, ns->uuid, sizeof(ns->uuid));
        p = femu_put_smart(p + 48, &ns->smart);
    }
    return table;
}

/* ---- Flexible Data Placement ---- */

/* DFDP up to its events: the features, the statistics' origin, the handle lists. */
static size_t femu_fdp_head_bytes(uint32_t ruhs)
{
    return FEMU_STATE_FDP_HEAD + 4 * ruhs + FEMU_MAX_NAMESPACES * (2 + ruhs);
}

static size_t femu_fdp_max_bytes(uint32_t ruhs)
{
    return femu_fdp_head_bytes(ruhs) + 4 + FEMU_FDP_MAX_EVENTS * FEMU_FDP_EVENT_BYTES;
}

static uint8_t *femu_fdp_encode(FemuCtrl *n)
{
    const FemuFdp *fdp = &n->fdp;
    uint8_t *head = g_malloc0(femu_fdp_head_bytes(fdp->ruhs)), *p = head;

    stl_le_p(p, FEMU_STATE_FDP_VERSION);
    stl_le_p(p + 4, fdp->ruhs);
    stl_le_p(p + 8, FEMU_MAX_NAMESPACES);
    p[12] = fdp->enabled;
    p[14] = fdp->saved_enabled;         /* FDPCIDX 0 both: one configuration */
    stq_le_p(p + 16, fdp->base_host_bytes);
    stq_le_p(p + 24, fdp->base_copy_pages);
    stq_le_p(p + 32, fdp->base_programs);
    stq_le_p(p + 40, fdp->base_erases);
    p += FEMU_STATE_FDP_HEAD;
    for (uint32_t ruh = 0; ruh < fdp->ruhs; ruh++, p += 4) {
        stl_le_p(p, fdp->saved_event_enable[ruh]);
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++, p += 2 + fdp->ruhs) {
        const FemuNamespace *ns = &n->ns[nsid];

        if (femu_fdp_in_group(ns)) {    /* a deleted namespace's list is left behind */
            p[0] = ns->nphndls;
            p[1] = ns->phndl_chosen;
            memcpy(p + 2, ns->phndl_ruh, ns->nphndls);
        }
    }
    return head;
}

/* The events go in as the writer finds them: the FTL raises those of the requests it
 * serves for the save, after the instant the poller copied the rest. */
static int femu_fdp_write(FemuCtrl *n, struct state_writer *w, const FemuStateSnapshot *s)
{
    g_autofree uint8_t *log = g_malloc(FEMU_FDP_EVENTS_LOG_BYTES);
    uint32_t count;
    int rc;

    femu_fdp_events_log(n, true, log);
    count = ldl_le_p(log);
    rc = state_writer_begin(w, FEMU_STATE_TAG_FDP);
    rc = rc ? rc : state_writer_append(w, s->fdp, s->fdp_len);
    rc = rc ? rc : state_writer_append(w, log, 4);
    rc = rc ? rc : state_writer_append(w, log + FEMU_FDP_EVENT_BYTES,
                                       (uint64_t)count * FEMU_FDP_EVENT_BYTES);
    return rc ? rc : state_writer_end(w);
}

bool femu_state_snapshot(FemuCtrl *n, FemuStateSnapshot *s)
{
    memset(s, 0, sizeof(*s));
    s->sectors = n->capacity_sectors + n->zoned_sectors;
    s->table = femu_table_encode(n);
    s->table_len = FEMU_STATE_TABLE_BYTES;
    if (n->fdp.supported) {
        s->fdp = femu_fdp_encode(n);
        s->fdp_len = femu_fdp_head_bytes(n->fdp.ruhs);
    }
    s->written = femu_map_pack(&n->written, s->sectors);
    s->uncorrectable = femu_map_pack(&n->uncorrectable, s->sectors);
    if (!s->written || !s->uncorrectable) {
        femu_state_snapshot_free(s);
        return false;
    }
    return true;
}

void femu_state_snapshot_free(FemuStateSnapshot *s)
{
    g_free(s->table);
    g_free(s->fdp);
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

int femu_state_write(FemuCtrl *n, const char *path, const FemuStateSnapshot *s,
                     uint64_t now_ns, char *err, size_t errlen)
{
    uint64_t map_bytes = femu_map_bytes(s->sectors);
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
    rc = rc ? rc : state_writer_section(w, FEMU_STATE_TAG_TABLE, s->table, s->table_len);
    rc = rc ? rc : state_writer_sparse(w, FEMU_STATE_TAG_WRITTEN, s->written, map_bytes,
                                       FEMU_STATE_MAP_CHUNK);
    rc = rc ? rc : state_writer_sparse(w, FEMU_STATE_TAG_UNCORR, s->uncorrectable,
                                       map_bytes, FEMU_STATE_MAP_CHUNK);
    if (s->fdp) {
        rc = rc ? rc : femu_fdp_write(n, w, s);
    }
    rc = rc ? rc : femu_state_write_data(n, w, s);
    return state_writer_commit(w, err, errlen);   /* says why any call above failed */
}

/* ---- Restoring ---- */

typedef struct FemuRestore {
    FemuCtrl *n;
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

/* One saved namespace against this device: its extent, format and kind. */
static bool femu_restore_check_ns(FemuRestore *rs, const FemuNamespace *ns)
{
    FemuCtrl *n = rs->n;
    uint64_t spp = n->ftl_config.secs_per_pg, lbafs[FEMU_MAX_LBAF];
    unsigned nlbafs = femu_lbafs(n, lbafs);

    if (ns->zoned) {
        if (ns->base_sector != n->capacity_sectors || ns->sectors != n->zoned_sectors ||
            n->zoned_sectors == 0) {
            return femu_restore_fail(rs, "namespace %u: the zoned namespace does not "
                                     "match this device's zones", ns->nsid);
        }
    } else if (ns->sectors == 0 || ns->base_sector % spp || ns->sectors % spp ||
               ns->base_sector > n->capacity_sectors ||
               ns->sectors > n->capacity_sectors - ns->base_sector) {
        return femu_restore_fail(rs, "namespace %u: sectors %" PRIu64 "+%" PRIu64
                                 " do not fit this device's %" PRIu64, ns->nsid,
                                 ns->base_sector, ns->sectors, n->capacity_sectors);
    }
    if (ns->flbas >= nlbafs || ns->bytes > ns->sectors * n->secsz ||
        ns->bytes < lbafs[ns->flbas]) {
        return femu_restore_fail(rs, "namespace %u: LBA format %u and %" PRIu64
                                 " bytes do not fit its sectors", ns->nsid, ns->flbas,
                                 ns->bytes);
    }
    return true;
}

/* The saved namespaces must not overlap; exactly one is zoned when the device has zones. */
static bool femu_restore_check_layout(FemuRestore *rs, const FemuNamespace *table)
{
    unsigned zoned = 0;

    for (uint32_t a = 1; a <= FEMU_MAX_NAMESPACES; a++) {
        if (!table[a].allocated) {
            continue;
        }
        zoned += table[a].zoned;
        for (uint32_t b = a + 1; b <= FEMU_MAX_NAMESPACES; b++) {
            if (table[b].allocated &&
                table[a].base_sector < table[b].base_sector + table[b].sectors &&
                table[b].base_sector < table[a].base_sector + table[a].sectors) {
                return femu_restore_fail(rs, "namespaces %u and %u overlap", a, b);
            }
        }
    }
    if (zoned != (rs->n->zoned_sectors ? 1 : 0)) {
        return femu_restore_fail(rs, "%u zoned namespaces in the table, this device has "
                                 "%u", zoned, rs->n->zoned_sectors ? 1 : 0);
    }
    return true;
}

static bool femu_restore_table(FemuRestore *rs)
{
    FemuCtrl *n = rs->n;
    g_autofree uint8_t *buf = NULL;
    g_autofree FemuNamespace *table = g_new0(FemuNamespace, FEMU_MAX_NAMESPACES + 1);
    uint64_t len, lbafs[FEMU_MAX_LBAF];
    const uint8_t *p;
    FemuSmart smart;
    uint32_t created;

    if (!state_reader_has(rs->r, FEMU_STATE_TAG_TABLE, &len) ||
        len != FEMU_STATE_TABLE_BYTES) {
        return femu_restore_fail(rs, "no namespace table (section DNST) of %d bytes",
                                 FEMU_STATE_TABLE_BYTES);
    }
    buf = g_malloc(len);
    if (state_reader_seek(rs->r, FEMU_STATE_TAG_TABLE, rs->err, sizeof(rs->err)) != 0 ||
        state_reader_read(rs->r, buf, len, rs->err, sizeof(rs->err)) != 0) {
        return false;
    }
    if (ldl_le_p(buf) != FEMU_MAX_NAMESPACES) {
        return femu_restore_fail(rs, "namespace table of %u NSIDs, this device has %d",
                                 ldl_le_p(buf), FEMU_MAX_NAMESPACES);
    }
    created = ldl_le_p(buf + 4);
    p = femu_get_smart(buf + 8, &smart);
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++, p += FEMU_STATE_NS_BYTES) {
        FemuNamespace *ns = &table[nsid];

        ns->nsid = nsid;
        ns->allocated = p[0];
        ns->attached = p[1];
        ns->zoned = p[2];
        ns->flbas = p[3];
        ns->base_sector = ldq_le_p(p + 8);
        ns->sectors = ldq_le_p(p + 16);
        ns->bytes = ldq_le_p(p + 24);
        memcpy(ns->uuid, p + 32, sizeof(ns->uuid));
        femu_get_smart(p + 48, &ns->smart);
        if (p[0] > 1 || p[1] > 1 || p[2] > 1 || (!ns->allocated && (ns->attached ||
            ns->zoned)) || (ns->allocated && !femu_restore_check_ns(rs, ns))) {
            return rs->err[0] ? false :
                   femu_restore_fail(rs, "namespace %u: malformed entry", nsid);
        }
    }
    if (!femu_restore_check_layout(rs, table)) {
        return false;
    }
    /* Valid: the saved table replaces the one namespaces= made. */
    femu_lbafs(n, lbafs);
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        FemuNamespace *ns = &table[nsid];

        if (!ns->allocated) {
            memset(ns, 0, sizeof(*ns));     /* as realize leaves a free NSID */
        } else {
            ns->lba_bytes = lbafs[ns->flbas];
            ns->lba_shift = ctz64(ns->lba_bytes / n->secsz);
            ns->nsze = ns->bytes / ns->lba_bytes;
            ns->dmrsl = MIN(n->dmrsl, ns->nsze);
        }
        n->ns[nsid] = *ns;
        femu_features_ns_reset(n, nsid);
    }
    smart.power_on_ns = n->smart.power_on_ns;   /* hours count from this power-on */
    n->smart = smart;
    n->ns_created = created;
    return true;
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

/* One NSID's placement handle list in DFDP (p: NPHNDLS, chosen, NRUH bytes) against the
 * restored namespace and FDP's state; *chosen_ruh gathers the controller's choice. */
static bool femu_restore_fdp_list(FemuRestore *rs, const uint8_t *p, uint32_t nsid,
                                  bool enabled, int *chosen_ruh)
{
    uint32_t ruhs = rs->n->fdp.ruhs, seen = 0;
    bool in_group = femu_fdp_in_group(&rs->n->ns[nsid]);

    if (p[1] > 1 || (p[1] && p[0] != 1)) {
        return femu_restore_fail(rs, "section DFDP: namespace %u: chosen %u with %u "
                                 "placement handles (the controller chooses one)", nsid,
                                 p[1], p[0]);
    }
    if (p[0] > ruhs) {
        return femu_restore_fail(rs, "section DFDP: namespace %u: %u placement handles, "
                                 "NRUH is %u", nsid, p[0], ruhs);
    }
    if (in_group && enabled ? p[0] == 0 : p[0] != 0) {
        return femu_restore_fail(rs, "section DFDP: namespace %u: %u placement handles, "
                                 "want %s", nsid, p[0], in_group && enabled ?
                                 "at least one (a namespace of the endurance group, FDP on)" :
                                 "none (no namespace of the endurance group, or FDP off)");
    }
    for (uint32_t i = 0; i < ruhs; i++) {
        uint8_t ruh = p[2 + i];

        if (i >= p[0] ? ruh != 0 : ruh >= ruhs || (seen >> ruh & 1)) {
            return femu_restore_fail(rs, "section DFDP: namespace %u: placement handle %u "
                                     "names RUH %u (NRUH %u, each once, 0 past the list)",
                                     nsid, i, ruh, ruhs);
        }
        seen |= i < p[0] ? 1u << ruh : 0;
    }
    if (p[1] && *chosen_ruh >= 0 && *chosen_ruh != p[2]) {
        return femu_restore_fail(rs, "section DFDP: namespace %u: the controller's handle "
                                 "RUH %u, another namespace's is RUH %d (one for all)",
                                 nsid, p[2], *chosen_ruh);
    }
    if (p[1]) {
        *chosen_ruh = p[2];
    }
    return true;
}

/*
 * DFDP against this device and the restored namespaces (section layout above), then in
 * place. NRUH and the NSIDs this device's; FDPE 0 or 1, FDPCIDX 0; the statistics'
 * origin not past the FTL's restored counters; saved enables of types 00h-03h; the lists
 * as Namespace Management makes them (the controller's one handle shared by every
 * namespace it chose for and listed by no other); events femu could have recorded, none
 * with FDP off.
 */
static bool femu_restore_fdp(FemuRestore *rs)
{
    FemuCtrl *n = rs->n;
    FemuFdp *fdp = &n->fdp;
    size_t head = femu_fdp_head_bytes(fdp->ruhs);
    g_autofree uint8_t *buf = NULL;
    struct ftl_counters ctr;
    uint64_t len, bases[4], counters[4];
    uint32_t count, stored_ruhs;
    const uint8_t *p;
    int chosen_ruh = -1;
    static const char *const base_names[] = {
        "host bytes", "Copy pages", "media pages", "erased blocks",
    };

    if (!state_reader_has(rs->r, FEMU_STATE_TAG_FDP, &len)) {
        femu_fdp_handles_every(n);          /* a state of before DFDP: as realize makes it */
        return true;
    }
    buf = g_malloc(len);
    if (state_reader_seek(rs->r, FEMU_STATE_TAG_FDP, rs->err, sizeof(rs->err)) != 0 ||
        state_reader_read(rs->r, buf, len, rs->err, sizeof(rs->err)) != 0) {
        return false;
    }
    if (len < FEMU_STATE_FDP_HEAD || ldl_le_p(buf) != FEMU_STATE_FDP_VERSION) {
        return femu_restore_fail(rs, "section DFDP: %s", len < FEMU_STATE_FDP_HEAD ?
                                 "shorter than its header" : "not version 1");
    }
    stored_ruhs = ldl_le_p(buf + 4);
    if (stored_ruhs != fdp->ruhs || ldl_le_p(buf + 8) != FEMU_MAX_NAMESPACES) {
        return femu_restore_fail(rs, "section DFDP: NRUH %u and %u NSIDs, this device has "
                                 "%u and %d", stored_ruhs, ldl_le_p(buf + 8), fdp->ruhs,
                                 FEMU_MAX_NAMESPACES);
    }
    count = len >= head + 4 ? ldl_le_p(buf + head) : 0;
    if (len < head + 4 || count > FEMU_FDP_MAX_EVENTS ||
        len != head + 4 + (uint64_t)count * FEMU_FDP_EVENT_BYTES) {
        return femu_restore_fail(rs, "section DFDP: %" PRIu64 " bytes with NUMFDPE %u "
                                 "(at most %d events of %d bytes after %zu)", len, count,
                                 FEMU_FDP_MAX_EVENTS, FEMU_FDP_EVENT_BYTES, head + 4);
    }
    if (buf[12] > 1 || buf[14] > 1 || buf[13] || buf[15]) {
        return femu_restore_fail(rs, "section DFDP: feature 1Dh FDPE %u FDPCIDX %u, saved "
                                 "FDPE %u FDPCIDX %u (FDPE 0 or 1, one configuration)",
                                 buf[12], buf[13], buf[14], buf[15]);
    }
    ftl_get_counters(n->ftl, &ctr);
    counters[0] = ctr.host_write_bytes;
    counters[1] = ctr.copy_pages;
    counters[2] = femu_fdp_media_pages(&ctr);
    counters[3] = ctr.nand_erases;
    for (unsigned i = 0; i < ARRAY_SIZE(bases); i++) {
        bases[i] = ldq_le_p(buf + 16 + 8 * i);
        if (bases[i] > counters[i]) {
            return femu_restore_fail(rs, "section DFDP: the statistics count %s from %"
                                     PRIu64 ", the FTL has %" PRIu64, base_names[i],
                                     bases[i], counters[i]);
        }
    }
    p = buf + FEMU_STATE_FDP_HEAD;
    for (uint32_t ruh = 0; ruh < fdp->ruhs; ruh++, p += 4) {
        if (ldl_le_p(p) >> FEMU_FDP_EVT_TYPES) {
            return femu_restore_fail(rs, "section DFDP: saved event enables %#x of RUH %u "
                                     "(types 00h-03h only)", ldl_le_p(p), ruh);
        }
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++, p += 2 + fdp->ruhs) {
        if (!femu_restore_fdp_list(rs, p, nsid, buf[12], &chosen_ruh)) {
            return false;
        }
    }
    p = buf + FEMU_STATE_FDP_HEAD + 4 * fdp->ruhs;
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++, p += 2 + fdp->ruhs) {
        if (chosen_ruh >= 0 && !p[1] && memchr(p + 2, chosen_ruh, p[0])) {
            return femu_restore_fail(rs, "section DFDP: namespace %u lists RUH %d, the "
                                     "controller's choice for others", nsid, chosen_ruh);
        }
    }
    if (count && !buf[12]) {
        return femu_restore_fail(rs, "section DFDP: %u events with FDP off", count);
    }
    for (uint32_t i = 0; i < count; i++) {
        const char *why = femu_fdp_event_check(n, buf + head + 4 + i * FEMU_FDP_EVENT_BYTES);

        if (why) {
            return femu_restore_fail(rs, "section DFDP: event %u: %s", i, why);
        }
    }
    /* Valid: in place (the saved features take effect once the FTL's view is out). */
    fdp->enabled = buf[12];
    fdp->saved_enabled = buf[14];
    fdp->base_host_bytes = bases[0];
    fdp->base_copy_pages = bases[1];
    fdp->base_programs = bases[2];
    fdp->base_erases = bases[3];
    p = buf + FEMU_STATE_FDP_HEAD;
    for (uint32_t ruh = 0; ruh < fdp->ruhs; ruh++, p += 4) {
        fdp->saved_event_enable[ruh] = ldl_le_p(p);
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++, p += 2 + fdp->ruhs) {
        FemuFdpHandles list = { .nphndls = p[0], .chosen = p[1] };

        memcpy(list.ruh, p + 2, p[0]);
        femu_fdp_ns_apply(&n->ns[nsid], &list);
    }
    femu_fdp_events_restore(n, buf + head + 4, count);
    return true;
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
static size_t femu_restore_limits(FemuCtrl *n, struct state_section_limit *out)
{
    uint64_t map_bytes = femu_map_bytes(n->capacity_sectors + n->zoned_sectors);
    size_t k = ftl_state_limits(n->ftl, out);

    out[k++] = (struct state_section_limit){ FEMU_STATE_TAG_TABLE, FEMU_STATE_TABLE_BYTES };
    out[k++] = (struct state_section_limit){
        FEMU_STATE_TAG_WRITTEN, state_sparse_max_len(map_bytes, FEMU_STATE_MAP_CHUNK) };
    out[k++] = (struct state_section_limit){
        FEMU_STATE_TAG_UNCORR, state_sparse_max_len(map_bytes, FEMU_STATE_MAP_CHUNK) };
    out[k++] = (struct state_section_limit){
        FEMU_STATE_TAG_DATA,
        state_sparse_max_len(data_store_size(n->store), femu_data_chunk(n)) };
    if (n->fdp.supported) {
        out[k++] = (struct state_section_limit){
            FEMU_STATE_TAG_FDP, femu_fdp_max_bytes(n->fdp.ruhs) };
    }
    return k;
}

static bool femu_restore_run(FemuRestore *rs)
{
    FemuCtrl *n = rs->n;
    struct state_section_limit limits[FTL_STATE_MAX_SECTIONS + 5];
    char data[16];
    bool present;

    rs->r = state_reader_open(rs->path, limits, femu_restore_limits(n, limits), rs->err,
                              sizeof(rs->err));
    if (!rs->r) {
        return false;
    }
    if (!state_reader_meta(rs->r, "data", data, sizeof(data)) ||
        (strcmp(data, "present") != 0 && strcmp(data, "absent") != 0)) {
        return femu_restore_fail(rs, "META has no data=present or data=absent");
    }
    present = strcmp(data, "present") == 0;
    /* the configuration first: a file of another one says which key differs */
    if (ftl_state_check_config(rs->r, &n->ftl_config, rs->err, sizeof(rs->err)) != 0 ||
        state_reader_verify(rs->r, rs->err, sizeof(rs->err)) != 0) {
        return false;
    }
    /* The device's sections first: the cheap checks before the FTL's big ones. */
    if (present && (!femu_restore_table(rs) ||
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
        return femu_restore_fdp(rs) && femu_restore_data(rs);
    }
    if (state_reader_has(rs->r, FEMU_STATE_TAG_FDP, NULL)) {
        return femu_restore_fail(rs, "section DFDP in a state without the device's "
                                 "sections (data=absent)");
    }
    femu_restore_mark_mapped(n);
    warn_report("femu: state_in %s was made by ftl-sim: it holds no data, written LBAs "
                "read as zeroes", rs->path);
    return true;
}

bool femu_state_restore(FemuCtrl *n, Error **errp)
{
    FemuRestore rs = { .n = n, .path = n->state_in };
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
    femu_fdp_features_load_saved(n);    /* a power-on: FDP's saved features */
    return true;
}
