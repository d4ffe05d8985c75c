/*
 * NVM command set I/O commands (poller thread). Every field is checked first; then the
 * data moves between guest memory and the data store right away, and the request goes to
 * the FTL thread, which decides when it completes.
 */
#include "qemu/osdep.h"

#include "femu_ctrl.h"

#define FEMU_DTYPE_STREAMS 1     /* directive type of the Streams directive */

static uint64_t femu_cmd_slba(const NvmeCmd *cmd)
{
    return le32_to_cpu(cmd->cdw10) | (uint64_t)le32_to_cpu(cmd->cdw11) << 32;
}

static uint32_t femu_cmd_nlb(const NvmeCmd *cmd)
{
    return (le32_to_cpu(cmd->cdw12) & 0xffff) + 1;
}

static bool femu_lba_range_ok(const FemuNamespace *ns, uint64_t slba, uint64_t nlb)
{
    return slba < ns->nsze && nlb <= ns->nsze - slba;
}

/* The request's FTL range for LBAs [slba, slba + nlb) of ns. */
static void femu_io_range(FemuRequest *req, const FemuNamespace *ns, uint64_t slba,
                          uint64_t nlb)
{
    req->io.slba = femu_ns_sector(ns, slba);
    req->io.nlb = nlb << ns->lba_shift;
    req->nsid = ns->nsid;
}

static uint8_t *femu_ns_data(FemuCtrl *n, const FemuNamespace *ns, uint64_t slba)
{
    return data_store_at(n->store, femu_ns_sector(ns, slba) * n->secsz);
}

/* SMART counters, the controller's and the namespace's. */
static void femu_smart_count(FemuCtrl *n, FemuNamespace *ns, uint64_t bytes, bool write)
{
    FemuSmart *counters[] = { &n->smart, &ns->smart };

    for (unsigned i = 0; i < ARRAY_SIZE(counters); i++) {
        if (write) {
            counters[i]->units_written += bytes;
            counters[i]->write_cmds++;
        } else {
            counters[i]->units_read += bytes;
            counters[i]->read_cmds++;
        }
    }
}

static uint64_t femu_max_transfer(FemuCtrl *n)
{
    return n->mdts ? UINT64_C(4096) << n->mdts : UINT64_MAX;
}

/* placement=stream: the Streams directive's identifier picks the write pointer. */
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

static uint16_t femu_io_rw(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                           FemuRequest *req, bool write)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);
    uint64_t bytes = nlb * ns->lba_bytes;
    uint16_t status;

    if (!femu_lba_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    if (write) {   /* the directive fields are reserved on reads */
        status = femu_stream_of(n, cmd, &req->io.stream);
        if (status) {
            return status;
        }
    }
    /* Beyond MDTS: Invalid Field, from the PRP walker before any memory is touched. */
    status = femu_dma_prp(n, cmd, femu_ns_data(n, ns, slba), bytes, femu_max_transfer(n),
                          write ? FEMU_FROM_GUEST : FEMU_TO_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    femu_io_range(req, ns, slba, nlb);
    if (write) {
        lba_bitmap_set(&n->written, req->io.slba, req->io.nlb);
        femu_smart_count(n, ns, bytes, true);
    } else {
        femu_smart_count(n, ns, bytes, false);
    }
    req->op = write ? FEMU_OP_WRITE : FEMU_OP_READ;
    return NVME_SUCCESS;
}

static uint16_t femu_io_write_zeroes(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                                     FemuRequest *req)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);
    bool deallocate = le32_to_cpu(cmd->cdw12) & (1u << 25);

    if (!femu_lba_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    femu_io_range(req, ns, slba, nlb);
    data_store_discard(n->store, req->io.slba * n->secsz, req->io.nlb * n->secsz);
    if (deallocate) {
        lba_bitmap_clear(&n->written, req->io.slba, req->io.nlb);
    } else {
        lba_bitmap_set(&n->written, req->io.slba, req->io.nlb);   /* written, with zeroes */
    }
    req->op = deallocate ? FEMU_OP_TRIM : FEMU_OP_WRITE;
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

static uint16_t femu_io_dsm(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                            FemuRequest *req)
{
    uint32_t nr = (le32_to_cpu(cmd->cdw10) & 0xff) + 1;
    bool deallocate = le32_to_cpu(cmd->cdw11) & NVME_DSMGMT_AD;
    NvmeDsmRange ranges[FEMU_DMRL];
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
    req->ranges = g_new(struct ftl_range, nr);
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t first = femu_ns_sector(ns, le64_to_cpu(ranges[i].slba));
        uint64_t count = (uint64_t)le32_to_cpu(ranges[i].nlb) << ns->lba_shift;

        data_store_discard(n->store, first * n->secsz, count * n->secsz);
        lba_bitmap_clear(&n->written, first, count);
        req->ranges[i] = (struct ftl_range){ .slba = first, .nlb = count };
    }
    req->nsid = ns->nsid;
    req->op = FEMU_OP_DSM;
    req->nranges = nr;
    return NVME_SUCCESS;
}

uint16_t femu_io_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    FemuNamespace *ns;
    uint16_t status;

    if (cmd->opcode == NVME_CMD_FLUSH && nsid == NVME_NSID_BROADCAST) {
        req->op = FEMU_OP_FLUSH;
        return NVME_SUCCESS;
    }
    switch (cmd->opcode) {
    case NVME_CMD_FLUSH:
    case NVME_CMD_WRITE:
    case NVME_CMD_READ:
    case NVME_CMD_WRITE_ZEROES:
    case NVME_CMD_DSM:
        break;
    default:
        return femu_dnr(NVME_INVALID_OPCODE);
    }
    status = femu_ns_for_io(n, nsid, &ns);
    if (status) {
        return status;
    }
    switch (cmd->opcode) {
    case NVME_CMD_WRITE:
        return femu_io_rw(n, ns, cmd, req, true);
    case NVME_CMD_READ:
        return femu_io_rw(n, ns, cmd, req, false);
    case NVME_CMD_WRITE_ZEROES:
        return femu_io_write_zeroes(n, ns, cmd, req);
    case NVME_CMD_DSM:
        return femu_io_dsm(n, ns, cmd, req);
    default:
        req->op = FEMU_OP_FLUSH;   /* the data store is the media: nothing to write back */
        req->nsid = nsid;
        return NVME_SUCCESS;
    }
}
