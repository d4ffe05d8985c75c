/* FDP's section DFDP (cmd/fdp/fdp_state.h has its layout). */
#include "qemu/osdep.h"
#include "qemu/bswap.h"

#include "cmd/fdp/fdp.h"
#include "backend/fdp_events.h"
#include "cmd/fdp/fdp_features.h"
#include "cmd/fdp/fdp_state.h"
#include "femu_ftl/ftl.h"
#include "state_field.h"

#define FDP_STATE_VERSION   1
#define FDP_HEAD_BYTES      48      /* version .. the statistics' origin */
#define FDP_BASES           4

typedef struct FdpList {
    uint8_t nphndls, chosen;
    uint8_t ruh[FEMU_FDP_MAX_RUHS];     /* NRUH stored, 0 past the list */
} FdpList;

/* DFDP as stored. */
typedef struct FdpImage {
    uint32_t version, ruhs, nsids;
    uint8_t fdpe, fdpcidx, saved_fdpe, saved_fdpcidx;
    uint64_t base[FDP_BASES];           /* host bytes, Copy pages, media pages, erases */
    uint32_t saved_enables[FEMU_FDP_MAX_RUHS];
    FdpList list[FEMU_MAX_NAMESPACES];  /* NSID i + 1 */
    uint32_t events;                    /* NUMFDPE */
    uint8_t record[FEMU_FDP_MAX_EVENTS][FEMU_FDP_EVENT_BYTES];
} FdpImage;

static const char *const fdp_base_names[FDP_BASES] = {
    "host bytes", "Copy pages", "media pages", "erased blocks",
};

static bool G_GNUC_PRINTF(3, 4) fdp_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    int len = snprintf(err, errlen, "section DFDP: ");

    va_start(ap, fmt);
    vsnprintf(err + len, errlen - len, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- The layout, once for both directions ---- */

static void fdp_head_fields(struct state_fields *f, FdpImage *d)
{
    state_field_u32(f, &d->version);
    state_field_u32(f, &d->ruhs);
    state_field_u32(f, &d->nsids);
    state_field_u8(f, &d->fdpe);
    state_field_u8(f, &d->fdpcidx);
    state_field_u8(f, &d->saved_fdpe);
    state_field_u8(f, &d->saved_fdpcidx);
    for (unsigned i = 0; i < FDP_BASES; i++) {
        state_field_u64(f, &d->base[i]);
    }
}

/* After the head: d->ruhs (at most FEMU_FDP_MAX_RUHS) says how much. */
static void fdp_lists_fields(struct state_fields *f, FdpImage *d)
{
    for (uint32_t ruh = 0; ruh < d->ruhs; ruh++) {
        state_field_u32(f, &d->saved_enables[ruh]);
    }
    for (unsigned i = 0; i < FEMU_MAX_NAMESPACES; i++) {
        state_field_u8(f, &d->list[i].nphndls);
        state_field_u8(f, &d->list[i].chosen);
        state_field_bytes(f, d->list[i].ruh, d->ruhs);
    }
}

/* After the lists: NUMFDPE, then that many records (at most FEMU_FDP_MAX_EVENTS). */
static void fdp_count_field(struct state_fields *f, FdpImage *d)
{
    state_field_u32(f, &d->events);
}

static void fdp_records_fields(struct state_fields *f, FdpImage *d)
{
    for (uint32_t i = 0; i < d->events && i < FEMU_FDP_MAX_EVENTS; i++) {
        state_field_bytes(f, d->record[i], FEMU_FDP_EVENT_BYTES);
    }
}

static uint64_t fdp_head_bytes(uint32_t ruhs)    /* up to the events */
{
    return FDP_HEAD_BYTES + 4 * ruhs + FEMU_MAX_NAMESPACES * (2 + ruhs);
}

/* ---- Saving ---- */

uint64_t femu_fdp_state_max_bytes(FemuCtrl *n)
{
    if (!n->fdp.supported) {
        return 0;
    }
    return fdp_head_bytes(n->fdp.ruhs) + 4 + FEMU_FDP_MAX_EVENTS * FEMU_FDP_EVENT_BYTES;
}

void femu_fdp_state_encode(FemuCtrl *n, struct state_buf *b)
{
    const FemuFdp *fdp = &n->fdp;
    g_autofree FdpImage *d = g_new0(FdpImage, 1);
    struct state_fields f = { .put = b };

    d->version = FDP_STATE_VERSION;
    d->ruhs = fdp->ruhs;
    d->nsids = FEMU_MAX_NAMESPACES;
    d->fdpe = fdp->enabled;
    d->saved_fdpe = fdp->saved_enabled;         /* FDPCIDX 0 both: one configuration */
    d->base[0] = fdp->base_host_bytes;
    d->base[1] = fdp->base_copy_pages;
    d->base[2] = fdp->base_programs;
    d->base[3] = fdp->base_erases;
    memcpy(d->saved_enables, fdp->saved_event_enable, sizeof(d->saved_enables));
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = &n->ns[nsid];
        FdpList *list = &d->list[nsid - 1];

        if (femu_fdp_in_group(ns)) {    /* a deleted namespace's list is left behind */
            list->nphndls = ns->nphndls;
            list->chosen = ns->phndl_chosen;
            memcpy(list->ruh, ns->phndl_ruh, ns->nphndls);
        }
    }
    fdp_head_fields(&f, d);
    fdp_lists_fields(&f, d);
}

void femu_fdp_state_encode_events(FemuCtrl *n, struct state_buf *b)
{
    g_autofree uint8_t *log = g_malloc(FEMU_FDP_EVENTS_LOG_BYTES);
    g_autofree FdpImage *d = g_new0(FdpImage, 1);
    struct state_fields f = { .put = b };

    femu_fdp_events_log(n, true, log);
    d->events = MIN(ldl_le_p(log), FEMU_FDP_MAX_EVENTS);     /* log 23h's NUMFDPE */
    memcpy(d->record, log + FEMU_FDP_EVENT_BYTES, d->events * FEMU_FDP_EVENT_BYTES);
    fdp_count_field(&f, d);
    fdp_records_fields(&f, d);
}

/* ---- Restoring ---- */

/* Decoded in three steps, each sized by a field the step before checked. */
static bool fdp_decode(FemuCtrl *n, struct state_cursor *c, FdpImage *d, char *err,
                       size_t errlen)
{
    struct state_fields f = { .get = c };
    uint64_t head;

    fdp_head_fields(&f, d);
    if (c->overrun || d->version != FDP_STATE_VERSION) {
        return fdp_fail(err, errlen, "%s", c->overrun ? "shorter than its header" :
                        "not version 1");
    }
    if (d->ruhs != n->fdp.ruhs || d->nsids != FEMU_MAX_NAMESPACES) {
        return fdp_fail(err, errlen, "NRUH %u and %u NSIDs, this device has %u and %d",
                        d->ruhs, d->nsids, n->fdp.ruhs, FEMU_MAX_NAMESPACES);
    }
    head = fdp_head_bytes(d->ruhs);
    fdp_lists_fields(&f, d);
    fdp_count_field(&f, d);
    if (c->overrun || d->events > FEMU_FDP_MAX_EVENTS ||
        c->len != head + 4 + (uint64_t)d->events * FEMU_FDP_EVENT_BYTES) {
        return fdp_fail(err, errlen, "%zu bytes with NUMFDPE %u (at most %d events of %d "
                        "bytes after %" PRIu64 ")", c->len, d->events,
                        FEMU_FDP_MAX_EVENTS, FEMU_FDP_EVENT_BYTES, head + 4);
    }
    fdp_records_fields(&f, d);
    return !c->overrun && c->pos == c->len ? true :
           fdp_fail(err, errlen, "%zu bytes read of %zu", c->pos, c->len);
}

/* The features and the statistics' origin: FDPE 0 or 1, FDPCIDX 0, the origin not past
 * the FTL's restored counters, saved enables of types 00h-03h. */
static bool fdp_check_features(FemuCtrl *n, const FdpImage *d, char *err, size_t errlen)
{
    struct ftl_counters ctr;
    uint64_t counters[FDP_BASES];

    if (d->fdpe > 1 || d->saved_fdpe > 1 || d->fdpcidx || d->saved_fdpcidx) {
        return fdp_fail(err, errlen, "feature 1Dh FDPE %u FDPCIDX %u, saved FDPE %u "
                        "FDPCIDX %u (FDPE 0 or 1, one configuration)", d->fdpe, d->fdpcidx,
                        d->saved_fdpe, d->saved_fdpcidx);
    }
    ftl_get_counters(n->ftl, &ctr);
    counters[0] = ctr.host_write_bytes;
    counters[1] = ctr.copy_pages;
    counters[2] = femu_fdp_media_pages(&ctr);
    counters[3] = ctr.nand_erases;
    for (unsigned i = 0; i < FDP_BASES; i++) {
        if (d->base[i] > counters[i]) {
            return fdp_fail(err, errlen, "the statistics count %s from %" PRIu64 ", the FTL "
                            "has %" PRIu64, fdp_base_names[i], d->base[i], counters[i]);
        }
    }
    for (uint32_t ruh = 0; ruh < d->ruhs; ruh++) {
        if (d->saved_enables[ruh] >> FEMU_FDP_EVT_TYPES) {
            return fdp_fail(err, errlen, "saved event enables %#x of RUH %u (types 00h-03h "
                            "only)", d->saved_enables[ruh], ruh);
        }
    }
    return true;
}

/* One NSID's placement handle list against the restored namespace and FDP's state;
 * *chosen_ruh gathers the controller's choice. */
static bool fdp_check_list(FemuCtrl *n, const FdpImage *d, uint32_t nsid, int *chosen_ruh,
                           char *err, size_t errlen)
{
    const FdpList *l = &d->list[nsid - 1];
    bool want = femu_fdp_in_group(&n->ns[nsid]) && d->fdpe;
    uint32_t seen = 0;

    if (l->chosen > 1 || (l->chosen && l->nphndls != 1)) {
        return fdp_fail(err, errlen, "namespace %u: chosen %u with %u placement handles "
                        "(the controller chooses one)", nsid, l->chosen, l->nphndls);
    }
    if (l->nphndls > d->ruhs) {
        return fdp_fail(err, errlen, "namespace %u: %u placement handles, NRUH is %u", nsid,
                        l->nphndls, d->ruhs);
    }
    if (want ? l->nphndls == 0 : l->nphndls != 0) {
        return fdp_fail(err, errlen, "namespace %u: %u placement handles, want %s", nsid,
                        l->nphndls, want ?
                        "at least one (a namespace of the endurance group, FDP on)" :
                        "none (no namespace of the endurance group, or FDP off)");
    }
    for (uint32_t i = 0; i < d->ruhs; i++) {
        uint8_t ruh = l->ruh[i];

        if (i >= l->nphndls ? ruh != 0 : ruh >= d->ruhs || (seen >> ruh & 1)) {
            return fdp_fail(err, errlen, "namespace %u: placement handle %u names RUH %u "
                            "(NRUH %u, each once, 0 past the list)", nsid, i, ruh, d->ruhs);
        }
        seen |= i < l->nphndls ? 1u << ruh : 0;
    }
    if (l->chosen && *chosen_ruh >= 0 && *chosen_ruh != l->ruh[0]) {
        return fdp_fail(err, errlen, "namespace %u: the controller's handle RUH %u, another "
                        "namespace's is RUH %d (one for all)", nsid, l->ruh[0], *chosen_ruh);
    }
    if (l->chosen) {
        *chosen_ruh = l->ruh[0];
    }
    return true;
}

/* The lists as Namespace Management makes them (the controller's one handle shared by
 * every namespace it chose for and listed by no other); events femu could have recorded,
 * none with FDP off. */
static bool fdp_check_lists_events(FemuCtrl *n, const FdpImage *d, char *err, size_t errlen)
{
    int chosen_ruh = -1;

    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (!fdp_check_list(n, d, nsid, &chosen_ruh, err, errlen)) {
            return false;
        }
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FdpList *l = &d->list[nsid - 1];

        if (chosen_ruh >= 0 && !l->chosen && memchr(l->ruh, chosen_ruh, l->nphndls)) {
            return fdp_fail(err, errlen, "namespace %u lists RUH %d, the controller's "
                            "choice for others", nsid, chosen_ruh);
        }
    }
    if (d->events && !d->fdpe) {
        return fdp_fail(err, errlen, "%u events with FDP off", d->events);
    }
    for (uint32_t i = 0; i < d->events; i++) {
        const char *why = femu_fdp_event_check(n, d->record[i]);

        if (why) {
            return fdp_fail(err, errlen, "event %u: %s", i, why);
        }
    }
    return true;
}

/* Checked: in place (the saved features take effect once the FTL's view is out). */
static void fdp_apply(FemuCtrl *n, const FdpImage *d)
{
    FemuFdp *fdp = &n->fdp;

    fdp->enabled = d->fdpe;
    fdp->saved_enabled = d->saved_fdpe;
    fdp->base_host_bytes = d->base[0];
    fdp->base_copy_pages = d->base[1];
    fdp->base_programs = d->base[2];
    fdp->base_erases = d->base[3];
    memcpy(fdp->saved_event_enable, d->saved_enables, 4 * d->ruhs);
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FdpList *l = &d->list[nsid - 1];
        FemuFdpHandles list = { .nphndls = l->nphndls, .chosen = l->chosen };

        memcpy(list.ruh, l->ruh, l->nphndls);
        femu_fdp_ns_apply(&n->ns[nsid], &list);
    }
    femu_fdp_events_restore(n, &d->record[0][0], d->events);
}

bool femu_fdp_state_restore(FemuCtrl *n, struct state_cursor *c, char *err, size_t errlen)
{
    g_autofree FdpImage *d = g_new0(FdpImage, 1);

    if (!fdp_decode(n, c, d, err, errlen) || !fdp_check_features(n, d, err, errlen) ||
        !fdp_check_lists_events(n, d, err, errlen)) {
        return false;
    }
    fdp_apply(n, d);
    return true;
}

bool femu_fdp_state_absent(FemuCtrl *n, char *err, size_t errlen)
{
    femu_fdp_handles_every(n);
    return true;
}

void femu_fdp_state_loaded(FemuCtrl *n)
{
    femu_fdp_features_load_saved(n);
}
