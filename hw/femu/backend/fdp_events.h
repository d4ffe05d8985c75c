/*
 * FDP events (backend/fdp_events.c): which event types each reclaim unit handle records
 * (feature 1Eh), the event lists, and the FDP Events log page (23h) built from them.
 * Both the poller and the FTL thread add events; the lists have a lock of their own.
 */
#ifndef HW_FEMU_CMD_FDP_EVENTS_H
#define HW_FEMU_CMD_FDP_EVENTS_H

#include "femu.h"

/* The FDP event types femu raises: host events, each one a bit of an enable mask. */
#define FEMU_FDP_EVT_RU_NOT_FULLY_WRITTEN   0x00    /* a Reclaim Unit Handle Update */
#define FEMU_FDP_EVT_RU_TIME_LIMIT          0x01    /* fdp_ru_time_limit_s ran out */
#define FEMU_FDP_EVT_CTRL_RESET             0x02    /* a controller reset closed the RU */
#define FEMU_FDP_EVT_INVALID_PID            0x03    /* a write named no placement handle */
#define FEMU_FDP_EVT_TYPES                  4       /* 00h..03h, nothing else */

#define FEMU_FDP_EVENTS_LOG_BYTES \
    (FEMU_FDP_EVENT_BYTES * (FEMU_FDP_MAX_EVENTS + 1))     /* header + 63 events */

/* What happened, before it becomes an FDP Event data structure. */
typedef struct FemuFdpEventInfo {
    uint8_t type;               /* FEMU_FDP_EVT_* */
    uint32_t ruh;               /* the handle (reclaim group 0) */
    uint32_t nsid;              /* 0: no namespace to name */
    bool pid_valid;
    uint16_t pid;               /* the placement identifier the host gave */
    uint64_t time_ns;           /* the device clock (femu_now_ns) */
    /* femu's vendor specific bytes: the RU closed and the pages it left unwritten */
    uint32_t ru;                /* UINT32_MAX: none */
    uint64_t unwritten_pages;
} FemuFdpEventInfo;

void femu_fdp_events_init(FemuCtrl *n);
void femu_fdp_events_destroy(FemuCtrl *n);

bool femu_fdp_event_supported(uint8_t type);
bool femu_fdp_event_enabled(FemuCtrl *n, uint32_t ruh, uint8_t type);
/* Poller: feature 1Eh's Set; a configuration change disables every type; a reset or a
 * power-on sets a handle's whole mask (bit 1 << type). */
void femu_fdp_event_enable(FemuCtrl *n, uint32_t ruh, uint8_t type, bool enable);
void femu_fdp_events_disable_all(FemuCtrl *n);
void femu_fdp_event_enables_set(FemuCtrl *n, uint32_t ruh, uint32_t mask);
/* The handles (bit 1 << RUH) that have type enabled now. */
uint32_t femu_fdp_event_handles(FemuCtrl *n, uint8_t type);

/* Record ev if its type is enabled on its handle (any thread). */
void femu_fdp_event_add(FemuCtrl *n, const FemuFdpEventInfo *ev);
/* Record ev: its type was enabled on its handle when it happened (the caller checked). */
void femu_fdp_event_put(FemuCtrl *n, const FemuFdpEventInfo *ev);
/* Poller: a configuration change forgets every event; a controller reset restarts the
 * timestamps' clock. */
void femu_fdp_events_clear(FemuCtrl *n);
void femu_fdp_events_reset_clock(FemuCtrl *n);

/* Log page 23h into buf (FEMU_FDP_EVENTS_LOG_BYTES): host events, or controller events. */
void femu_fdp_events_log(FemuCtrl *n, bool host, uint8_t *buf);

/* State files (cmd/fdp/fdp_state.c): why a stored event record (FEMU_FDP_EVENT_BYTES) is not
 * one femu could have written, or NULL; and the host events list replaced by count such
 * records, oldest first (realize). */
const char *femu_fdp_event_check(FemuCtrl *n, const uint8_t *record);
void femu_fdp_events_restore(FemuCtrl *n, const uint8_t *records, unsigned count);

#endif
