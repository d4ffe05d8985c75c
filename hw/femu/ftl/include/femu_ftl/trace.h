/*
 * femu_ftl/trace.h - the block I/O trace that ftl-sim replays and the FTL engine records.
 *
 * Text, one record per line, fields separated by blanks; '#' starts a comment (at the
 * start of a line or after a blank), blank lines are skipped, LF or CRLF endings.
 * lba and nsect count 512-byte sectors, whatever the device's sector size.
 *
 * Version 1 (hand-written and generated traces; no times: closed-loop replay only):
 *   S seed                   seed of the generator that made the trace
 *   W lba nsect [H|C]        write; optional stream tag C (cold: stream 0) or H (hot:
 *                            stream 1), the placement stream with placement=stream
 *   R lba nsect              read
 * and, for hand-written zone compaction traces, version 3's zone and copy records without
 * their time and nsid (nsid 2, the device's zoned namespace, for ZW ZA ZR ZM and a zoned
 * C; 1 for a conventional C):
 *   ZW lba nsect   ZA zslba nsect   ZR lba nsect   ZM action zslba all
 *   C dest zoned lba nsect [lba nsect]...
 *
 * Version 2 (what the device records with trace_out=FILE, and ftl-sim --trace-out):
 *   V 2                      the first record: the version; the rest follows it
 *   W t lba nsect nsid stream       write (Write Zeroes too: the FTL sees a write)
 *   R t lba nsect nsid              read
 *   D t nsid lba nsect [lba nsect]...   deallocate, one record for all ranges of a
 *                                   Dataset Management command (up to 256)
 *   F t nsid                 flush
 *   Y t lba nsect nsid       verify (the flash reads of a read, no data moved)
 *   X t nsid lba nsect erase     format NVM of the namespace's sectors; erase is 1 for a
 *                            user data erase (Secure Erase Setting 1), else 0
 *   P t name                 a statistics phase starts (phases.csv), name without blanks
 *   A t                      the statistics were brought up to t between requests (the
 *                            device was idle past a second boundary)
 *   E t                      the recording ended (the statistics were closed) at t
 *
 * Version 3 ("V 3" first) is version 2 plus the zoned namespace's commands and Copy
 * (femu_ftl/zns.h, femu_ftl/engine.h), addresses in 512-byte sectors of the namespace named:
 *   ZW t lba nsect nsid      zone write at the write pointer
 *   ZA t zslba nsect nsid    Zone Append to the zone starting at zslba (the device records
 *                            an append it admitted this way too, not at the LBA it was
 *                            given: a replay admits it again and it lands at the same LBA)
 *   ZR t lba nsect nsid      zone read
 *   ZM t nsid action zslba all   Zone Management Send: action open, close, finish, reset
 *                            or offline, on the zone starting at zslba, or with all 1 on
 *                            every zone it applies to (Select All; zslba is then ignored);
 *                            open-zrwa (Open with ZRWAA) or zrwa-flush (Flush Explicit
 *                            ZRWA Range: zslba is then the last LBA to commit)
 *   C t nsid dest zoned lba nsect [lba nsect]...   Copy of the source ranges (up to 256)
 *                            to dest: zoned 1 in the zoned namespace (dest admitted as a
 *                            write there), 0 through the conventional FTL
 * A replay lets the FTL admit each zone record (the zone rules of femu_ftl/zns.h); a
 * record the rules refuse is counted (ftl-sim's zone_errors) and the replay goes on.
 *
 * Version 4 ("V 4" first) is version 3 plus Flexible Data Placement (femu_ftl/fdp.h):
 *   W t lba nsect nsid placement    as in version 2; placement is the write's stream id,
 *                            or its reclaim unit handle with placement=fdp (the FTL's
 *                            ftl_request.stream either way)
 *   U t nsid ruh             Reclaim Unit Handle Update of handle ruh (FTL_OP_RUH_UPDATE):
 *                            its open reclaim unit is closed as it is
 * A recording made with placement=fdp is version 4 (io_trace_version_for). ftl-sim
 * replays U through the engine; under another placement it drops U records (there is no
 * handle to update), so an FDP recording also replays without placement for comparison.
 *
 * Version 5 ("V 5" first) is version 4 plus the volatile write cache (docs/ftl.md, "Power
 * loss"):
 *   W t lba nsect nsid placement fua   a write with Force Unit Access (FTL_REQ_FUA) ends
 *                            with the word fua; any other W is as in version 4
 *   WC t nsid wce            the write cache switched on (wce 1) or off (0): Set Features
 *                            Volatile Write Cache (FTL_OP_SET_WRITE_CACHE)
 * A recording that may hold them is version 5 (io_trace_version_needed); without them a
 * version-5 trace reads exactly as version 4.
 *
 * Version 6 ("V 6" first) is version 5 plus the key-value stores' commands (femu_ftl/kv.h,
 * the engine's FTL_OP_KV_*), nsid the KV namespace's store, key the key's bytes in hex (2
 * to 32 digits, either case: 1 to FTL_KV_KEY_MAX bytes):
 *   KS t nsid key bytes tag flags   Store of a value of bytes bytes (at most 2^32 - 1),
 *                            its tag (decimal, 64 bits; kv.h) and its options: flags 0,
 *                            128 (only if the key exists: FTL_KV_ONLY_IF_EXISTS), 256
 *                            (only if it does not: FTL_KV_ONLY_IF_ABSENT) or 384
 *   KR t nsid key bytes      Retrieve into a host buffer of bytes bytes
 *   KD t nsid key            Delete
 *   KE t nsid key            Exist
 *   KL t nsid key max        List of at most max keys from the start key
 *   KC t nsid lba nsect capacity   the store of namespace nsid made over the sectors
 *                            [lba, lba + nsect) for capacity value bytes
 *                            (FTL_OP_KV_CREATE: kv_ns_mb at the start of the recording,
 *                            Namespace Management's create with CSI 01h)
 *   KX t nsid                the store of namespace nsid ended (FTL_OP_KV_DESTROY:
 *                            Namespace Management's delete)
 * The recorder writes a request as the engine was given it, admitted or not; a replay
 * lets the FTL admit each KV record again (as a zone record), so a command the rules
 * refused is refused again, and makes and ends the stores KC and KX name (a recording
 * that starts from a state file holds no KC for the stores the file holds: replay it from
 * the same file). An X record over exactly a store's range empties the store. A recording that may hold them is version 6
 * (io_trace_version_kv); without them a version-6 trace reads exactly as version 5.
 *
 * Version 7 ("V 7" first) is version 6 plus the commands that move data but give the FTL
 * no work (FTL_OP_ADMIN), so that a replay charges the PCIe link and the controller's
 * cores for them as the recording did (pcie_gen, ctrl_cores: docs/front.md):
 *   N t nsid kind in out     kind admin (an admin command: Identify, Get Log Page,
 *                            Get / Set Features, Namespace Management, ...) or io (an I/O
 *                            command the device answered itself: Zone Management Receive,
 *                            I/O Management Receive); in and out the payload bytes it
 *                            moved from and into the host's memory (each at most
 *                            2^32 - 1); nsid the command's (0 is written as 1)
 * The device writes them only with pcie_gen or ctrl_cores set, and then records version 7
 * (io_trace_version_front); a replay gives each to the engine, which counts it as no read
 * or write and does no FTL work for it. Without N records a version-7 trace reads exactly
 * as version 6.
 *
 * Version 8 ("V 8" first) is version 7 plus NVMe power management (FTL_OP_POWER,
 * docs/energy.md), so that a replay makes the same power-state transitions:
 *   PS t ps                  Set Features Power Management: to power state ps (0-31)
 *   PA t apste entry...      Set Features Autonomous Power State Transition: apste 1 (on)
 *                            or 0 (the table kept, not applied), then entry i (the one
 *                            that applies in state i) as itpt:itps, the idle ms (at most
 *                            2^24 - 1) and the state (0-31) it moves to; up to 32 entries,
 *                            those left out are 0:0 (no transition)
 *   PG t                     Get Features Power Management (the state now; nothing
 *                            changes, but the link and controller charge it)
 * A state the drive does not have (ps_count) is refused by the replay's engine as it was
 * by the recording's: ftl-sim counts it and goes on. A command no record can hold (a
 * state or target past 31, an idle time past 24 bits) changed nothing and is not
 * recorded. The recorder writes version 8 when power commands may come
 * (io_trace_version_power); without them a version-8 trace reads exactly as version 7.
 * t is the arrival time in ns since the recording's origin: the device's statistics
 * start (realize), ftl-sim's start of the run. Records are in the order the FTL served
 * them; a record's t may be earlier than the one before it (the device stamps a command
 * when it fetches it, and serves it a little later). nsid is the namespace the command
 * addressed; lba is the FTL's logical sector. stream is the write's placement stream
 * (version 1's tags: C is 0 and H is 1, streams under placement=stream and reclaim unit
 * handles under placement=fdp).
 *
 * Replayed open-loop at the recorded times, a version-2 trace gives the FTL exactly the
 * calls it had when recorded: the same counters, statistics rows and per-LPN counts.
 */
#ifndef FEMU_IO_TRACE_H
#define FEMU_IO_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "femu_ftl/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IO_TRACE_VERSION 8          /* the newest version: what readers know */
#define IO_TRACE_SECTOR 512u        /* unit of lba and nsect */
#define IO_TRACE_MAX_RANGES 256     /* ranges of one D record (NVMe's limit) */
#define IO_TRACE_MAX_PHASE 63       /* bytes of a phase name */
#define IO_TRACE_KV_FLAGS (FTL_KV_ONLY_IF_EXISTS | FTL_KV_ONLY_IF_ABSENT) /* KS's flags */
#define IO_TRACE_MAX_ITPT_MS 0xffffffu  /* PA: an APST entry's idle time (24 bits of ms) */
/* Latest arrival a version-2 to -8 record may carry: 2^53 ns (104 days), far beyond any
 * recording, and below where time in seconds stops being exact in a double or an
 * arrival plus a latency could wrap. */
#define IO_TRACE_MAX_TIME_NS (UINT64_C(1) << 53)

struct io_trace_writer;

/*
 * Create path (truncating it) and write the version line and a comment naming who
 * recorded it (recorder: e.g. "femu device"). Times are written relative to origin_ns;
 * secsz is the caller's sector size in bytes. NULL with a reason in err on failure.
 */
struct io_trace_writer *io_trace_writer_open(const char *path, const char *recorder,
                                             uint64_t origin_ns, uint64_t secsz,
                                             char *err, size_t errlen);

/*
 * io_trace_writer_open for a given version: 2 (what io_trace_writer_open writes, which
 * readers of conventional recordings expect), 3, which a recording of zone commands or
 * Copy needs, 4, which a Reclaim Unit Handle Update (FTL_OP_RUH_UPDATE) needs, 5, which a
 * FUA write or a write cache switch (FTL_OP_SET_WRITE_CACHE) needs, 6, which a KV
 * command (FTL_OP_KV_*) needs, 7, which a command without FTL work (FTL_OP_ADMIN)
 * needs, or 8, which a power management command (FTL_OP_POWER) needs; a writer given a
 * request its version has no record for fails (the first failure, as below).
 * io_trace_version_power picks the version.
 */
struct io_trace_writer *io_trace_writer_open_version(const char *path, const char *recorder,
                                                     uint64_t origin_ns, uint64_t secsz,
                                                     int version, char *err, size_t errlen);

/*
 * The version a recording needs: the oldest holding every record it may be given. 4 when
 * the FTL has reclaim unit handles (placement=fdp: U records), else 3 when zone commands
 * or Copy may come (a zoned namespace, a device whose guest may send Copy, a replayed
 * trace that may hold them), else 2.
 */
static inline int io_trace_version_for(bool zone_or_copy, bool fdp)
{
    return fdp ? 4 : zone_or_copy ? 3 : 2;
}

/*
 * The same with the write cache: 5 when FUA writes or write cache switches may come (a
 * host that records them, a replayed version-5 trace), else io_trace_version_for.
 */
static inline int io_trace_version_needed(bool zone_or_copy, bool fdp, bool write_cache)
{
    return write_cache ? 5 : io_trace_version_for(zone_or_copy, fdp);
}

/*
 * The same with the key-value stores: 6 when KV commands may come (an FTL with a KV store
 * or a host that may create one, a replayed version-6 trace), else io_trace_version_needed;
 * so a recording without KV stays as it was, byte for byte.
 */
static inline int io_trace_version_kv(bool kv, bool zone_or_copy, bool fdp, bool write_cache)
{
    return kv ? 6 : io_trace_version_needed(zone_or_copy, fdp, write_cache);
}

/*
 * The same with the commands without FTL work: 7 when N records may come (a device with
 * pcie_gen or ctrl_cores set, a replayed version-7 trace), else io_trace_version_kv; so a
 * recording without the link and controller model stays as it was, byte for byte.
 */
static inline int io_trace_version_front(bool front, bool kv, bool zone_or_copy, bool fdp,
                                         bool write_cache)
{
    return front ? 7 : io_trace_version_kv(kv, zone_or_copy, fdp, write_cache);
}

/*
 * The same with the power management commands: 8 when PS, PA or PG records may come (a
 * device whose guest may set power states, ftl-sim with --power-state or --apst, a
 * replayed version-8 trace), else io_trace_version_front.
 */
static inline int io_trace_version_power(bool power, bool front, bool kv, bool zone_or_copy,
                                         bool fdp, bool write_cache)
{
    return power ? 8 : io_trace_version_front(front, kv, zone_or_copy, fdp, write_cache);
}

/*
 * Record one request as the engine serves it, a phase, or an idle advance of the
 * statistics (written only when it crosses a second boundary since the last record).
 * Return 0, or -1 with a reason in err the first time writing fails; after a failure the
 * writer records nothing more and later calls return 0 (the caller reports once).
 */
int io_trace_write_request(struct io_trace_writer *w, const struct ftl_request *r,
                           char *err, size_t errlen);
int io_trace_write_phase(struct io_trace_writer *w, uint64_t now_ns, const char *name,
                         char *err, size_t errlen);
int io_trace_write_advance(struct io_trace_writer *w, uint64_t now_ns, char *err,
                           size_t errlen);

/* ZM's action names: enum ftl_zone_action values and back (NULL / -1 when unknown). */
static inline const char *io_trace_zone_action_name(uint32_t action)
{
    switch (action) {
    case FTL_ZONE_ACTION_OPEN: return "open";
    case FTL_ZONE_ACTION_CLOSE: return "close";
    case FTL_ZONE_ACTION_FINISH: return "finish";
    case FTL_ZONE_ACTION_RESET: return "reset";
    case FTL_ZONE_ACTION_OFFLINE: return "offline";
    case FTL_ZONE_ACTION_OPEN_ZRWA: return "open-zrwa";
    case FTL_ZONE_ACTION_ZRWA_FLUSH: return "zrwa-flush";
    }
    return NULL;
}

static inline int io_trace_zone_action_parse(const char *name, uint32_t *action)
{
    static const uint32_t actions[] = { FTL_ZONE_ACTION_OPEN, FTL_ZONE_ACTION_CLOSE,
                                        FTL_ZONE_ACTION_FINISH, FTL_ZONE_ACTION_RESET,
                                        FTL_ZONE_ACTION_OFFLINE, FTL_ZONE_ACTION_OPEN_ZRWA,
                                        FTL_ZONE_ACTION_ZRWA_FLUSH };
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
        if (strcmp(name, io_trace_zone_action_name(actions[i])) == 0) {
            *action = actions[i];
            return 0;
        }
    }
    return -1;
}

/* Write the end record at end_ns, flush and close; 0 or -1 with a reason. NULL is fine. */
int io_trace_writer_close(struct io_trace_writer *w, uint64_t end_ns, char *err,
                          size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
