/*
 * Flexible Data Placement in a device state file (cmd/fdp/fdp_state.c): section DFDP, which
 * the state file (top/state.c) saves and restores through the part the top lists.
 *
 * DFDP, little endian: u32 version (1), u32 NRUH, u32 NSIDs, u8 FDPE, u8 FDPCIDX, u8 saved
 * FDPE, u8 saved FDPCIDX, the statistics' origin (four u64: host bytes, Copy pages, media
 * pages programmed, blocks erased: the FTL's counters at the last configuration change),
 * then a u32 of saved 1Eh enables per RUH (bit 1 << event type), then per NSID its
 * placement handle list (u8 NPHNDLS, u8 chosen by the controller, NRUH bytes: the RUHs,
 * 0 after the list), then u32 NUMFDPE and the host events as log 23h holds them.
 *
 * A restored device is powered on again: the saved features take effect once the whole
 * file is in (femu_fdp_state_loaded), FDP's statistics and events go on where they were.
 */
#ifndef HW_FEMU_CMD_FDP_STATE_H
#define HW_FEMU_CMD_FDP_STATE_H

#include "femu.h"
#include "state_codec.h"

#define FEMU_FDP_STATE_TAG  STATE_TAG('D', 'F', 'D', 'P')

uint64_t femu_fdp_state_max_bytes(FemuCtrl *n);         /* 0: no FDP, no section */
/* The poller, at the instant of a save: the section up to its events. */
void femu_fdp_state_encode(FemuCtrl *n, struct state_buf *b);
/* As the file is written: the events, which the FTL raises while the save serves the
 * requests queued for it, after the instant the poller took the rest. */
void femu_fdp_state_encode_events(FemuCtrl *n, struct state_buf *b);
/* After the FTL's restore (the statistics' origin is checked against its counters) and
 * the namespace table's: every field checked, then in place. False with err. */
bool femu_fdp_state_restore(FemuCtrl *n, struct state_cursor *c, char *err, size_t errlen);
/* A file of before DFDP: every namespace given every handle, as realize makes it. */
bool femu_fdp_state_absent(FemuCtrl *n, char *err, size_t errlen);
void femu_fdp_state_loaded(FemuCtrl *n);        /* the saved features take effect */

#endif
