/*
 * ftl_check's hybrid invariants (core/ftl_check_hybrid.c): after a few writes under block,
 * BAST and FAST mapping the tables hold together; each table corrupted in turn (a unit's
 * owner, next offset, role or in-order flag, an LBN's data entry, BAST's LRU list, FAST's
 * sequential log and random-log FIFO) makes ftl_check fail with a line naming it, and
 * the FTL passes again once the field is put back.
 */
#include "hybrid_tables_test_util.h"

#include <string.h>

static uint64_t now;

/* Pages [off, off + n) of logical block lbn, one write each, in that order. */
static void write_run(struct ftl *ftl, uint32_t lbn, uint32_t off, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        uint64_t done;
        CHECK_EQ_U64(write_pages(ftl, now, (uint64_t)lbn * 16 + off + k, 1, &done), FTL_OK);
        now = done + 1000;
    }
}

/* ftl_check fails naming want; line is the caller's. */
static void check_fails(const struct ftl *ftl, const char *want, int line)
{
    char err[512] = "";
    int rc = ftl_check(ftl, err, sizeof(err));
    if (!check_record(rc != 0 && strstr(err, want) != NULL, __FILE__, line,
                      "ftl_check names the corruption")) {
        fprintf(stderr, "    want \"%s\", got \"%s\"\n", want, rc ? err : "(passed)");
    }
}

/* Set *field to bad, see ftl_check fail naming want, put it back, see it pass. */
#define CORRUPT(ftl, field, bad, want) do { \
        __typeof__(field) saved_ = (field); \
        (field) = (bad); \
        check_fails((ftl), (want), __LINE__); \
        (field) = saved_; \
        CHECK_CONSISTENT(ftl); \
    } while (0)

/* What every scheme shares: data blocks and their pages, units' states and offsets. */
static void corrupt_data_block(struct ftl *ftl, uint32_t lbn)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t u = h->data[lbn], other = h->data[lbn + 1];
    CHECK(u != NO_LINE && other != NO_LINE);
    char want[128];
    /* its pages then hold another LBN's LPNs */
    snprintf(want, sizeof(want), "hybrid unit %u (data block of LBN %u): page", u, lbn + 1);
    CORRUPT(ftl, h->units[u].owner, lbn + 1, want);
    CORRUPT(ftl, h->units[u].owner, h->nlbn, "owner");
    snprintf(want, sizeof(want), "hybrid data[%u] = unit %u, not a data block of LBN %u", lbn,
             other, lbn);
    CORRUPT(ftl, h->data[lbn], other, want);
    snprintf(want, sizeof(want), "hybrid unit %u is a data block of LBN %u, which names unit "
             "%u", u, lbn, NO_LINE);
    CORRUPT(ftl, h->data[lbn], NO_LINE, want);
    /* programmed pages at or past the next offset, erased ones below it */
    uint32_t next = h->units[u].next;
    CHECK(next > 0 && next < 16);
    snprintf(want, sizeof(want), "page %u is programmed, its next offset is %u", next - 1,
             next - 1);
    CORRUPT(ftl, h->units[u].next, next - 1, want);
    snprintf(want, sizeof(want), "page %u is unprogrammed, its next offset is %u", next,
             next + 1);
    CORRUPT(ftl, h->units[u].next, next + 1, want);
    CORRUPT(ftl, h->units[u].next, 17, "next offset 17 of 16 pages");
    /* roles against line states */
    snprintf(want, sizeof(want), "hybrid unit %u: no role but line state %u", u, LINE_MAPPED);
    CORRUPT(ftl, h->units[u].role, HYBRID_NONE, want);
    CORRUPT(ftl, h->units[u].role, 9, "role 9 (unknown role) under this mapping");
    CORRUPT(ftl, ftl->lines[u].state, LINE_FULL, "but line state");
    CORRUPT(ftl, h->ppb, 8, "hybrid tables: scheme");
}

static struct ftl *make(enum ftl_mapping mapping, uint64_t log_blocks)
{
    struct ftl_config cfg = hybrid_small_config(mapping, log_blocks);
    now = 0;
    return make_ftl(&cfg);
}

static void test_block(void)
{
    struct ftl *ftl = make(FTL_MAPPING_BLOCK, 8)   /* log_blocks unused */;
    write_run(ftl, 0, 0, 4);
    write_run(ftl, 1, 0, 6);
    write_run(ftl, 0, 1, 1);            /* copies LBN 0's block */
    CHECK_CONSISTENT(ftl);
    CHECK_EQ_U64(ftl->hybrid->log_blocks, 0);
    CHECK(hybrid_unit_of(ftl, HYBRID_BAST_LOG, NO_LBN, 0) == NO_LINE);
    corrupt_data_block(ftl, 0);
    /* a role of another scheme */
    uint32_t u = ftl->hybrid->data[1];
    CORRUPT(ftl, ftl->hybrid->units[u].role, HYBRID_BAST_LOG, "role 2 (BAST log) under this "
            "mapping");
    ftl_destroy(ftl);
}

static void test_bast(void)
{
    struct ftl *ftl = make(FTL_MAPPING_BAST, 4);
    struct hybrid *h = ftl->hybrid;
    write_run(ftl, 0, 0, 6);
    write_run(ftl, 1, 0, 6);
    write_run(ftl, 2, 0, 6);
    write_run(ftl, 0, 0, 2);            /* LBN 0's log: offsets 0, 1 in order */
    write_run(ftl, 1, 3, 1);            /* LBN 1's log: offset 3 first, not in order */
    write_run(ftl, 1, 1, 1);
    CHECK_CONSISTENT(ftl);
    corrupt_data_block(ftl, 0);
    uint32_t in_order = h->log[0], mixed = h->log[1];
    CHECK(in_order != NO_LINE && mixed != NO_LINE && h->logs_used == 2);
    CHECK(h->units[in_order].in_order && !h->units[mixed].in_order);
    char want[160];
    snprintf(want, sizeof(want), "hybrid unit %u (BAST log of LBN 1, in order): page 0 holds "
             "LPN 19 of LBN 1", mixed);
    CORRUPT(ftl, h->units[mixed].in_order, true, want);
    snprintf(want, sizeof(want), "hybrid unit %u (BAST log of LBN 2, in order): page 0 holds "
             "LPN 0 of LBN 0", in_order);
    CORRUPT(ftl, h->units[in_order].owner, 2, want);
    snprintf(want, sizeof(want), "hybrid log[0] = unit %u, not a BAST log of LBN 0", mixed);
    CORRUPT(ftl, h->log[0], mixed, want);
    CORRUPT(ftl, h->logs_used, 3, "hybrid BAST log LRU holds 2 units, 2 are log blocks, "
            "logs_used 3");
    CORRUPT(ftl, h->units[h->log_lru.lru].link.newer, h->log_lru.lru, "LRU broken at entry 1");
    CORRUPT(ftl, h->log_lru.lru, LRU_NONE, "hybrid BAST log LRU holds 0 units");
    ftl_destroy(ftl);
}

static void test_fast(void)
{
    struct ftl *ftl = make(FTL_MAPPING_FAST, 4);
    struct hybrid *h = ftl->hybrid;
    write_run(ftl, 0, 0, 6);
    write_run(ftl, 1, 0, 6);
    write_run(ftl, 0, 0, 2);            /* the SW: LBN 0's offsets 0, 1 */
    write_run(ftl, 0, 4, 1);            /* not at the SW's next offset: a random log */
    write_run(ftl, 1, 2, 1);
    CHECK_CONSISTENT(ftl);
    corrupt_data_block(ftl, 0);
    uint32_t sw = h->sw;
    CHECK(sw != NO_LINE && h->units[sw].owner == 0 && h->rw_count == 1);
    uint32_t rw = h->rw[h->rw_head];
    char want[160];
    snprintf(want, sizeof(want), "hybrid unit %u (FAST sequential log of LBN 1", sw);
    CORRUPT(ftl, h->units[sw].owner, 1, want);
    CORRUPT(ftl, h->sw, NO_LINE, "which names unit 4294967295");
    CORRUPT(ftl, h->units[sw].next, 1, "page 1 is programmed, its next offset is 1");
    CORRUPT(ftl, h->units[sw].in_order, false, "FAST sequential log of LBN 0): not in order");
    CORRUPT(ftl, h->rw_count, 0, "hybrid FAST: 1 random logs, the FIFO holds 0");
    CORRUPT(ftl, h->rw[h->rw_head], sw, "random log FIFO entry 0");
    CORRUPT(ftl, h->rw_count, h->rw_cap + 1, "hybrid FAST random logs:");
    snprintf(want, sizeof(want), "hybrid unit %u (FAST random log): owner 0", rw);
    CORRUPT(ftl, h->units[rw].owner, 0, want);
    ftl_destroy(ftl);
}

int main(void)
{
    test_block();
    test_bast();
    test_fast();
    return check_summary();
}
