/* Wear and fault keys: rated erase cycles, unrecovered read errors, their seed and the
 * factory bad blocks (the bad blocks' share of capacity is checked in config_layout.c). */
#include "config/config_keys.h"

static const struct config_key keys[] = {
    UKEY(pe_cycles, 1, UINT32_MAX, "rated program/erase cycles per block (wear and "
         "percentage used in SMART)"),
    UKEY(read_uncor_ppm, 0, 1000000, "chance in a million that a host read or verify of a "
         "written flash page fails (unrecovered read error); GC reads never fail"),
    UKEY(fault_seed, 0, UINT64_MAX, "seed of the fault injection (read errors, which "
         "blocks are bad): the same seed and I/O give the same faults"),
    UKEY(bad_blk_pcent, 0, 50, "factory bad blocks, percent of each LUN's blocks (rounded "
         "down), never used"),
};

const struct config_key_group config_fault_keys = KEY_GROUP(keys);
