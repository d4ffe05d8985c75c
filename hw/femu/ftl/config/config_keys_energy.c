/* The energy model's keys (femu_ftl/energy.h, docs/energy.md): the switch, the NAND's
 * figures a profile gives (conf/nand/), and the drive's (link, controller, DRAM). */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <stdio.h>
#include <string.h>

#include "femu_ftl/error.h"

/* Bounds well past any real part, so a typo is caught; the model works in doubles, so no
 * value in range can overflow it. */
#define MAX_VCC_MV 5000ull          /* ONFI supplies are 1.7-3.6 V */
#define MAX_ICC_UA 1000000ull       /* 1 A a die; datasheets give tens of mA */
#define MAX_IO_PJ 1000000ull        /* 1 uJ a byte */
#define MAX_LINK_FJ 1000000ull      /* 1 nJ a bit; PHYs spend a few pJ */
#define MAX_MW 1000000ull           /* 1 kW */

static const struct config_key keys[] = {
    SKEY(energy, "the energy model (docs/energy.md): stats.csv's energy_j and power_w, "
         "ftl-sim's joules; needs nand_vcc_mv, nand_icc_read_ua, nand_icc_prog_ua, "
         "nand_icc_erase_ua and nand_io_pj_per_byte (a conf/nand profile gives them)"),
    UKEY(nand_vcc_mv, 0, MAX_VCC_MV, "NAND supply voltage VCC, mV (0: not given)"),
    UKEY(nand_icc_read_ua, 0, MAX_ICC_UA, "NAND array read current (ICC1), uA a LUN "
         "draws while it senses: reads, read retries, copyback's sense (0: not given)"),
    UKEY(nand_icc_prog_ua, 0, MAX_ICC_UA, "NAND array program current (ICC2), uA a LUN "
         "draws while it programs, in SLC mode too (0: not given)"),
    UKEY(nand_icc_erase_ua, 0, MAX_ICC_UA, "NAND array erase current (ICC3), uA a LUN "
         "draws while it erases (0: not given)"),
    UKEY(nand_io_pj_per_byte, 0, MAX_IO_PJ, "pJ a byte moved over a channel bus costs "
         "(VCCQ x the I/O current over the byte's transfer time; 0: not given)"),
    UKEY(pcie_fj_per_bit, 0, MAX_LINK_FJ, "fJ a bit on the PCIe link costs, either "
         "direction (a PHY's pJ/bit x 1000; 0: the link's energy is not counted)"),
    UKEY(ctrl_active_mw, 0, MAX_MW, "mW a controller core draws while busy, above the "
         "power state's idle power (0: not counted)"),
    UKEY(dram_active_mw, 0, MAX_MW, "mW the DRAM draws while the drive is in an "
         "operational power state, above its idle power (0: not counted)"),
};

const struct config_key_group config_energy_keys = KEY_GROUP(keys);

/* The NAND figures energy=on needs, in the order they are checked, with what each is. */
static const struct {
    const char *key;
    const char *what;
} nand_figures[] = {
    { "nand_vcc_mv", "the NAND's supply voltage (VCC)" },
    { "nand_icc_read_ua", "the NAND's array read current (ICC1)" },
    { "nand_icc_prog_ua", "the NAND's array program current (ICC2)" },
    { "nand_icc_erase_ua", "the NAND's array erase current (ICC3)" },
    { "nand_io_pj_per_byte", "the channel bus's energy a byte" },
};

#define NFIGURES (sizeof(nand_figures) / sizeof(nand_figures[0]))

static uint64_t figure(const struct ftl_config *cfg, size_t i)
{
    const uint64_t values[NFIGURES] = {
        cfg->nand_vcc_mv, cfg->nand_icc_read_ua, cfg->nand_icc_prog_ua,
        cfg->nand_icc_erase_ua, cfg->nand_io_pj_per_byte,
    };
    return values[i];
}

int config_check_energy(const struct ftl_config *cfg, char *err, size_t errlen)
{
    if (!cfg->energy) {
        return 0;
    }
    for (size_t i = 0; i < NFIGURES; i++) {
        if (figure(cfg, i) == 0) {
            return ftl_error(err, errlen, "%s: energy=on needs %s, and none was given",
                             nand_figures[i].key, nand_figures[i].what);
        }
    }
    return 0;
}

bool ftl_config_energy_on(const struct ftl_config *cfg)
{
    return cfg->energy != 0;
}

bool config_key_is_energy(const char *key)
{
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strcmp(key, keys[i].name) == 0) {
            return true;
        }
    }
    return false;
}

const char *config_energy_figure(size_t index)
{
    return index < NFIGURES ? nand_figures[index].key : NULL;
}
