/*
 * The error log (poller thread): the poller adds an entry for every command that completes
 * with an error at fetch, cmd/health/media.c for a read the media failed after it. The newest
 * FEMU_ELPE + 1 entries are kept in a ring; the count goes on (SMART's Number of Error
 * Information Log Entries).
 */
#include "qemu/osdep.h"

#include "cmd/health/error_log.h"

void femu_error_log_add(FemuCtrl *n, const FemuRequest *req, uint32_t nsid, uint64_t lba)
{
    NvmeErrorLog *entry = &n->errlog.entries[n->errlog.next];

    memset(entry, 0, sizeof(*entry));
    entry->error_count = cpu_to_le64(++n->errlog.count);
    entry->sqid = cpu_to_le16(req->sqid);
    entry->cid = cpu_to_le16(req->cid);
    entry->status_field = cpu_to_le16(req->status << 1);
    entry->param_error_location = cpu_to_le16(0xffff);   /* not tracked */
    entry->lba = cpu_to_le64(lba);
    entry->nsid = cpu_to_le32(nsid);
    n->errlog.next = (n->errlog.next + 1) % ARRAY_SIZE(n->errlog.entries);
}

/* 01h Error Information: 64-byte entries, newest first. Global to the controller. */
void femu_error_log_page(FemuCtrl *n, NvmeErrorLog *entries)
{
    size_t count = ARRAY_SIZE(n->errlog.entries);

    for (size_t i = 0; i < count; i++) {
        entries[i] = n->errlog.entries[(n->errlog.next + count - 1 - i) % count];
    }
}
