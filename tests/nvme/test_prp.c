/*
 * PRP mapping tests: hand-built cases for every rule and error, a randomized property test
 * against an independent model of the spec's layout, and a fuzz test over garbage PRPs and
 * list contents. Guest memory is a fake that checks every read the mapper makes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "prp.h"

/* ---- deterministic randomness (fixed seeds) ---- */

struct rng {
    uint64_t state;
};

static uint64_t rng_next(struct rng *r)
{
    /* splitmix64: tiny, full-period and good enough to drive test inputs. */
    uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (modulo bias is irrelevant here). */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
    return rng_next(r) % n;
}

static int rng_percent(struct rng *r, unsigned pct)
{
    return rng_below(r, 100) < pct;
}

/* ---- fake guest memory ---- */

/*
 * A window [base, base + size) of guest-physical memory. Reads outside it fail, as a DMA to
 * unbacked guest memory would. Every read is checked against the callback contract in
 * prp.h, and counted, so tests can assert exactly how much list data the mapper fetched.
 */
struct fake_mem {
    uint64_t base;
    size_t size;
    unsigned char *bytes;
    uint32_t page_size;         /* for the no-page-crossing contract check */

    uint64_t reads;
    uint64_t bytes_read;
    uint64_t contract_violations;
    uint64_t failed_reads;
    uint64_t reads_after_failure;
    int64_t fail_at_read;       /* index of the read to fail on purpose; -1: none */
};

static struct fake_mem *mem_create(uint64_t base, size_t size)
{
    struct fake_mem *m = calloc(1, sizeof(*m));
    if (!m) {
        return NULL;
    }
    m->bytes = calloc(1, size);
    if (!m->bytes) {
        free(m);
        return NULL;
    }
    m->base = base;
    m->size = size;
    m->page_size = 4096;
    m->fail_at_read = -1;
    return m;
}

static void mem_destroy(struct fake_mem *m)
{
    if (m) {
        free(m->bytes);
        free(m);
    }
}

static void mem_reset_counters(struct fake_mem *m, uint32_t page_size)
{
    m->page_size = page_size;
    m->reads = 0;
    m->bytes_read = 0;
    m->contract_violations = 0;
    m->failed_reads = 0;
    m->reads_after_failure = 0;
    m->fail_at_read = -1;
}

static int mem_contains(const struct fake_mem *m, uint64_t addr, uint64_t len)
{
    return addr >= m->base && addr - m->base <= m->size && len <= m->size - (addr - m->base);
}

static int fake_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    struct fake_mem *m = opaque;
    uint64_t index = m->reads++;

    if (m->failed_reads) {
        m->reads_after_failure++;
    }
    if (len == 0 || len % 8 || addr % 8 || addr + len - 1 < addr ||
        addr / m->page_size != (addr + len - 1) / m->page_size) {
        m->contract_violations++;
    }
    m->bytes_read += len;
    if ((int64_t)index == m->fail_at_read || !mem_contains(m, addr, len)) {
        m->failed_reads++;
        return -1;
    }
    memcpy(buf, m->bytes + (addr - m->base), len);
    return 0;
}

static void mem_put64(struct fake_mem *m, uint64_t addr, uint64_t value)
{
    if (!mem_contains(m, addr, 8)) {
        fprintf(stderr, "test bug: put64 outside fake memory at 0x%" PRIx64 "\n", addr);
        abort();
    }
    for (unsigned i = 0; i < 8; i++) {
        m->bytes[addr - m->base + i] = (unsigned char)(value >> (8 * i));
    }
}

/* Entry peek for the reference model: 1 on success. */
static int mem_get64(const struct fake_mem *m, uint64_t addr, uint64_t *value)
{
    if (!mem_contains(m, addr, 8)) {
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++) {
        v |= (uint64_t)m->bytes[addr - m->base + i] << (8 * i);
    }
    *value = v;
    return 1;
}

/* ---- helpers ---- */

#define KiB 1024ull
#define MEM_BASE 0x40000000ull  /* 1 GiB: fake memory window, aligned for every tested page size */
#define MEM_SIZE (4 * 1024 * KiB)
#define PG 4096ull
#define NOLIMIT UINT64_MAX

static uint16_t map_with(struct fake_mem *m, uint64_t prp1, uint64_t prp2, uint64_t len,
                         uint32_t page_size, uint64_t max_len, struct prp_segments *out)
{
    struct prp_request req = {
        .prp1 = prp1, .prp2 = prp2, .len = len, .page_size = page_size, .max_len = max_len,
        .read = fake_read, .opaque = m,
    };
    mem_reset_counters(m, page_size);
    return prp_map(&req, out);
}

/* Segments equal the (addr, len) pairs in want[2 * n]. */
#define CHECK_SEGS(out, n, ...) check_segs(__FILE__, __LINE__, (out), (n), \
                                           (const uint64_t[]){__VA_ARGS__})

static void check_segs(const char *file, int line, const struct prp_segments *out, size_t n,
                       const uint64_t *want)
{
    int ok = out->count == n;
    for (size_t i = 0; ok && i < n; i++) {
        ok = out->seg[i].addr == want[2 * i] && out->seg[i].len == want[2 * i + 1];
    }
    if (!check_record(ok, file, line, "segments match")) {
        fprintf(stderr, "    got %zu:", out->count);
        for (size_t i = 0; i < out->count && i < 8; i++) {
            fprintf(stderr, " {0x%" PRIx64 ", 0x%" PRIx32 "}", out->seg[i].addr,
                    out->seg[i].len);
        }
        fprintf(stderr, "\n    want %zu:", n);
        for (size_t i = 0; i < n && i < 8; i++) {
            fprintf(stderr, " {0x%" PRIx64 ", 0x%" PRIx64 "}", want[2 * i], want[2 * i + 1]);
        }
        fprintf(stderr, "\n");
    }
}

/* Segment fields, or all-ones when i is past the end, so a short result fails a check
 * instead of reading stale array slots. */
static uint64_t seg_addr(const struct prp_segments *out, size_t i)
{
    return i < out->count ? out->seg[i].addr : UINT64_MAX;
}

static uint64_t seg_len(const struct prp_segments *out, size_t i)
{
    return i < out->count ? out->seg[i].len : UINT64_MAX;
}

static uint64_t segs_total(const struct prp_segments *out)
{
    uint64_t total = 0;
    for (size_t i = 0; i < out->count; i++) {
        total += out->seg[i].len;
    }
    return total;
}

/* Data pages used by hand-built cases: outside the fake memory (the mapper never reads
 * data pages), page aligned for 4 KiB and 8 KiB pages. */
#define D0 0x100000000ull
#define D1 0x200000000ull
#define D2 0x300000000ull
#define D3 0x400000000ull
/* List pages inside the fake memory. */
#define L0 (MEM_BASE + 0x10000)
#define L1 (MEM_BASE + 0x20000)
#define L2 (MEM_BASE + 0x30000)

/* ---- hand-built cases ---- */

static void test_single_page(struct fake_mem *m)
{
    struct prp_segment arr[8];
    struct prp_segments out;
    prp_segments_init_fixed(&out, arr, 8);

    /* Whole page, no offset; PRP2 is reserved and ignored even when it is garbage. */
    CHECK_EQ_U64(map_with(m, D0, 0xdeadbeef3, PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 1, D0, PG);
    CHECK_EQ_U64(m->reads, 0);

    /* Offset, transfer ends inside the page. */
    CHECK_EQ_U64(map_with(m, D0 + 0x200, 0, 512, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 1, D0 + 0x200, 512);

    /* Offset, transfer ends exactly at the page end. */
    CHECK_EQ_U64(map_with(m, D0 + 0x200, 0, PG - 0x200, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 1, D0 + 0x200, PG - 0x200);

    /* Smallest transfer at the last dword of a page. */
    CHECK_EQ_U64(map_with(m, D0 + PG - 4, 0, 4, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 1, D0 + PG - 4, 4);

    /* One byte (odd lengths are the caller's business; PRPs only need dword offsets). */
    CHECK_EQ_U64(map_with(m, D0 + 8, 0, 1, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 1, D0 + 8, 1);

    /* 8 KiB pages: an 8 KiB transfer fits in PRP1 alone. */
    CHECK_EQ_U64(map_with(m, D0, 0, 8192, 8192, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 1, D0, 8192);
}

static void test_two_pages(struct fake_mem *m)
{
    struct prp_segment arr[8];
    struct prp_segments out;
    prp_segments_init_fixed(&out, arr, 8);

    CHECK_EQ_U64(map_with(m, D0, D1, 2 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 2, D0, PG, D1, PG);
    CHECK_EQ_U64(m->reads, 0);

    /* Physically contiguous second page merges into one segment. */
    CHECK_EQ_U64(map_with(m, D0, D0 + PG, 2 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 1, D0, 2 * PG);

    /* Offset in PRP1 pushes a one-page transfer across the boundary. */
    CHECK_EQ_U64(map_with(m, D0 + 0x800, D1, PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 2, D0 + 0x800, 0x800, D1, 0x800);

    /* Offset and a full second page: still two pages, PRP2 is data, not a list. */
    CHECK_EQ_U64(map_with(m, D0 + 0x800, D1, 0x800 + PG, 4096, NOLIMIT, &out),
                 NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 2, D0 + 0x800, 0x800, D1, PG);
    CHECK_EQ_U64(m->reads, 0);

    /* Smallest crossing: 4 bytes in each page. */
    CHECK_EQ_U64(map_with(m, D0 + PG - 4, D1, 8, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 2, D0 + PG - 4, 4, D1, 4);
}

static void test_lists(struct fake_mem *m)
{
    struct prp_segment arr[1200];
    struct prp_segments out;
    prp_segments_init_fixed(&out, arr, 1200);

    /* Three pages: PRP1 plus a two-entry list; the slot after the last entry is poison
     * that must not be read. */
    mem_put64(m, L0, D1);
    mem_put64(m, L0 + 8, D2);
    mem_put64(m, L0 + 16, 0x3);
    CHECK_EQ_U64(map_with(m, D0, L0, 3 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 3, D0, PG, D1, PG, D2, PG);
    CHECK_EQ_U64(m->bytes_read, 16);
    CHECK_EQ_U64(m->contract_violations, 0);

    /* Partial last page. */
    CHECK_EQ_U64(map_with(m, D0, L0, 2 * PG + 100, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 3, D0, PG, D1, PG, D2, 100);

    /* PRP1 offset: 0x800 + 4096 + 0x900 spans three pages. */
    CHECK_EQ_U64(map_with(m, D0 + 0x800, L0, 0x800 + PG + 0x900, 4096, NOLIMIT, &out),
                 NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 3, D0 + 0x800, 0x800, D1, PG, D2, 0x900);

    /* Contiguous pages across PRP1 and the list merge. */
    mem_put64(m, L0, D0 + PG);
    mem_put64(m, L0 + 8, D0 + 2 * PG);
    mem_put64(m, L0 + 16, D3);
    CHECK_EQ_U64(map_with(m, D0, L0, 4 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 2, D0, 3 * PG, D3, PG);

    /* Exactly one full list page: 513 pages = PRP1 + 512 entries; the last slot is data,
     * not a chain pointer. */
    for (uint64_t i = 0; i < 512; i++) {
        mem_put64(m, L0 + 8 * i, D1 + 2 * PG * i);
    }
    CHECK_EQ_U64(map_with(m, D0, L0, 513 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_EQ_U64(out.count, 513);
    CHECK_EQ_U64(seg_addr(&out, 512), D1 + 2 * PG * 511);
    CHECK_EQ_U64(segs_total(&out), 513 * PG);
    CHECK_EQ_U64(m->bytes_read, 512 * 8);
    CHECK_EQ_U64(m->contract_violations, 0);

    /* One more page: slot 511 becomes a chain to L1, which holds the last two entries. */
    mem_put64(m, L0 + 8 * 511, L1);
    mem_put64(m, L1, D2);
    mem_put64(m, L1 + 8, D3);
    mem_put64(m, L1 + 16, 0x7);
    CHECK_EQ_U64(map_with(m, D0, L0, 514 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_EQ_U64(out.count, 514);
    CHECK_EQ_U64(seg_addr(&out, 511), D1 + 2 * PG * 510);
    CHECK_EQ_U64(seg_addr(&out, 512), D2);
    CHECK_EQ_U64(seg_addr(&out, 513), D3);
    CHECK_EQ_U64(segs_total(&out), 514 * PG);
    CHECK_EQ_U64(m->bytes_read, (512 + 2) * 8);

    /* Three chained list pages: L0 (511 data + chain) -> L1 (511 data + chain) -> L2. */
    for (uint64_t i = 0; i < 511; i++) {
        mem_put64(m, L1 + 8 * i, D2 + 2 * PG * i);
    }
    mem_put64(m, L1 + 8 * 511, L2);
    mem_put64(m, L2, D3);
    mem_put64(m, L2 + 8, D3 + 2 * PG);
    uint64_t pages = 1 + 511 + 511 + 2;
    CHECK_EQ_U64(map_with(m, D0, L0, pages * PG - 8, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_EQ_U64(out.count, pages);
    CHECK_EQ_U64(seg_addr(&out, pages - 2), D3);
    CHECK_EQ_U64(seg_addr(&out, pages - 1), D3 + 2 * PG);
    CHECK_EQ_U64(seg_len(&out, pages - 1), PG - 8);
    CHECK_EQ_U64(segs_total(&out), pages * PG - 8);
    CHECK_EQ_U64(m->bytes_read, (pages - 1 + 2) * 8);
    CHECK_EQ_U64(m->contract_violations, 0);
}

static void test_list_with_offset(struct fake_mem *m)
{
    struct prp_segment arr[16];
    struct prp_segments out;
    prp_segments_init_fixed(&out, arr, 16);

    /* List pointer with an offset: two slots left in its page, two entries needed: both are
     * data, no chain. */
    uint64_t lp = L0 + PG - 16;
    mem_put64(m, lp, D1);
    mem_put64(m, lp + 8, D2);
    CHECK_EQ_U64(map_with(m, D0, lp, 3 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 3, D0, PG, D1, PG, D2, PG);
    CHECK_EQ_U64(m->contract_violations, 0);

    /* Three entries needed: the second slot is the chain to L1. */
    mem_put64(m, lp + 8, L1);
    mem_put64(m, L1, D2);
    mem_put64(m, L1 + 8, D3);
    CHECK_EQ_U64(map_with(m, D0, lp, 4 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 4, D0, PG, D1, PG, D2, PG, D3, PG);
    CHECK_EQ_U64(m->bytes_read, 4 * 8);
    CHECK_EQ_U64(m->contract_violations, 0);

    /* A single slot left and more than one entry needed: that slot is only a chain. */
    uint64_t last = L0 + PG - 8;
    mem_put64(m, last, L1);
    CHECK_EQ_U64(map_with(m, D0, last, 3 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 3, D0, PG, D2, PG, D3, PG);
    CHECK_EQ_U64(m->bytes_read, 3 * 8);

    /* Qword-aligned offsets are fine in PRP2 (list pointer) even with PRP1 offset. */
    mem_put64(m, L0 + 0x108, D1);
    mem_put64(m, L0 + 0x110, D2);
    CHECK_EQ_U64(map_with(m, D0 + 0x10, L0 + 0x108, 2 * PG + 0x10, 4096, NOLIMIT, &out),
                 NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 3, D0 + 0x10, PG - 0x10, D1, PG, D2, 0x20);
}

static void test_errors(struct fake_mem *m)
{
    struct prp_segment arr[16];
    struct prp_segments out;
    prp_segments_init_fixed(&out, arr, 16);

    /* PRP1 not dword aligned: PRP Offset Invalid for each low-bit pattern. */
    for (uint64_t low = 1; low < 4; low++) {
        CHECK_EQ_U64(map_with(m, D0 + 0x100 + low, D1, 512, 4096, NOLIMIT, &out),
                     NVME_SC_PRP_OFFSET_INVALID);
        CHECK_EQ_U64(out.count, 0);
    }
    /* PRP1 zero. */
    CHECK_EQ_U64(map_with(m, 0, D1, 512, 4096, NOLIMIT, &out), NVME_SC_INVALID_FIELD);

    /* PRP2 needed as second page but zero, or with an offset. */
    CHECK_EQ_U64(map_with(m, D0, 0, 2 * PG, 4096, NOLIMIT, &out), NVME_SC_INVALID_FIELD);
    CHECK_EQ_U64(map_with(m, D0 + 0x800, 0, PG, 4096, NOLIMIT, &out), NVME_SC_INVALID_FIELD);
    CHECK_EQ_U64(map_with(m, D0, D1 + 0x200, 2 * PG, 4096, NOLIMIT, &out),
                 NVME_SC_PRP_OFFSET_INVALID);
    CHECK_EQ_U64(map_with(m, D0, D1 + 2, 2 * PG, 4096, NOLIMIT, &out),
                 NVME_SC_PRP_OFFSET_INVALID);
    CHECK_EQ_U64(out.count, 0);
    /* ... but a zero PRP2 is fine when the transfer ends in PRP1's page. */
    CHECK_EQ_U64(map_with(m, D0 + 0x800, 0, 0x800, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);

    /* PRP2 needed as list pointer but zero, dword- or not qword-aligned. */
    CHECK_EQ_U64(map_with(m, D0, 0, 3 * PG, 4096, NOLIMIT, &out), NVME_SC_INVALID_FIELD);
    CHECK_EQ_U64(map_with(m, D0, L0 + 4, 3 * PG, 4096, NOLIMIT, &out),
                 NVME_SC_PRP_OFFSET_INVALID);
    CHECK_EQ_U64(map_with(m, D0, L0 + 1, 3 * PG, 4096, NOLIMIT, &out),
                 NVME_SC_PRP_OFFSET_INVALID);
    CHECK_EQ_U64(m->reads, 0);

    /* Non-zero offset in a list entry (first, later, and in a 4-byte-aligned form). */
    mem_put64(m, L0, D1 + 0x800);
    mem_put64(m, L0 + 8, D2);
    CHECK_EQ_U64(map_with(m, D0, L0, 3 * PG, 4096, NOLIMIT, &out), NVME_SC_PRP_OFFSET_INVALID);
    CHECK_EQ_U64(out.count, 0);
    mem_put64(m, L0, D1);
    mem_put64(m, L0 + 8, D2 + 4);
    CHECK_EQ_U64(map_with(m, D0, L0, 3 * PG, 4096, NOLIMIT, &out), NVME_SC_PRP_OFFSET_INVALID);
    /* Zero list entry. */
    mem_put64(m, L0 + 8, 0);
    CHECK_EQ_U64(map_with(m, D0, L0, 3 * PG, 4096, NOLIMIT, &out), NVME_SC_INVALID_FIELD);
    /* A bad entry past the needed ones is never looked at. */
    mem_put64(m, L0 + 8, D2);
    mem_put64(m, L0 + 16, D3 + 0x123);
    CHECK_EQ_U64(map_with(m, D0, L0, 3 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);

    /* Chain pointer with an offset, or zero. */
    uint64_t lp = L0 + PG - 16;
    mem_put64(m, lp, D1);
    mem_put64(m, lp + 8, L1 + 0x40);
    mem_put64(m, L1 + 0x40, D2);
    mem_put64(m, L1 + 0x48, D3);
    CHECK_EQ_U64(map_with(m, D0, lp, 4 * PG, 4096, NOLIMIT, &out), NVME_SC_PRP_OFFSET_INVALID);
    mem_put64(m, lp + 8, 0);
    CHECK_EQ_U64(map_with(m, D0, lp, 4 * PG, 4096, NOLIMIT, &out), NVME_SC_INVALID_FIELD);

    /* Transfer over the maximum; exactly the maximum is fine. */
    CHECK_EQ_U64(map_with(m, D0, D1, 2 * PG + 1, 4096, 2 * PG, &out), NVME_SC_INVALID_FIELD);
    CHECK_EQ_U64(map_with(m, D0, D1, 2 * PG, 4096, 2 * PG, &out), NVME_SC_SUCCESS);
    /* The length check comes before any PRP check. */
    CHECK_EQ_U64(map_with(m, D0 + 1, 0, 2 * PG + 1, 4096, 2 * PG, &out),
                 NVME_SC_INVALID_FIELD);

    /* Zero-length transfer: zero segments, nothing examined, even a garbage PRP1. */
    out.count = 5;
    CHECK_EQ_U64(map_with(m, 0x3, 0x5, 0, 4096, 0, &out), NVME_SC_SUCCESS);
    CHECK_EQ_U64(out.count, 0);
    CHECK_EQ_U64(m->reads, 0);

    /* Read callback failure on the first list read, and on a later list page. */
    mem_put64(m, L0, D1);
    mem_put64(m, L0 + 8, D2);
    mem_reset_counters(m, 4096);
    struct prp_request req = {
        .prp1 = D0, .prp2 = L0, .len = 3 * PG, .page_size = 4096, .max_len = NOLIMIT,
        .read = fake_read, .opaque = m,
    };
    m->fail_at_read = 0;
    CHECK_EQ_U64(prp_map(&req, &out), NVME_SC_DATA_TRANSFER_ERROR);
    CHECK_EQ_U64(out.count, 0);
    CHECK_EQ_U64(m->reads, 1);

    mem_put64(m, lp, D1);
    mem_put64(m, lp + 8, L1);
    mem_put64(m, L1, D2);
    mem_put64(m, L1 + 8, D3);
    mem_reset_counters(m, 4096);
    req.prp2 = lp;
    req.len = 4 * PG;
    m->fail_at_read = 1;
    CHECK_EQ_U64(prp_map(&req, &out), NVME_SC_DATA_TRANSFER_ERROR);
    CHECK_EQ_U64(m->reads, 2);
    CHECK_EQ_U64(m->reads_after_failure, 0);

    /* List outside guest memory: the callback fails, so does the command. */
    CHECK_EQ_U64(map_with(m, D0, D3, 3 * PG, 4096, NOLIMIT, &out),
                 NVME_SC_DATA_TRANSFER_ERROR);
    CHECK_EQ_U64(m->reads, 1);
}

static void test_self_chained_list(struct fake_mem *m)
{
    /* A list page whose chain pointer points back at itself: legal-looking, endless if the
     * walker trusted the list instead of the length. It ends after the transfer's 2000
     * entries, having read each needed entry and chain pointer exactly once. */
    struct prp_segments out;
    prp_segments_init_growable(&out);
    for (uint64_t i = 0; i < 511; i++) {
        mem_put64(m, L2 + 8 * i, D1 + 2 * PG * i);
    }
    mem_put64(m, L2 + 8 * 511, L2);
    CHECK_EQ_U64(map_with(m, D0, L2, 2001 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_EQ_U64(out.count, 2001);
    CHECK_EQ_U64(segs_total(&out), 2001 * PG);
    CHECK_EQ_U64(seg_addr(&out, 512), D1);  /* second lap starts over */
    CHECK_EQ_U64(m->bytes_read, (2000 + 3) * 8);
    CHECK_EQ_U64(m->contract_violations, 0);
    prp_segments_free(&out);
}

static void test_caller_errors(struct fake_mem *m)
{
    struct prp_segment arr[4];
    struct prp_segments out;
    prp_segments_init_fixed(&out, arr, 4);

    /* Page sizes CC.MPS cannot express. */
    const uint32_t bad_sizes[] = { 0, 512, 2048, 4095, 4097, 12288, UINT32_C(1) << 28 };
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
        struct prp_request req = {
            .prp1 = D0, .prp2 = D1, .len = 512, .page_size = bad_sizes[i],
            .max_len = NOLIMIT, .read = fake_read, .opaque = m,
        };
        CHECK_EQ_U64(prp_map(&req, &out), NVME_SC_INTERNAL_ERROR);
    }
    /* Every MPS value 0..15 works. */
    for (unsigned mps = 0; mps <= 15; mps++) {
        uint32_t ps = UINT32_C(1) << (12 + mps);
        CHECK_EQ_U64(map_with(m, D0, D1, 2 * (uint64_t)ps, ps, NOLIMIT, &out),
                     NVME_SC_SUCCESS);
        CHECK_SEGS(&out, 2, D0, ps, D1, ps);
    }

    /* List needed but no callback. */
    struct prp_request req = {
        .prp1 = D0, .prp2 = L0, .len = 3 * PG, .page_size = 4096, .max_len = NOLIMIT,
    };
    CHECK_EQ_U64(prp_map(&req, &out), NVME_SC_INTERNAL_ERROR);
    /* No callback is fine when no list is needed. */
    req.len = 2 * PG;
    req.prp2 = D1;
    CHECK_EQ_U64(prp_map(&req, &out), NVME_SC_SUCCESS);
    CHECK_EQ_U64(prp_map(NULL, &out), NVME_SC_INTERNAL_ERROR);
    CHECK_EQ_U64(prp_map(&req, NULL), NVME_SC_INTERNAL_ERROR);

    /* Fixed array too small: Internal Error, nothing written past capacity. */
    for (uint64_t i = 0; i < 4; i++) {
        mem_put64(m, L0 + 8 * i, D1 + 2 * PG * i);
    }
    struct prp_segment small[3 + 1];
    small[3].addr = 0x5a5a;
    prp_segments_init_fixed(&out, small, 3);
    CHECK_EQ_U64(map_with(m, D0, L0, 5 * PG, 4096, NOLIMIT, &out), NVME_SC_INTERNAL_ERROR);
    CHECK_EQ_U64(out.count, 0);
    CHECK_EQ_U64(small[3].addr, 0x5a5a);
    /* ... while contiguous pages fit, because they merge. */
    for (uint64_t i = 0; i < 4; i++) {
        mem_put64(m, L0 + 8 * i, D0 + PG * (i + 1));
    }
    CHECK_EQ_U64(map_with(m, D0, L0, 5 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 1, D0, 5 * PG);

    /* A NULL fixed array holds nothing. */
    prp_segments_init_fixed(&out, NULL, 100);
    CHECK_EQ_U64(map_with(m, D0, D1, 2 * PG, 4096, NOLIMIT, &out), NVME_SC_INTERNAL_ERROR);

    /* Bound: pages a transfer can touch at any offset. */
    CHECK_EQ_U64(prp_segments_bound(0, 4096), 0);
    CHECK_EQ_U64(prp_segments_bound(1, 4096), 2);
    CHECK_EQ_U64(prp_segments_bound(4096, 4096), 2);
    CHECK_EQ_U64(prp_segments_bound(4097, 4096), 3);
    CHECK_EQ_U64(prp_segments_bound(UINT64_MAX, 4096), (UINT64_MAX - 1) / 4096 + 2);
    CHECK_EQ_U64(prp_segments_bound(4096, 0), 0);
}

static void test_growable_and_wide(struct fake_mem *m)
{
    /* Growable output through many reallocations. */
    struct prp_segments out;
    prp_segments_init_growable(&out);
    for (uint64_t i = 0; i < 300; i++) {
        mem_put64(m, L0 + 8 * i, D1 + 2 * PG * i);
    }
    CHECK_EQ_U64(map_with(m, D0, L0, 301 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_EQ_U64(out.count, 301);
    CHECK(out.capacity <= prp_segments_bound(301 * PG, 4096));
    CHECK_EQ_U64(seg_addr(&out, 300), D1 + 2 * PG * 299);
    /* Reuse keeps the array; an error leaves it empty but usable. */
    CHECK_EQ_U64(map_with(m, D0 + 1, L0, 301 * PG, 4096, NOLIMIT, &out),
                 NVME_SC_PRP_OFFSET_INVALID);
    CHECK_EQ_U64(out.count, 0);
    CHECK_EQ_U64(map_with(m, D0, D1, 2 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 2, D0, PG, D1, PG);
    prp_segments_free(&out);
    CHECK(out.seg == NULL);
    CHECK_EQ_U64(out.count, 0);

    /* Merged segments stay within 32 bits: 128 MiB pages, 40 contiguous pages (5 GiB). */
    const uint32_t big = PRP_PAGE_SIZE_MAX;
    const uint64_t base = UINT64_C(0x1000000000);  /* 128 MiB aligned */
    for (uint64_t i = 0; i < 39; i++) {
        mem_put64(m, L0 + 8 * i, base + (uint64_t)big * (i + 1));
    }
    struct prp_segment arr[4];
    prp_segments_init_fixed(&out, arr, 4);
    CHECK_EQ_U64(map_with(m, base, L0, 40ull * big, big, NOLIMIT, &out), NVME_SC_SUCCESS);
    /* 31 pages fit under 2^32 - 1 bytes; the next segment starts on the 32nd. */
    CHECK_SEGS(&out, 2, base, 31ull * big, base + 31ull * big, 9ull * big);
    CHECK_EQ_U64(m->contract_violations, 0);

    /* The top page of the address space maps like any other. */
    const uint64_t top = UINT64_MAX - PG + 1;
    CHECK_EQ_U64(map_with(m, top, PG, 2 * PG, 4096, NOLIMIT, &out), NVME_SC_SUCCESS);
    CHECK_SEGS(&out, 2, top, PG, PG, PG);
}

/* ---- reference model ---- */

/* One page-sized piece of the transfer, as the spec lays it out (unmerged). */
struct piece {
    uint64_t addr;
    uint64_t len;
};

/*
 * The spec's layout, slot by slot: no chunking, no merging. Returns the status and fills
 * pieces (npieces) and the number of list entries it peeked.
 */
static uint16_t ref_map(const struct fake_mem *m, const struct prp_request *req,
                        struct piece *pieces, size_t max_pieces, size_t *npieces,
                        uint64_t *peeks)
{
    const uint64_t ps = req->page_size;
    *npieces = 0;
    *peeks = 0;
    if (req->len == 0) {
        return 0;
    }
    if (req->len > req->max_len) {
        return NVME_SC_INVALID_FIELD;
    }
    if (req->prp1 == 0) {
        return NVME_SC_INVALID_FIELD;
    }
    if (req->prp1 % 4) {
        return NVME_SC_PRP_OFFSET_INVALID;
    }
    uint64_t in_first = ps - req->prp1 % ps;
    uint64_t first = req->len < in_first ? req->len : in_first;
    pieces[(*npieces)++] = (struct piece){ req->prp1, first };
    uint64_t rest = req->len - first;
    if (rest == 0) {
        return 0;
    }
    uint64_t more = (rest + ps - 1) / ps;
    if (more == 1) {
        if (req->prp2 == 0) {
            return NVME_SC_INVALID_FIELD;
        }
        if (req->prp2 % ps) {
            return NVME_SC_PRP_OFFSET_INVALID;
        }
        pieces[(*npieces)++] = (struct piece){ req->prp2, rest };
        return 0;
    }
    if (req->prp2 == 0) {
        return NVME_SC_INVALID_FIELD;
    }
    if (req->prp2 % 8) {
        return NVME_SC_PRP_OFFSET_INVALID;
    }
    uint64_t slot = req->prp2;
    for (uint64_t k = 0; k < more; k++) {
        uint64_t e;
        /* The last slot of a list page chains when more than one entry is still due. */
        while (slot % ps == ps - 8 && more - k > 1) {
            (*peeks)++;
            if (!mem_get64(m, slot, &e)) {
                return NVME_SC_DATA_TRANSFER_ERROR;
            }
            if (e == 0) {
                return NVME_SC_INVALID_FIELD;
            }
            if (e % ps) {
                return NVME_SC_PRP_OFFSET_INVALID;
            }
            slot = e;
        }
        (*peeks)++;
        if (!mem_get64(m, slot, &e)) {
            return NVME_SC_DATA_TRANSFER_ERROR;
        }
        if (e == 0) {
            return NVME_SC_INVALID_FIELD;
        }
        if (e % ps) {
            return NVME_SC_PRP_OFFSET_INVALID;
        }
        uint64_t len = rest < ps ? rest : ps;
        if (*npieces >= max_pieces) {
            fprintf(stderr, "test bug: reference piece overflow\n");
            abort();
        }
        pieces[(*npieces)++] = (struct piece){ e, len };
        rest -= len;
        slot += 8;
    }
    return 0;
}

/*
 * The mapper's segments cover exactly the pieces, in order, and are maximally merged
 * (no two neighbours contiguous unless merging would overflow 32 bits).
 */
static int segments_cover(const struct prp_segments *out, const struct piece *pieces,
                          size_t npieces)
{
    size_t si = 0;
    uint64_t used = 0;  /* bytes of out->seg[si] already matched */
    for (size_t p = 0; p < npieces; p++) {
        if (si >= out->count) {
            return 0;
        }
        const struct prp_segment *s = &out->seg[si];
        if (s->addr + used != pieces[p].addr || s->len - used < pieces[p].len) {
            return 0;
        }
        used += pieces[p].len;
        if (used == s->len) {
            si++;
            used = 0;
        }
    }
    if (si != out->count || used != 0) {
        return 0;
    }
    for (size_t i = 1; i < out->count; i++) {
        const struct prp_segment *a = &out->seg[i - 1], *b = &out->seg[i];
        if (a->len == 0 || b->len == 0) {
            return 0;
        }
        uint64_t end = a->addr + a->len;
        if (end > a->addr && end == b->addr && (uint64_t)a->len + b->len <= UINT32_MAX) {
            return 0;
        }
    }
    return 1;
}

/* ---- property test: random valid requests ---- */

#define PROP_MAX_PAGES 2100

static uint32_t pick_page_size(struct rng *r)
{
    static const uint32_t sizes[] = { 4096, 4096, 4096, 4096, 4096, 8192, 16384, 65536 };
    return sizes[rng_below(r, sizeof(sizes) / sizeof(sizes[0]))];
}

static uint64_t pick_page_count(struct rng *r)
{
    uint64_t roll = rng_below(r, 100);
    if (roll < 15) {
        return 1;
    }
    if (roll < 30) {
        return 2;
    }
    if (roll < 65) {
        return 3 + rng_below(r, 14);
    }
    if (roll < 90) {
        return 17 + rng_below(r, 600);
    }
    return 600 + rng_below(r, PROP_MAX_PAGES - 600 + 1);
}

/* A list page slot in the fake memory not yet used by this request. */
static uint64_t take_list_page(struct rng *r, uint32_t ps, uint64_t *used, size_t *nused)
{
    uint64_t slots = MEM_SIZE / ps;
    for (;;) {
        uint64_t page = MEM_BASE + rng_below(r, slots) * ps;
        int fresh = 1;
        for (size_t i = 0; i < *nused; i++) {
            fresh &= used[i] != page;
        }
        if (fresh) {
            used[(*nused)++] = page;
            return page;
        }
    }
}

static void test_property(struct fake_mem *m, unsigned long iterations)
{
    struct rng r = { 20240611 };
    static uint64_t pages[PROP_MAX_PAGES];
    static struct piece want[PROP_MAX_PAGES + 2];
    static struct piece ref[PROP_MAX_PAGES + 2];
    static struct prp_segment fixed[PROP_MAX_PAGES + 2];
    uint64_t used_lists[16];
    struct prp_segments grow;
    prp_segments_init_growable(&grow);

    unsigned long bad_status = 0, bad_cover = 0, bad_reads = 0, bad_ref = 0, bad_bound = 0;
    unsigned long with_list = 0, with_chain = 0, with_list_offset = 0, exact_end = 0;

    for (unsigned long it = 0; it < iterations; it++) {
        const uint32_t ps = pick_page_size(&r);
        const uint64_t npages = pick_page_count(&r);
        uint64_t off1 = rng_percent(&r, 50) ? 0 : rng_below(&r, ps / 4) * 4;
        const uint64_t in_first = ps - off1;
        uint64_t len;
        if (npages == 1) {
            len = rng_percent(&r, 30) ? in_first : 1 + rng_below(&r, in_first);
        } else {
            uint64_t tail = rng_percent(&r, 30) ? ps : 1 + rng_below(&r, ps);
            len = in_first + (npages - 2) * ps + tail;
            exact_end += tail == ps;
        }

        /* Data pages: random page-aligned addresses below 2^46, often in contiguous runs. */
        for (uint64_t i = 0; i < npages; i++) {
            if (i > 0 && rng_percent(&r, 30)) {
                pages[i] = pages[i - 1] + ps;
            } else {
                pages[i] = (1 + rng_below(&r, (UINT64_C(1) << 46) / ps - 1)) * ps;
            }
        }
        const uint64_t prp1 = pages[0] + off1;
        uint64_t prp2;
        uint64_t entries_written = 0;
        if (npages == 1) {
            prp2 = rng_next(&r);    /* reserved: garbage must be ignored */
        } else if (npages == 2) {
            prp2 = pages[1];
        } else {
            size_t nused = 0;
            uint64_t list = take_list_page(&r, ps, used_lists, &nused);
            uint64_t roll = rng_below(&r, 4);
            uint64_t list_off = roll < 2 ? 0
                              : roll == 2 ? rng_below(&r, ps / 8) * 8
                              : ps - 8 * (1 + rng_below(&r, 4));
            with_list++;
            with_list_offset += list_off != 0;
            prp2 = list + list_off;
            uint64_t slot = prp2;
            for (uint64_t i = 1; i < npages;) {
                if (slot % ps == ps - 8 && npages - i > 1) {
                    uint64_t next = take_list_page(&r, ps, used_lists, &nused);
                    mem_put64(m, slot, next);
                    entries_written++;
                    slot = next;
                    with_chain++;
                    continue;
                }
                mem_put64(m, slot, pages[i]);
                entries_written++;
                slot += 8;
                i++;
            }
            /* Poison the slot after the last entry, if the page has one. */
            if (slot % ps != 0) {
                mem_put64(m, slot, 0x1);
            }
        }

        size_t nwant = 0;
        for (uint64_t i = 0, left = len; i < npages; i++) {
            uint64_t room = i == 0 ? in_first : ps;
            uint64_t take = left < room ? left : room;
            want[nwant++] = (struct piece){ i == 0 ? prp1 : pages[i], take };
            left -= take;
        }

        struct prp_segments fixed_out;
        struct prp_segments *out = &grow;
        if (it % 2) {
            prp_segments_init_fixed(&fixed_out, fixed, prp_segments_bound(len, ps));
            out = &fixed_out;
        }
        uint64_t max_len = rng_percent(&r, 50) ? NOLIMIT : len + rng_below(&r, 2) * ps;
        size_t cap_before = out->capacity;
        uint16_t status = map_with(m, prp1, prp2, len, ps, max_len, out);
        if (status != NVME_SC_SUCCESS) {
            if (bad_status++ < 5) {
                fprintf(stderr, "  property #%lu: status 0x%x (ps %u len %" PRIu64
                        " pages %" PRIu64 ")\n", it, status, ps, len, npages);
            }
            continue;
        }
        if (!segments_cover(out, want, nwant) || segs_total(out) != len) {
            if (bad_cover++ < 5) {
                fprintf(stderr, "  property #%lu: wrong segments (ps %u len %" PRIu64
                        " pages %" PRIu64 ")\n", it, ps, len, npages);
            }
        }
        /* The growable array only ever grows up to this transfer's bound. */
        uint64_t cap_limit = prp_segments_bound(len, ps);
        if (cap_limit < cap_before) {
            cap_limit = cap_before;
        }
        if (out->count > prp_segments_bound(len, ps) || out->capacity > cap_limit) {
            bad_bound++;
        }
        /* Exactly the needed entries were read, each read within the callback contract. */
        if (m->bytes_read != entries_written * 8 || m->contract_violations ||
            m->failed_reads) {
            bad_reads++;
        }
        /* The independent reference agrees. */
        struct prp_request req = {
            .prp1 = prp1, .prp2 = prp2, .len = len, .page_size = ps, .max_len = max_len,
        };
        size_t nref;
        uint64_t peeks;
        if (ref_map(m, &req, ref, PROP_MAX_PAGES + 2, &nref, &peeks) != 0 ||
            !segments_cover(out, ref, nref) || peeks != entries_written) {
            bad_ref++;
        }
    }
    prp_segments_free(&grow);

    CHECK_EQ_U64(bad_status, 0);
    CHECK_EQ_U64(bad_cover, 0);
    CHECK_EQ_U64(bad_bound, 0);
    CHECK_EQ_U64(bad_reads, 0);
    CHECK_EQ_U64(bad_ref, 0);
    /* The generator really exercised the interesting shapes. */
    CHECK(with_list > iterations / 2);
    CHECK(with_chain > iterations / 50);
    CHECK(with_list_offset > iterations / 10);
    CHECK(exact_end > iterations / 10);
    printf("property: %lu requests, %lu with lists, %lu chain pointers, %lu list offsets\n",
           iterations, with_list, with_chain, with_list_offset);
}

/* ---- fuzz test: garbage in, a status or a valid mapping out ---- */

#define FUZZ_MEM_SIZE (2 * 1024 * KiB)

/* A 64-bit value drawn from shapes that hit the mapper's branches. */
static uint64_t fuzz_value(struct rng *r, uint32_t ps, unsigned badness)
{
    uint64_t in_mem_page = MEM_BASE + rng_below(r, FUZZ_MEM_SIZE / ps) * ps;
    if (!rng_percent(r, badness)) {
        /* Plausible: a page-aligned list page in memory, or a page-aligned data page. */
        return rng_percent(r, 30) ? in_mem_page
                                  : (1 + rng_below(r, UINT64_C(1) << 30)) * ps;
    }
    switch (rng_below(r, 9)) {
    case 0: return 0;
    case 1: return rng_next(r);
    case 2: return in_mem_page + rng_below(r, ps / 8) * 8;          /* qword offset */
    case 3: return in_mem_page + rng_below(r, ps / 4) * 4;          /* dword offset */
    case 4: return in_mem_page + rng_below(r, ps);                  /* any offset */
    case 5: return MEM_BASE + FUZZ_MEM_SIZE + rng_below(r, 4) * ps; /* just past memory */
    case 6: return UINT64_MAX - ps + 1 - rng_below(r, 2) * ps;      /* top of the space */
    case 7: return in_mem_page + ps - 8;                            /* last slot */
    default: return MEM_BASE - ps;                                  /* just below memory */
    }
}

static void fuzz_fill(struct fake_mem *m, struct rng *r, uint32_t ps, unsigned badness)
{
    for (uint64_t a = m->base; a < m->base + m->size; a += 8) {
        mem_put64(m, a, fuzz_value(r, ps, badness));
    }
}

static void test_fuzz(unsigned long iterations)
{
    struct rng r = { 0xf00dface };
    struct fake_mem *m = mem_create(MEM_BASE, FUZZ_MEM_SIZE);
    static struct piece ref[(1 << 14) + 2];
    static struct prp_segment fixed[(1 << 14) + 2];
    static const unsigned badness_levels[] = { 0, 1, 5, 20, 60 };
    static const uint32_t sizes[] = { 4096, 4096, 4096, 8192, 16384, 65536, 262144 };
    struct prp_segments grow;
    prp_segments_init_growable(&grow);
    if (!m) {
        CHECK(m != NULL);
        return;
    }

    unsigned long bad_status = 0, bad_mapping = 0, bad_reads = 0, bad_ref = 0;
    unsigned long ok = 0, mapped_with_list = 0, mapped_with_chain = 0;
    unsigned long errors_seen[256] = { 0 };
    uint32_t fill_ps = 4096;
    unsigned badness = 0;

    for (unsigned long it = 0; it < iterations; it++) {
        if (it % 1000 == 0) {
            fill_ps = sizes[rng_below(&r, sizeof(sizes) / sizeof(sizes[0]))];
            badness = badness_levels[rng_below(&r, 5)];
            fuzz_fill(m, &r, fill_ps, badness);
        } else {
            for (int k = 0; k < 8; k++) {   /* small mutations between refills */
                uint64_t a = MEM_BASE + rng_below(&r, FUZZ_MEM_SIZE / 8) * 8;
                mem_put64(m, a, fuzz_value(&r, fill_ps, 50));
            }
        }
        /* Mostly the page size the memory was filled for, sometimes another. */
        uint32_t ps = rng_percent(&r, 80) ? fill_ps
                    : sizes[rng_below(&r, sizeof(sizes) / sizeof(sizes[0]))];
        uint64_t len;
        switch (rng_below(&r, 5)) {
        case 0: len = rng_below(&r, 3 * (uint64_t)ps); break;
        case 1: len = rng_below(&r, 64) * ps; break;
        case 2: len = 1 + rng_below(&r, 1 << 20); break;
        case 3:
            len = (1 + rng_below(&r, 1 << 14)) * 4096;
            len -= rng_below(&r, 2) * 512;
            break;
        default:
            len = rng_next(&r);
            len >>= rng_below(&r, 64);
            break;
        }
        uint64_t max_len = rng_percent(&r, 90) ? (uint64_t)64 << 20 : rng_next(&r) >> 38;
        /* Separate statements: initializer-list evaluation order is unspecified, and the
         * draws must happen in a fixed order for the seed to mean something. */
        uint64_t prp1 = fuzz_value(&r, ps, 40);
        uint64_t prp2 = fuzz_value(&r, ps, 40);
        struct prp_request req = {
            .prp1 = prp1, .prp2 = prp2, .len = len,
            .page_size = ps, .max_len = max_len, .read = fake_read, .opaque = m,
        };
        if (rng_percent(&r, 50)) {
            req.prp1 += rng_below(&r, ps / 4) * 4;  /* PRP1 offsets are legal */
        }
        int inject = rng_percent(&r, 10);

        struct prp_segments fixed_out;
        struct prp_segments *out = &grow;
        uint64_t bound = prp_segments_bound(len, ps);
        if (it % 2 && bound <= (1 << 14) + 2) {
            prp_segments_init_fixed(&fixed_out, fixed, bound);
            out = &fixed_out;
        }
        mem_reset_counters(m, ps);
        m->fail_at_read = inject ? (int64_t)rng_below(&r, 4) : -1;
        uint16_t status = prp_map(&req, out);

        errors_seen[status & 0xff]++;
        if (status != NVME_SC_SUCCESS && status != NVME_SC_INVALID_FIELD &&
            status != NVME_SC_PRP_OFFSET_INVALID && status != NVME_SC_DATA_TRANSFER_ERROR) {
            if (bad_status++ < 5) {
                fprintf(stderr, "  fuzz #%lu: unexpected status 0x%x\n", it, status);
            }
        }
        /* Reads: within the contract, none after a failure, a failure always reported as
         * such, and no more list data than the transfer's entries plus one chain pointer per
         * list page (plus the first page's possible lone chain slot). */
        uint64_t data_entries = len && len <= max_len ? bound : 0;
        uint64_t max_entries = data_entries + data_entries / (ps / 8 - 1) + 2;
        if (m->contract_violations || m->reads_after_failure ||
            (m->failed_reads != 0) != (status == NVME_SC_DATA_TRANSFER_ERROR) ||
            m->bytes_read > 8 * max_entries) {
            if (bad_reads++ < 5) {
                fprintf(stderr, "  fuzz #%lu: bad reads (status 0x%x, %" PRIu64 " bytes)\n",
                        it, status, m->bytes_read);
            }
        }
        if (status != NVME_SC_SUCCESS) {
            if (out->count != 0) {
                bad_mapping++;
            }
        } else {
            ok++;
            int valid = segs_total(out) == len && out->count <= bound &&
                        (len == 0 ? out->count == 0 : out->seg[0].addr == req.prp1);
            for (size_t i = 0; valid && i < out->count; i++) {
                valid = out->seg[i].len > 0;
            }
            if (!valid && bad_mapping++ < 5) {
                fprintf(stderr, "  fuzz #%lu: invalid mapping\n", it);
            }
        }
        /* Without injected failures, the slot-by-slot reference decides the same. */
        if (!inject && bound <= (1 << 14)) {
            size_t nref;
            uint64_t peeks;
            uint16_t want = ref_map(m, &req, ref, (1 << 14) + 2, &nref, &peeks);
            int same = want == status;
            if (same && status == NVME_SC_SUCCESS) {
                same = segments_cover(out, ref, nref) && m->bytes_read == 8 * peeks;
            }
            if (same && status == NVME_SC_SUCCESS && peeks > 0) {
                mapped_with_list++;
                mapped_with_chain += peeks >= nref;   /* more peeks than list data entries */
            }
            if (!same && bad_ref++ < 5) {
                fprintf(stderr, "  fuzz #%lu: reference says 0x%x, mapper 0x%x\n", it, want,
                        status);
            }
        }
    }
    prp_segments_free(&grow);
    mem_destroy(m);

    CHECK_EQ_U64(bad_status, 0);
    CHECK_EQ_U64(bad_reads, 0);
    CHECK_EQ_U64(bad_mapping, 0);
    CHECK_EQ_U64(bad_ref, 0);
    /* Every outcome actually happened. */
    CHECK(ok > iterations / 20);
    CHECK(mapped_with_list > iterations / 100);
    CHECK(mapped_with_chain > 0);
    CHECK(errors_seen[NVME_SC_INVALID_FIELD] > 0);
    CHECK(errors_seen[NVME_SC_PRP_OFFSET_INVALID] > 0);
    CHECK(errors_seen[NVME_SC_DATA_TRANSFER_ERROR] > 0);
    printf("fuzz: %lu requests: %lu mapped (%lu through lists, %lu chained), %lu invalid "
           "field, %lu PRP offset invalid, %lu data transfer error\n", iterations, ok,
           mapped_with_list, mapped_with_chain, errors_seen[NVME_SC_INVALID_FIELD],
           errors_seen[NVME_SC_PRP_OFFSET_INVALID], errors_seen[NVME_SC_DATA_TRANSFER_ERROR]);
}

int main(void)
{
    struct fake_mem *m = mem_create(MEM_BASE, MEM_SIZE);
    if (!m) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    test_single_page(m);
    test_two_pages(m);
    test_lists(m);
    test_list_with_offset(m);
    test_errors(m);
    test_self_chained_list(m);
    test_caller_errors(m);
    test_growable_and_wide(m);
    test_property(m, 100000);
    mem_destroy(m);
    test_fuzz(100000);
    return check_summary();
}
