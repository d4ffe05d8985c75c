/*
 * FDP events: the enable mask of each reclaim unit handle (feature 1Eh), the list of host
 * events and log page 23h.
 *
 * femu raises host events only (NVMe 2.1 FDP event types 00h-03h): Reclaim Unit Not
 * Fully Written and Reclaim Unit Time Limit Exceeded come from the FTL (femu_ftl/fdp.h,
 * taken by backend/fdp_ftl.c on the FTL thread), Controller Level Reset Modified Reclaim
 * Unit Handles from a controller reset's update of every handle, and Invalid Placement
 * Identifier from a write (cmd/fdp/fdp.c). It has no grown defects and moves no data behind
 * the host's back outside GC, so it raises no controller event (Media Reallocated,
 * Implicitly Modified Reclaim Unit Handle) and the controller events list stays empty.
 *
 * An event is recorded only when its type is enabled, when it happens, on the handle it
 * is about. The list keeps the 63 latest (the log page's room), oldest first; when full
 * the oldest goes. State files keep the list (cmd/fdp/fdp_state.c, checked here on restore)
 * and the saved enables; the current enables are what a reset or a power-on makes them.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/cutils.h"

#include "backend/fdp_events.h"

#define FEMU_FDP_EVENT_PIV      (1u << 0)   /* PID valid */
#define FEMU_FDP_EVENT_NSIDV    (1u << 1)   /* NSID valid */
#define FEMU_FDP_EVENT_LV       (1u << 2)   /* location (RGID, RUHID) valid */
#define FEMU_TIMESTAMP_MS_MASK  ((UINT64_C(1) << 48) - 1)

/* The FDP Event data structure (NVMe 2.1, log page 23h), little endian. */
typedef struct QEMU_PACKED FemuFdpEvent {
    uint8_t type;
    uint8_t flags;
    uint16_t pid;
    /* Timestamp: bytes 5:0 milliseconds; byte 6 attributes, origin 000b (counted from
     * the last controller level reset, never set by the host: no Timestamp feature) */
    uint64_t timestamp;
    uint32_t nsid;
    uint8_t type_specific[16];
    uint16_t rgid;
    uint8_t ruhid;
    uint8_t reserved35[5];
    /* vendor specific: femu puts the RU closed (FFFFFFFFh: none) and its unwritten
     * pages here */
    uint64_t vs_unwritten_pages;
    uint32_t vs_ru;
    uint8_t vs_reserved[12];
} FemuFdpEvent;

/* The log page's header: Number of FDP Events, then reserved to 64 bytes. */
typedef struct QEMU_PACKED FemuFdpEventsHeader {
    uint32_t nfdpe;
    uint8_t reserved4[60];
} FemuFdpEventsHeader;

QEMU_BUILD_BUG_ON(sizeof(FemuFdpEvent) != FEMU_FDP_EVENT_BYTES);
QEMU_BUILD_BUG_ON(offsetof(FemuFdpEvent, nsid) != 12);
QEMU_BUILD_BUG_ON(offsetof(FemuFdpEvent, rgid) != 32);
QEMU_BUILD_BUG_ON(offsetof(FemuFdpEvent, ruhid) != 34);
QEMU_BUILD_BUG_ON(offsetof(FemuFdpEvent, vs_unwritten_pages) != 40);
QEMU_BUILD_BUG_ON(sizeof(FemuFdpEventsHeader) != FEMU_FDP_EVENT_BYTES);

void femu_fdp_events_init(FemuCtrl *n)
{
    qemu_mutex_init(&n->fdp.lock);
    n->fdp.lock_init = true;
    femu_fdp_events_reset_clock(n);
}

void femu_fdp_events_destroy(FemuCtrl *n)
{
    if (n->fdp.lock_init) {
        qemu_mutex_destroy(&n->fdp.lock);
        n->fdp.lock_init = false;
    }
}

bool femu_fdp_event_supported(uint8_t type)
{
    return type < FEMU_FDP_EVT_TYPES;
}

bool femu_fdp_event_enabled(FemuCtrl *n, uint32_t ruh, uint8_t type)
{
    return ruh < FEMU_FDP_MAX_RUHS && femu_fdp_event_supported(type) &&
           (qatomic_read(&n->fdp.event_enable[ruh]) >> type & 1);
}

void femu_fdp_event_enable(FemuCtrl *n, uint32_t ruh, uint8_t type, bool enable)
{
    uint32_t mask = qatomic_read(&n->fdp.event_enable[ruh]);

    mask = enable ? mask | 1u << type : mask & ~(1u << type);
    qatomic_set(&n->fdp.event_enable[ruh], mask);
}

void femu_fdp_event_enables_set(FemuCtrl *n, uint32_t ruh, uint32_t mask)
{
    qatomic_set(&n->fdp.event_enable[ruh], mask);
}

uint32_t femu_fdp_event_handles(FemuCtrl *n, uint8_t type)
{
    uint32_t handles = 0;

    for (uint32_t ruh = 0; ruh < n->fdp.ruhs; ruh++) {
        handles |= (uint32_t)femu_fdp_event_enabled(n, ruh, type) << ruh;
    }
    return handles;
}

void femu_fdp_events_disable_all(FemuCtrl *n)
{
    for (unsigned ruh = 0; ruh < FEMU_FDP_MAX_RUHS; ruh++) {
        qatomic_set(&n->fdp.event_enable[ruh], 0);
    }
}

void femu_fdp_events_reset_clock(FemuCtrl *n)
{
    qatomic_set(&n->fdp.clock_base_ns, femu_now_ns());
}

static void femu_fdp_event_build(FemuCtrl *n, const FemuFdpEventInfo *ev, FemuFdpEvent *e)
{
    uint64_t base = qatomic_read(&n->fdp.clock_base_ns);
    uint64_t ms = ev->time_ns > base ? (ev->time_ns - base) / SCALE_MS : 0;

    memset(e, 0, sizeof(*e));
    e->type = ev->type;
    e->flags = FEMU_FDP_EVENT_LV;
    if (ev->pid_valid) {
        e->flags |= FEMU_FDP_EVENT_PIV;
        e->pid = cpu_to_le16(ev->pid);
    }
    if (ev->nsid) {
        e->flags |= FEMU_FDP_EVENT_NSIDV;
        e->nsid = cpu_to_le32(ev->nsid);
    }
    e->timestamp = cpu_to_le64(ms & FEMU_TIMESTAMP_MS_MASK);
    e->rgid = 0;
    e->ruhid = ev->ruh;
    e->vs_ru = cpu_to_le32(ev->ru);
    e->vs_unwritten_pages = cpu_to_le64(ev->unwritten_pages);
}

/* Append one record (list lock held); when full the oldest goes. */
static void femu_fdp_event_append(FemuFdpEventList *list, const void *record)
{
    unsigned at;

    if (list->count == FEMU_FDP_MAX_EVENTS) {
        list->first = (list->first + 1) % FEMU_FDP_MAX_EVENTS;
        list->count--;
    }
    at = (list->first + list->count) % FEMU_FDP_MAX_EVENTS;
    memcpy(list->records[at], record, FEMU_FDP_EVENT_BYTES);
    list->count++;
}

void femu_fdp_event_put(FemuCtrl *n, const FemuFdpEventInfo *ev)
{
    FemuFdpEvent record;

    femu_fdp_event_build(n, ev, &record);
    qemu_mutex_lock(&n->fdp.lock);
    femu_fdp_event_append(&n->fdp.host_events, &record);
    qemu_mutex_unlock(&n->fdp.lock);
}

void femu_fdp_event_add(FemuCtrl *n, const FemuFdpEventInfo *ev)
{
    if (femu_fdp_event_enabled(n, ev->ruh, ev->type)) {
        femu_fdp_event_put(n, ev);
    }
}

void femu_fdp_events_clear(FemuCtrl *n)
{
    qemu_mutex_lock(&n->fdp.lock);
    n->fdp.host_events.first = n->fdp.host_events.count = 0;
    qemu_mutex_unlock(&n->fdp.lock);
}

void femu_fdp_events_log(FemuCtrl *n, bool host, uint8_t *buf)
{
    FemuFdpEventsHeader *header = (FemuFdpEventsHeader *)buf;
    const FemuFdpEventList *list = &n->fdp.host_events;
    unsigned count = 0;

    memset(buf, 0, FEMU_FDP_EVENTS_LOG_BYTES);
    if (host) {         /* controller events: none, ever */
        qemu_mutex_lock(&n->fdp.lock);
        count = list->count;
        for (unsigned i = 0; i < count; i++) {
            memcpy(buf + FEMU_FDP_EVENT_BYTES * (i + 1),
                   list->records[(list->first + i) % FEMU_FDP_MAX_EVENTS],
                   FEMU_FDP_EVENT_BYTES);
        }
        qemu_mutex_unlock(&n->fdp.lock);
    }
    header->nfdpe = cpu_to_le32(count);
}

/*
 * A record as femu writes one (femu_fdp_event_build): a type femu raises; LV always, PIV
 * and NSIDV only, with the PID and NSID 0 when not valid and an NSID femu has when valid
 * (a Controller Level Reset event has neither); the handle one of this configuration's,
 * reclaim group 0; the timestamp's attributes, the type specific and reserved bytes 0;
 * the vendor specific RU and its unwritten pages: none for an Invalid Placement
 * Identifier; for an RU closed early, an RU, and at least one page but fewer than it has.
 */
const char *femu_fdp_event_check(FemuCtrl *n, const uint8_t *record)
{
    FemuFdpEvent e;
    uint64_t ru_pages = n->fdp.ru_bytes / n->geometry.page_bytes, unwritten;
    uint32_t nsid;
    uint16_t pid;

    memcpy(&e, record, sizeof(e));
    nsid = le32_to_cpu(e.nsid);
    pid = le16_to_cpu(e.pid);
    if (!femu_fdp_event_supported(e.type)) {
        return "an event type femu does not raise";
    }
    if (!(e.flags & FEMU_FDP_EVENT_LV) ||
        e.flags & ~(FEMU_FDP_EVENT_PIV | FEMU_FDP_EVENT_NSIDV | FEMU_FDP_EVENT_LV) ||
        (e.type == FEMU_FDP_EVT_CTRL_RESET && e.flags != FEMU_FDP_EVENT_LV) ||
        (e.type == FEMU_FDP_EVT_INVALID_PID &&
         e.flags != (FEMU_FDP_EVENT_PIV | FEMU_FDP_EVENT_NSIDV | FEMU_FDP_EVENT_LV))) {
        return "its flags (FDPEF)";
    }
    if ((!(e.flags & FEMU_FDP_EVENT_PIV) && pid) ||
        (!(e.flags & FEMU_FDP_EVENT_NSIDV) && nsid) ||
        ((e.flags & FEMU_FDP_EVENT_NSIDV) && (nsid == 0 || nsid > FEMU_MAX_NAMESPACES))) {
        return "its PID or NSID against its flags";
    }
    if (le64_to_cpu(e.timestamp) & ~FEMU_TIMESTAMP_MS_MASK) {
        return "its timestamp attributes";
    }
    if (e.rgid || e.ruhid >= n->fdp.ruhs) {
        return "its reclaim group or unit handle (RGID, RUHID)";
    }
    if (!buffer_is_zero(e.type_specific, sizeof(e.type_specific)) ||
        !buffer_is_zero(e.reserved35, sizeof(e.reserved35)) ||
        !buffer_is_zero(e.vs_reserved, sizeof(e.vs_reserved))) {
        return "type specific or reserved bytes not 0";
    }
    unwritten = le64_to_cpu(e.vs_unwritten_pages);
    if (e.type == FEMU_FDP_EVT_INVALID_PID ?
        le32_to_cpu(e.vs_ru) != UINT32_MAX || unwritten :
        le32_to_cpu(e.vs_ru) == UINT32_MAX || unwritten == 0 || unwritten >= ru_pages) {
        return "its vendor specific RU and unwritten pages";
    }
    return NULL;
}

void femu_fdp_events_restore(FemuCtrl *n, const uint8_t *records, unsigned count)
{
    qemu_mutex_lock(&n->fdp.lock);
    n->fdp.host_events.first = n->fdp.host_events.count = 0;
    for (unsigned i = 0; i < count; i++) {
        femu_fdp_event_append(&n->fdp.host_events, records + i * FEMU_FDP_EVENT_BYTES);
    }
    qemu_mutex_unlock(&n->fdp.lock);
}
