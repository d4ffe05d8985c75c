/*
 * PRP mapping: turn an NVMe command's data pointer (PRP1, PRP2 and any PRP lists) into an
 * ordered list of guest-physical segments, validating every entry the guest supplied.
 *
 * Plain C11, no QEMU header, no global state. Guest memory is only ever read through the
 * caller's callback, and only for PRP list entries the transfer actually needs, so a hostile
 * list can neither make the walker read past the transfer nor loop: the number of entries
 * read is at most the number of data pages plus one chain pointer per list page.
 *
 * Rules applied (NVM Express Base Specification 2.x, "Physical Region Page Entry and List"):
 *
 *  - A PRP entry is a page base address plus an offset in the low log2(page_size) bits; the
 *    page size is the host's CC.MPS setting, 2^(12 + MPS) bytes.
 *  - PRP1 is the first data page and may carry a non-zero offset, which must be dword
 *    aligned (bits 1:0 clear). The spec lets a controller either ignore bits 1:0 or report
 *    PRP Offset Invalid; femu reports PRP Offset Invalid (0x13).
 *  - When the rest of the transfer fits in one more page, PRP2 is that page and must have a
 *    zero offset (else PRP Offset Invalid). When it needs more, PRP2 points to a PRP list; the
 *    list pointer may have a non-zero offset but must be qword aligned (else PRP Offset
 *    Invalid). When the transfer ends inside PRP1's page, PRP2 is reserved and ignored.
 *  - Entries in a PRP list must have a zero offset (else PRP Offset Invalid). When more
 *    entries remain than fit in the list page, the last entry of the page points to the next
 *    list page, which must be page aligned (else PRP Offset Invalid). The entry count is
 *    implied by the length: entries after the last needed one are never read.
 *  - List entries are little-endian 64-bit values.
 *
 * femu policy, where the spec names no status:
 *
 *  - A PRP entry the transfer needs (PRP1, PRP2, a list entry or a chain pointer) whose value
 *    is 0 is treated as an unset field: Invalid Field in Command (0x02). It is checked before
 *    the offset, so a zero entry never reads as a misaligned one.
 *  - A length above max_len (the controller's MDTS in bytes): Invalid Field in Command (0x02).
 *  - A zero-byte transfer needs no PRP entry: it succeeds with zero segments and nothing,
 *    not even PRP1, is examined. Rejecting a zero-length command (e.g. NLB overflow) is the
 *    caller's job.
 *  - A read callback failure: Data Transfer Error (0x04); nothing further is read.
 *  - Caller mistakes (bad page size, missing callback, output array too small, out of
 *    memory): Internal Error (0x06). A caller that sizes a fixed array with
 *    prp_segments_bound() never sees it for a guest's mistake.
 *
 * Addresses are not range-checked here: the segments are guest-physical, and the caller's
 * DMA layer decides which guest addresses exist.
 */
#ifndef FEMU_NVME_PRP_H
#define FEMU_NVME_PRP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvme_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Page sizes CC.MPS can express: 2^12 (MPS 0) to 2^27 (MPS 15) bytes. */
#define PRP_PAGE_SIZE_MIN   (UINT32_C(1) << 12)
#define PRP_PAGE_SIZE_MAX   (UINT32_C(1) << 27)

/*
 * Read len bytes of guest memory at guest-physical addr into buf. Called only for PRP list
 * entries: addr is 8-byte aligned, len is a non-zero multiple of 8, and [addr, addr + len)
 * never crosses a page boundary. Return 0 on success, non-zero when the memory cannot be read.
 */
typedef int (*prp_read_fn)(void *opaque, uint64_t addr, void *buf, size_t len);

struct prp_request {
    uint64_t prp1, prp2;    /* the command's data pointer, as the guest wrote it */
    uint64_t len;           /* bytes to transfer, from the command (e.g. NLB x LBA size) */
    uint32_t page_size;     /* host memory page size, 2^(12 + CC.MPS) */
    uint64_t max_len;       /* largest transfer accepted, in bytes (MDTS); UINT64_MAX when
                             * MDTS is 0 (no limit) */
    prp_read_fn read;       /* reads PRP list entries; may be NULL if lists are never needed */
    void *opaque;           /* passed to read */
};

/* One physically contiguous guest range. */
struct prp_segment {
    uint64_t addr;
    uint32_t len;
};

/*
 * Output list. Either fixed (the caller's array, never reallocated) or growable (allocated
 * and grown by prp_map, released with prp_segments_free). Physically contiguous neighbours
 * are merged as long as the merged length fits in 32 bits.
 */
struct prp_segments {
    struct prp_segment *seg;
    size_t count;
    size_t capacity;
    bool growable;
};

/* Fixed output over array[capacity]. */
void prp_segments_init_fixed(struct prp_segments *out, struct prp_segment *array,
                             size_t capacity);
/* Empty growable output; allocates nothing until prp_map needs it. */
void prp_segments_init_growable(struct prp_segments *out);
/* Release a growable output's array (no-op for fixed); the output is empty afterwards. */
void prp_segments_free(struct prp_segments *out);

/*
 * Most segments a transfer of len bytes can map to, at any PRP1 offset: the number of pages
 * it can touch, floor((len - 1) / page_size) + 2, or 0 for len 0. A fixed array this large
 * always suffices. page_size must be non-zero.
 */
uint64_t prp_segments_bound(uint64_t len, uint32_t page_size);

/*
 * Map req into out. Returns an NVMe status ((SCT << 8) | SC, see nvme_status.h): 0 with
 * out->count segments covering exactly req->len bytes in transfer order, or a generic error
 * code with out->count 0. Never reads guest memory except through req->read, and never
 * past the entries the transfer needs.
 */
uint16_t prp_map(const struct prp_request *req, struct prp_segments *out);

#ifdef __cplusplus
}
#endif

#endif
