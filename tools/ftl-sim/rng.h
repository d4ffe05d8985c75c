/*
 * rng.h - fast, seedable 64-bit pseudo-random number generator for ftl-sim.
 *
 * xoshiro256** (Blackman & Vigna), with the 256-bit state expanded from a
 * 64-bit seed by splitmix64, so every seed (including 0) gives a usable,
 * well-mixed state.  The whole generator state lives in struct rng: the
 * same seed always yields the same sequence, and independent generators
 * (e.g. one per simulated job) are just separate structs.
 *
 * Not cryptographic.
 */
#ifndef FTL_SIM_RNG_H
#define FTL_SIM_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s[4];
};

/* Seed the generator; any 64-bit value is fine. */
void rng_seed(struct rng *r, uint64_t seed);

/* Next uniformly distributed 64-bit value. */
uint64_t rng_next(struct rng *r);

/* Uniform double in [0, 1) with 53 random bits (never returns 1.0). */
double rng_unit(struct rng *r);

/* Unbiased uniform integer in [0, n).  n == 0 returns 0 (no abort). */
uint64_t rng_below(struct rng *r, uint64_t n);

#endif
