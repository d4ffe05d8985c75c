/*
 * libFuzzer target: the PRP walker (hw/femu/nvme/prp.h). The input's first 29 bytes are
 * the command (PRP1, PRP2, length, CC.MPS, MDTS shift); the rest is guest memory from
 * address 0, which list reads come from (a read past it fails, as unmapped memory does).
 * Checked: a success covers exactly the length in segments inside the bound, a failure
 * has no segments, and the walker reads no more list entries than the transfer needs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prp.h"

struct memory {
    const uint8_t *bytes;
    size_t size;
    uint64_t entries_read;
};

static int read_memory(void *opaque, uint64_t addr, void *buf, size_t len)
{
    struct memory *m = opaque;
    if (addr > m->size || len > m->size - addr) {
        return -1;
    }
    memcpy(buf, m->bytes + addr, len);
    m->entries_read += len / 8;
    return 0;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 29) {
        return 0;
    }
    struct memory m = { data + 29, size - 29, 0 };
    uint32_t page_size = PRP_PAGE_SIZE_MIN << (data[24] % 16);
    uint8_t mdts = data[25] % 24;   /* 0: no limit, else 2^mdts pages */
    struct prp_request req = {
        .prp1 = get64(data),
        .prp2 = get64(data + 8),
        /* up to 64 MiB, so a growable list stays within the memory limit */
        .len = get64(data + 16) & ((UINT64_C(1) << 26) - 1),
        .page_size = page_size,
        .max_len = mdts ? (uint64_t)page_size << mdts : UINT64_MAX,
        .read = read_memory,
        .opaque = &m,
    };
    struct prp_segments out;
    prp_segments_init_growable(&out);
    uint16_t status = prp_map(&req, &out);
    uint64_t total = 0;
    for (size_t i = 0; i < out.count; i++) {
        total += out.seg[i].len;
    }
    uint64_t pages = req.len ? (req.len - 1) / page_size + 2 : 0;
    /* data pages, plus one chain pointer per list page */
    uint64_t most_entries = pages + pages / (page_size / 8 - 1) + 1;
    if ((status == 0 && (total != req.len ||
                         out.count > prp_segments_bound(req.len, page_size))) ||
        (status != 0 && out.count != 0) || m.entries_read > most_entries) {
        fprintf(stderr, "fuzz: status 0x%x, %zu segments of %llu bytes for %llu, %llu "
                "entries read\n", status, out.count, (unsigned long long)total,
                (unsigned long long)req.len, (unsigned long long)m.entries_read);
        abort();
    }
    prp_segments_free(&out);
    return 0;
}
