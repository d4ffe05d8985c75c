/* The namespace table's section DNST (cmd/admin/ns_table_state.h has its layout). */
#include "qemu/osdep.h"

#include "cmd/admin/features.h"
#include "cmd/core/ns_table.h"
#include "cmd/admin/ns_table_state.h"
#include "cmd/core/cmd_set.h"
#include "state_field.h"
#include "store/kv_values.h"

#define NS_SMART_BYTES  40      /* five u64 counters */
#define NS_RECORD_BYTES (8 + 3 * 8 + 16 + NS_SMART_BYTES)
#define NS_TABLE_BYTES  (8 + NS_SMART_BYTES + FEMU_MAX_NAMESPACES * NS_RECORD_BYTES)

/* One NSID's record as stored: the flags as bytes, so a restore sees what was written. */
typedef struct NsRecord {
    uint8_t allocated, attached, zoned, flbas;
    uint8_t kv;                         /* a reserved byte before it: 0 in older files */
    uint8_t reserved[3];
    uint64_t base_sector, sectors, bytes;
    uint8_t uuid[16];
    FemuSmart smart;
} NsRecord;

typedef struct NsTableImage {
    uint32_t nsids, created;
    FemuSmart smart;
    NsRecord ns[FEMU_MAX_NAMESPACES];   /* NSID i + 1 */
} NsTableImage;

static bool G_GNUC_PRINTF(3, 4) ns_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    int len = snprintf(err, errlen, "section DNST: ");

    va_start(ap, fmt);
    vsnprintf(err + len, errlen - len, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- The layout, once for both directions ---- */

static void smart_fields(struct state_fields *f, FemuSmart *s)
{
    state_field_u64(f, &s->units_read);
    state_field_u64(f, &s->units_written);
    state_field_u64(f, &s->read_cmds);
    state_field_u64(f, &s->write_cmds);
    state_field_u64(f, &s->media_errors);
}

static void table_fields(struct state_fields *f, NsTableImage *t)
{
    state_field_u32(f, &t->nsids);
    state_field_u32(f, &t->created);
    smart_fields(f, &t->smart);
    for (unsigned i = 0; i < FEMU_MAX_NAMESPACES; i++) {
        NsRecord *r = &t->ns[i];

        state_field_u8(f, &r->allocated);
        state_field_u8(f, &r->attached);
        state_field_u8(f, &r->zoned);
        state_field_u8(f, &r->flbas);
        state_field_u8(f, &r->kv);
        state_field_bytes(f, r->reserved, sizeof(r->reserved));
        state_field_u64(f, &r->base_sector);
        state_field_u64(f, &r->sectors);
        state_field_u64(f, &r->bytes);
        state_field_bytes(f, r->uuid, sizeof(r->uuid));
        smart_fields(f, &r->smart);
    }
}

/* ---- Saving ---- */

uint64_t femu_ns_table_state_bytes(FemuCtrl *n)
{
    return NS_TABLE_BYTES;
}

void femu_ns_table_encode(FemuCtrl *n, struct state_buf *b)
{
    g_autofree NsTableImage *t = g_new0(NsTableImage, 1);
    struct state_fields f = { .put = b };

    t->nsids = FEMU_MAX_NAMESPACES;
    t->created = n->ns_created;
    t->smart = n->smart;
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = &n->ns[nsid];
        NsRecord *r = &t->ns[nsid - 1];

        r->allocated = ns->allocated;
        r->attached = ns->attached;
        r->zoned = ns->zoned;
        r->kv = ns->kv;
        r->flbas = ns->flbas;
        r->base_sector = ns->base_sector;
        r->sectors = ns->sectors;
        r->bytes = ns->bytes;
        memcpy(r->uuid, ns->uuid, sizeof(r->uuid));
        r->smart = ns->smart;
    }
    table_fields(&f, t);
}

/* ---- Restoring ---- */

/* One record's own fields: flags 0 or 1, nothing attached, zoned or KV when free, not
 * both zoned and KV, no reserved byte set. */
static bool ns_check_flags(const NsRecord *r, uint32_t nsid, char *err, size_t errlen)
{
    static const char *const names[] = { "allocated", "attached", "zoned", "kv" };
    const uint8_t flags[] = { r->allocated, r->attached, r->zoned, r->kv };

    for (unsigned i = 0; i < ARRAY_SIZE(flags); i++) {
        if (flags[i] > 1) {
            return ns_fail(err, errlen, "namespace %u: %s %u (0 or 1)", nsid, names[i],
                           flags[i]);
        }
    }
    if (!r->allocated && (r->attached || r->zoned)) {
        return ns_fail(err, errlen, "namespace %u: attached %u, zoned %u but not "
                       "allocated", nsid, r->attached, r->zoned);
    }
    if (!r->allocated && r->kv) {
        return ns_fail(err, errlen, "namespace %u: kv 1 but not allocated", nsid);
    }
    if (r->zoned && r->kv) {
        return ns_fail(err, errlen, "namespace %u: both zoned and kv", nsid);
    }
    for (unsigned i = 0; i < sizeof(r->reserved); i++) {
        if (r->reserved[i]) {
            return ns_fail(err, errlen, "namespace %u: reserved byte %u is %u (0)", nsid,
                           5 + i, r->reserved[i]);
        }
    }
    return true;
}

/* An allocated record against this device: its extent, format and kind. */
static bool ns_check_fit(FemuCtrl *n, const NsRecord *r, uint32_t nsid, char *err,
                         size_t errlen)
{
    uint64_t spp = n->ftl_config.secs_per_pg, lbafs[FEMU_MAX_LBAF];
    unsigned nlbafs = femu_lbafs(n, lbafs);

    if (r->kv && !n->kv_offered) {
        return ns_fail(err, errlen, "namespace %u: kv 1, and this device offers no Key Value "
                       "command set (kv_ns_mb)", nsid);
    }
    if (r->zoned) {
        if (r->base_sector != n->capacity_sectors || r->sectors != n->zoned_sectors ||
            n->zoned_sectors == 0) {
            return ns_fail(err, errlen, "namespace %u: the zoned namespace does not match "
                           "this device's zones", nsid);
        }
    } else if (r->sectors == 0 || r->base_sector % spp || r->sectors % spp ||
               r->base_sector > n->capacity_sectors ||
               r->sectors > n->capacity_sectors - r->base_sector) {
        return ns_fail(err, errlen, "namespace %u: sectors %" PRIu64 "+%" PRIu64 " do not "
                       "fit this device's %" PRIu64, nsid, r->base_sector, r->sectors,
                       n->capacity_sectors);
    }
    if (r->flbas >= nlbafs || r->bytes > r->sectors * n->secsz || r->bytes < lbafs[r->flbas]) {
        return ns_fail(err, errlen, "namespace %u: LBA format %u and %" PRIu64 " bytes do "
                       "not fit its sectors", nsid, r->flbas, r->bytes);
    }
    return true;
}

/* The allocated namespaces must not overlap; exactly one is zoned when the device has
 * zones. */
static bool ns_check_layout(FemuCtrl *n, const NsTableImage *t, char *err, size_t errlen)
{
    unsigned zoned = 0;

    for (uint32_t a = 0; a < FEMU_MAX_NAMESPACES; a++) {
        const NsRecord *ra = &t->ns[a];

        if (!ra->allocated) {
            continue;
        }
        zoned += ra->zoned;
        for (uint32_t b = a + 1; b < FEMU_MAX_NAMESPACES; b++) {
            const NsRecord *rb = &t->ns[b];

            if (rb->allocated && ra->base_sector < rb->base_sector + rb->sectors &&
                rb->base_sector < ra->base_sector + ra->sectors) {
                return ns_fail(err, errlen, "namespaces %u and %u overlap", a + 1, b + 1);
            }
        }
    }
    if (zoned != (n->zoned_sectors ? 1 : 0)) {
        return ns_fail(err, errlen, "%u zoned namespaces in the table, this device has %u",
                       zoned, n->zoned_sectors ? 1 : 0);
    }
    return true;
}

static bool ns_table_check(FemuCtrl *n, const NsTableImage *t, char *err, size_t errlen)
{
    if (t->nsids != FEMU_MAX_NAMESPACES) {
        return ns_fail(err, errlen, "namespace table of %u NSIDs, this device has %d",
                       t->nsids, FEMU_MAX_NAMESPACES);
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const NsRecord *r = &t->ns[nsid - 1];

        if (!ns_check_flags(r, nsid, err, errlen) ||
            (r->allocated && !ns_check_fit(n, r, nsid, err, errlen))) {
            return false;
        }
    }
    return ns_check_layout(n, t, err, errlen);
}

/*
 * A checked table in place of the one namespaces= (and kv_ns_mb) made. A KV namespace
 * gets an empty value store: section DKVV fills it once the FTL's stores are restored
 * (cmd/admin/ns_kv_state.c checks them against this table). False: out of memory.
 */
static bool ns_table_apply(FemuCtrl *n, const NsTableImage *t)
{
    uint64_t lbafs[FEMU_MAX_LBAF];

    femu_lbafs(n, lbafs);
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const NsRecord *r = &t->ns[nsid - 1];
        FemuNamespace *ns = &n->ns[nsid];

        kv_values_destroy(ns->kv_values);   /* kv_ns_mb's, made at realize */
        memset(ns, 0, sizeof(*ns));     /* a free NSID as realize leaves it */
        if (r->kv) {
            ns->kv = true;
            ns->kv_values = kv_values_create();
            if (!ns->kv_values) {
                return false;
            }
        }
        if (r->allocated) {
            ns->nsid = nsid;
            ns->allocated = true;
            ns->attached = r->attached;
            ns->zoned = r->zoned;
            ns->flbas = r->flbas;
            ns->base_sector = r->base_sector;
            ns->sectors = r->sectors;
            ns->bytes = r->bytes;
            memcpy(ns->uuid, r->uuid, sizeof(ns->uuid));
            ns->smart = r->smart;
            ns->lba_bytes = lbafs[ns->flbas];
            ns->lba_shift = ctz64(ns->lba_bytes / n->secsz);
            ns->nsze = ns->bytes / ns->lba_bytes;
            ns->dmrsl = MIN(n->dmrsl, ns->nsze);
            femu_cmd_set_select(n, ns);     /* the KV command set for a KV one */
        }
        femu_features_ns_reset(n, nsid);
    }
    n->ns_created = t->created;
    n->smart.units_read = t->smart.units_read;      /* power-on time: from this power-on */
    n->smart.units_written = t->smart.units_written;
    n->smart.read_cmds = t->smart.read_cmds;
    n->smart.write_cmds = t->smart.write_cmds;
    n->smart.media_errors = t->smart.media_errors;
    return true;
}

bool femu_ns_table_restore(FemuCtrl *n, struct state_cursor *c, char *err, size_t errlen)
{
    g_autofree NsTableImage *t = g_new0(NsTableImage, 1);
    struct state_fields f = { .get = c };

    if (c->len != NS_TABLE_BYTES) {
        return femu_ns_table_absent(n, err, errlen);
    }
    table_fields(&f, t);
    if (c->overrun || c->pos != c->len) {   /* the size was checked: a layout slip */
        return ns_fail(err, errlen, "%zu bytes read of %zu", c->pos, c->len);
    }
    if (!ns_table_check(n, t, err, errlen)) {
        return false;
    }
    if (!ns_table_apply(n, t)) {
        return ns_fail(err, errlen, "out of memory for the Key Value namespaces' values");
    }
    return true;
}

bool femu_ns_table_absent(FemuCtrl *n, char *err, size_t errlen)
{
    snprintf(err, errlen, "no namespace table (section DNST) of %d bytes", NS_TABLE_BYTES);
    return false;
}
