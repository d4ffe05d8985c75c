/*
 * io_trace.h - the block I/O trace that ftl-sim replays and the FTL engine records.
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
 * t is the arrival time in ns since the recording's origin: the device's statistics
 * start (realize), ftl-sim's start of the run. Records are in the order the FTL served
 * them; a record's t may be earlier than the one before it (the device stamps a command
 * when it fetches it, and serves it a little later). nsid is the namespace the command
 * addressed; lba is the FTL's logical sector. stream is the write's placement stream.
 *
 * Replayed open-loop at the recorded times, a version-2 trace gives the FTL exactly the
 * calls it had when recorded: the same counters, statistics rows and per-LPN counts.
 */
#ifndef FEMU_IO_TRACE_H
#define FEMU_IO_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IO_TRACE_VERSION 2
#define IO_TRACE_SECTOR 512u        /* unit of lba and nsect */
#define IO_TRACE_MAX_RANGES 256     /* ranges of one D record (NVMe's limit) */
#define IO_TRACE_MAX_PHASE 63       /* bytes of a phase name */

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

/* Write the end record at end_ns, flush and close; 0 or -1 with a reason. NULL is fine. */
int io_trace_writer_close(struct io_trace_writer *w, uint64_t end_ns, char *err,
                          size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
