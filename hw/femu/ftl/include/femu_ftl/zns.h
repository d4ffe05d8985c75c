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
};

struct ftl_zone_info {
    uint64_t start;     /* first sector (ZSLBA) */
    uint64_t cap;       /* writable sectors (ZCAP) */
    uint64_t wp;        /* write pointer, a sector (start + cap when full, as a full zone's
                         * descriptor is built; undefined but reported as start for
                         * read-only and offline zones) */
    uint8_t state;      /* enum ftl_zone_state */
};

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
