/*
 * With the PCIe link or controller model on (pcie_gen or ctrl_cores: docs/front.md), a
 * command the device answers itself still crosses the link and takes a core. Every admin
 * command that completes when it runs, and every I/O command that moved data without
 * giving the FTL work (Zone Management Receive, I/O Management Receive), becomes the
 * engine's FTL_OP_ADMIN with the payload its PRPs moved (ctrl/dma.c counts it). It goes
 * to the FTL thread like FTL work, in fetch order, so the engine charges its SQE fetch,
 * core time, data and CQE, the recording holds it (trace N) and the poller posts its CQE
 * at the engine's completion time.
 *
 * Left as they were: a command that failed (answered at once, as an I/O command failed
 * at fetch is), an Asynchronous Event Request and a C2h state save (completed later, by
 * an event or the save), the C0h and C1h vendor commands (work of their own on the FTL
 * thread), and the admin commands that already reach the engine (Format NVM, Volatile
 * Write Cache, a namespace delete's deallocate). With the model off nothing changes, so
 * recordings and completion times are as before it.
 */
#include "qemu/osdep.h"

#include "cmd/core/front_cmd.h"

void femu_front_cmd(FemuCtrl *n, uint16_t qid, const NvmeCmd *cmd, FemuRequest *req)
{
    bool admin = qid == 0;

    if (req->work != FEMU_WORK_NONE || req->status != NVME_SUCCESS || !femu_front_on(n) ||
        (!admin && n->cmd_bytes_in == 0 && n->cmd_bytes_out == 0)) {
        return;
    }
    /* What the command left in req->ftl (ranges it owns included) stays for femu_req_free;
     * the engine reads only these fields of an FTL_OP_ADMIN. */
    req->ftl.op = FTL_OP_ADMIN;
    req->ftl.flags = admin ? 0 : FTL_REQ_IO;
    req->ftl.nsid = le32_to_cpu(cmd->nsid);
    req->ftl.data_in = MIN(n->cmd_bytes_in, UINT32_MAX);   /* no command moves 4 GiB */
    req->ftl.data_out = MIN(n->cmd_bytes_out, UINT32_MAX);
    req->status_on_done = NVME_SUCCESS;     /* the FTL thread completes it with this */
    req->work = FEMU_WORK_FTL;
}
