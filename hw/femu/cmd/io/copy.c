/*
 * Copy (NVM command set, opcode 19h; Simple Copy), poller thread: source ranges of one
 * namespace, in Source Range Entries of descriptor format 0, to one destination range
 * of the same namespace.
 *
 * Everything is checked before anything changes: the command's fields, the entries
 * against the limits Identify Namespace reports (MSRC, MSSRL, MCL: they bound the
 * poller's work and buffer), the ranges against the namespace, marked (uncorrectable)
 * sources, and in the zoned namespace the destination's admission as a write. Then the
 * data moves inside the data store: every source is read into a buffer before the
 * destination is written, so a destination overlapping the sources gets what they held
 * before the command. The written and uncorrectable marks follow the data: the
 * destination holds data where its source did, and no mark. The FTL thread then prices
 * the copy (FTL_OP_COPY: copyback where source and destination share a LUN).
 */
#include "qemu/osdep.h"

#include "backend/ftl_status.h"
#include "cmd/core/cmd.h"
#include "cmd/core/ns_table.h"
#include "cmd/health/media.h"
#include "cmd/health/smart.h"
#include "cmd/io/copy.h"
#include "ctrl/dma.h"

/* Limits: at most 128 ranges and 2 MiB per command, a quarter of it per range. */
#define FEMU_COPY_MSRC          127             /* 0-based */
#define FEMU_COPY_MAX_BYTES     (UINT32_C(2) << 20)
#define FEMU_COPY_RANGE_PARTS   4

/* CDW12 fields. */
#define FEMU_COPY_NR_MASK       0xff            /* bits 7:0, 0-based */
#define FEMU_COPY_DESFMT_SHIFT  8               /* bits 11:8 */
#define FEMU_COPY_PRINFOR_SHIFT 12              /* bits 15:12 */
#define FEMU_COPY_PRINFOW_SHIFT 26              /* bits 29:26 */
#define FEMU_COPY_FIELD_MASK    0xf
#define FEMU_COPY_STCW          (1u << 24)      /* Storage Tag Check Write */

/* Maximum Copy Length, in the namespace's LBAs. */
static uint32_t femu_copy_mcl(const FemuNamespace *ns)
{
    return FEMU_COPY_MAX_BYTES / ns->lba_bytes;
}

/* Maximum Single Source Range Length, in LBAs. */
static uint32_t femu_copy_mssrl(const FemuNamespace *ns)
{
    return femu_copy_mcl(ns) / FEMU_COPY_RANGE_PARTS;
}

void femu_copy_limits(const FemuNamespace *ns, NvmeIdNs *id)
{
    id->mssrl = cpu_to_le16(femu_copy_mssrl(ns));
    id->mcl = cpu_to_le32(femu_copy_mcl(ns));
    id->msrc = FEMU_COPY_MSRC;
}

/*
 * Only descriptor format 0 (OCFS), and no protection information or storage tag: femu
 * formats no metadata, so PRINFOR, PRINFOW or STCW set is Invalid Field, as for Compare.
 * Directives (DTYPE) are hints femu does not apply to a copy.
 */
static uint16_t femu_copy_check_cdw12(uint32_t cdw12)
{
    uint32_t desfmt = (cdw12 >> FEMU_COPY_DESFMT_SHIFT) & FEMU_COPY_FIELD_MASK;
    uint32_t prinfor = (cdw12 >> FEMU_COPY_PRINFOR_SHIFT) & FEMU_COPY_FIELD_MASK;
    uint32_t prinfow = (cdw12 >> FEMU_COPY_PRINFOW_SHIFT) & FEMU_COPY_FIELD_MASK;

    if (desfmt != NVME_COPY_FORMAT_0 || prinfor || prinfow || cdw12 & FEMU_COPY_STCW) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    return NVME_SUCCESS;
}

static bool femu_copy_range_ok(const FemuNamespace *ns, uint64_t slba, uint64_t nlb)
{
    return slba < ns->nsze && nlb <= ns->nsze - slba;
}

/*
 * Fetch the nr Source Range Entries into src (namespace LBAs, nlb 1-based) and check
 * them: a range longer than MSSRL or a total beyond MCL is Command Size Limit Exceeded,
 * a range outside the namespace LBA Out of Range. *total: the LBAs of all ranges.
 */
static uint16_t femu_copy_sources(FemuCtrl *n, const FemuNamespace *ns, const NvmeCmd *cmd,
                                  uint32_t nr, struct ftl_range *src, uint64_t *total)
{
    NvmeCopySourceRangeFormat0_2 entries[FEMU_COPY_MSRC + 1];
    uint16_t status = femu_dma_prp(n, cmd, entries, nr * sizeof(entries[0]), UINT64_MAX,
                                   FEMU_FROM_GUEST);

    if (status) {
        return femu_dnr(status);
    }
    *total = 0;
    for (uint32_t i = 0; i < nr; i++) {
        src[i].slba = le64_to_cpu(entries[i].slba);
        src[i].nlb = (uint64_t)le16_to_cpu(entries[i].nlb) + 1;
        *total += src[i].nlb;
        if (src[i].nlb > femu_copy_mssrl(ns) || *total > femu_copy_mcl(ns)) {
            return femu_dnr(NVME_CMD_SIZE_LIMIT);
        }
        if (!femu_copy_range_ok(ns, src[i].slba, src[i].nlb)) {
            return femu_dnr(NVME_LBA_RANGE);
        }
    }
    return NVME_SUCCESS;
}

/* The FTL's sector for a namespace LBA: zoned sectors in the zoned namespace. */
static uint64_t femu_copy_ftl_sector(const FemuNamespace *ns, uint64_t lba)
{
    return ns->zoned ? lba << ns->lba_shift : femu_ns_sector(ns, lba);
}

/*
 * A source holding a marked LBA: nothing is written, no zone admits anything. The FTL
 * reads that source range's flash (a Verify of it, or in the zoned namespace a zone read
 * it needs no admission for), and the command then completes with Unrecovered Read Error
 * naming the marked LBA, as a Read of it would.
 */
static bool femu_copy_unreadable(FemuCtrl *n, FemuNamespace *ns, const struct ftl_range *src,
                                 uint32_t nr, FemuRequest *req)
{
    uint64_t lba;

    for (uint32_t i = 0; i < nr; i++) {
        if (femu_media_marked(n, ns, src[i].slba, src[i].nlb, &lba)) {
            req->status_on_done = femu_dnr(NVME_UNRECOVERED_READ);
            req->error_lba = lba;
            req->ftl.slba = femu_copy_ftl_sector(ns, src[i].slba);
            req->ftl.nlb = src[i].nlb << ns->lba_shift;
            req->ftl.nsid = ns->nsid;
            femu_req_ftl(req, ns->zoned ? FTL_OP_ZONE_READ : FTL_OP_VERIFY);
            req->ftl.flags = ns->zoned ? FTL_REQ_ADMITTED : 0;
            return true;
        }
    }
    return false;
}

/*
 * The copy's data and written marks, gathered from the sources before anything is
 * written: buf holds the bytes, written one bit per FTL sector of the destination.
 */
typedef struct FemuCopyData {
    uint8_t *buf;
    struct lba_bitmap written;
    uint64_t sectors;
} FemuCopyData;

static void femu_copy_data_free(FemuCopyData *data)
{
    g_free(data->buf);
    if (data->sectors) {
        lba_bitmap_destroy(&data->written);
    }
}

static bool femu_copy_gather(FemuCtrl *n, const FemuNamespace *ns, const struct ftl_range *src,
                             uint32_t nr, uint64_t total, FemuCopyData *data)
{
    uint64_t at = 0;

    data->buf = g_try_malloc(total * ns->lba_bytes);
    if (!data->buf || !lba_bitmap_init(&data->written, total << ns->lba_shift)) {
        return false;
    }
    data->sectors = total << ns->lba_shift;
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t first = femu_ns_sector(ns, src[i].slba);
        uint64_t count = src[i].nlb << ns->lba_shift, start, length;

        data_store_read(n->store, first * n->secsz, data->buf + at * n->secsz,
                        count * n->secsz);
        for (uint64_t from = first;
             lba_bitmap_next_run(&n->written, from, first + count, &start, &length);
             from = start + length) {
            lba_bitmap_set(&data->written, at + start - first, length);
        }
        at += count;
    }
    return true;
}

/*
 * Write the gathered copy at FTL sector dest: data where a source held some, else none.
 * In the zoned namespace every destination sector counts as written, as after a write
 * of zeroes: the write pointer has passed it.
 */
static void femu_copy_scatter(FemuCtrl *n, const FemuNamespace *ns, uint64_t dest,
                              const FemuCopyData *data)
{
    uint64_t at = 0;

    femu_media_clear(n, dest, data->sectors);
    lba_bitmap_clear(&n->written, dest, data->sectors);
    while (at < data->sectors) {
        uint64_t start = data->sectors, length = 0;

        lba_bitmap_next_run(&data->written, at, data->sectors, &start, &length);
        if (start > at) {
            data_store_discard(n->store, (dest + at) * n->secsz, (start - at) * n->secsz);
        }
        if (length) {
            data_store_write(n->store, (dest + start) * n->secsz, data->buf + start * n->secsz,
                             length * n->secsz);
            lba_bitmap_set(&n->written, dest + start, length);
        }
        at = start + length;
    }
    if (ns->zoned) {
        lba_bitmap_set(&n->written, dest, data->sectors);
    }
}

/* The FTL's sources: the ranges in the FTL's sectors. */
static struct ftl_range *femu_copy_ftl_sources(const FemuNamespace *ns,
                                               const struct ftl_range *src, uint32_t nr)
{
    struct ftl_range *ranges = g_new(struct ftl_range, nr);

    for (uint32_t i = 0; i < nr; i++) {
        ranges[i] = (struct ftl_range){ .slba = femu_copy_ftl_sector(ns, src[i].slba),
                                        .nlb = src[i].nlb << ns->lba_shift };
    }
    return ranges;
}

/*
 * Zoned namespace: the FTL admits the copy (sources on no offline zone, the destination
 * as a write at its zone's write pointer) under engine_lock, before any data moves; the
 * FTL thread then only prices it (FTL_REQ_ADMITTED), even when a reset drops the
 * completion, since the write pointer has moved already.
 */
static uint16_t femu_copy_admit_zoned(FemuCtrl *n, const FemuNamespace *ns,
                                      const struct ftl_range *ranges, uint32_t nr,
                                      uint64_t sdlba, FemuRequest *req)
{
    int rc;

    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_zone_admit_copy(n->ftl, ranges, nr, femu_copy_ftl_sector(ns, sdlba));
    qemu_mutex_unlock(&n->engine_lock);
    if (rc != FTL_OK) {
        return femu_ftl_status(rc);
    }
    req->ftl.flags = FTL_REQ_ZONED | FTL_REQ_ADMITTED;
    req->keep_on_reset = true;
    return NVME_SUCCESS;
}

uint16_t femu_copy(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    uint64_t sdlba = femu_cdw(cmd, 10) | (uint64_t)femu_cdw(cmd, 11) << 32;
    uint32_t cdw12 = femu_cdw(cmd, 12);
    uint32_t nr = (cdw12 & FEMU_COPY_NR_MASK) + 1;
    struct ftl_range src[FEMU_COPY_MSRC + 1];
    g_autofree struct ftl_range *ranges = NULL;
    FemuCopyData data = { 0 };
    uint64_t total;
    uint16_t status = femu_copy_check_cdw12(cdw12);

    if (status) {
        return status;
    }
    if (nr > FEMU_COPY_MSRC + 1) {
        return femu_dnr(NVME_CMD_SIZE_LIMIT);
    }
    status = femu_copy_sources(n, ns, cmd, nr, src, &total);
    if (status) {
        return status;
    }
    if (!femu_copy_range_ok(ns, sdlba, total)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    if (femu_copy_unreadable(n, ns, src, nr, req)) {
        femu_smart_write(n, ns, 0);    /* a host write command, of no host data */
        return NVME_SUCCESS;
    }
    if (!femu_copy_gather(n, ns, src, nr, total, &data)) {
        femu_copy_data_free(&data);
        return NVME_INTERNAL_DEV_ERROR;
    }
    ranges = femu_copy_ftl_sources(ns, src, nr);
    if (ns->zoned) {
        status = femu_copy_admit_zoned(n, ns, ranges, nr, sdlba, req);
    }
    if (status == NVME_SUCCESS) {
        femu_copy_scatter(n, ns, femu_ns_sector(ns, sdlba), &data);
        femu_smart_write(n, ns, 0);    /* a host write command, of no host data */
        req->ftl.ranges = g_steal_pointer(&ranges);   /* owned by the request: freed with it */
        req->ftl.nranges = nr;
        req->ftl.slba = femu_copy_ftl_sector(ns, sdlba);
        req->ftl.nlb = total << ns->lba_shift;
        req->ftl.nsid = ns->nsid;
        femu_req_ftl(req, FTL_OP_COPY);
    }
    femu_copy_data_free(&data);
    return status;
}
