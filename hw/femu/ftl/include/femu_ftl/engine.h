/*
 * The FTL engine: everything between a host command and the FTL that the device and
 * ftl-sim would otherwise each write: dispatch by operation, the ranges of a deallocate,
 * flush, when background GC runs and the statistics tick. Its drivers stay thin: the
 * device's FTL thread feeds it from a ring with a real clock (its poller serves a read
 * directly when nothing is queued before it), ftl-sim from a workload with a simulated one.
 *
 * The engine serves requests and computes their completion times; the order completions
 * leave in is the host's. ftl_engine_serve returns a request's completion time (and the GC
 * it caused) and forgets it. ftl_engine_submit and ftl_engine_pop_due add a queue that
 * hands completions back in time order, for a host without one: ftl-sim's loop
 * (tools/ftl-sim/sim.c) uses it, and the engine's unit tests. The device does not: its FTL
 * thread (backend/ftl_thread.c) calls ftl_engine_serve only, and its poller
 * (top/poller.c) orders completions in a heap of its own, which also holds the commands
 * that never reach the FTL (asynchronous events, commands failed at fetch, and admin
 * commands unless the link or controller model is on: then they come as FTL_OP_ADMIN).
 *
 * struct ftl_request is the one description of FTL work: the device's request
 * (FemuRequest) and ftl-sim's (struct request) each embed one, and what they do besides
 * (the device's LPN dump and phase marker, a trace's statistics events) is their own tag.
 *
 * Plain C11 like the FTL: no QEMU header, no globals, no threads, no clock of its own.
 * Every call takes the caller's time in ns; times must not go backwards.
 *
 * Background GC policy: after every request, whatever its kind (but FTL_OP_ADMIN and
 * FTL_OP_POWER, which are no FTL requests), the engine gives the FTL
 * its background GC step at the request's arrival time (ftl_background_gc: a whole line
 * with gc_mode=line, as FEMU's FTL loop after each request; with gc_mode=paced the same
 * collection, its page moves owed and charged as host writes go on and in idle LUN
 * time). So a read-only phase still lets GC catch up, and the device
 * and ftl-sim collect at exactly the same points of a request sequence.
 */
#ifndef FEMU_FTL_ENGINE_H
#define FEMU_FTL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/fdp.h"
#include "femu_ftl/ftl.h"
#include "femu_ftl/kv.h"
#include "femu_ftl/stats.h"
#include "femu_ftl/zns.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ftl_engine;

enum ftl_op {
    FTL_OP_READ,
    FTL_OP_WRITE,
    FTL_OP_TRIM,    /* deallocate: one range, or `ranges` when nranges > 0 */
    FTL_OP_FLUSH,   /* ftl_flush: drains the write buffer (without one: at arrival) */
    FTL_OP_VERIFY,  /* ftl_verify */
    FTL_OP_FORMAT,  /* ftl_format over slba/nlb; erase when flags has FTL_REQ_ERASE */
    /* Zoned namespace (femu_ftl/zns.h): slba/nlb are zoned sectors. Without
     * FTL_REQ_ADMITTED the engine first admits the request (ftl_zone_admit_*) and fails it
     * with the admission's status; with it, the caller admitted it when it received it. */
    FTL_OP_ZONE_WRITE,  /* a write at the write pointer, or with FTL_REQ_APPEND a Zone
                         * Append to the zone starting at slba (admitted: at assigned) */
    FTL_OP_ZONE_READ,
    FTL_OP_ZONE_MGMT,   /* zone_action on the zone at slba (ZRWA_FLUSH: slba the last
                         * LBA to commit; it and OPEN_ZRWA priced at slba, admitted or
                         * not), or every zone with
                         * FTL_REQ_ZONE_ALL; admitted: ranges list the zones the action
                         * changed (slba = zone start, nlb = zone size) */
    /* Simple Copy: ranges (the sources) to slba, nlb the total; in the zoned namespace
     * with FTL_REQ_ZONED (the destination admitted like a write), else through the
     * conventional FTL. Copyback where source and destination page share a LUN. */
    FTL_OP_COPY,
    /* FDP's Reclaim Unit Handle Update of handle `stream` (femu_ftl/fdp.h,
     * ftl_fdp_ruh_update); no flash time */
    FTL_OP_RUH_UPDATE,
    /* the volatile write cache (NVMe Set Features, Volatile Write Cache): on with
     * FTL_REQ_WCE in flags, else off (ftl_set_write_cache; off drains the buffer) */
    FTL_OP_SET_WRITE_CACHE,
    /* Key-value store of namespace nsid (femu_ftl/kv.h), key in `key`. Without
     * FTL_REQ_ADMITTED the engine first admits the request (ftl_kv_admit_*) and fails it
     * with the admission's status; with it, the caller admitted it when it received it.
     * STORE: kv_bytes the value's size, value_tag its tag, flags FTL_KV_ONLY_IF_*;
     * RETRIEVE: kv_bytes the bytes the host's buffer takes (the pages of min(buffer,
     * value) are read); LIST: key is the start key, kv_bytes the most keys to return
     * (admitted: the keys returned), each one an index lookup. */
    FTL_OP_KV_STORE,
    FTL_OP_KV_RETRIEVE,
    FTL_OP_KV_DELETE,
    FTL_OP_KV_EXIST,
    FTL_OP_KV_LIST,
    /* A store's life, so a recording holds it (trace KC, KX). CREATE: namespace nsid's
     * store over slba/nlb (FTL sectors) of kv_capacity value bytes (ftl_kv_create); DESTROY:
     * its end (ftl_kv_destroy). No flash time. Without FTL_REQ_ADMITTED the engine does
     * it (a replay: a create that fails, or an end without a store, is FTL_E_INVAL);
     * with it, the caller did it when it received the command (the device, under its
     * lock) and the engine only records it (CREATE: FTL_E_INVAL unless that store exists
     * over that range). */
    FTL_OP_KV_CREATE,
    FTL_OP_KV_DESTROY,
    /* A command that moves data_in / data_out bytes and does no FTL work (trace N): an
     * admin command (Identify, Get Log Page, ...), or with FTL_REQ_IO an I/O command the
     * device answers itself (Zone Management Receive). Only the link and the controller
     * charge it (front_moves.c; nothing with pcie_gen and ctrl_cores 0); done at arrival
     * for the FTL, which takes no background GC or SLC fold step after it either, so a
     * run's FTL decisions are the same with the model on as off. */
    FTL_OP_ADMIN,
    /* NVMe power management (power/, docs/energy.md): `power` says what (struct
     * ftl_power_cmd): Set Features Power Management (02h), Set Features Autonomous Power
     * State Transition (0Ch), or the state now (Get Features 02h). No flash time; a
     * state or table naming a state that does not exist, or an APST entry whose target
     * is an operational state, is FTL_E_INVAL. Recorded in traces, so a replay makes
     * the same transitions. */
    FTL_OP_POWER,
};

enum ftl_power_action {
    FTL_POWER_SET_STATE,    /* move to `ps` (a non-operational one: until a command) */
    FTL_POWER_SET_APST,     /* the host's APST table and enable bit */
    FTL_POWER_GET_STATE,    /* nothing changes; ftl_served.power_state says the state */
};

/* One APST entry (NVMe Figure "Autonomous Power State Transition Data Structure"): in
 * the power state of the entry's index, after itpt_ms of idle time, move to itps. */
struct ftl_apst_entry {
    uint64_t itpt_ms;       /* Idle Time Prior to Transition; 0: no transition */
    uint32_t itps;          /* Idle Transition Power State */
};

struct ftl_power_cmd {
    enum ftl_power_action action;
    uint32_t ps;                            /* SET_STATE */
    bool apst_enabled;                      /* SET_APST: APSTE */
    struct ftl_apst_entry apst[FTL_PS_MAX]; /* SET_APST: entry i applies in state i */
};

#define FTL_REQ_ERASE 1u    /* FTL_OP_FORMAT: Secure Erase Setting 1 (user data erase) */
#define FTL_REQ_ADMITTED 2u /* FTL_OP_ZONE_* / COPY / KV_*: admission already done by the
                             * caller; FORMAT: the caller emptied the admission record of
                             * the store whose range it is (ftl_kv_clear), else the
                             * engine does */
#define FTL_REQ_APPEND 4u   /* FTL_OP_ZONE_WRITE: a Zone Append */
#define FTL_REQ_ZONE_ALL 8u /* FTL_OP_ZONE_MGMT: Select All */
#define FTL_REQ_ZONED 16u   /* FTL_OP_COPY: addresses are in the zoned namespace */
#define FTL_REQ_FUA 32u     /* FTL_OP_WRITE: Force Unit Access (ftl_io.fua) */
#define FTL_REQ_WCE 64u     /* FTL_OP_SET_WRITE_CACHE: the cache on (Write Cache Enable) */
/* FTL_OP_KV_STORE's options, 128u and 256u: FTL_KV_ONLY_IF_EXISTS / _ABSENT (kv.h) */
#define FTL_REQ_IO 512u     /* FTL_OP_ADMIN: an I/O command (core time ctrl_read_ns), else
                             * an admin command (ctrl_admin_ns) */

struct ftl_request {
    enum ftl_op op;
    uint64_t arrival_ns;    /* when the command reached the device */
    uint64_t slba, nlb;     /* READ, WRITE, and TRIM with nranges == 0 */
    uint32_t stream;        /* WRITE: the stream (placement=stream) or reclaim unit handle
                             * (placement=fdp); RUH_UPDATE: the handle */
    uint32_t nsid;          /* the namespace addressed (recorded in traces; 0 means 1) */
    uint32_t flags;         /* FTL_REQ_* */
    const struct ftl_range *ranges;   /* TRIM: Dataset Management ranges; COPY: sources;
                                       * admitted ZONE_MGMT: the zones changed */
    uint32_t nranges;
    uint32_t zone_action;   /* ZONE_MGMT: enum ftl_zone_action */
    uint64_t assigned;      /* admitted ZONE_WRITE with FTL_REQ_APPEND: the first sector
                             * the append was given (slba stays the zone start) */
    struct ftl_kv_key key;  /* FTL_OP_KV_*: the key (LIST: the start key) */
    uint32_t kv_bytes;      /* FTL_OP_KV_*: see enum ftl_op */
    uint64_t value_tag;     /* FTL_OP_KV_STORE: the value's tag (kv.h) */
    uint64_t kv_capacity;   /* FTL_OP_KV_CREATE: the store's capacity in value bytes */
    uint32_t data_in;       /* FTL_OP_ADMIN: payload bytes from the host's memory */
    uint32_t data_out;      /* FTL_OP_ADMIN: payload bytes into the host's memory */
    const struct ftl_power_cmd *power;  /* FTL_OP_POWER: the caller's, until served */
};

/* Optional callbacks; any may be NULL. */
struct ftl_engine_hooks {
    void *opaque;
    /* Give up between deallocate ranges (the device is stopping): the rest is not done. */
    bool (*stop)(void *opaque);
    /* A statistics file could not be written (what: which step). The run goes on. */
    void (*stats_error)(void *opaque, const char *what, const char *err);
    /* The recording (ftl_engine_record) failed; it stops, the run goes on. Once. */
    void (*trace_error)(void *opaque, const char *err);
};

/*
 * An engine over ftl (borrowed, not freed) and stats (borrowed; NULL: no statistics).
 * Returns NULL only when out of memory. While it lives, the statistics' rows read the
 * time in each power state as it is at each row's end; close the writer before
 * destroying the engine, and its last rows have that time up to the close too.
 */
struct ftl_engine *ftl_engine_create(struct ftl *ftl, struct ftl_stats_writer *stats,
                                     const struct ftl_engine_hooks *hooks);
void ftl_engine_destroy(struct ftl_engine *e);

struct ftl *ftl_engine_ftl(const struct ftl_engine *e);

struct io_trace_writer;
/*
 * Record into trace (borrowed; NULL: stop recording) every request served, every phase
 * and every idle advance of the statistics, so that a replay reproduces this run.
 */
void ftl_engine_record(struct ftl_engine *e, struct io_trace_writer *trace);

/*
 * Write the statistics rows of every interval that ended at or before now_ns. submit
 * does this itself; a driver calls it when time passes without requests.
 */
void ftl_engine_advance(struct ftl_engine *e, uint64_t now_ns);

/*
 * The FTL's counters as they are at now_ns: the power states' time (ps_time_ns, and
 * APST's moves by then) brought up to it, nothing else changed, no statistics row or
 * trace record written. What a summary or a SMART log reads between requests.
 */
void ftl_engine_counters_at(const struct ftl_engine *e, uint64_t now_ns,
                            struct ftl_counters *c);

/* What GC did while the engine served one request. */
struct ftl_gc_work {
    uint64_t lines;         /* victim lines (or units) finished */
    uint64_t moved_pages;   /* valid pages moved */
    uint64_t erased_blocks;
};

/*
 * What serving one request came to. GC ran when lines or moved_pages is not 0 (paced GC
 * collects a line on few requests and charges owed page moves, counted then, on most);
 * its flash work starts at the request's arrival.
 */
/* Where a request's time went (the link and controller model, docs/front.md): its flash
 * work (from when the FTL took it to when the FTL finished), its own transfers on the
 * PCIe link, its own controller core time, and the rest: waiting for the link, a core or
 * the command before it. All but flash_ns are 0 with pcie_gen and ctrl_cores 0. */
struct ftl_time_split {
    uint64_t flash_ns, link_ns, ctrl_ns, wait_ns;
};

struct ftl_served {
    uint64_t done_ns;           /* the completion time (see ftl_engine_serve) */
    struct ftl_time_split split;
    struct ftl_gc_work fg;      /* foreground: inside the request (a write needing space) */
    struct ftl_gc_work bg;      /* background: the collection after it; 0 on an error */
    uint32_t power_state;       /* the NVMe power state when it completed (Get Features
                                 * Power Management reports it for FTL_POWER_GET_STATE) */
};

/*
 * Serve one request: the statistics first catch up with its arrival, then the power states
 * (APST's idle moves by then; a command other than FTL_OP_POWER arriving in a
 * non-operational state starts after its exit), then the FTL prices it, then background
 * GC gets its chance. On FTL_OK out->done_ns is its completion time (>= arrival); on an
 * error the FTL's status is returned and out->done_ns is the arrival time (after an exit:
 * the exit's end), except FTL_E_UNCORRECTABLE (a read or verify whose flash read failed):
 * that request was served like any other, out->done_ns is when its flash reads ended,
 * background GC ran after it, and ftl_read_error_lpn() names the page. A deallocate
 * stopped by the stop hook returns FTL_OK for the ranges it did. out may be NULL.
 */
int ftl_engine_serve(struct ftl_engine *e, const struct ftl_request *r,
                     struct ftl_served *out);

/*
 * serve, then keep the completion (whatever its status) in the engine's queue with the
 * caller's tag until ftl_engine_pop_due hands it back. Returns the FTL status, or
 * FTL_E_NOMEM (nothing served, nothing queued) when the queue cannot grow. out may be
 * NULL.
 */
int ftl_engine_submit(struct ftl_engine *e, const struct ftl_request *r, void *tag,
                      struct ftl_served *out);

/* The earliest queued completion time; false when nothing is queued. */
bool ftl_engine_next_due(const struct ftl_engine *e, uint64_t *due_ns);
size_t ftl_engine_queued(const struct ftl_engine *e);

/*
 * Take, in completion order (ties in submission order), up to max tags whose completion
 * time is at or before now_ns; returns how many.
 */
size_t ftl_engine_pop_due(struct ftl_engine *e, uint64_t now_ns, void **tags, size_t max);

/*
 * Record that a phase starts at now_ns (rows up to now are written first). Returns -1
 * when phases.csv could not be written (also reported through the stats_error hook).
 */
int ftl_engine_phase(struct ftl_engine *e, uint64_t now_ns, const char *phase);

#ifdef __cplusplus
}
#endif

#endif
