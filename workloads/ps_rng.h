/* ps_rng.h — the small deterministic random number generator the reference workloads use for the
 * data set, weight initialisation and augmentation (splitmix64: Steele, Lea, Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014), so every run with one seed is repeatable. */
#ifndef PS_RNG_H
#define PS_RNG_H

#include <stdint.h>

/* Next 64 random bits; advances *state. */
static inline uint64_t ps_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline float ps_rng_unit(uint64_t *state)
{
    return (float)(ps_rng_next(state) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform integer in [0, n), n > 0. */
static inline int ps_rng_below(uint64_t *state, int n)
{
    return (int)((ps_rng_next(state) >> 33) % (uint64_t)n);
}

/* A seed for item `index` of stream `seed`: independent streams for each image, batch, ... */
static inline uint64_t ps_rng_seed(uint64_t seed, uint64_t index)
{
    uint64_t s = seed ^ (index * 0xD1B54A32D192ED03ull);
    return ps_rng_next(&s);
}

#endif
