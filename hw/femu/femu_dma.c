/*
 * Guest memory access for the poller: raw DMA through the device's bus-master address
 * space (so a disabled bus master or an address that is not memory fails cleanly), and
 * data pointers resolved with the PRP walker.
 */
#include "qemu/osdep.h"
#include "hw/pci/pci_device.h"
#include "system/dma.h"

#include "femu_ctrl.h"

uint16_t femu_dma_read(FemuCtrl *n, uint64_t addr, void *buf, uint64_t len)
{
    if (pci_dma_read(PCI_DEVICE(n), addr, buf, len) != MEMTX_OK) {
        return NVME_DATA_TRAS_ERROR;
    }
    return NVME_SUCCESS;
}

uint16_t femu_dma_write(FemuCtrl *n, uint64_t addr, const void *buf, uint64_t len)
{
    if (pci_dma_write(PCI_DEVICE(n), addr, buf, len) != MEMTX_OK) {
        return NVME_DATA_TRAS_ERROR;
    }
    return NVME_SUCCESS;
}

static int femu_prp_list_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    return femu_dma_read(opaque, addr, buf, len) == NVME_SUCCESS ? 0 : -1;
}

/*
 * Copy len bytes between buf and the guest memory the command's PRPs name, refusing
 * transfers above max_len (MDTS) with the PRP walker's Invalid Field.
 */
uint16_t femu_dma_prp(FemuCtrl *n, const NvmeCmd *cmd, void *buf, uint64_t len,
                      uint64_t max_len, FemuDmaDir dir)
{
    struct prp_request req = {
        .prp1 = le64_to_cpu(cmd->dptr.prp1),
        .prp2 = le64_to_cpu(cmd->dptr.prp2),
        .len = len,
        .page_size = n->page_size,
        .max_len = max_len,
        .read = femu_prp_list_read,
        .opaque = n,
    };
    uint16_t status = prp_map(&req, &n->segs);
    uint8_t *pos = buf;

    for (size_t i = 0; status == NVME_SUCCESS && i < n->segs.count; i++) {
        const struct prp_segment *seg = &n->segs.seg[i];

        status = dir == FEMU_TO_GUEST ? femu_dma_write(n, seg->addr, pos, seg->len)
                                      : femu_dma_read(n, seg->addr, pos, seg->len);
        pos += seg->len;
    }
    return status;
}
