/*
 * The command sets the controller implements, as tables: for each opcode, the entry log
 * page 05h (Commands Supported and Effects) reports and the function that runs it. A table
 * is the only list of what its set supports: the dispatch (cmd/core/cmd_set.c) runs what it
 * marks supported (CSUPP) and answers anything else Invalid Command Opcode, and log page
 * 05h is copied from it, so the log and the controller cannot disagree. A new command is
 * one row in top/cmd_tables.c and one function beside the others of its kind.
 *
 * The tables are defined at the top (top/cmd_tables.c), which sees every command; the
 * commands reach them only through the pointers realize puts in FemuCtrl (the admin set,
 * the I/O sets by CSI) and in each namespace (its set). Get Log Page is a row of the admin
 * table while one of its pages lists that table: named here, they would be a circle.
 */
#ifndef HW_FEMU_CMD_CMD_SET_H
#define HW_FEMU_CMD_CMD_SET_H

#include "femu.h"

/* Commands Supported and Effects entries: supported; supported and changes LBAs. */
#define FEMU_EFF_SUPP       NVME_CMD_EFF_CSUPP
#define FEMU_EFF_LBA        (NVME_CMD_EFF_CSUPP | NVME_CMD_EFF_LBCC)
#define FEMU_EFF_CSE_NS     (1u << 16)      /* CSE 001b: submit alone for the namespace */

/*
 * A command: NVME_SUCCESS (req->work says what the FTL thread does next, FEMU_WORK_NONE
 * to complete at once), NVME_NO_COMPLETE (the request is held: an AER), or an error status.
 * An I/O command gets the namespace its NSID names, or NULL for NSID FFFFFFFFh.
 */
typedef uint16_t FemuAdminFn(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
typedef uint16_t FemuIoFn(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                          FemuRequest *req);

struct FemuAdminCmd {
    uint32_t effects;       /* the log page 05h entry; no CSUPP: not supported */
    FemuAdminFn *run;
};

struct FemuIoCmd {
    uint32_t effects;
    FemuIoFn *run;
    bool all_namespaces;    /* NSID FFFFFFFFh is every namespace (the NVM set's row says) */
    /* A command of an optional capability (FDP's): supported only while this says so;
     * NULL: always. Dispatch and log page 05h both ask. */
    bool (*offered)(FemuCtrl *n);
};

#define FEMU_OPCODES 256    /* rows in every table */

/* A namespace's commands: its command set's table, from the controller's (on creation,
 * and by realize for those a state file restored). */
void femu_cmd_set_select(FemuCtrl *n, FemuNamespace *ns);

/* Poller: an admin command, an I/O command, by their set's table. */
uint16_t femu_admin_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_io_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
/* Log page 05h for command set csi: Invalid Field for a set the controller does not offer
 * now (the zoned one while CC.CSS selects NVM only). */
uint16_t femu_cmd_effects_log(FemuCtrl *n, uint8_t csi, NvmeEffectsLog *log);

#endif
