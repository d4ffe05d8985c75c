/*
 * Guest memory access for the poller: DMA through the device's bus-master address space,
 * restricted to memory QEMU copies directly. Each transfer is first checked to resolve to
 * plain RAM (writable for writes), then copied through address_space_map, which decides on
 * one snapshot of the memory map whether the range is such RAM; anything else comes back
 * as a bounce buffer, which is released unused. So no device callback runs, even if the
 * guest changes the memory map between the check and the copy: the poller never touches a
 * register and never waits for the BQL (a write to ROM would take the MMIO path, and the
 * BQL with it, while a vCPU holding the BQL waits for the poller to finish a reset). Data
 * pointers are resolved with the PRP walker.
 */
#include "qemu/osdep.h"
#include "qemu/rcu.h"
#include "hw/pci/pci_device.h"
#include "exec/memory.h"

#include "ctrl/dma.h"

static const MemTxAttrs femu_dma_attrs = { .memory = 1 };

/*
 * Copy between buf and [addr, addr + len) of guest RAM. A piece QEMU cannot map directly
 * (a bounce buffer, recognisable as memory outside every RAM block) fails the transfer
 * without being written back; pieces before it may have been copied, as with a real
 * device's partial DMA.
 */
static bool femu_dma_copy(FemuCtrl *n, uint64_t addr, void *buf, uint64_t len, bool to_guest)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(n));
    uint8_t *p = buf;

    smp_mb();   /* order with the poller's earlier guest accesses, as dma_memory_rw does */
    while (len) {
        hwaddr piece = len;
        ram_addr_t offset;
        void *host = address_space_map(as, addr, &piece, to_guest, femu_dma_attrs);

        if (!host) {
            return false;
        }
        if (!memory_region_from_host(host, &offset)) {
            address_space_unmap(as, host, piece, to_guest, 0);
            return false;
        }
        if (to_guest) {
            memcpy(host, p, piece);
        } else {
            memcpy(p, host, piece);
        }
        address_space_unmap(as, host, piece, to_guest, to_guest ? piece : 0);
        addr += piece;
        p += piece;
        len -= piece;
    }
    return true;
}

uint16_t femu_dma_read(FemuCtrl *n, uint64_t addr, void *buf, uint64_t len)
{
    if (!femu_dma_ram(n, addr, len, false) || !femu_dma_copy(n, addr, buf, len, false)) {
        return NVME_DATA_TRAS_ERROR;
    }
    return NVME_SUCCESS;
}

uint16_t femu_dma_write(FemuCtrl *n, uint64_t addr, const void *buf, uint64_t len)
{
    if (!femu_dma_ram(n, addr, len, true) ||
        !femu_dma_copy(n, addr, (void *)buf, len, true)) {
        return NVME_DATA_TRAS_ERROR;
    }
    return NVME_SUCCESS;
}

/*
 * Whether [addr, addr + len) is guest RAM the device may access directly (writable when
 * `write`): checked before every transfer, and when a queue or doorbell buffer is created
 * so one elsewhere is refused up front.
 */
bool femu_dma_ram(FemuCtrl *n, uint64_t addr, uint64_t len, bool write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(n));

    if (len == 0 || addr + len < addr) {
        return false;
    }
    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, piece = len;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &piece, write,
                                                   femu_dma_attrs);

        /* QEMU's own test for a copy without a device callback (so: without the BQL). */
        if (!memory_region_is_ram(mr) || !memory_access_is_direct(mr, write, femu_dma_attrs) ||
            piece == 0) {
            return false;
        }
        piece = MIN(piece, len);
        addr += piece;
        len -= piece;
    }
    return true;
}

static int femu_prp_list_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    return femu_dma_read(opaque, addr, buf, len) == NVME_SUCCESS ? 0 : -1;
}

/* The segments the command's PRPs name for len bytes, into n->segs (max_len: MDTS). */
static uint16_t femu_prp_segments(FemuCtrl *n, const NvmeCmd *cmd, uint64_t len,
                                  uint64_t max_len)
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

    return prp_map(&req, &n->segs);
}

/*
 * Copy len bytes between buf and the guest memory the command's PRPs name, refusing
 * transfers above max_len (MDTS) with the PRP walker's Invalid Field.
 */
uint16_t femu_dma_prp(FemuCtrl *n, const NvmeCmd *cmd, void *buf, uint64_t len,
                      uint64_t max_len, FemuDmaDir dir)
{
    return femu_dma_prp_part(n, cmd, buf, len, len, max_len, dir);
}

/*
 * The first len bytes of a data buffer of buf_len bytes (len <= buf_len). Whether PRP2
 * names the second page or a PRP list depends on the buffer the command names, not on
 * how much of it is filled: a short log or report into a buffer of more than two pages
 * must go to the list's first page, not into the host's PRP list. The PRPs are read as
 * far as a transfer that needs the list (its first two entries), never further.
 */
uint16_t femu_dma_prp_part(FemuCtrl *n, const NvmeCmd *cmd, void *buf, uint64_t len,
                           uint64_t buf_len, uint64_t max_len, FemuDmaDir dir)
{
    uint64_t page = n->page_size;
    uint64_t first = page - (le64_to_cpu(cmd->dptr.prp1) & (page - 1));
    uint64_t map_len = len;
    uint16_t status;
    uint8_t *pos = buf;

    if (len > first && len <= first + page && buf_len > first + page) {
        map_len = first + page + 1;     /* <= buf_len: PRP2 is read as the list it is */
    }
    status = femu_prp_segments(n, cmd, map_len, max_len);

    for (size_t i = 0; status == NVME_SUCCESS && len && i < n->segs.count; i++) {
        const struct prp_segment *seg = &n->segs.seg[i];
        uint64_t piece = MIN(seg->len, len);

        status = dir == FEMU_TO_GUEST ? femu_dma_write(n, seg->addr, pos, piece)
                                      : femu_dma_read(n, seg->addr, pos, piece);
        if (status == NVME_SUCCESS) {   /* what crossed the link (cmd/core/front_cmd.c) */
            *(dir == FEMU_TO_GUEST ? &n->cmd_bytes_out : &n->cmd_bytes_in) += piece;
        }
        pos += piece;
        len -= piece;
    }
    return status;
}

uint16_t femu_dma_prp_check(FemuCtrl *n, const NvmeCmd *cmd, uint64_t len,
                            uint64_t max_len, FemuDmaDir dir)
{
    uint16_t status = femu_prp_segments(n, cmd, len, max_len);

    for (size_t i = 0; status == NVME_SUCCESS && i < n->segs.count; i++) {
        if (!femu_dma_ram(n, n->segs.seg[i].addr, n->segs.seg[i].len,
                          dir == FEMU_TO_GUEST)) {
            status = NVME_DATA_TRAS_ERROR;
        }
    }
    return status;
}

/* MDTS: the largest transfer, 4 KiB (CAP.MPSMIN) << mdts; mdts=0 sets no limit. */
uint64_t femu_max_transfer(FemuCtrl *n)
{
    return n->mdts ? UINT64_C(4096) << n->mdts : UINT64_MAX;
}
