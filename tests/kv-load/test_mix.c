/* kv-load's mixes and key choice (kv_mix.h): shares, key names, zipfian skew, latest. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kv_mix.h"

static void test_key_names(void)
{
    struct kv_key key, next;
    kv_key_of_number(42, &key);
    CHECK(key.len == 16 && memcmp(key.bytes, "user000000000042", 16) == 0);
    kv_key_of_number(43, &next);
    CHECK(kv_key_cmp(&key, &next) < 0);       /* key order is number order */
}

static void test_shares(void)
{
    /* percent per kind over 100000 draws, within 1 point of the mix's share */
    static const struct { enum kv_mix mix; int read, update, insert, scan, rmw; } want[] = {
        { KV_MIX_A, 50, 50, 0, 0, 0 }, { KV_MIX_B, 95, 5, 0, 0, 0 },
        { KV_MIX_C, 100, 0, 0, 0, 0 }, { KV_MIX_D, 95, 0, 5, 0, 0 },
        { KV_MIX_E, 0, 0, 5, 95, 0 }, { KV_MIX_F, 50, 0, 0, 0, 50 },
    };
    for (size_t m = 0; m < sizeof(want) / sizeof(want[0]); m++) {
        struct kv_chooser c;
        unsigned counts[KV_KINDS] = { 0 };
        kv_chooser_init(&c, want[m].mix, KV_DIST_UNIFORM, 5);
        for (int i = 0; i < 100000; i++) {
            counts[kv_choose_kind(&c)]++;
        }
        int shares[] = { want[m].read, want[m].update, want[m].insert, want[m].scan,
                         want[m].rmw };
        for (int k = 0; k <= KV_RMW; k++) {
            CHECK(abs((int)counts[k] / 1000 - shares[k]) <= 1);
            CHECK(shares[k] > 0 || counts[k] == 0);
        }
    }
    CHECK(kv_mix_default_dist(KV_MIX_D) == KV_DIST_LATEST);
    CHECK(kv_mix_default_dist(KV_MIX_A) == KV_DIST_ZIPFIAN);
}

static void test_scatter_is_a_bijection(void)
{
    for (uint64_t n = 1; n <= 300; n += 37) {
        unsigned char *seen = calloc(n, 1);
        for (uint64_t r = 0; r < n; r++) {
            uint64_t k = kv_scatter(r, n);
            CHECK(k < n && !seen[k]);
            seen[k] = 1;
        }
        free(seen);
    }
}

static void test_distributions(void)
{
    const uint64_t n = 1000;
    const int draws = 200000;
    unsigned *hits = calloc(n, sizeof(*hits));
    struct kv_chooser c;

    /* zipfian: rank 0's key takes the most, far above uniform's share */
    kv_chooser_init(&c, KV_MIX_A, KV_DIST_ZIPFIAN, 11);
    for (int i = 0; i < draws; i++) {
        uint64_t k = kv_choose_key(&c, n);
        CHECK(k < n);
        hits[k]++;
    }
    uint64_t hottest = kv_scatter(0, n);
    for (uint64_t k = 0; k < n; k++) {
        CHECK(hits[k] <= hits[hottest]);
    }
    CHECK(hits[hottest] > 20 * (unsigned)(draws / n));

    /* latest: the newest key is the hottest, the keys in the newest tenth take most */
    memset(hits, 0, n * sizeof(*hits));
    kv_chooser_init(&c, KV_MIX_D, KV_DIST_LATEST, 11);
    unsigned newest_tenth = 0;
    for (int i = 0; i < draws; i++) {
        uint64_t k = kv_choose_key(&c, n);
        hits[k]++;
        newest_tenth += k >= n - n / 10;
    }
    for (uint64_t k = 0; k < n; k++) {
        CHECK(hits[k] <= hits[n - 1]);
    }
    CHECK(newest_tenth > (unsigned)draws / 2);

    /* uniform: every key drawn, none far above its share */
    memset(hits, 0, n * sizeof(*hits));
    kv_chooser_init(&c, KV_MIX_A, KV_DIST_UNIFORM, 11);
    for (int i = 0; i < draws; i++) {
        hits[kv_choose_key(&c, n)]++;
    }
    for (uint64_t k = 0; k < n; k++) {
        CHECK(hits[k] > 0 && hits[k] < 2 * (unsigned)(draws / n));
    }

    /* the key space grows with inserts: keys stay below the visible count */
    kv_chooser_init(&c, KV_MIX_D, KV_DIST_ZIPFIAN, 3);
    for (uint64_t visible = 1; visible < 500; visible++) {
        CHECK(kv_choose_key(&c, visible) < visible);
    }
    for (int i = 0; i < 1000; i++) {
        unsigned len = kv_choose_scan_length(&c);
        CHECK(len >= 1 && len <= KV_SCAN_MAX);
    }
    free(hits);
}

int main(void)
{
    test_key_names();
    test_shares();
    test_scatter_is_a_bijection();
    test_distributions();
    return check_summary();
}
