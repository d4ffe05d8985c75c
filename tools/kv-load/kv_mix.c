/* kv-load's operations and key choice (kv_mix.h). */
#include "kv_mix.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const kv_mix_names[KV_MIXES] = { "a", "b", "c", "d", "e", "f" };
const char *const kv_dist_names[KV_DISTS] = { "uniform", "zipfian", "latest" };
const char *const kv_kind_names[KV_KINDS] = { "read", "update", "insert", "scan", "rmw",
                                              "load" };

/* Percent of operations per kind (kv_mix.h; YCSB's core workloads). */
static const unsigned char mix_shares[KV_MIXES][KV_RMW + 1] = {
    [KV_MIX_A] = { [KV_READ] = 50, [KV_UPDATE] = 50 },
    [KV_MIX_B] = { [KV_READ] = 95, [KV_UPDATE] = 5 },
    [KV_MIX_C] = { [KV_READ] = 100 },
    [KV_MIX_D] = { [KV_READ] = 95, [KV_INSERT] = 5 },
    [KV_MIX_E] = { [KV_SCAN] = 95, [KV_INSERT] = 5 },
    [KV_MIX_F] = { [KV_READ] = 50, [KV_RMW] = 50 },
};

int kv_name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

enum kv_dist kv_mix_default_dist(enum kv_mix mix)
{
    return mix == KV_MIX_D ? KV_DIST_LATEST : KV_DIST_ZIPFIAN;
}

uint64_t kv_rng_next(struct kv_rng *r)
{
    uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t kv_rng_below(struct kv_rng *r, uint64_t n)
{
    /* the top bits times n: no modulo bias worth counting at these n */
    return (uint64_t)(((unsigned __int128)kv_rng_next(r) * n) >> 64);
}

double kv_rng_unit(struct kv_rng *r)
{
    return (double)(kv_rng_next(r) >> 11) * 0x1.0p-53;
}

void kv_zipf_init(struct kv_zipf *z, double theta)
{
    z->theta = theta;
    z->zeta2 = 1.0 + pow(0.5, theta);
    z->zetan = 0.0;
    z->n = 0;
}

uint64_t kv_zipf_rank(struct kv_zipf *z, struct kv_rng *r, uint64_t n)
{
    /* zeta(n) = sum of 1/i^theta over i = 1..n, extended by the keys added since */
    for (; z->n < n; z->n++) {
        z->zetan += 1.0 / pow((double)(z->n + 1), z->theta);
    }
    if (n == 1) {
        return 0;
    }
    double alpha = 1.0 / (1.0 - z->theta);
    double eta = (1.0 - pow(2.0 / (double)n, 1.0 - z->theta)) / (1.0 - z->zeta2 / z->zetan);
    double u = kv_rng_unit(r), uz = u * z->zetan;
    if (uz < 1.0) {
        return 0;
    }
    if (uz < z->zeta2) {
        return 1;
    }
    uint64_t rank = (uint64_t)((double)n * pow(eta * u - eta + 1.0, alpha));
    return rank < n ? rank : n - 1;
}

uint64_t kv_scatter(uint64_t rank, uint64_t n)
{
    /* rank x P + offset mod n with P prime and above any n here: P mod n is coprime to n,
     * so this is a bijection of [0, n) */
    const uint64_t prime = UINT64_C(2305843009213693951);   /* 2^61 - 1 */
    uint64_t mult = prime % n, offset = (n / 3) % n;
    return (uint64_t)(((unsigned __int128)rank * mult + offset) % n);
}

void kv_key_of_number(uint64_t n, struct kv_key *key)
{
    char text[KV_KEY_MAX + 1];
    snprintf(text, sizeof(text), "user%012llu", (unsigned long long)(n % KV_KEY_NUMBERS));
    key->len = KV_KEY_MAX;
    memcpy(key->bytes, text, KV_KEY_MAX);
}

void kv_chooser_init(struct kv_chooser *c, enum kv_mix mix, enum kv_dist dist, uint64_t seed)
{
    c->mix = mix;
    c->dist = dist;
    c->rng.state = seed;
    kv_zipf_init(&c->zipf, KV_ZIPF_THETA);
}

enum kv_kind kv_choose_kind(struct kv_chooser *c)
{
    unsigned pick = (unsigned)kv_rng_below(&c->rng, 100), sum = 0;
    for (int k = 0; k <= KV_RMW; k++) {
        sum += mix_shares[c->mix][k];
        if (pick < sum) {
            return (enum kv_kind)k;
        }
    }
    return KV_READ;
}

uint64_t kv_choose_key(struct kv_chooser *c, uint64_t visible)
{
    switch (c->dist) {
    case KV_DIST_UNIFORM:
        return kv_rng_below(&c->rng, visible);
    case KV_DIST_ZIPFIAN:
        return kv_scatter(kv_zipf_rank(&c->zipf, &c->rng, visible), visible);
    default:
        return visible - 1 - kv_zipf_rank(&c->zipf, &c->rng, visible);
    }
}

unsigned kv_choose_scan_length(struct kv_chooser *c)
{
    return 1 + (unsigned)kv_rng_below(&c->rng, KV_SCAN_MAX);
}
