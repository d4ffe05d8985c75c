/*
 * rng.c - xoshiro256** seeded through splitmix64.
 * Written from the published algorithm descriptions.
 */
#include "rng.h"

static uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* One splitmix64 step: advances *state by the golden-ratio increment and
 * returns a well-mixed output.  Used only to expand the seed. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
    uint64_t sm = seed;

    for (int i = 0; i < 4; i++) {
        r->s[i] = splitmix64(&sm);
    }
    /* xoshiro must never be all-zero; splitmix64 cannot produce four zero
     * outputs in a row, but keep the guard cheap and explicit. */
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0) {
        r->s[0] = 1;
    }
}

uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

double rng_unit(struct rng *r)
{
    /* Top 53 bits: exactly representable, so the result is < 1.0. */
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
    if (n == 0) {
        return 0;
    }
#ifdef __SIZEOF_INT128__
    /* Lemire's multiply-and-reject: one multiplication in the common case,
     * a division only when the low half lands in the biased zone. */
    __extension__ typedef unsigned __int128 u128;
    u128 m = (u128)rng_next(r) * n;
    uint64_t low = (uint64_t)m;

    if (low < n) {
        uint64_t threshold = (0 - n) % n;   /* 2^64 mod n */

        while (low < threshold) {
            m = (u128)rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
#else
    /* Portable fallback: reject the top partial copy of [0, n). */
    uint64_t threshold = (0 - n) % n;
    uint64_t x;

    do {
        x = rng_next(r);
    } while (x < threshold);
    return x % n;
#endif
}
