/* CPython's Mersenne Twister, so that the compiled engine draws the numbers the Python one would. */
#ifndef ALLEY_POKER_TWISTER_H
#define ALLEY_POKER_TWISTER_H

#include <stdint.h>

/* ---- CPython's Mersenne Twister (Modules/_randommodule.c) ---------------------------- */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t state[MT_N];
    int index;
} Twister;

static uint32_t genrand_uint32(Twister *t)
{
    static const uint32_t mag01[2] = {0x0u, 0x9908b0dfu};
    uint32_t y, *mt = t->state;
    if (t->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (mt[MT_N - 1] & 0x80000000u) | (mt[0] & 0x7fffffffu);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
        t->index = 0;
    }
    y = mt[t->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

/* random(): genrand_res53 */
static double uniform(Twister *t)
{
    uint32_t a = genrand_uint32(t) >> 5, b = genrand_uint32(t) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* int(random() * n), as rollout's pick makes it */
static int pick(Twister *t, int n)
{
    return (int)(uniform(t) * (double)n);
}

#endif
