/*
 * PRP mapping; the rules and the status policy are documented in prp.h.
 */
#include "prp.h"

#include <stdlib.h>

#define PRP_ENTRY_BYTES 8u
/*
 * Entries fetched per read call. A list page can hold up to 16 Mi entries (128 MiB pages),
 * so entries are read in fixed chunks: stack use stays small whatever the page size, and a
 * typical I/O (up to 64 entries after PRP1) still costs one callback.
 */
#define PRP_READ_CHUNK 64u

static bool page_size_valid(uint32_t page_size)
{
    return page_size >= PRP_PAGE_SIZE_MIN && page_size <= PRP_PAGE_SIZE_MAX &&
           (page_size & (page_size - 1)) == 0;
}

/* List entries are little-endian in guest memory whatever the host's byte order. */
static uint64_t load_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < PRP_ENTRY_BYTES; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

void prp_segments_init_fixed(struct prp_segments *out, struct prp_segment *array,
                             size_t capacity)
{
    out->seg = array;
    out->count = 0;
    /* A NULL array holds nothing, whatever capacity the caller claims. */
    out->capacity = array ? capacity : 0;
    out->growable = false;
}

void prp_segments_init_growable(struct prp_segments *out)
{
    out->seg = NULL;
    out->count = 0;
    out->capacity = 0;
    out->growable = true;
}

void prp_segments_free(struct prp_segments *out)
{
    if (out->growable) {
        free(out->seg);
        out->seg = NULL;
        out->capacity = 0;
    }
    out->count = 0;
}

uint64_t prp_segments_bound(uint64_t len, uint32_t page_size)
{
    if (len == 0 || page_size == 0) {
        return 0;
    }
    /* (len - 1) / page_size + 1 pages from a page start, plus one when an offset pushes the
     * last byte into the next page. */
    return (len - 1) / page_size + 2;
}

/*
 * Make room for one more segment. A growable array doubles but never beyond `bound` (the
 * most segments this transfer can produce), so a guest cannot make it allocate more than
 * its own transfer length justifies.
 */
static uint16_t reserve_one(struct prp_segments *out, uint64_t bound)
{
    if (out->count < out->capacity) {
        return NVME_SC_SUCCESS;
    }
    if (!out->growable) {
        return NVME_SC_INTERNAL_ERROR;
    }
    uint64_t want = out->capacity ? (uint64_t)out->capacity * 2 : 16;
    if (want > bound) {
        want = bound;
    }
    if (want <= out->capacity || want > SIZE_MAX / sizeof(struct prp_segment)) {
        return NVME_SC_INTERNAL_ERROR;
    }
    struct prp_segment *grown = realloc(out->seg, (size_t)want * sizeof(*grown));
    if (!grown) {
        return NVME_SC_INTERNAL_ERROR;
    }
    out->seg = grown;
    out->capacity = (size_t)want;
    return NVME_SC_SUCCESS;
}

static uint16_t append(struct prp_segments *out, uint64_t bound, uint64_t addr, uint32_t len)
{
    if (out->count > 0) {
        struct prp_segment *last = &out->seg[out->count - 1];
        uint64_t end = last->addr + last->len;
        /* end > last->addr rules out a range that wraps past 2^64 "touching" a low address. */
        if (end > last->addr && end == addr && (uint64_t)last->len + len <= UINT32_MAX) {
            last->len += len;
            return NVME_SC_SUCCESS;
        }
    }
    uint16_t status = reserve_one(out, bound);
    if (status != NVME_SC_SUCCESS) {
        return status;
    }
    out->seg[out->count].addr = addr;
    out->seg[out->count].len = len;
    out->count++;
    return NVME_SC_SUCCESS;
}

/* A data page entry after PRP1: PRP2 as second page, or a PRP list entry. */
static uint16_t check_page_entry(uint64_t entry, uint64_t page_mask)
{
    if (entry == 0) {
        return NVME_SC_INVALID_FIELD;
    }
    if (entry & page_mask) {
        return NVME_SC_PRP_OFFSET_INVALID;
    }
    return NVME_SC_SUCCESS;
}

/*
 * Walk the PRP list starting at list_addr (already checked: non-zero, qword aligned) for the
 * `remaining` bytes after PRP1's page. Reads exactly the entries the transfer needs: the data
 * entries plus one chain pointer per list page that runs out before the data does.
 */
static uint16_t walk_list(const struct prp_request *req, struct prp_segments *out,
                          uint64_t bound, uint64_t list_addr, uint64_t remaining)
{
    const uint64_t page_size = req->page_size;
    const uint64_t page_mask = page_size - 1;
    uint64_t entries_left = remaining / page_size + (remaining % page_size != 0);
    uint64_t pos = list_addr;
    unsigned char raw[PRP_READ_CHUNK * PRP_ENTRY_BYTES];

    /*
     * Each pass handles one list page. Only the first page can start mid-page (PRP2's
     * offset); later pages are page aligned, so every pass after the first yields at least
     * page_size / 8 - 1 >= 511 data entries, which bounds the passes by the transfer length
     * even when a guest chains a list back onto itself.
     */
    while (entries_left > 0) {
        uint64_t slots = (page_size - (pos & page_mask)) / PRP_ENTRY_BYTES;
        bool chains = entries_left > slots;
        uint64_t data_here = chains ? slots - 1 : entries_left;
        uint64_t to_read = chains ? slots : entries_left;
        uint64_t next_list = 0;

        for (uint64_t done = 0; done < to_read;) {
            uint64_t n = to_read - done;
            if (n > PRP_READ_CHUNK) {
                n = PRP_READ_CHUNK;
            }
            if (req->read(req->opaque, pos + done * PRP_ENTRY_BYTES, raw,
                          (size_t)n * PRP_ENTRY_BYTES) != 0) {
                return NVME_SC_DATA_TRANSFER_ERROR;
            }
            for (uint64_t i = 0; i < n; i++) {
                uint64_t entry = load_le64(raw + i * PRP_ENTRY_BYTES);
                /* Data entries and the next list page share the zero-offset rule. */
                uint16_t status = check_page_entry(entry, page_mask);
                if (status != NVME_SC_SUCCESS) {
                    return status;
                }
                if (done + i < data_here) {
                    uint64_t len = remaining < page_size ? remaining : page_size;
                    status = append(out, bound, entry, (uint32_t)len);
                    if (status != NVME_SC_SUCCESS) {
                        return status;
                    }
                    remaining -= len;
                } else {
                    next_list = entry;
                }
            }
            done += n;
        }
        entries_left -= data_here;
        pos = next_list;
    }
    return NVME_SC_SUCCESS;
}

static uint16_t map(const struct prp_request *req, struct prp_segments *out)
{
    if (!page_size_valid(req->page_size)) {
        return NVME_SC_INTERNAL_ERROR;
    }
    if (req->len == 0) {
        return NVME_SC_SUCCESS;
    }
    if (req->len > req->max_len) {
        return NVME_SC_INVALID_FIELD;
    }

    const uint64_t page_size = req->page_size;
    const uint64_t page_mask = page_size - 1;
    const uint64_t bound = prp_segments_bound(req->len, req->page_size);

    if (req->prp1 == 0) {
        return NVME_SC_INVALID_FIELD;
    }
    if (req->prp1 & 0x3) {
        return NVME_SC_PRP_OFFSET_INVALID;
    }
    uint64_t first = page_size - (req->prp1 & page_mask);
    if (first > req->len) {
        first = req->len;
    }
    uint16_t status = append(out, bound, req->prp1, (uint32_t)first);
    if (status != NVME_SC_SUCCESS) {
        return status;
    }
    uint64_t remaining = req->len - first;
    if (remaining == 0) {
        /* PRP2 is reserved for this transfer: ignored, not validated. */
        return NVME_SC_SUCCESS;
    }

    if (remaining <= page_size) {
        status = check_page_entry(req->prp2, page_mask);
        if (status != NVME_SC_SUCCESS) {
            return status;
        }
        return append(out, bound, req->prp2, (uint32_t)remaining);
    }

    /* PRP2 is a list pointer: any offset, but entries are qwords so it must be qword aligned. */
    if (req->prp2 == 0) {
        return NVME_SC_INVALID_FIELD;
    }
    if (req->prp2 & 0x7) {
        return NVME_SC_PRP_OFFSET_INVALID;
    }
    if (!req->read) {
        return NVME_SC_INTERNAL_ERROR;
    }
    return walk_list(req, out, bound, req->prp2, remaining);
}

uint16_t prp_map(const struct prp_request *req, struct prp_segments *out)
{
    if (!out) {
        return NVME_SC_INTERNAL_ERROR;
    }
    out->count = 0;
    if (!req) {
        return NVME_SC_INTERNAL_ERROR;
    }
    uint16_t status = map(req, out);
    if (status != NVME_SC_SUCCESS) {
        out->count = 0;
    }
    return status;
}
