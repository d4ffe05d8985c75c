/*
 * The register file: the controller registers below the doorbells, as little-endian words
 * in n->regs. vCPUs store what the host writes (top/bar0.c) and the poller reads them;
 * only the state machine writes CSTS (top/ctrl_state.c). Each access is one atomic word,
 * so no lock is shared between the vCPUs and the poller.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"

#include "ctrl/regs.h"

static uint32_t *femu_reg32(FemuCtrl *n, unsigned offset)
{
    return (uint32_t *)&n->regs[offset];
}

uint32_t femu_reg_read32(FemuCtrl *n, unsigned offset)
{
    return le32_to_cpu(qatomic_read(femu_reg32(n, offset)));
}

uint64_t femu_reg_read64(FemuCtrl *n, unsigned offset)
{
    return femu_reg_read32(n, offset) | (uint64_t)femu_reg_read32(n, offset + 4) << 32;
}

void femu_reg_write32(FemuCtrl *n, unsigned offset, uint32_t value)
{
    qatomic_set(femu_reg32(n, offset), cpu_to_le32(value));
}

void femu_regs_init(FemuCtrl *n)
{
    uint64_t cap = 0;

    memset(n->regs, 0, sizeof(n->regs));
    NVME_CAP_SET_MQES(cap, FEMU_MAX_QSIZE - 1);
    NVME_CAP_SET_CQR(cap, 1);
    NVME_CAP_SET_TO(cap, FEMU_CAP_TIMEOUT);
    NVME_CAP_SET_CSS(cap, NVME_CAP_CSS_NCSS);
    if (n->zoned_sectors || n->kv_offered) {
        /* CC.CSS 110b may then select the Zoned Namespace or Key Value command set too */
        NVME_CAP_SET_CSS(cap, NVME_CAP_CSS_IOCSS);
    }
    NVME_CAP_SET_MPSMIN(cap, 0);
    NVME_CAP_SET_MPSMAX(cap, FEMU_MPSMAX);
    femu_reg_write32(n, NVME_REG_CAP, (uint32_t)cap);
    femu_reg_write32(n, NVME_REG_CAP + 4, (uint32_t)(cap >> 32));
    femu_reg_write32(n, NVME_REG_VS, 0x00010400);   /* NVMe 1.4 */
}

/* Machine or function reset: the registers the host writes go back to 0. */
void femu_regs_clear(FemuCtrl *n)
{
    static const unsigned cleared[] = {
        NVME_REG_INTMS, NVME_REG_INTMC, NVME_REG_AQA, NVME_REG_ASQ, NVME_REG_ASQ + 4,
        NVME_REG_ACQ, NVME_REG_ACQ + 4, NVME_REG_CC,
    };

    for (unsigned i = 0; i < ARRAY_SIZE(cleared); i++) {
        femu_reg_write32(n, cleared[i], 0);
    }
}
