/*
 * Every command the controller supports, by command set (cmd/core/cmd_set.h): what log page
 * 05h reports of it and the function that runs it. An opcode without a row is Invalid
 * Command Opcode, and absent from the log. The commands see the tables only through the
 * pointers femu_cmd_tables_install puts in the controller.
 */
#include "qemu/osdep.h"

#include "cmd/admin/admin.h"
#include "cmd/admin/features.h"
#include "cmd/admin/identify.h"
#include "cmd/admin/log.h"
#include "cmd/admin/ns.h"
#include "cmd/core/aer.h"
#include "cmd/core/cmd.h"
#include "cmd/core/cmd_set.h"
#include "cmd/core/ns_table.h"
#include "cmd/fdp/fdp.h"
#include "cmd/fdp/fdp_io.h"
#include "cmd/health/media.h"
#include "cmd/io/copy.h"
#include "cmd/io/kv.h"
#include "cmd/io/nvm.h"
#include "cmd/io/zns.h"
#include "top/cmd_tables.h"
#include "top/state_save.h"

static const FemuAdminCmd femu_admin_cmds[FEMU_OPCODES] = {
    [NVME_ADM_CMD_DELETE_SQ] = { FEMU_EFF_SUPP, femu_adm_delete_sq },
    [NVME_ADM_CMD_CREATE_SQ] = { FEMU_EFF_SUPP, femu_adm_create_sq },
    [NVME_ADM_CMD_GET_LOG_PAGE] = { FEMU_EFF_SUPP, femu_get_log_page },
    [NVME_ADM_CMD_DELETE_CQ] = { FEMU_EFF_SUPP, femu_adm_delete_cq },
    [NVME_ADM_CMD_CREATE_CQ] = { FEMU_EFF_SUPP, femu_adm_create_cq },
    [NVME_ADM_CMD_IDENTIFY] = { FEMU_EFF_SUPP, femu_identify },
    [NVME_ADM_CMD_ABORT] = { FEMU_EFF_SUPP, femu_adm_abort },
    [NVME_ADM_CMD_SET_FEATURES] = { FEMU_EFF_SUPP, femu_set_features },
    [NVME_ADM_CMD_GET_FEATURES] = { FEMU_EFF_SUPP, femu_get_features },
    [NVME_ADM_CMD_ASYNC_EV_REQ] = { FEMU_EFF_SUPP, femu_aer_request },
    [FEMU_ADM_CMD_NS_MANAGEMENT] = { FEMU_EFF_SUPP | NVME_CMD_EFF_NIC, femu_ns_management },
    [NVME_ADM_CMD_NS_ATTACHMENT] = { FEMU_EFF_SUPP | NVME_CMD_EFF_NIC, femu_ns_attachment },
    [NVME_ADM_CMD_DBBUF_CONFIG] = { FEMU_EFF_SUPP, femu_adm_dbbuf_config },
    [NVME_ADM_CMD_FORMAT_NVM] = {
        FEMU_EFF_LBA | NVME_CMD_EFF_NCC | FEMU_EFF_CSE_NS, femu_format_nvm,
    },
    [FEMU_ADM_CMD_GET_LBA_STATUS] = { FEMU_EFF_SUPP, femu_get_lba_status },
    [FEMU_VENDOR_LPN_DUMP] = { FEMU_EFF_SUPP, femu_vendor_lpn_dump },
    [FEMU_VENDOR_PHASE] = { FEMU_EFF_SUPP, femu_vendor_phase },
    [FEMU_VENDOR_SAVE_STATE] = { FEMU_EFF_SUPP, femu_state_vendor_save },
};

static const FemuIoCmd femu_nvm_cmds[FEMU_OPCODES] = {
    [NVME_CMD_FLUSH] = { FEMU_EFF_SUPP, femu_nvm_flush, .all_namespaces = true },
    [NVME_CMD_WRITE] = { FEMU_EFF_LBA, femu_nvm_write },
    [NVME_CMD_READ] = { FEMU_EFF_SUPP, femu_nvm_read },
    [NVME_CMD_WRITE_UNCOR] = { FEMU_EFF_LBA, femu_nvm_write_uncor },
    [NVME_CMD_COMPARE] = { FEMU_EFF_SUPP, femu_nvm_compare },
    [NVME_CMD_WRITE_ZEROES] = { FEMU_EFF_LBA, femu_nvm_write_zeroes },
    [NVME_CMD_DSM] = { FEMU_EFF_LBA, femu_nvm_dsm },
    [NVME_CMD_VERIFY] = { FEMU_EFF_SUPP, femu_nvm_verify },
    [NVME_CMD_COPY] = { FEMU_EFF_LBA, femu_copy },
    /* Flexible Data Placement (placement=fdp) */
    [FEMU_CMD_IO_MGMT_RECV] = {
        FEMU_EFF_SUPP, femu_fdp_io_mgmt_recv, .offered = femu_fdp_offered,
    },
    [FEMU_CMD_IO_MGMT_SEND] = {
        FEMU_EFF_SUPP, femu_fdp_io_mgmt_send, .offered = femu_fdp_offered,
    },
};

/* The zoned namespace: no Write Uncorrectable, DSM has no effect, the zone commands
 * (Linux reads its zoned disk as read only unless Zone Append is listed). */
static const FemuIoCmd femu_zoned_cmds[FEMU_OPCODES] = {
    [NVME_CMD_FLUSH] = { FEMU_EFF_SUPP, femu_nvm_flush },
    [NVME_CMD_WRITE] = { FEMU_EFF_LBA, femu_zns_write },
    [NVME_CMD_READ] = { FEMU_EFF_SUPP, femu_zns_read },
    [NVME_CMD_COMPARE] = { FEMU_EFF_SUPP, femu_zns_compare },
    [NVME_CMD_WRITE_ZEROES] = { FEMU_EFF_LBA, femu_zns_write_zeroes },
    [NVME_CMD_DSM] = { FEMU_EFF_SUPP, femu_zns_dsm },
    [NVME_CMD_VERIFY] = { FEMU_EFF_SUPP, femu_zns_verify },
    [NVME_CMD_COPY] = { FEMU_EFF_LBA, femu_copy },
    [NVME_CMD_ZONE_MGMT_SEND] = { FEMU_EFF_LBA, femu_zns_mgmt_send },
    [NVME_CMD_ZONE_MGMT_RECV] = { FEMU_EFF_SUPP, femu_zns_mgmt_recv },
    [NVME_CMD_ZONE_APPEND] = { FEMU_EFF_LBA, femu_zns_append },
};

/* The Key Value command set (CSI 01h, cmd/io/kv.c): its five commands and Flush. A Store
 * or Delete changes what the namespace holds (LBCC: the set's "content changed"). Offered
 * only with kv_ns_mb, so without it the opcodes stay unknown to the controller. */
static const FemuIoCmd femu_kv_cmds[FEMU_OPCODES] = {
    [NVME_CMD_FLUSH] = { FEMU_EFF_SUPP, femu_nvm_flush, .offered = femu_kv_offered },
    [FEMU_KV_CMD_STORE] = { FEMU_EFF_LBA, femu_kv_store, .offered = femu_kv_offered },
    [FEMU_KV_CMD_RETRIEVE] = { FEMU_EFF_SUPP, femu_kv_retrieve, .offered = femu_kv_offered },
    [FEMU_KV_CMD_LIST] = { FEMU_EFF_SUPP, femu_kv_list, .offered = femu_kv_offered },
    [FEMU_KV_CMD_DELETE] = { FEMU_EFF_LBA, femu_kv_delete, .offered = femu_kv_offered },
    [FEMU_KV_CMD_EXIST] = { FEMU_EFF_SUPP, femu_kv_exist, .offered = femu_kv_offered },
};

void femu_cmd_tables_install(FemuCtrl *n)
{
    n->admin_cmds = femu_admin_cmds;
    n->io_cmds[NVME_CSI_NVM] = femu_nvm_cmds;       /* CSI 00h: the NVM command set */
    n->io_cmds[FEMU_CSI_KV] = femu_kv_cmds;         /* CSI 01h: Key Value */
    n->io_cmds[NVME_CSI_ZONED] = femu_zoned_cmds;   /* CSI 02h: the zoned namespace */
}
