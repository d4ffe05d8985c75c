/*
 * Media errors (poller thread): the LBAs a read fails on, and how the host learns of them.
 *
 * n->uncorrectable marks the FTL sectors whose data cannot be read: those a Write
 * Uncorrectable named, and every sector of a flash page whose read the FTL failed (its
 * fault injection, read_uncor_ppm). A Read, Compare or Verify touching a marked sector
 * completes with Unrecovered Read Error once its flash reads are done (cmd/io/nvm.c); a
 * Write, Write Zeroes, deallocate, Format or namespace delete clears the marks of what it
 * covers. An LBA is marked when any of its sectors is.
 *
 * The host finds the marked LBAs with Get LBA Status (86h) and in the LBA Status
 * Information log (0Eh). femu knows every such LBA (it keeps no estimate), so Action Types
 * 10h (a scan: untracked and tracked LBAs) and 11h (tracked LBAs) return the same list, and
 * the log recommends 11h. With LBA Status Information Notices enabled (Asynchronous Event
 * Configuration bit 13), the first LBAs marked since the host last read the log raise an
 * LBA Status Information Alert at once: femu's report interval (LSIRI) is 0.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"

#include "cmd/core/aer.h"
#include "cmd/core/cmd.h"
#include "cmd/core/ns_table.h"
#include "cmd/health/error_log.h"
#include "cmd/health/media.h"
#include "ctrl/dma.h"

/* Get LBA Status (NVMe base specification 2.0). */
#define FEMU_ATYPE_SCAN             0x10    /* untracked and tracked: a scan */
#define FEMU_ATYPE_TRACKED          0x11    /* tracked potentially unrecoverable LBAs */
#define FEMU_CMPC_INCOMPLETE        1       /* more descriptors than the host could take */
#define FEMU_CMPC_COMPLETE          2       /* the whole range, every descriptor */
#define FEMU_LBA_STATUS_HEADER      8       /* NLSD (4 bytes), CMPC, 3 reserved */
#define FEMU_LBA_STATUS_DESC        16      /* DSLBA (8), NLB (4, 0-based), rsvd, status */
#define FEMU_LBA_STATUS_MAY_FAIL    0x01    /* status: each LBA may fail with Unrecovered Read
                                             * Error (bit 1, Write Uncorrectable origin, is
                                             * left clear: "may or may not") */
#define FEMU_LBA_STATUS_MAX_BYTES   (UINT64_C(1) << 20)     /* per command, whatever MNDW */

/* LBA Status Information log. */
#define FEMU_LSLOG_HEADER           16      /* LSLPLEN, NLSLNE, ESTULB, 2 reserved, LSGC */
#define FEMU_LSLOG_ELEMENT          16      /* NEID, NLRD, RATYPE, 7 reserved */
#define FEMU_LSLOG_RANGE            16      /* RSLBA (8), RNLB (4, 0-based), 4 reserved */
#define FEMU_LSLOG_MAX_RANGES       256     /* per namespace element */
#define FEMU_LSLOG_WHOLE_NS         UINT32_MAX  /* NLRD: no list, examine the namespace */

/* LBA Status Information Alert: a notice, reported with log page 0Eh. */
#define FEMU_AER_TYPE_NOTICE        2
#define FEMU_AER_LBA_STATUS_ALERT   0x05
#define FEMU_AEC_LBA_STATUS_NOTICES (1u << 13)

/* Descriptor and range lengths are 0-based 32-bit counts. */
#define FEMU_MAX_RANGE_LBAS         (UINT64_C(1) << 32)

/* ---- The marks ---- */

/*
 * The LBA Status Generation Counter counts the times the log came to hold LBAs the host's
 * last read of it did not: it moves with the first LBAs marked after a read (later ones
 * join them until the next read), never when marks are cleared.
 *
 * An alert goes out when LBAs are marked, notices are enabled, none is outstanding (one is
 * until the log is read without RAE) and LSGC moved since the host last heard: by an
 * alert, or by reading the log without RAE.
 */
void femu_media_mark(FemuCtrl *n, uint64_t first, uint64_t count)
{
    uint64_t before = lba_bitmap_count(&n->uncorrectable);

    lba_bitmap_set(&n->uncorrectable, first, count);
    if (lba_bitmap_count(&n->uncorrectable) == before) {
        return;
    }
    if (!n->lba_status_fresh) {
        n->lba_status_fresh = true;
        n->lba_status_gen++;            /* 16 bits: FFFFh rolls over to 0h */
    }
    if ((n->features.async_config & FEMU_AEC_LBA_STATUS_NOTICES) && !n->lba_status_alerted &&
        n->lba_status_gen != n->lba_status_alert_gen) {
        n->lba_status_alerted = true;
        n->lba_status_alert_gen = n->lba_status_gen;
        femu_aer_post(n, FEMU_AER_TYPE_NOTICE, FEMU_AER_LBA_STATUS_ALERT,
                      FEMU_LOG_LBA_STATUS);
    }
}

void femu_media_clear(FemuCtrl *n, uint64_t first, uint64_t count)
{
    if (lba_bitmap_count(&n->uncorrectable)) {  /* the common case: nothing marked */
        lba_bitmap_clear(&n->uncorrectable, first, count);
    }
}

void femu_media_reset(FemuCtrl *n)
{
    n->lba_status_alerted = false;      /* a reset dropped the events */
    g_free(n->lba_status_frozen);
    n->lba_status_frozen = NULL;
    n->lba_status_frozen_size = 0;
}

bool femu_media_marked(FemuCtrl *n, const FemuNamespace *ns, uint64_t slba, uint64_t nlb,
                       uint64_t *lba)
{
    uint64_t start, length;

    if (lba_bitmap_count(&n->uncorrectable) == 0 ||
        !lba_bitmap_next_run(&n->uncorrectable, femu_ns_sector(ns, slba),
                             femu_ns_sector(ns, slba + nlb), &start, &length)) {
        return false;
    }
    *lba = (start - ns->base_sector) >> ns->lba_shift;
    return true;
}

/* ---- Runs of marked LBAs ---- */

/* Walks the marked LBAs of [first, end) of a namespace as maximal runs, in LBA order. */
typedef struct FemuMarkedRuns {
    const struct lba_bitmap *marks;
    const FemuNamespace *ns;
    uint64_t next;                      /* FTL sector: where the walk goes on */
    uint64_t end;
} FemuMarkedRuns;

static void femu_runs_init(FemuMarkedRuns *it, FemuCtrl *n, const FemuNamespace *ns,
                           uint64_t first, uint64_t end)
{
    it->marks = &n->uncorrectable;
    it->ns = ns;
    it->next = femu_ns_sector(ns, first);
    it->end = femu_ns_sector(ns, end);
}

/*
 * The next run: *lba and *count LBAs, false when none is left. Sector runs that meet in one
 * LBA or in adjacent LBAs are one run of LBAs.
 */
static bool femu_runs_next(FemuMarkedRuns *it, uint64_t *lba, uint64_t *count)
{
    const FemuNamespace *ns = it->ns;
    uint64_t start, length, first = 0, end = 0;
    bool found = false;

    while (it->next < it->end &&
           lba_bitmap_next_run(it->marks, it->next, it->end, &start, &length)) {
        uint64_t run_first = (start - ns->base_sector) >> ns->lba_shift;
        uint64_t run_end = ((start + length - 1 - ns->base_sector) >> ns->lba_shift) + 1;

        if (found && run_first > end) {
            break;                      /* a gap: that run is the next call's */
        }
        if (!found) {
            first = run_first;
            found = true;
        }
        end = run_end;
        it->next = femu_ns_sector(ns, run_end);
    }
    *lba = first;
    *count = end - first;
    return found;
}

/* ---- Completions ---- */

/* The allocated namespace an NSID names, else NULL (deleted since the fetch, or none). */
static FemuNamespace *femu_media_ns(FemuCtrl *n, uint32_t nsid)
{
    return nsid >= 1 && nsid <= FEMU_MAX_NAMESPACES && n->ns[nsid].allocated ? &n->ns[nsid]
                                                                             : NULL;
}

/*
 * The FTL failed to read flash page error_lpn for req: the sectors of that page inside
 * the request's namespace are marked (the FTL keeps no marks of its own), and the error is
 * logged with the first LBA of the command that lies in the page. A namespace deleted
 * while the read was with the FTL thread gets no marks: sectors outside every namespace
 * must hold none (a state file with them could not be restored).
 */
static void femu_media_page_failed(FemuCtrl *n, const FemuNamespace *ns, FemuRequest *req)
{
    uint64_t per_page = n->ftl_config.secs_per_pg;
    uint64_t first = req->error_lpn * per_page;
    uint64_t start, end;

    if (!ns || ns->zoned || first >= n->capacity_sectors) {
        return;
    }
    start = MAX(first, ns->base_sector);
    end = MIN(first + per_page, ns->base_sector + ns->sectors);
    if (start >= end) {
        return;
    }
    femu_media_mark(n, start, end - start);
    req->error_lba = (MAX(start, req->ftl.slba) - ns->base_sector) >> ns->lba_shift;
}

void femu_media_done(FemuCtrl *n, FemuRequest *req)
{
    FemuNamespace *ns = femu_media_ns(n, req->ftl.nsid);
    uint16_t code = req->status & 0x7ff;     /* SCT and SC, without DNR */

    if (req->media_error) {
        femu_media_page_failed(n, ns, req);
    }
    if (code == NVME_SUCCESS) {
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "femu: sqid %u cid %u nsid %u: status 0x%x after the "
                  "flash work\n", req->sqid, req->cid, req->ftl.nsid, req->status);
    femu_error_log_add(n, req, req->ftl.nsid, req->error_lba);
    if (code == NVME_UNRECOVERED_READ) {
        n->smart.media_errors++;
        if (ns) {
            ns->smart.media_errors++;
        }
    }
}

/* ---- Get LBA Status ---- */

/*
 * Append the descriptors of a run (one per 2^32 LBAs); false when max is reached first.
 * Descriptors go to buf + FEMU_LBA_STATUS_HEADER, *count of them so far.
 */
static bool femu_lba_status_put(uint8_t *buf, uint32_t *count, uint32_t max, uint64_t lba,
                                uint64_t nlb)
{
    while (nlb > 0) {
        uint64_t piece = MIN(nlb, FEMU_MAX_RANGE_LBAS);
        uint8_t *desc = buf + FEMU_LBA_STATUS_HEADER + (size_t)*count * FEMU_LBA_STATUS_DESC;

        if (*count == max) {
            return false;
        }
        stq_le_p(desc, lba);
        stl_le_p(desc + 8, piece - 1);
        desc[13] = FEMU_LBA_STATUS_MAY_FAIL;
        (*count)++;
        lba += piece;
        nlb -= piece;
    }
    return true;
}

/*
 * Get LBA Status: the marked LBAs of [SLBA, SLBA + RL) (RL 0: to the end of the namespace;
 * a range past the end is cut there) as LBA Status Descriptors, as many as (MNDW + 1)
 * dwords hold (at most 1 MiB, and MDTS). CMPC 2 when every descriptor was returned, 1
 * when more are left (the host asks again from after the last one).
 */
uint16_t femu_get_lba_status(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint64_t slba = femu_cdw(cmd, 10) | (uint64_t)femu_cdw(cmd, 11) << 32;
    uint64_t want = ((uint64_t)femu_cdw(cmd, 12) + 1) * 4;     /* MNDW is 0-based */
    uint32_t range = femu_cdw(cmd, 13) & 0xffff;
    uint8_t atype = femu_cdw(cmd, 13) >> 24;
    uint64_t limit = MIN(want, FEMU_LBA_STATUS_MAX_BYTES), end, lba, nlb;
    uint32_t count = 0, max = 0;
    bool complete = true;
    FemuMarkedRuns runs;
    FemuNamespace *ns;
    uint8_t *buf;
    uint16_t status = femu_ns_for_io(n, le32_to_cpu(cmd->nsid), &ns);

    if (status) {
        return status;
    }
    if (atype != FEMU_ATYPE_SCAN && atype != FEMU_ATYPE_TRACKED) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (slba >= ns->nsze) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    end = range == 0 || range > ns->nsze - slba ? ns->nsze : slba + range;
    if (n->mdts) {
        limit = MIN(limit, UINT64_C(4096) << n->mdts);
    }
    if (limit > FEMU_LBA_STATUS_HEADER) {
        max = (limit - FEMU_LBA_STATUS_HEADER) / FEMU_LBA_STATUS_DESC;
    }
    buf = g_malloc0(FEMU_LBA_STATUS_HEADER + (size_t)max * FEMU_LBA_STATUS_DESC);
    femu_runs_init(&runs, n, ns, slba, end);
    while (complete && femu_runs_next(&runs, &lba, &nlb)) {
        complete = femu_lba_status_put(buf, &count, max, lba, nlb);
    }
    stl_le_p(buf, count);
    buf[4] = complete ? FEMU_CMPC_COMPLETE : FEMU_CMPC_INCOMPLETE;
    status = femu_dma_prp_part(n, cmd, buf,
                               MIN(want, FEMU_LBA_STATUS_HEADER +
                                         (uint64_t)count * FEMU_LBA_STATUS_DESC),
                               want, UINT64_MAX, FEMU_TO_GUEST);
    g_free(buf);
    return status ? femu_dnr(status) : NVME_SUCCESS;
}

/* ---- LBA Status Information log ---- */

/*
 * One LBA Status Log Namespace Element for ns, appended to page, when ns has marked LBAs
 * (false, page unchanged, when it has none): its runs as LBA Range Descriptors, or, past
 * FEMU_LSLOG_MAX_RANGES of them, none and NLRD FFFFFFFFh (examine the whole namespace), so
 * the page stays bounded. *marked grows by the namespace's marked LBAs.
 */
static bool femu_lslog_namespace(FemuCtrl *n, const FemuNamespace *ns, GByteArray *page,
                                 uint64_t *marked)
{
    const uint8_t zero[FEMU_LSLOG_ELEMENT] = { 0 };
    size_t at = page->len;
    uint64_t ranges = 0, lba, nlb;
    FemuMarkedRuns runs;
    uint8_t *element;

    g_byte_array_append(page, zero, FEMU_LSLOG_ELEMENT);
    femu_runs_init(&runs, n, ns, 0, ns->nsze);
    while (femu_runs_next(&runs, &lba, &nlb)) {
        *marked += nlb;
        for (; nlb > 0; ranges++) {
            uint64_t piece = MIN(nlb, FEMU_MAX_RANGE_LBAS);
            uint8_t range[FEMU_LSLOG_RANGE] = { 0 };

            if (ranges < FEMU_LSLOG_MAX_RANGES) {
                stq_le_p(range, lba);
                stl_le_p(range + 8, piece - 1);
                g_byte_array_append(page, range, sizeof(range));
            }
            lba += piece;
            nlb -= piece;
        }
    }
    if (ranges == 0) {
        g_byte_array_set_size(page, at);
        return false;
    }
    if (ranges > FEMU_LSLOG_MAX_RANGES) {
        g_byte_array_set_size(page, at + FEMU_LSLOG_ELEMENT);
    }
    element = page->data + at;
    stl_le_p(element, ns->nsid);                                    /* NEID */
    stl_le_p(element + 4, ranges > FEMU_LSLOG_MAX_RANGES ? FEMU_LSLOG_WHOLE_NS : ranges);
    element[8] = FEMU_ATYPE_TRACKED;                                /* RATYPE */
    return true;
}

/*
 * The page as the marks stand: one element per attached namespace with marked LBAs.
 * ESTULB is the number of marked LBAs (every one is tracked, so the estimate is exact).
 * The host has now seen every LBA marked so far.
 */
static size_t femu_lslog_build(FemuCtrl *n, uint8_t **buf)
{
    const uint8_t zero[FEMU_LSLOG_HEADER] = { 0 };
    GByteArray *page = g_byte_array_new();
    uint32_t elements = 0;
    uint64_t marked = 0;
    size_t size;

    n->lba_status_fresh = false;
    g_byte_array_append(page, zero, sizeof(zero));
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES &&
                            lba_bitmap_count(&n->uncorrectable); nsid++) {
        FemuNamespace *ns = femu_ns_active(n, nsid);

        if (ns && femu_lslog_namespace(n, ns, page, &marked)) {
            elements++;
        }
    }
    size = page->len;
    stl_le_p(page->data, size);                                     /* LSLPLEN */
    stl_le_p(page->data + 4, elements);                             /* NLSLNE */
    stl_le_p(page->data + 8, MIN(marked, UINT32_MAX));              /* ESTULB */
    stw_le_p(page->data + 14, n->lba_status_gen);                   /* LSGC */
    *buf = g_byte_array_free(page, false);
    return size;
}

/*
 * 0Eh LBA Status Information. Once the host reads it with RAE set, the page stays as that
 * read saw it until a read without RAE; that read returns the page as it stands now (so a
 * changed LSGC tells the host there is more), clears an outstanding alert and lets the
 * next marks raise another.
 */
size_t femu_lba_status_log(FemuCtrl *n, uint8_t **buf, bool rae)
{
    if (rae && n->lba_status_frozen) {
        *buf = g_memdup2(n->lba_status_frozen, n->lba_status_frozen_size);
        return n->lba_status_frozen_size;
    }
    return femu_lslog_build(n, buf);
}

void femu_lba_status_log_read(FemuCtrl *n, bool rae, const uint8_t *buf, size_t size)
{
    if (rae) {
        if (!n->lba_status_frozen) {        /* later RAE reads see this same page */
            n->lba_status_frozen = g_memdup2(buf, size);
            n->lba_status_frozen_size = size;
        }
        return;
    }
    femu_media_reset(n);
    n->lba_status_alert_gen = n->lba_status_gen;    /* the host saw it in this read */
}
