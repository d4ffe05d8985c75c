/*
 * The namespace table in a device state file (cmd/admin/ns_table_state.c): section DNST, which
 * the state file (top/state.c) saves and restores through the part the top lists.
 *
 * DNST, little endian: u32 NSIDs (FEMU_MAX_NAMESPACES), u32 ns_created, the controller's
 * SMART counters (five u64: units read, units written, read and write commands, media
 * errors), then per NSID 1.. a record: u8 allocated, attached, zoned, FLBAS, kv (a Key
 * Value namespace: 0 or 1; a reserved zero byte in files written before), three zero
 * bytes, u64 first sector, sectors, bytes, the 16-byte UUID, its SMART counters.
 */
#ifndef HW_FEMU_CMD_NS_TABLE_STATE_H
#define HW_FEMU_CMD_NS_TABLE_STATE_H

#include "femu.h"
#include "state_codec.h"

#define FEMU_NS_TABLE_TAG   STATE_TAG('D', 'N', 'S', 'T')

uint64_t femu_ns_table_state_bytes(FemuCtrl *n);        /* every DNST's exact size */
void femu_ns_table_encode(FemuCtrl *n, struct state_buf *b);
/* Check every field against this device, then replace the table namespaces= made (and
 * the SMART counters, the power-on time aside): false with the reason in err. */
bool femu_ns_table_restore(FemuCtrl *n, struct state_cursor *c, char *err, size_t errlen);
bool femu_ns_table_absent(FemuCtrl *n, char *err, size_t errlen);  /* always refused */

#endif
