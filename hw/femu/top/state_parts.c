/* The parts with a section of their own (top/state_parts.h), each coded beside its
 * commands. */
#include "qemu/osdep.h"

#include "top/state_parts.h"
#include "cmd/fdp/fdp_state.h"
#include "cmd/admin/ns_kv_state.h"
#include "cmd/admin/ns_table_state.h"

/* DNST: first, since the sector maps are checked against the namespaces it restores. */
static const FemuStatePart femu_ns_table_part = {
    .tag = FEMU_NS_TABLE_TAG,
    .max_bytes = femu_ns_table_state_bytes,
    .encode = femu_ns_table_encode,
    .restore = femu_ns_table_restore,
    .absent = femu_ns_table_absent,
};

/* DFDP: after the FTL, whose counters bound FDP's statistics' origin. */
static const FemuStatePart femu_fdp_part = {
    .tag = FEMU_FDP_STATE_TAG,
    .after_ftl = true,
    .max_bytes = femu_fdp_state_max_bytes,
    .encode = femu_fdp_state_encode,
    .encode_at_write = femu_fdp_state_encode_events,
    .restore = femu_fdp_state_restore,
    .absent = femu_fdp_state_absent,
    .loaded = femu_fdp_state_loaded,
};

/* DKVV: after the FTL, whose KV stores (KVST) its values are checked against; written
 * and read in pieces (the values may be most of the device). */
static const FemuStatePart femu_kv_values_part = {
    .tag = FEMU_NS_KV_STATE_TAG,
    .after_ftl = true,
    .max_bytes = femu_ns_kv_state_max_bytes,
    .write = femu_ns_kv_state_write,
    .load = femu_ns_kv_state_load,
    .absent = femu_ns_kv_state_absent,
    .ftl_only = femu_ns_kv_state_ftl_only,
};

const FemuStatePart *const femu_state_parts[] = {
    &femu_ns_table_part, &femu_fdp_part, &femu_kv_values_part, NULL,
};
QEMU_BUILD_BUG_ON(ARRAY_SIZE(femu_state_parts) - 1 > FEMU_STATE_MAX_PARTS);
