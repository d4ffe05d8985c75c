/*
 * Dispatch by the command sets' tables (poller thread), and log page 05h copied from them
 * (cmd/core/cmd_set.h). The poller has already refused fused commands and SGLs; what reaches
 * here is one opcode of one set.
 */
#include "qemu/osdep.h"

#include "cmd/core/cmd_set.h"
#include "cmd/core/ns_table.h"

static bool femu_cmd_supported(uint32_t effects)
{
    return effects & NVME_CMD_EFF_CSUPP;
}

/* An I/O command set's row as the controller offers it now: its effects, or 0. */
static uint32_t femu_io_effects(FemuCtrl *n, const FemuIoCmd *io)
{
    return io->offered && !io->offered(n) ? 0 : io->effects;
}

uint16_t femu_admin_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    const FemuAdminCmd *admin = &n->admin_cmds[cmd->opcode];

    if (!femu_cmd_supported(admin->effects)) {
        return femu_dnr(NVME_INVALID_OPCODE);
    }
    return admin->run(n, cmd, req);
}

void femu_cmd_set_select(FemuCtrl *n, FemuNamespace *ns)
{
    ns->io_cmds = n->io_cmds[femu_ns_csi(ns)];
}

/*
 * An opcode no I/O command set has is refused before its NSID is looked at; one that some
 * set has goes to the namespace's set, which may not have it (Zone Append on a
 * conventional namespace, Write Uncorrectable on the zoned one).
 */
uint16_t femu_io_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    const FemuIoCmd *nvm = &n->io_cmds[NVME_CSI_NVM][cmd->opcode], *io;
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    FemuNamespace *ns;
    uint16_t status;

    if (!femu_cmd_supported(femu_io_effects(n, nvm) |
                            femu_io_effects(n, &n->io_cmds[FEMU_CSI_KV][cmd->opcode]) |
                            femu_io_effects(n, &n->io_cmds[NVME_CSI_ZONED][cmd->opcode]))) {
        return femu_dnr(NVME_INVALID_OPCODE);
    }
    if (nsid == NVME_NSID_BROADCAST && nvm->all_namespaces) {
        return nvm->run(n, NULL, cmd, req);
    }
    status = femu_ns_for_io(n, nsid, &ns);
    if (status) {
        return status;
    }
    io = &ns->io_cmds[cmd->opcode];
    if (!femu_cmd_supported(femu_io_effects(n, io))) {
        return femu_dnr(NVME_INVALID_OPCODE);
    }
    return io->run(n, ns, cmd, req);
}

/*
 * 05h Commands Supported and Effects: the admin commands, and the I/O commands of the
 * command set CSI names (00h NVM; 01h Key Value and 02h Zoned while CC.CSS enables them).
 */
uint16_t femu_cmd_effects_log(FemuCtrl *n, uint8_t csi, NvmeEffectsLog *log)
{
    const FemuIoCmd *io;

    if (csi == NVME_CSI_NVM || (csi == NVME_CSI_ZONED && femu_zns_enabled(n)) ||
        (csi == FEMU_CSI_KV && femu_kv_enabled(n))) {
        io = n->io_cmds[csi];
    } else {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    for (unsigned op = 0; op < FEMU_OPCODES; op++) {
        log->acs[op] = cpu_to_le32(n->admin_cmds[op].effects);
        log->iocs[op] = cpu_to_le32(femu_io_effects(n, &io[op]));
    }
    return NVME_SUCCESS;
}
