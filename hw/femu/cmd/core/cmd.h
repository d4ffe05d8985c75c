/* Reading a submission queue entry: what every command file takes from the NvmeCmd. */
#ifndef HW_FEMU_CMD_CMD_H
#define HW_FEMU_CMD_CMD_H

#include "femu.h"

/* Command dword 10..15. */
static inline uint32_t femu_cdw(const NvmeCmd *cmd, unsigned index)
{
    return ldl_le_p((const uint8_t *)cmd + offsetof(NvmeCmd, cdw10) + 4 * (index - 10));
}

/* An I/O command's SLBA (CDW10-11) and NLB (CDW12[15:0], 1-based here). */
static inline uint64_t femu_cmd_slba(const NvmeCmd *cmd)
{
    return le32_to_cpu(cmd->cdw10) | (uint64_t)le32_to_cpu(cmd->cdw11) << 32;
}

static inline uint32_t femu_cmd_nlb(const NvmeCmd *cmd)
{
    return (le32_to_cpu(cmd->cdw12) & 0xffff) + 1;
}

/* Admin opcodes block/nvme.h does not name (NVMe base specification 2.0). */
#define FEMU_ADM_CMD_NS_MANAGEMENT      0x0d
#define FEMU_ADM_CMD_GET_LBA_STATUS     0x86

#endif
