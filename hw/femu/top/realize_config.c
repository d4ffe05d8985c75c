/*
 * Realize's FTL configuration (main loop, BQL): the defaults, then the config file, then
 * the explicit properties, validated; an error names the key at fault and where its value
 * came from.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"

#include "top/realize_config.h"
#include "femu.h"

/* "KEY=VALUE from ..." for an error message: where the value at fault came from. */
static char *femu_key_origin(const FemuCtrl *n, const char *key)
{
    struct ftl_config defaults;
    char now[64], def[64];

    if (ftl_config_get(&n->ftl_config, key, now, sizeof(now)) != 0) {
        return g_strdup("");   /* the message names no single key */
    }
    for (unsigned i = 0; ftl_config_key(i) != NULL; i++) {
        if (strcmp(ftl_config_key(i), key) == 0 && n->ftl_props[i].explicit) {
            return g_strdup_printf(" (%s=%s given as a property)", key, now);
        }
    }
    ftl_config_defaults(&defaults);
    ftl_config_get(&defaults, key, def, sizeof(def));
    if (n->config_file && strcmp(now, def) != 0) {
        return g_strdup_printf(" (%s=%s from %s)", key, now, n->config_file);
    }
    return g_strdup_printf(" (%s=%s is the default)", key, now);
}

/*
 * The FTL takes any zone size; a guest does not: Linux refuses a zoned namespace whose
 * zones are not a power of two in size, so the device says so at realize.
 */
static bool femu_check_zone_size(FemuCtrl *n, Error **errp)
{
    uint64_t bytes = n->geometry.zone_sectors * n->ftl_config.secsz;

    if (n->ftl_config.zoned && !is_power_of_2(bytes)) {
        char *origin = femu_key_origin(n, "zone_size");

        error_setg(errp, "zone_size: %" PRIu64 " bytes is not a power of two; Linux needs "
                   "a power-of-two zone size%s", bytes, origin);
        g_free(origin);
        return false;
    }
    return true;
}

/*
 * Identify Namespace (zoned) gives ZRWAS and ZRWAFG in LBAs in 16 bits; the smallest LBA
 * (one FTL sector) gives the largest counts, so they must fit there. The unit first: a
 * too large ZRWAFG makes ZRWAS too large too.
 */
static bool femu_check_zrwa(FemuCtrl *n, Error **errp)
{
    const char *key = n->geometry.zrwa_fg_sectors > UINT16_MAX ? "zrwa_flush_gran" :
                      n->geometry.zrwa_sectors > UINT16_MAX ? "zrwa_size" : NULL;

    if (n->ftl_config.zrwa_zones && key) {
        char *origin = femu_key_origin(n, key);

        error_setg(errp, "%s: more than %u %" PRIu64 "-byte LBAs, which Identify Namespace "
                   "cannot report (16 bits)%s", key, UINT16_MAX, n->ftl_config.secsz,
                   origin);
        g_free(origin);
        return false;
    }
    return true;
}

/* Defaults, then the config file, then the explicit properties, into n->ftl_config. */
bool femu_resolve_config(FemuCtrl *n, Error **errp)
{
    char err[FEMU_ERR_LEN];

    ftl_config_defaults(&n->ftl_config);
    if (n->config_file &&
        ftl_config_load_file(&n->ftl_config, n->config_file, err, sizeof(err)) != 0) {
        error_setg(errp, "config: %s", err);
        return false;
    }
    for (unsigned i = 0; ftl_config_key(i) != NULL; i++) {
        const FemuFtlProperty *prop = &n->ftl_props[i];

        if (prop->explicit &&
            ftl_config_set(&n->ftl_config, ftl_config_key(i), prop->text, err,
                           sizeof(err)) != 0) {
            error_setg(errp, "%s", err);   /* "KEY: reason": names the property */
            return false;
        }
    }
    if (ftl_config_validate(&n->ftl_config, &n->geometry, err, sizeof(err)) != 0) {
        /* The FTL's message starts with the key at fault; say where its value came from. */
        char *key = g_strndup(err, strcspn(err, ":"));
        char *origin = femu_key_origin(n, key);

        error_setg(errp, "%s%s", err, origin);
        g_free(origin);
        g_free(key);
        return false;
    }
    return femu_check_zone_size(n, errp) && femu_check_zrwa(n, errp);
}
