/* Names of the engine's operations, for ftl-sim's messages (op_names.h). */
#include "op_names.h"

const char *sim_op_name(enum ftl_op op)
{
    static const char *const names[] = { [FTL_OP_READ] = "read", [FTL_OP_WRITE] = "write",
                                         [FTL_OP_TRIM] = "deallocate",
                                         [FTL_OP_FLUSH] = "flush",
                                         [FTL_OP_VERIFY] = "verify",
                                         [FTL_OP_FORMAT] = "format",
                                         [FTL_OP_ZONE_WRITE] = "zone write",
                                         [FTL_OP_ZONE_READ] = "zone read",
                                         [FTL_OP_ZONE_MGMT] = "zone management",
                                         [FTL_OP_COPY] = "copy",
                                         [FTL_OP_RUH_UPDATE] = "reclaim unit handle update",
                                         [FTL_OP_SET_WRITE_CACHE] = "write cache switch",
                                         [FTL_OP_KV_STORE] = "key-value store",
                                         [FTL_OP_KV_RETRIEVE] = "key-value retrieve",
                                         [FTL_OP_KV_DELETE] = "key-value delete",
                                         [FTL_OP_KV_EXIST] = "key-value exist",
                                         [FTL_OP_KV_LIST] = "key-value list",
                                         [FTL_OP_KV_CREATE] = "key-value store creation",
                                         [FTL_OP_KV_DESTROY] = "key-value store's end",
                                         [FTL_OP_ADMIN] = "command without FTL work",
                                         [FTL_OP_POWER] = "power management command" };
    return (size_t)op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op]
                                                                     : "request";
}
