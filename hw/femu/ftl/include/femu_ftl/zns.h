/*
 * Zoned namespace of the FTL (zoned=1): zones of zone_size sectors, each writable up to
 * zone_cap sectors, striped over zone_luns LUNs of flash that the conventional FTL does
 * not use (the top block rows of every LUN), with no device GC.
 *
 * Two layers, both under the same single-caller rule as the rest of the FTL:
 *
 *  - admission (ftl_zone_admit_*): the NVMe Zoned Namespace rules. States, write pointers,
 *    the open and active limits, and the status of every violation. No time, no flash.
 *    The device calls it when it fetches a command (it must know the status and an
 *    append's LBA before data moves); ftl-sim lets the engine call it.
 *  - flash (the engine's FTL_OP_ZONE_* and FTL_OP_COPY): programs at the zone's pages on
 *    their own LUNs, erases on reset, senses on read, copyback for Copy, with the same
 *    timing module as the conventional FTL. It keeps its own record of what is programmed,
 *    so it never depends on admission having been priced.
 *
 * Addresses here are zoned sectors (of secsz bytes): zone z covers
 * [z * zone_size_sectors, (z + 1) * zone_size_sectors), writable below start + cap.
 */
#ifndef FEMU_FTL_ZNS_H
#define FEMU_FTL_ZNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftl;

/* Zone states: the NVMe Zone Descriptor's ZS values. */
enum ftl_zone_state {
    FTL_ZONE_EMPTY = 0x1,
    FTL_ZONE_IMPLICIT_OPEN = 0x2,
    FTL_ZONE_EXPLICIT_OPEN = 0x3,
    FTL_ZONE_CLOSED = 0x4,
    FTL_ZONE_READ_ONLY = 0xd,
    FTL_ZONE_FULL = 0xe,
    FTL_ZONE_OFFLINE = 0xf,
};
#define FTL_ZONE_STATES 16  /* arrays indexed by state value */

/* Zone Management Send actions: the NVMe ZSA values. */
enum ftl_zone_action {
    FTL_ZONE_ACTION_CLOSE = 0x1,
    FTL_ZONE_ACTION_FINISH = 0x2,
    FTL_ZONE_ACTION_OPEN = 0x3,
    FTL_ZONE_ACTION_RESET = 0x4,
    FTL_ZONE_ACTION_OFFLINE = 0x5,
    /* Flush Explicit ZRWA Range (ZNS 1.1): slba is the last LBA to commit, not a zone
     * start; the count committed, slba - wp + 1, must be whole ZRWAFG units */
    FTL_ZONE_ACTION_ZRWA_FLUSH = 0x11,
    /* Open Zone with ZRWAA set (ZSA 03h, ZSASO bit 0): not an NVMe ZSA value; the device
     * maps the command to it */
    FTL_ZONE_ACTION_OPEN_ZRWA = 0x103,
};

struct ftl_zone_info {
    uint64_t start;     /* first sector (ZSLBA) */
    uint64_t cap;       /* writable sectors (ZCAP) */
    uint64_t wp;        /* write pointer, a sector (start + cap when full, as a full zone's
                         * descriptor is built; undefined but reported as start for
                         * read-only and offline zones) */
    uint8_t state;      /* enum ftl_zone_state */
    bool zrwa;          /* the zone holds a Zone Random Write Area (ZRWAV); wp is then the
                         * committed write pointer, the window [wp, wp + ZRWAS) */
};

/*
 * Zone Random Write Areas (zrwa_zones > 0; femu_ftl/config.h): resources (NUMZRWA), the
 * window and the commit unit in sectors (ZRWAS, ZRWAFG). false (and zeros): none.
 */
struct ftl_zrwa_geometry {
    uint32_t resources;
    uint64_t size_sectors, flush_gran_sectors;
};
bool ftl_zrwa_geometry(const struct ftl *ftl, struct ftl_zrwa_geometry *out);
/* ZRWA resources held now. */
uint32_t ftl_zrwa_in_use(const struct ftl *ftl);

/* Geometry (0 when the FTL is not zoned). Constant for the FTL's life. */
uint64_t ftl_zone_count(const struct ftl *ftl);
uint64_t ftl_zone_size_sectors(const struct ftl *ftl);
uint64_t ftl_zone_cap_sectors(const struct ftl *ftl);
/* LUNs one zone stripes over (zone_luns). */
uint32_t ftl_zone_luns(const struct ftl *ftl);

/* One zone's state now (zone < ftl_zone_count). */
void ftl_zone_get(const struct ftl *ftl, uint64_t zone, struct ftl_zone_info *out);
/* Zones in each state now, indexed by state value. */
void ftl_zone_state_counts(const struct ftl *ftl, uint64_t counts[FTL_ZONE_STATES]);
/* Zones in the open states (implicit + explicit), and in the active ones (open + closed). */
uint32_t ftl_zone_open_count(const struct ftl *ftl);
uint32_t ftl_zone_active_count(const struct ftl *ftl);

/*
 * Admission of a write (append false: must start at the write pointer) or a Zone Append
 * (append true: slba must be a zone's start; the data goes at its write pointer). On
 * FTL_OK the write pointer has moved past the data (the zone became implicitly open, or
 * full at its capacity; an implicitly open zone may have been closed to respect max_open)
 * and *assigned is the first sector written. Else one of FTL_E_RANGE, FTL_E_INVAL (an
 * append not at a zone start), FTL_E_ZONE_* and nothing changed.
 */
int ftl_zone_admit_write(struct ftl *ftl, uint64_t slba, uint64_t nlb, bool append,
                         uint64_t *assigned);
/*
 * In a zone holding a ZRWA (ZNS 1.1 ZRWA rules): a write (never an append: Invalid Zone
 * Operation Request, FTL_E_ZONE_INVALID_OP) may start anywhere in [wp, wp + ZRWAS) and
 * rewrite what the window holds; one ending past wp + ZRWAS (but not past wp + 2 x ZRWAS)
 * first commits the fewest ZRWAFG units that bring its end inside the window (implicit
 * flush; the write pointer moves by them, to the capacity at most). A write starting
 * below wp or ending past wp + 2 x ZRWAS is Zone Invalid Write; past the capacity Zone
 * Boundary Error. The zone becomes full, and frees its ZRWA, when the committed write
 * pointer reaches the capacity.
 */

/* A read of [slba, slba + nlb) (zones may be crossed): FTL_E_RANGE, FTL_E_ZONE_OFFLINE. */
int ftl_zone_admit_read(const struct ftl *ftl, uint64_t slba, uint64_t nlb);

/*
 * Wear: a reset that brings the zone's blocks to pe_cycles erases leaves the zone read
 * only (its flash is worn out): reads work (they return zeroes), writes fail with Zone Is
 * Read Only, and the Offline action takes it offline.
 *
 * Zone Management Send: action on the zone starting at slba, or with all on every zone
 * the action applies to (slba ignored). On FTL_OK the states changed and, when zones is
 * not NULL, the zones whose state the action changed are listed there in increasing
 * order (room for ftl_zone_count entries), *nzones of them. A single zone's error:
 * FTL_E_RANGE / FTL_E_INVAL (slba not a zone start), FTL_E_ZONE_TRANSITION (also for
 * open, close, finish and reset of a read-only or offline zone: ZNS 1.1 3.4.3.1),
 * FTL_E_TOO_MANY_OPEN, FTL_E_TOO_MANY_ACTIVE; nothing changed.
 */
int ftl_zone_admit_mgmt(struct ftl *ftl, uint64_t slba, enum ftl_zone_action action, bool all,
                        uint64_t *zones, size_t *nzones);
/*
 * The ZRWA actions (FTL_E_INVAL for both with all: Select All is not defined for them,
 * and without zrwa_zones):
 *  - OPEN_ZRWA: an empty zone is opened explicitly with a ZRWA (open and active
 *    resources as Open, and one ZRWA resource: FTL_E_ZRWA_UNAVAILABLE when all are
 *    held); a zone already holding one is opened as Open does; any other zone
 *    FTL_E_ZONE_TRANSITION.
 *  - ZRWA_FLUSH: slba is the last LBA to commit in a zone holding a ZRWA (else
 *    FTL_E_INVAL); it must lie in [wp, wp + ZRWAS) (FTL_E_ZONE_BOUNDARY) and slba - wp + 1
 *    be whole ZRWAFG units (FTL_E_INVAL). A closed zone is opened implicitly for it.
 * Close keeps the ZRWA; Finish commits what the window holds and frees it; Reset drops
 * the window and frees it.
 */

/*
 * Copy admission, zoned namespace: every source range inside the namespace and on no
 * offline zone, then the destination admitted as a write of the total length at dest.
 * Same statuses as the two; nothing changes on an error.
 */
struct ftl_range;
int ftl_zone_admit_copy(struct ftl *ftl, const struct ftl_range *src, uint32_t nsrc,
                        uint64_t dest);

const char *ftl_zone_state_name(uint8_t state);

#ifdef __cplusplus
}
#endif

#endif
