/*
 * Device state files: a versioned, checksummed container of named sections, written
 * atomically. The FTL (femu_ftl/state.h) and the device's data store each add their sections;
 * ftl-sim writes and reads the same files.
 *
 * Layout (little-endian, fixed-width fields):
 *
 *     header   "FEMUSTAT" (8 bytes), u32 format version (STATE_FILE_VERSION),
 *              u32 header bytes (24), u64 reserved (0)
 *     section  u32 tag, u32 reserved (0), u64 payload bytes, payload, u32 CRC-32C of payload
 *     ...
 *     end      a section tagged STATE_TAG_END whose 4-byte payload is the CRC-32C of every
 *              byte before its own header: a file without it is truncated
 *
 * A section is read only after its size passed the caller's limit and its CRC matched;
 * state_reader_open() checks the section headers (tags the caller knows, each once),
 * state_reader_verify() every section and the end record, so a truncated, corrupt or
 * oversized file is refused before anything is restored from it, in time bounded by the
 * caller's configuration rather than by the file.
 *
 * Plain C11 + POSIX, no QEMU header, no global state.
 */
#ifndef FEMU_STATE_FILE_H
#define FEMU_STATE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STATE_FILE_VERSION 1u

/* Four characters as a tag: STATE_TAG('M','E','T','A'). */
#define STATE_TAG(a, b, c, d) \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* Sections every state file has or may have; modules define their own tags. */
#define STATE_TAG_META STATE_TAG('M', 'E', 'T', 'A')   /* text: key=value lines */
#define STATE_TAG_END  STATE_TAG('E', 'N', 'D', ' ')

/* ---- writing ---- */

struct state_writer;

/* Start writing path: the bytes go to a temporary file beside it (path.tmp.PID) until
 * state_writer_commit() renames it over path. NULL with a one-line reason in err. */
struct state_writer *state_writer_open(const char *path, char *err, size_t errlen);

/* A whole section at once. */
int state_writer_section(struct state_writer *w, uint32_t tag, const void *data, uint64_t len);

/* A section in pieces: begin, append as often as needed, end. One open section at a time. */
int state_writer_begin(struct state_writer *w, uint32_t tag);
int state_writer_append(struct state_writer *w, const void *data, uint64_t len);
int state_writer_end(struct state_writer *w);

/*
 * A sparse section holding `bytes` bytes of memory at base: only the chunks of `chunk`
 * bytes (a power of two) that are not all zero are stored, as runs
 * (u64 offset, u64 length, bytes). Payload: u64 total bytes, u64 chunk, then the runs.
 */
int state_writer_sparse(struct state_writer *w, uint32_t tag, const void *base,
                        uint64_t bytes, uint64_t chunk);

/* The same, appended into an open section (the caller began it): for memory read in
 * pieces, e.g. the data store page by page. state_writer_sparse_piece(w, piece, offset,
 * len, chunk) stores bytes [offset, offset + len) of the region, which the caller has at
 * piece (piece[0] is the region's byte `offset`); chunks are aligned to the region, so
 * pieces may be cut anywhere. The section's payload starts with u64 total bytes, u64
 * chunk, written by the caller through state_writer_sparse_header(). */
int state_writer_sparse_header(struct state_writer *w, uint64_t bytes, uint64_t chunk);
int state_writer_sparse_piece(struct state_writer *w, const void *piece, uint64_t offset,
                              uint64_t len, uint64_t chunk);

/*
 * Write the end record, flush and fsync the file, rename it over the path given to
 * state_writer_open() and fsync the directory. Frees w whatever happens; on failure the
 * temporary file is removed and err says why (the path keeps what it held before).
 * Every earlier call's failure (disk full) is reported here, with its reason.
 */
int state_writer_commit(struct state_writer *w, char *err, size_t errlen);

/* Give up: remove the temporary file and free w. NULL is ignored. */
void state_writer_abort(struct state_writer *w);

/* The first failure so far (what commit would report), or NULL while there is none. */
const char *state_writer_error(const struct state_writer *w);

/*
 * The META section every state file has: producer=PRODUCER ("ftl-sim", "femu device"),
 * data=present|absent (whether the data store's written pages are in the file) and
 * created=UTC time in ISO-8601, one key=value a line.
 */
int state_writer_meta(struct state_writer *w, const char *producer, bool data_present);

/* ---- reading ---- */

struct state_reader;

/*
 * A section a reader accepts: its tag, at most once, with a payload of at most max_len
 * bytes. The caller knows its configuration, so it knows how big each of its sections
 * can be; a file is held to that before a byte of any payload is read.
 */
struct state_section_limit {
    uint32_t tag;
    uint64_t max_len;
};

/* META's payload is a few key=value lines: never more than this. */
#define STATE_META_MAX_BYTES (UINT64_C(1) << 20)

/*
 * The most a sparse section (state_writer_sparse) of a region of `bytes` bytes stored in
 * chunks of at least min_chunk bytes can hold: its header, every byte once, and a run
 * header for every chunk. Saturates at UINT64_MAX.
 */
uint64_t state_sparse_max_len(uint64_t bytes, uint64_t min_chunk);

/*
 * Open path: the header and every section header, without reading a payload: each tag is
 * META, END or one of limits[0..nlimits) (the array is not kept), none twice, each inside
 * the file, the end record last; then META, checked like any section. NULL with a
 * one-line reason in err: "PATH: not a femu state file", "PATH: truncated", "PATH:
 * corrupt (section ABCD: not a section of this configuration's state)", "PATH: corrupt
 * (section FL2P twice)", "PATH: state format version 7, this femu reads version 1", ...
 *
 * A section is checked against its limit, then its CRC, before its first byte is handed
 * out (state_reader_seek); state_reader_verify() checks them all and the end record. So
 * a caller can read a small section (the configuration) and say what differs before it
 * verifies the rest, and a huge section is refused by its length, never read.
 */
struct state_reader *state_reader_open(const char *path,
                                       const struct state_section_limit *limits,
                                       size_t nlimits, char *err, size_t errlen);

/*
 * Every section within its limit and matching its CRC, and the end record holding the
 * CRC of everything before it: 0, or -1 with "PATH: corrupt (section FCOR: CRC
 * mismatch)", "PATH: corrupt (section FCOR: 900 bytes, this configuration's state has at
 * most 812)", "PATH: corrupt (end record: file CRC mismatch)". Call it before restoring
 * anything, so a damaged file is refused before it is half used.
 */
int state_reader_verify(struct state_reader *r, char *err, size_t errlen);
void state_reader_close(struct state_reader *r);

/* The path given to state_reader_open() (for messages). */
const char *state_reader_path(const struct state_reader *r);

/* Whether a section with this tag is present; its payload size in *len (may be NULL). */
bool state_reader_has(const struct state_reader *r, uint32_t tag, uint64_t *len);

/*
 * Position at the payload of section `tag` (the first with that tag) for
 * state_reader_read(). -1 with "PATH: no TAG section" in err when absent.
 */
int state_reader_seek(struct state_reader *r, uint32_t tag, char *err, size_t errlen);

/* Read the next len bytes of the current section; -1 with a reason when the section has
 * fewer left ("PATH: section TAG: short" ) or the file cannot be read. */
int state_reader_read(struct state_reader *r, void *buf, uint64_t len, char *err,
                      size_t errlen);

/* Bytes of the current section not read yet. */
uint64_t state_reader_left(const struct state_reader *r);

/*
 * Read the sparse section `tag` into base (`bytes` bytes, which the caller has zeroed or
 * whose unstored chunks it wants left as they are). -1 with a reason when the section is
 * absent, its total is not `bytes`, or a run lies outside [0, bytes).
 */
int state_reader_sparse(struct state_reader *r, uint32_t tag, void *base, uint64_t bytes,
                        char *err, size_t errlen);

/*
 * The same for a region read in runs by the caller: after state_reader_seek(), get the
 * header (total and chunk), then each run's offset and length; the caller reads the run's
 * bytes with state_reader_read(). state_reader_sparse_next returns 1 with a run, 0 at the
 * end of the section, -1 with a reason for a malformed run.
 */
int state_reader_sparse_header(struct state_reader *r, uint64_t *bytes, uint64_t *chunk,
                               char *err, size_t errlen);
int state_reader_sparse_next(struct state_reader *r, uint64_t bytes, uint64_t *offset,
                             uint64_t *len, char *err, size_t errlen);

/* The META section's value for key, copied into buf (NUL-terminated); false when the file
 * has no META section or no such key. */
bool state_reader_meta(struct state_reader *r, const char *key, char *buf, size_t buflen);

/* Format a tag as its four characters, NUL-terminated, into buf[5]. */
const char *state_tag_name(uint32_t tag, char buf[5]);

/* CRC-32C (Castagnoli) of len bytes, continuing from crc (start with 0). */
uint32_t state_crc32c(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
