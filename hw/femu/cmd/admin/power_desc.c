/*
 * The power state descriptors of Identify Controller (poller): NPSS (byte 263) is
 * ps_count - 1, APSTA (byte 265 bit 0) is set when some state is non-operational (APST can
 * only move to such a state), and descriptor N, 32 bytes at 2048 + 32 * N, reports the
 * FTL's ftl_config.ps[N] (the keys' units: mW and us):
 *
 *   bytes 1:0   MP, with MXPS (byte 3 bit 0) its scale: 0.01 W when max_mw is a whole
 *               number of centiwatts, else 0.0001 W when it fits 16 bits there (both
 *               exact), else centiwatts rounded up (a maximum is never understated),
 *               at most FFFFh
 *   byte 3      bit 1 NOPS: the state is non-operational
 *   bytes 7:4   ENLAT, 11:8 EXLAT: enlat_us, exlat_us (at most FFFFFFFFh)
 *   bytes 12-15 RRT, RRL, RWT, RWL (bits 4:0): ranks, 0 the best, below
 *   bytes 17:16 IDLP with IPS (byte 18 bits 7:6: 01b 0.0001 W, 10b 0.01 W): idle_mw,
 *               scaled as MP; 0 mW is "not reported" (IPS 00b), what NVMe's 0 means
 *   bytes 21:20 ACTP with APS (byte 22 bits 7:6): active_mw likewise; APW (bits 2:0) 000b,
 *               no workload named: femu's active power is a figure, not a measurement
 *
 * The ranks follow what the model does in a state: an operational state runs flash work
 * at perf_pcent percent of PS0's speed (reads and writes alike), a non-operational one
 * runs none until it is left (exit latency). Throughput: operational states by
 * perf_pcent, highest first, then every non-operational state (no throughput, one rank).
 * Latency: operational states by perf_pcent likewise, then the non-operational ones by
 * exit latency, lowest first. A rank is the number of distinct better values, so equal
 * states share one and every rank is below ps_count, as NVMe requires.
 */
#include "qemu/osdep.h"

#include "cmd/admin/power_desc.h"

#define FEMU_PSD_BYTES          32
#define FEMU_PSD_MP             0
#define FEMU_PSD_FLAGS          3
#define FEMU_PSD_ENLAT          4
#define FEMU_PSD_EXLAT          8
#define FEMU_PSD_RRT            12
#define FEMU_PSD_RRL            13
#define FEMU_PSD_RWT            14
#define FEMU_PSD_RWL            15
#define FEMU_PSD_IDLP           16
#define FEMU_PSD_IPS            18
#define FEMU_PSD_ACTP           20
#define FEMU_PSD_APWS           22
#define FEMU_PSD_MXPS           (1u << 0)
#define FEMU_PSD_NOPS           (1u << 1)
#define FEMU_PSD_SCALE_SHIFT    6
#define FEMU_PSD_SCALE_FINE     1       /* 0.0001 W */
#define FEMU_PSD_SCALE_CENTI    2       /* 0.01 W */

QEMU_BUILD_BUG_ON(offsetof(NvmeIdCtrl, npss) != 263);
QEMU_BUILD_BUG_ON(offsetof(NvmeIdCtrl, apsta) != 265);
QEMU_BUILD_BUG_ON(offsetof(NvmeIdCtrl, psd) != 2048);
QEMU_BUILD_BUG_ON(sizeof(NvmePSD) != FEMU_PSD_BYTES);

bool femu_power_apst_offered(FemuCtrl *n)
{
    const struct ftl_config *cfg = &n->ftl_config;

    for (uint64_t i = 0; i < cfg->ps_count && i < FTL_PS_MAX; i++) {
        if (cfg->ps[i].nonop) {
            return true;
        }
    }
    return false;
}

/* mW as a 16-bit power field: the value and its scale (FEMU_PSD_SCALE_*; 0 for 0 mW). */
static uint16_t femu_power_field(uint64_t mw, unsigned *scale)
{
    if (mw == 0) {
        *scale = 0;
        return 0;
    }
    if (mw % 10 == 0 && mw / 10 <= UINT16_MAX) {
        *scale = FEMU_PSD_SCALE_CENTI;
        return mw / 10;
    }
    if (mw <= UINT16_MAX / 10) {
        *scale = FEMU_PSD_SCALE_FINE;
        return mw * 10;
    }
    *scale = FEMU_PSD_SCALE_CENTI;
    return MIN(mw / 10 + 1, UINT16_MAX);     /* not a whole centiwatt: rounded up */
}

/* The ranking keys (lower is better): throughput, latency. */
static uint64_t femu_power_tput_key(const struct ftl_ps_desc *ps)
{
    return ps->nonop ? 100 : 100 - MIN(ps->perf_pcent, 100);
}

static uint64_t femu_power_lat_key(const struct ftl_ps_desc *ps)
{
    /* operational states below 100, non-operational ones from 100 by exit latency */
    if (ps->nonop) {
        return 100 + MIN(ps->exlat_us, UINT64_MAX - 100);
    }
    return 100 - MIN(ps->perf_pcent, 100);
}

/* How many distinct keys of the count states are lower than state i's. */
static unsigned femu_power_rank(const struct ftl_ps_desc *ps, unsigned count, unsigned i,
                                uint64_t (*key)(const struct ftl_ps_desc *))
{
    uint64_t mine = key(&ps[i]);
    unsigned rank = 0;

    for (unsigned j = 0; j < count; j++) {
        uint64_t other = key(&ps[j]);
        bool seen = false;

        for (unsigned k = 0; k < j && !seen; k++) {
            seen = key(&ps[k]) == other;
        }
        rank += !seen && other < mine;
    }
    return rank;
}

static void femu_power_descriptor(const struct ftl_ps_desc *ps, unsigned count, unsigned i,
                                  uint8_t *psd)
{
    const struct ftl_ps_desc *d = &ps[i];
    unsigned scale, tput = femu_power_rank(ps, count, i, femu_power_tput_key);
    unsigned lat = femu_power_rank(ps, count, i, femu_power_lat_key);
    uint16_t value = femu_power_field(d->max_mw, &scale);

    stw_le_p(psd + FEMU_PSD_MP, value);
    psd[FEMU_PSD_FLAGS] = (scale == FEMU_PSD_SCALE_FINE ? FEMU_PSD_MXPS : 0) |
                          (d->nonop ? FEMU_PSD_NOPS : 0);
    stl_le_p(psd + FEMU_PSD_ENLAT, MIN(d->enlat_us, UINT32_MAX));
    stl_le_p(psd + FEMU_PSD_EXLAT, MIN(d->exlat_us, UINT32_MAX));
    psd[FEMU_PSD_RRT] = psd[FEMU_PSD_RWT] = tput;
    psd[FEMU_PSD_RRL] = psd[FEMU_PSD_RWL] = lat;
    stw_le_p(psd + FEMU_PSD_IDLP, femu_power_field(d->idle_mw, &scale));
    psd[FEMU_PSD_IPS] = scale << FEMU_PSD_SCALE_SHIFT;
    stw_le_p(psd + FEMU_PSD_ACTP, femu_power_field(d->active_mw, &scale));
    psd[FEMU_PSD_APWS] = scale << FEMU_PSD_SCALE_SHIFT;    /* APW 000b */
}

void femu_power_identify(FemuCtrl *n, NvmeIdCtrl *id)
{
    const struct ftl_config *cfg = &n->ftl_config;
    unsigned count = MIN(MAX(cfg->ps_count, 1), FTL_PS_MAX);   /* realize checked it */

    id->npss = count - 1;
    id->apsta = femu_power_apst_offered(n) ? 1 : 0;
    for (unsigned i = 0; i < count; i++) {
        femu_power_descriptor(cfg->ps, count, i, (uint8_t *)&id->psd[i]);
    }
}
