/*
 * NVM command set I/O commands (poller thread), one function each, listed in the NVM
 * command set's table (top/cmd_tables.c); the zoned namespace's Read, Compare and Verify
 * run them after the zone checks (cmd/io/zns.c). Every field is checked first; then the data
 * moves between guest memory and the data store right away, and the request goes to the
 * FTL thread, which decides when it completes.
 *
 * Media errors (cmd/health/media.c): a Read, Compare or Verify of a range holding a marked
 * (uncorrectable) LBA still goes to the FTL for its flash time, and then completes with
 * Unrecovered Read Error (status_on_done); such a Read moves no data to the guest. Write
 * Uncorrectable marks LBAs at once, with no flash work; Write, Write Zeroes and deallocate
 * clear the marks of what they cover.
 */
#include "qemu/osdep.h"

#include "backend/power_cut.h"
#include "cmd/core/cmd.h"
#include "cmd/core/ns_table.h"
#include "cmd/fdp/fdp.h"
#include "cmd/health/media.h"
#include "cmd/health/smart.h"
#include "cmd/io/nvm.h"
#include "ctrl/dma.h"

#define FEMU_DTYPE_STREAMS 1     /* directive type of the Streams directive */
#define FEMU_RW_PRINFO_SHIFT 26  /* CDW12 bits 29:26: protection information action/check */
#define FEMU_RW_PRINFO_MASK  0xf
#define FEMU_RW_STC          (1u << 24)   /* CDW12: Storage Tag Check */
#define FEMU_RW_FUA          (1u << 30)   /* CDW12: Force Unit Access */

static bool femu_lba_range_ok(const FemuNamespace *ns, uint64_t slba, uint64_t nlb)
{
    return slba < ns->nsze && nlb <= ns->nsze - slba;
}

/* The request's FTL range for LBAs [slba, slba + nlb) of ns. */
static void femu_io_range(FemuRequest *req, const FemuNamespace *ns, uint64_t slba,
                          uint64_t nlb)
{
    req->ftl.slba = femu_ns_sector(ns, slba);
    req->ftl.nlb = nlb << ns->lba_shift;
    req->ftl.nsid = ns->nsid;
}

/*
 * A Write's or Write Zeroes' FUA: the data is programmed before the command completes
 * (the FTL's FTL_REQ_FUA bypasses its write buffer, flushing what that page had there).
 * Only with a write buffer: without one every write completes when programmed, and the
 * flag would change nothing (nor fit the recording's version, top/realize.c).
 */
static void femu_io_fua(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    if ((le32_to_cpu(cmd->cdw12) & FEMU_RW_FUA) && femu_has_write_cache(n)) {
        req->ftl.flags |= FTL_REQ_FUA;
    }
}

static uint8_t *femu_ns_data(FemuCtrl *n, const FemuNamespace *ns, uint64_t slba)
{
    return data_store_at(n->store, femu_ns_sector(ns, slba) * n->secsz);
}

/* placement=stream: the Streams directive's identifier picks the write pointer.
 * (placement=fdp: the Data Placement directive, cmd/fdp/fdp.c.) */
static uint16_t femu_stream_of(FemuCtrl *n, const NvmeCmd *cmd, uint32_t *stream)
{
    uint32_t dtype = (le32_to_cpu(cmd->cdw12) >> 20) & 0xf;
    uint32_t dspec = le32_to_cpu(cmd->cdw13) >> 16;

    *stream = 0;
    if (n->ftl_config.placement != FTL_PLACEMENT_STREAM || dtype != FEMU_DTYPE_STREAMS) {
        return NVME_SUCCESS;
    }
    if (dspec >= n->ftl_config.nstreams) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    *stream = dspec;
    return NVME_SUCCESS;
}

/* A Read, Compare or Verify of marked LBAs: Unrecovered Read Error after the flash reads. */
static void femu_io_fail_on_done(FemuRequest *req, uint64_t lba)
{
    req->status_on_done = femu_dnr(NVME_UNRECOVERED_READ);
    req->error_lba = lba;
}

static uint16_t femu_io_rw(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                           FemuRequest *req, bool write)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);
    uint64_t bytes = nlb * ns->lba_bytes, marked_lba;
    FemuFdpPlacement place = { 0 };
    uint16_t status;

    if (!femu_lba_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    if (write) {   /* the directive fields are reserved on reads */
        status = femu_stream_of(n, cmd, &req->ftl.stream);
        if (status == NVME_SUCCESS) {
            status = femu_fdp_place(n, ns, cmd, &place);
        }
        if (status) {
            return status;
        }
    }
    if (!write && femu_media_marked(n, ns, slba, nlb, &marked_lba)) {
        status = femu_dma_prp_check(n, cmd, bytes, femu_max_transfer(n), FEMU_TO_GUEST);
        if (status) {
            return femu_dnr(status);
        }
        femu_io_fail_on_done(req, marked_lba);
        femu_io_range(req, ns, slba, nlb);
        femu_smart_read(n, ns, 0, true);
        femu_req_ftl(req, FTL_OP_READ);
        return NVME_SUCCESS;
    }
    if (write) {
        femu_power_cut_capture(n, req, femu_ns_sector(ns, slba), (uint64_t)nlb << ns->lba_shift);
    }
    /* Beyond MDTS: Invalid Field, from the PRP walker before any memory is touched. */
    status = femu_dma_prp(n, cmd, femu_ns_data(n, ns, slba), bytes, femu_max_transfer(n),
                          write ? FEMU_FROM_GUEST : FEMU_TO_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    femu_io_range(req, ns, slba, nlb);
    if (write) {
        femu_fdp_placed(n, ns, &place, req);
        femu_io_fua(n, cmd, req);
        lba_bitmap_set(&n->written, req->ftl.slba, req->ftl.nlb);
        femu_media_clear(n, req->ftl.slba, req->ftl.nlb);
        femu_smart_write(n, ns, bytes);
    } else {
        femu_smart_read(n, ns, bytes, true);
    }
    femu_req_ftl(req, write ? FTL_OP_WRITE : FTL_OP_READ);
    return NVME_SUCCESS;
}

uint16_t femu_nvm_write(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    return femu_io_rw(n, ns, cmd, req, true);
}

uint16_t femu_nvm_read(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    return femu_io_rw(n, ns, cmd, req, false);
}

/*
 * Compare and Verify carry no protection information (femu formats none) and no storage
 * tag: PRINFO or STC set is Invalid Field. FUA and LR need nothing: every read is from
 * the media, and nothing is retried.
 */
static uint16_t femu_io_check_prinfo(const NvmeCmd *cmd)
{
    uint32_t cdw12 = le32_to_cpu(cmd->cdw12);

    if ((cdw12 >> FEMU_RW_PRINFO_SHIFT) & FEMU_RW_PRINFO_MASK || cdw12 & FEMU_RW_STC) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    return NVME_SUCCESS;
}

/*
 * Compare: the guest's data (fetched into a buffer, within MDTS) against the store. A
 * mismatch completes with Compare Failure, marked LBAs with Unrecovered Read Error, both
 * after the flash reads: the FTL serves it as a read (counted as one).
 */
uint16_t femu_nvm_compare(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                          FemuRequest *req)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);
    uint64_t bytes = nlb * ns->lba_bytes, marked_lba;
    g_autofree uint8_t *data = NULL;
    uint16_t status = femu_io_check_prinfo(cmd);

    if (status) {
        return status;
    }
    if (!femu_lba_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    if (bytes > femu_max_transfer(n)) {
        return femu_dnr(NVME_INVALID_FIELD);     /* before the buffer is allocated */
    }
    if (femu_media_marked(n, ns, slba, nlb, &marked_lba)) {
        status = femu_dma_prp_check(n, cmd, bytes, femu_max_transfer(n),
                                    FEMU_FROM_GUEST);
        if (status) {
            return femu_dnr(status);
        }
        femu_io_fail_on_done(req, marked_lba);
    } else {
        const uint8_t *stored = femu_ns_data(n, ns, slba);

        data = g_try_malloc(bytes);
        if (!data) {
            return NVME_INTERNAL_DEV_ERROR;
        }
        status = femu_dma_prp(n, cmd, data, bytes, UINT64_MAX, FEMU_FROM_GUEST);
        if (status) {
            return femu_dnr(status);
        }
        for (uint64_t lba = 0; lba < nlb; lba++) {
            uint64_t at = lba * ns->lba_bytes;

            if (memcmp(data + at, stored + at, ns->lba_bytes) != 0) {
                req->status_on_done = femu_dnr(NVME_CMP_FAILURE);
                req->error_lba = slba + lba;    /* the first LBA that differs */
                break;
            }
        }
    }
    femu_io_range(req, ns, slba, nlb);
    femu_smart_read(n, ns, bytes, true);
    femu_req_ftl(req, FTL_OP_READ);
    return NVME_SUCCESS;
}

/* The largest Verify: VSL (Identify CNS 06h) in 4 KiB pages, CAP.MPSMIN. */
static uint64_t femu_verify_limit(void)
{
    return UINT64_C(4096) << FEMU_VSL;
}

/*
 * Verify: the flash reads of the range, no data transfer (the PRPs are not looked at). At
 * most VSL bytes, else Invalid Field; marked LBAs: Unrecovered Read Error after the reads.
 */
uint16_t femu_nvm_verify(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                         FemuRequest *req)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);
    uint64_t bytes = nlb * ns->lba_bytes, marked_lba;
    uint16_t status = femu_io_check_prinfo(cmd);

    if (status) {
        return status;
    }
    if (!femu_lba_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    if (bytes > femu_verify_limit()) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (femu_media_marked(n, ns, slba, nlb, &marked_lba)) {
        femu_io_fail_on_done(req, marked_lba);
    }
    femu_io_range(req, ns, slba, nlb);
    femu_smart_read(n, ns, bytes, false);
    femu_req_ftl(req, FTL_OP_VERIFY);
    return NVME_SUCCESS;
}

/*
 * Write Uncorrectable: the LBAs read as Unrecovered Read Error until written again. It
 * costs no flash time (no FTL request: it completes at once). The LBAs count as allocated
 * (NUSE), as the spec says of a Write Uncorrectable; the data store keeps what it held,
 * which no read can reach until a write or deallocate replaces it.
 */
uint16_t femu_nvm_write_uncor(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                              FemuRequest *req)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);

    if (!femu_lba_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    femu_io_range(req, ns, slba, nlb);
    femu_media_mark(n, req->ftl.slba, req->ftl.nlb);
    lba_bitmap_set(&n->written, req->ftl.slba, req->ftl.nlb);
    return NVME_SUCCESS;    /* req->work stays FEMU_WORK_NONE */
}

/*
 * Write Zeroes: with DEAC a deallocate, else a write of zeroes, placed as a Write is
 * (DTYPE and DSPEC as for Write: placement=fdp, cmd/fdp/fdp.c) and with its FUA. A deallocate
 * has nothing to force: it is in the map, which survives a power cut (docs/ftl.md).
 */
uint16_t femu_nvm_write_zeroes(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                               FemuRequest *req)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);
    bool deallocate = le32_to_cpu(cmd->cdw12) & (1u << 25);
    FemuFdpPlacement place = { 0 };
    uint16_t status;

    if (!femu_lba_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    if (!deallocate) {
        status = femu_fdp_place(n, ns, cmd, &place);
        if (status) {
            return status;
        }
    }
    femu_io_range(req, ns, slba, nlb);
    if (!deallocate) {
        femu_fdp_placed(n, ns, &place, req);
        femu_io_fua(n, cmd, req);
        femu_power_cut_capture(n, req, req->ftl.slba, req->ftl.nlb);
    }
    data_store_discard(n->store, req->ftl.slba * n->secsz, req->ftl.nlb * n->secsz);
    femu_media_clear(n, req->ftl.slba, req->ftl.nlb);
    if (deallocate) {
        lba_bitmap_clear(&n->written, req->ftl.slba, req->ftl.nlb);
    } else {
        lba_bitmap_set(&n->written, req->ftl.slba, req->ftl.nlb);   /* written, with zeroes */
    }
    femu_req_ftl(req, deallocate ? FTL_OP_TRIM : FTL_OP_WRITE);
    return NVME_SUCCESS;
}

/*
 * Deallocate ranges within the advertised limits (DMRL ranges, DMRSL blocks per range and
 * in all ranges together), so one command's cost is bounded whatever the guest queues.
 */
static uint16_t femu_dsm_check(const FemuNamespace *ns, const NvmeDsmRange *ranges,
                               uint32_t nr)
{
    uint64_t total = 0;

    for (uint32_t i = 0; i < nr; i++) {
        uint64_t slba = le64_to_cpu(ranges[i].slba);
        uint32_t nlb = le32_to_cpu(ranges[i].nlb);

        total += nlb;
        if (nlb > ns->dmrsl || total > ns->dmrsl) {
            return NVME_CMD_SIZE_LIMIT;
        }
        if (!femu_lba_range_ok(ns, slba, nlb)) {
            return NVME_LBA_RANGE;
        }
    }
    return NVME_SUCCESS;
}

uint16_t femu_nvm_dsm(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t nr = (le32_to_cpu(cmd->cdw10) & 0xff) + 1;
    bool deallocate = le32_to_cpu(cmd->cdw11) & NVME_DSMGMT_AD;
    NvmeDsmRange ranges[FEMU_DMRL];
    struct ftl_range *dealloc;
    uint16_t status;

    if (!deallocate) {
        return NVME_SUCCESS;   /* attributes only: hints femu has no use for */
    }
    if (nr > FEMU_DMRL) {
        return femu_dnr(NVME_CMD_SIZE_LIMIT);
    }
    status = femu_dma_prp(n, cmd, ranges, nr * sizeof(*ranges), UINT64_MAX, FEMU_FROM_GUEST);
    if (!status) {
        status = femu_dsm_check(ns, ranges, nr);
    }
    if (status) {
        return femu_dnr(status);
    }
    dealloc = g_new(struct ftl_range, nr);
    req->ftl.ranges = dealloc;     /* owned by the request: freed with it */
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t first = femu_ns_sector(ns, le64_to_cpu(ranges[i].slba));
        uint64_t count = (uint64_t)le32_to_cpu(ranges[i].nlb) << ns->lba_shift;

        data_store_discard(n->store, first * n->secsz, count * n->secsz);
        lba_bitmap_clear(&n->written, first, count);
        femu_media_clear(n, first, count);
        dealloc[i] = (struct ftl_range){ .slba = first, .nlb = count };
    }
    req->ftl.nsid = ns->nsid;
    femu_req_ftl(req, FTL_OP_TRIM);
    req->ftl.nranges = nr;
    return NVME_SUCCESS;
}

/* Flush: the data store is the media, so nothing is written back here; the FTL thread
 * drains the FTL's write buffer. ns NULL: NSID FFFFFFFFh, every namespace. */
uint16_t femu_nvm_flush(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    femu_req_ftl(req, FTL_OP_FLUSH);
    req->ftl.nsid = ns ? ns->nsid : 0;
    return NVME_SUCCESS;
}
