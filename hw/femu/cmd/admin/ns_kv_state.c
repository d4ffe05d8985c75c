/*
 * The KV namespaces' values in a device state file: section DKVV (store/kv_values_state.h
 * has its layout), and the agreement of the namespace table's KV flags (DNST) with the
 * FTL's stores (KVST).
 *
 * Why a save is consistent: a Store's admission (ftl_kv_admit_store) and its bytes'
 * kv_values_put happen in one call on the poller (cmd/io/kv.c), as do a Delete's, so
 * between two commands the values and admission's record agree key for key. The poller
 * takes the save's instant between commands and then fetches nothing until the file is
 * written; the save serves every FTL request still queued before it writes (the flash
 * record catches up with admission), and this section is written last of the two, from
 * the values as they are, which nothing changes meanwhile. So DKVV, KVST's admission and
 * its flash record all describe the same instant.
 */
#include "qemu/osdep.h"

#include "cmd/admin/ns_kv_state.h"
#include "femu_ftl/ftl.h"
#include "femu_ftl/kv.h"
#include "store/kv_values_state.h"

#define KV_STATE_LIST_BATCH 256     /* keys asked of admission at a time */

/* ---- Sizing ---- */

/* Every value lives in a store's range of the conventional space, and every key takes
 * at least a byte of it: neither is more than the space's bytes. */
uint64_t femu_ns_kv_state_max_bytes(FemuCtrl *n)
{
    uint64_t space = n->capacity_sectors * n->secsz;

    return n->kv_offered ? kv_values_state_bound(FEMU_MAX_NAMESPACES, space, space) : 0;
}

/* ---- Saving ---- */

static void femu_kv_hex(const struct kv_values_key *key, char *out, size_t outlen)
{
    size_t at = 0;

    for (unsigned i = 0; i < key->len && at + 3 <= outlen; i++) {
        at += snprintf(out + at, outlen - at, "%02x", key->bytes[i]);
    }
    out[at] = '\0';
}

/* One key (admission's) with its bytes; -1 when the values do not hold it as admitted. */
static int femu_kv_save_key(FemuCtrl *n, FemuNamespace *ns, struct state_writer *w,
                            const struct ftl_kv_key *fk, char *err, size_t errlen)
{
    struct kv_values_key key = { .len = fk->len };
    uint8_t head[KV_VALUES_STATE_KEY_MAX];
    uint32_t size = 0, held = 0;
    uint64_t tag;
    const uint8_t *bytes;
    char hex[2 * KV_VALUES_KEY_MAX + 1];

    memcpy(key.bytes, fk->bytes, sizeof(key.bytes));
    bytes = kv_values_get(ns->kv_values, &key, &held);
    if (ftl_kv_admit_retrieve(n->ftl, ns->nsid, fk, &size, &tag) != FTL_OK || !bytes ||
        held != size) {
        femu_kv_hex(&key, hex, sizeof(hex));
        snprintf(err, errlen, "section DKVV: namespace %u: key %s: the values and the FTL's "
                 "admission record disagree", ns->nsid, hex);
        return -1;
    }
    if (state_writer_append(w, head, kv_values_state_key(head, &key, held)) != 0 ||
        state_writer_append(w, bytes, held) != 0) {
        return -1;      /* the writer says why */
    }
    return 0;
}

/* A namespace's keys in List's order, straight from admission's record. */
static int femu_kv_save_ns(FemuCtrl *n, FemuNamespace *ns, struct state_writer *w,
                           char *err, size_t errlen)
{
    g_autofree struct ftl_kv_key *keys = g_new(struct ftl_kv_key, KV_STATE_LIST_BATCH + 1);
    struct ftl_kv_key start = { .len = 1 };     /* the smallest key there is */
    uint8_t head[KV_VALUES_STATE_NS];
    struct ftl_kv_info info;
    uint64_t written = 0;
    uint32_t got;
    bool first = true;

    if (!ftl_kv_info(n->ftl, ns->nsid, &info) ||
        kv_values_count(ns->kv_values) != info.keys) {
        snprintf(err, errlen, "section DKVV: namespace %u: %" PRIu64 " values, the FTL's "
                 "store has %" PRIu64 " keys", ns->nsid, kv_values_count(ns->kv_values),
                 info.keys);
        return -1;
    }
    if (state_writer_append(w, head, kv_values_state_ns(head, ns->nsid, info.keys)) != 0) {
        return -1;
    }
    do {
        if (ftl_kv_admit_list(n->ftl, ns->nsid, &start, keys, KV_STATE_LIST_BATCH + 1,
                              &got) != FTL_OK) {
            snprintf(err, errlen, "section DKVV: namespace %u: no key list", ns->nsid);
            return -1;
        }
        /* after the first batch the start key is the last one written: skip it */
        for (uint32_t i = first ? 0 : 1; i < got; i++) {
            if (femu_kv_save_key(n, ns, w, &keys[i], err, errlen) != 0) {
                return -1;
            }
            written++;
        }
        first = false;
        start = got ? keys[got - 1] : start;
    } while (got == KV_STATE_LIST_BATCH + 1);
    if (written != info.keys) {
        snprintf(err, errlen, "section DKVV: namespace %u: %" PRIu64 " keys listed, the "
                 "store has %" PRIu64, ns->nsid, written, info.keys);
        return -1;
    }
    return 0;
}

/*
 * Admission's keys and bytes against the flash record's (the gauges): they differ only
 * when flash work was admitted but never served, i.e. at exit or unplug with KV commands
 * in flight (the FTL thread stops without serving its queue). Such a file would be
 * refused at state_in, so the save is refused now.
 */
static bool femu_kv_flash_caught_up(FemuCtrl *n, char *err, size_t errlen)
{
    uint64_t keys = 0, bytes = 0;
    struct ftl_gauges g;

    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        struct ftl_kv_info info;

        if (n->ns[nsid].kv && ftl_kv_info(n->ftl, nsid, &info)) {
            keys += info.keys;
            bytes += info.used_bytes;
        }
    }
    ftl_get_gauges(n->ftl, &g);
    if (keys != g.kv_keys || bytes != g.kv_live_bytes) {
        snprintf(err, errlen, "section DKVV: %" PRIu64 " keys of %" PRIu64 " bytes admitted, "
                 "%" PRIu64 " of %" PRIu64 " in the FTL's flash record (KV commands were "
                 "in flight when the device stopped)", keys, bytes, g.kv_keys,
                 g.kv_live_bytes);
        return false;
    }
    return true;
}

int femu_ns_kv_state_write(FemuCtrl *n, struct state_writer *w, char *err, size_t errlen)
{
    uint8_t head[KV_VALUES_STATE_HEAD];
    uint32_t count = 0;

    if (!femu_kv_flash_caught_up(n, err, errlen)) {
        return -1;
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        count += n->ns[nsid].kv;
    }
    if (state_writer_append(w, head, kv_values_state_head(head, count)) != 0) {
        return -1;
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (n->ns[nsid].kv && femu_kv_save_ns(n, &n->ns[nsid], w, err, errlen) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ---- Restoring ---- */

/* The restored table's KV namespaces and the restored FTL's stores: one for one, over the
 * same sectors. */
static bool femu_kv_check_stores(FemuCtrl *n, char *err, size_t errlen)
{
    uint32_t kv_namespaces = 0, stores = ftl_kv_store_count(n->ftl);

    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = &n->ns[nsid];
        struct ftl_kv_info info;
        bool has = ftl_kv_info(n->ftl, nsid, &info);

        if (ns->kv && !has) {
            snprintf(err, errlen, "section DNST: namespace %u is a Key Value namespace, "
                     "section KVST has no store of NSID %u", nsid, nsid);
            return false;
        }
        if (!ns->kv && has) {
            snprintf(err, errlen, "section KVST: a store of NSID %u, which section DNST "
                     "does not make a Key Value namespace", nsid);
            return false;
        }
        if (has && (info.base_sector != ns->base_sector || info.sectors != ns->sectors)) {
            snprintf(err, errlen, "section KVST: the store of NSID %u covers sectors %"
                     PRIu64 "+%" PRIu64 ", its namespace in section DNST %" PRIu64 "+%"
                     PRIu64, nsid, info.base_sector, info.sectors, ns->base_sector,
                     ns->sectors);
            return false;
        }
        kv_namespaces += ns->kv;
    }
    if (stores != kv_namespaces) {
        snprintf(err, errlen, "section KVST: %u stores, section DNST has %u Key Value "
                 "namespaces", stores, kv_namespaces);
        return false;
    }
    return true;
}

typedef struct FemuKvLoad {
    FemuCtrl *n;
    struct state_reader *r;
    uint32_t seen[FEMU_MAX_NAMESPACES + 1];     /* by NSID: its entry was read */
} FemuKvLoad;

static int femu_kv_load_read(void *opaque, void *buf, size_t len, char *err, size_t errlen)
{
    FemuKvLoad *l = opaque;

    return state_reader_read(l->r, buf, len, err, errlen);
}

static struct kv_values *femu_kv_load_ns(void *opaque, uint32_t nsid, uint64_t keys,
                                         uint32_t *max_value, char *err, size_t errlen)
{
    FemuKvLoad *l = opaque;
    FemuNamespace *ns = nsid <= FEMU_MAX_NAMESPACES ? &l->n->ns[nsid] : NULL;
    struct ftl_kv_info info;

    if (!ns || !ns->kv || !ftl_kv_info(l->n->ftl, nsid, &info)) {
        snprintf(err, errlen, "namespace %u is not a Key Value namespace of section DNST",
                 nsid);
        return NULL;
    }
    if (keys != info.keys) {
        snprintf(err, errlen, "namespace %u: %" PRIu64 " keys, the FTL's store (section "
                 "KVST) has %" PRIu64, nsid, keys, info.keys);
        return NULL;
    }
    l->seen[nsid] = 1;
    *max_value = info.max_value_bytes;
    return ns->kv_values;
}

/* The key as admission recorded it: there, of the same size, with the tag of its bytes. */
static bool femu_kv_load_key(void *opaque, uint32_t nsid, const struct kv_values_key *key,
                             const uint8_t *bytes, uint32_t len, char *err, size_t errlen)
{
    FemuKvLoad *l = opaque;
    struct ftl_kv_key fk = { .len = key->len };
    uint32_t size = 0;
    uint64_t tag = 0;
    char hex[2 * KV_VALUES_KEY_MAX + 1];
    const char *why = NULL;

    memcpy(fk.bytes, key->bytes, sizeof(fk.bytes));
    if (ftl_kv_admit_retrieve(l->n->ftl, nsid, &fk, &size, &tag) != FTL_OK) {
        why = "is not in the FTL's store (section KVST)";
    } else if (size != len) {
        why = "has another size in the FTL's store (section KVST)";
    } else if (kv_values_tag(bytes, len) != tag) {
        why = "has bytes whose tag is not the one the FTL's store (section KVST) holds";
    }
    if (why) {
        femu_kv_hex(key, hex, sizeof(hex));
        snprintf(err, errlen, "namespace %u: key %s (a value of %u bytes) %s", nsid, hex,
                 len, why);
        return false;
    }
    return true;
}

static bool femu_kv_load_ns_end(void *opaque, uint32_t nsid, const struct kv_values *kv,
                                char *err, size_t errlen)
{
    FemuKvLoad *l = opaque;
    struct ftl_kv_info info;

    /* each key was admission's, none twice, as many as it has: the same set */
    ftl_kv_info(l->n->ftl, nsid, &info);
    if (kv_values_count(kv) != info.keys || kv_values_bytes(kv) != info.used_bytes) {
        snprintf(err, errlen, "namespace %u: %" PRIu64 " keys of %" PRIu64 " bytes, the "
                 "FTL's store %" PRIu64 " of %" PRIu64, nsid, kv_values_count(kv),
                 kv_values_bytes(kv), info.keys, info.used_bytes);
        return false;
    }
    return true;
}

bool femu_ns_kv_state_load(FemuCtrl *n, struct state_reader *r, uint64_t len, char *err,
                           size_t errlen)
{
    g_autofree FemuKvLoad *l = g_new0(FemuKvLoad, 1);
    const struct kv_values_state_load ld = {
        .read = femu_kv_load_read, .ns_begin = femu_kv_load_ns, .key = femu_kv_load_key,
        .ns_end = femu_kv_load_ns_end, .opaque = l,
    };
    const char *path = state_reader_path(r);
    g_autofree char *why = g_malloc0(errlen);

    l->n = n;
    l->r = r;
    if (!femu_kv_check_stores(n, err, errlen)) {
        return false;
    }
    if (kv_values_state_read(&ld, len, why, errlen) != 0) {
        /* the reader's own failures name the file already */
        if (strncmp(why, path, strlen(path)) == 0) {
            snprintf(err, errlen, "%s", why);
        } else {
            snprintf(err, errlen, "section DKVV: %s", why);
        }
        return false;
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (n->ns[nsid].kv && !l->seen[nsid]) {
            snprintf(err, errlen, "section DKVV: no values for namespace %u, a Key Value "
                     "namespace of section DNST", nsid);
            return false;
        }
    }
    return true;
}

/* A file without DKVV (written before it existed): no KV namespace to fill. */
bool femu_ns_kv_state_absent(FemuCtrl *n, char *err, size_t errlen)
{
    if (!femu_kv_check_stores(n, err, errlen)) {
        return false;
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (n->ns[nsid].kv) {
            snprintf(err, errlen, "namespace %u is a Key Value namespace and the file has "
                     "no section DKVV (its values)", nsid);
            return false;
        }
    }
    return true;
}

/* A state without the device's sections (ftl-sim's) holds no value bytes: a KV store in
 * it, or a KV namespace here (kv_ns_mb's), could only answer with values it lacks. */
bool femu_ns_kv_state_ftl_only(FemuCtrl *n, char *err, size_t errlen)
{
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (n->ns[nsid].kv) {
            snprintf(err, errlen, "namespace %u (kv_ns_mb) is a Key Value namespace and a "
                     "state without the device's sections (data=absent) holds no values",
                     nsid);
            return false;
        }
    }
    if (ftl_kv_store_count(n->ftl)) {
        snprintf(err, errlen, "section KVST holds %u key-value stores, whose values a state "
                 "without the device's sections (data=absent) does not hold",
                 ftl_kv_store_count(n->ftl));
        return false;
    }
    return true;
}
