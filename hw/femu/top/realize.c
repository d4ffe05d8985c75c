/*
 * femu device type: PCI identity, properties, and a realize that builds the FTL.
 *
 * Configuration precedence: FTL defaults < config=FILE < properties given explicitly.
 *
 * A plain typed qdev property cannot tell "nchs=8 was given" from "nchs was left at its
 * default of 8", and the difference matters once a config file sets nchs=2. So every FTL
 * key is a class property with its own accessors and an `explicit` flag:
 *   - QOM stores each default through the setter while creating the object, before any
 *     instance_init runs (object_class_property_init_all);
 *   - femu_instance_init then clears every `explicit` flag;
 *   - any later set (-device options, -global, QMP before realize) marks the key explicit.
 * Realize starts from ftl_config_defaults(), loads the file, and replays only the explicit
 * keys through ftl_config_set(), the parser config files use, so one set of range checks
 * and messages serves both. The properties are generated from the FTL's own key list, so a
 * new FTL key becomes a device property without touching this file.
 */
#include "qemu/osdep.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/cutils.h"
#include "qemu/module.h"
#include "system/system.h"

#include "backend/ftl_view.h"
#include "backend/power_cut.h"
#include "cmd/admin/features.h"
#include "cmd/admin/ns.h"
#include "cmd/admin/ns_kv.h"
#include "cmd/admin/power_features.h"
#include "cmd/core/cmd_set.h"
#include "cmd/fdp/fdp.h"
#include "cmd/health/media.h"
#include "ctrl/irq.h"
#include "ctrl/irqfd.h"
#include "ctrl/regs.h"
#include "top/bar0.h"
#include "top/cmd_tables.h"
#include "top/ctrl_state.h"
#include "top/poll_window.h"
#include "top/poller.h"
#include "top/power_counters.h"
#include "top/realize_config.h"
#include "top/state.h"
#include "top/state_parts.h"
#include "top/state_save.h"
#include "femu.h"
#include "femu_ftl/trace.h"

/* Per-key data the generic accessors need; built once per class, lives as long as it. */
typedef struct FemuFtlKey {
    unsigned index;     /* into FemuCtrl.ftl_props and ftl_config_key() */
    bool numeric;       /* a uint64 property; otherwise a string (placement) */
} FemuFtlKey;

static const char *femu_default_text(const char *key, char *buf, size_t buflen)
{
    struct ftl_config defaults;

    ftl_config_defaults(&defaults);
    ftl_config_get(&defaults, key, buf, buflen);
    return buf;
}

static void femu_ftl_prop_get(Object *obj, Visitor *v, const char *name, void *opaque,
                              Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    const FemuFtlKey *key = opaque;
    char effective[64];
    const char *text = n->ftl_props[key->index].text;

    /* Once realized, report what the FTL runs with (file and defaults included). */
    if (n->ftl) {
        ftl_config_get(&n->ftl_config, name, effective, sizeof(effective));
        text = effective;
    }
    if (key->numeric) {
        uint64_t value = 0;

        qemu_strtou64(text, NULL, 10, &value);   /* always decimal: we formatted it */
        visit_type_uint64(v, name, &value, errp);
    } else {
        char *copy = g_strdup(text);

        visit_type_str(v, name, &copy, errp);
        g_free(copy);
    }
}

static void femu_ftl_prop_set(Object *obj, Visitor *v, const char *name, void *opaque,
                              Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    const FemuFtlKey *key = opaque;
    FemuFtlProperty *prop = &n->ftl_props[key->index];
    char *text = NULL;

    if (DEVICE(obj)->realized) {
        qdev_prop_set_after_realize(DEVICE(obj), name, errp);
        return;
    }
    if (key->numeric) {
        uint64_t value;

        if (!visit_type_uint64(v, name, &value, errp)) {
            return;
        }
        text = g_strdup_printf("%" PRIu64, value);
    } else if (!visit_type_str(v, name, &text, errp)) {
        return;
    }
    g_free(prop->text);
    prop->text = text;
    prop->explicit = true;
}

/*
 * Whether a key takes a decimal number only (a uint64 property). A key whose parser also
 * takes words (placement=stream, zoned=on) or sizes with a suffix (zone_cap=4M) is a
 * string property, handed to the FTL's parser as given.
 */
static bool femu_ftl_key_numeric(const char *name)
{
    struct ftl_config probe;
    char text[64], err[FEMU_ERR_LEN];

    if (!g_ascii_isdigit(femu_default_text(name, text, sizeof(text))[0])) {
        return false;
    }
    ftl_config_defaults(&probe);
    return ftl_config_set(&probe, name, "on", err, sizeof(err)) != 0 &&
           ftl_config_set(&probe, name, "1K", err, sizeof(err)) != 0;
}

static void femu_class_add_ftl_props(ObjectClass *oc)
{
    const char *name;

    for (unsigned i = 0; (name = ftl_config_key(i)) != NULL; i++) {
        FemuFtlKey *key = g_new0(FemuFtlKey, 1);
        char text[64];
        ObjectProperty *prop;

        assert(i < FEMU_FTL_KEYS_MAX);
        key->index = i;
        key->numeric = femu_ftl_key_numeric(name);
        femu_default_text(name, text, sizeof(text));
        prop = object_class_property_add(oc, name, key->numeric ? "uint64" : "str",
                                         femu_ftl_prop_get, femu_ftl_prop_set, NULL, key);
        if (key->numeric) {
            object_property_set_default_uint(prop, g_ascii_strtoull(text, NULL, 10));
        } else {
            object_property_set_default_str(prop, text);
        }
        object_class_property_set_description(oc, name, ftl_config_key_help(name));
    }
}

static bool femu_check_controller_props(FemuCtrl *n, Error **errp)
{
    PCIDevice *pci_dev = PCI_DEVICE(n);

    if (n->queues < 1 || n->queues > FEMU_MAX_QUEUES) {
        error_setg(errp, "queues: %" PRIu32 " is out of range [1, %d]", n->queues,
                   FEMU_MAX_QUEUES);
        return false;
    }
    if (n->mdts > FEMU_MAX_MDTS) {
        error_setg(errp, "mdts: %u is out of range [0, %d] (0 means no limit)", n->mdts,
                   FEMU_MAX_MDTS);
        return false;
    }
    if (!femu_poll_check_props(n, errp)) {
        return false;
    }
    if (n->serial) {
        size_t len = strlen(n->serial);

        if (len == 0 || len > FEMU_SERIAL_MAX_LEN) {
            error_setg(errp, "serial: '%s' must be 1 to %d characters", n->serial,
                       FEMU_SERIAL_MAX_LEN);
            return false;
        }
        for (size_t i = 0; i < len; i++) {
            if (!g_ascii_isprint(n->serial[i])) {
                error_setg(errp, "serial: only printable ASCII characters are allowed");
                return false;
            }
        }
        pstrcpy(n->serial_number, sizeof(n->serial_number), n->serial);
    } else {
        /* Unique per slot on one bus; give serial= for devices on several buses. */
        snprintf(n->serial_number, sizeof(n->serial_number), "FEMU%02X%X",
                 PCI_SLOT(pci_dev->devfn), PCI_FUNC(pci_dev->devfn));
    }
    return true;
}

/* stats_dir is created now so a bad path fails at start-up, not minutes into a run. */
static bool femu_prepare_stats_dir(FemuCtrl *n, Error **errp)
{
    if (!n->stats_dir) {
        return true;
    }
    if (n->stats_dir[0] == '\0') {
        error_setg(errp, "stats_dir: empty path");
        return false;
    }
    if (g_mkdir_with_parents(n->stats_dir, 0755) != 0 || access(n->stats_dir, W_OK) != 0) {
        error_setg_errno(errp, errno, "stats_dir: cannot use '%s'", n->stats_dir);
        return false;
    }
    return true;
}

/*
 * The media the namespaces share: one byte range per FTL sector in the lazily mapped data
 * store, and the per-sector maps the poller keeps (written, uncorrectable). The zoned
 * namespace's sectors (zoned=on) come after the conventional capacity.
 */
static bool femu_init_media(FemuCtrl *n, Error **errp)
{
    char err[FEMU_ERR_LEN];
    uint64_t sectors;

    n->secsz = n->ftl_config.secsz;
    n->capacity_sectors = n->geometry.logical_sectors;
    n->zoned_sectors = n->ftl_config.zoned ? n->geometry.zoned_sectors : 0;
    sectors = n->capacity_sectors + n->zoned_sectors;
    n->store = data_store_create(sectors * n->secsz, err, sizeof(err));
    if (!n->store) {
        error_setg(errp, "cannot reserve the device's memory: %s", err);
        return false;
    }
    if (!lba_bitmap_init(&n->written, sectors) ||
        !lba_bitmap_init(&n->uncorrectable, sectors)) {
        error_setg(errp, "cannot allocate the device's allocation maps");
        return false;
    }
    femu_ftl_view_init(n);
    return femu_ns_realize(n, errp);
}

static bool femu_init_pci(FemuCtrl *n, Error **errp)
{
    PCIDevice *pci_dev = PCI_DEVICE(n);

    pci_config_set_prog_interface(pci_dev->config, FEMU_PCI_PROG_IF_NVME);
    pci_config_set_interrupt_pin(pci_dev->config, 1);
    femu_regs_init(n);
    memory_region_init_io(&n->bar0, OBJECT(n), &femu_bar0_ops, n, "femu-bar0",
                          FEMU_BAR0_SIZE);
    pci_register_bar(pci_dev, 0,
                     PCI_BASE_ADDRESS_SPACE_MEMORY | PCI_BASE_ADDRESS_MEM_TYPE_64, &n->bar0);
    n->num_vectors = n->queues + 1;
    if (msix_init_exclusive_bar(pci_dev, n->num_vectors, FEMU_MSIX_BAR, errp)) {
        return false;
    }
    for (unsigned v = 0; v < n->num_vectors; v++) {
        msix_vector_use(pci_dev, v);
    }
    femu_irqfd_init(n);
    pcie_endpoint_cap_init(pci_dev, 0x80);
    return true;
}

static bool femu_open_stats(FemuCtrl *n, Error **errp)
{
    char err[FEMU_ERR_LEN];

    if (!n->stats_dir) {
        return true;
    }
    n->stats = ftl_stats_open(n->stats_dir, n->ftl, n->stats_start_ns, err, sizeof(err));
    if (!n->stats) {
        error_setg(errp, "stats_dir: %s", err);
        return false;
    }
    return true;
}

/* Created at realize, so a bad path fails at start-up; times count from the statistics'. */
static bool femu_open_trace(FemuCtrl *n, Error **errp)
{
    char err[FEMU_ERR_LEN];

    if (!n->trace_out) {
        return true;
    }
    if (n->trace_out[0] == '\0') {
        error_setg(errp, "trace_out: empty path");
        return false;
    }
    /* The guest may send Copy (either namespace) and zone commands: version 3, or 4 with
     * FDP's reclaim unit handle updates, or 5 with a write buffer, which makes FUA writes
     * and Volatile Write Cache switches (cmd/io/nvm.c, cmd/admin/features.c), or 6 when
     * the Key Value command set is offered (kv_ns_mb: cmd/io/kv.c), or 7 with the link or
     * controller model, which records the commands without FTL work (cmd/core/front_cmd.c),
     * or 8 with more than one power state, whose Set and Get Features 02h and 0Ch reach the
     * FTL (cmd/admin/power_features.c). */
    int version = io_trace_version_power(femu_power_model_on(n), femu_front_on(n),
                                         n->kv_ns_mb != 0, true,
                                         n->ftl_config.placement == FTL_PLACEMENT_FDP,
                                         femu_has_write_cache(n));
    n->trace = io_trace_writer_open_version(n->trace_out, "the femu device",
                                            n->stats_start_ns, n->ftl_config.secsz, version,
                                            err, sizeof(err));
    if (!n->trace) {
        error_setg(errp, "trace_out: %s", err);
        return false;
    }
    return true;
}

/* Statistics and per-LPN counts are written when QEMU exits, however it exits. */
static void femu_exit_notify(Notifier *notifier, void *data)
{
    FemuCtrl *n = container_of(notifier, FemuCtrl, exit_notifier);

    femu_threads_stop(n);
    femu_state_save_final(n);   /* the FTL is quiescent now */
}

static void femu_release(FemuCtrl *n)
{
    PCIDevice *pci_dev = PCI_DEVICE(n);
    char err[FEMU_ERR_LEN];

    femu_threads_stop(n);
    femu_state_save_final(n);           /* unplug; nothing after a failed realize */
    n->state_ready = false;
    if (n->stats) {   /* realize failed before the FTL thread took it over */
        ftl_stats_close(n->stats, femu_now_ns(), err, sizeof(err));
        n->stats = NULL;
    }
    io_trace_writer_close(n->trace, femu_now_ns(), err, sizeof(err));   /* likewise */
    n->trace = NULL;
    femu_irq_cleanup(n);
    femu_irqfd_cleanup(n);
    if (msix_present(pci_dev)) {
        msix_uninit_exclusive_bar(pci_dev);
    }
    data_store_destroy(n->store);
    n->store = NULL;
    femu_ns_release(n);
    lba_bitmap_destroy(&n->written);
    lba_bitmap_destroy(&n->uncorrectable);
    femu_media_reset(n);                /* the LBA status page kept for RAE reads */
    femu_ftl_view_destroy(n);
    femu_power_cut_release(n);
    femu_fdp_release(n);
    ftl_destroy(n->ftl);
    n->ftl = NULL;
}

static void femu_realize(PCIDevice *pci_dev, Error **errp)
{
    FemuCtrl *n = FEMU(pci_dev);
    char err[FEMU_ERR_LEN];

    if (!femu_check_controller_props(n, errp) || !femu_resolve_config(n, errp) ||
        !femu_prepare_stats_dir(n, errp) || !femu_state_check_out(n, errp)) {
        return;
    }
    n->ftl = ftl_create(&n->ftl_config, err, sizeof(err));
    if (!n->ftl) {
        error_setg(errp, "cannot create the FTL: %s", err);
        return;
    }
    femu_features_init(n);
    femu_cmd_tables_install(n);     /* before the namespaces, which select theirs */
    n->smart.power_on_ns = femu_now_ns();
    femu_irq_init(n);
    /* state_in after the namespaces exist (and FDP with them, which the state may
     * replace) and before the statistics take their baseline. The statistics' origin (a
     * recording's time 0) is the instant the state is restored at. */
    n->stats_start_ns = femu_now_ns();
    if (!femu_init_media(n, errp)) {
        femu_release(n);
        return;
    }
    femu_fdp_realize(n);
    if (!femu_power_cut_realize(n, errp) || !femu_state_restore(n, femu_state_parts, errp)) {
        femu_release(n);
        return;
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        femu_cmd_set_select(n, &n->ns[nsid]);   /* a restored table's namespaces too */
    }
    if (!femu_init_pci(n, errp) ||
        !femu_open_stats(n, errp) || !femu_open_trace(n, errp) ||
        !femu_threads_start(n, errp)) {
        femu_release(n);
        return;
    }
    n->exit_notifier.notify = femu_exit_notify;
    qemu_add_exit_notifier(&n->exit_notifier);
    n->state_final_saved = false;
    n->state_ready = true;
}

static void femu_exit(PCIDevice *pci_dev)
{
    FemuCtrl *n = FEMU(pci_dev);

    qemu_remove_exit_notifier(&n->exit_notifier);
    femu_release(n);
}

static void femu_reset_hold(Object *obj, ResetType type)
{
    FemuCtrl *n = FEMU(obj);

    if (n->threads_running) {
        femu_ctrl_machine_reset(n);
    }
}

static void femu_instance_init(Object *obj)
{
    FemuCtrl *n = FEMU(obj);

    /* The defaults were just stored through the setter: none of them is explicit. */
    for (unsigned i = 0; ftl_config_key(i) != NULL; i++) {
        n->ftl_props[i].explicit = false;
    }
    qemu_mutex_init(&n->reset_lock);
    qemu_cond_init(&n->reset_cond);
    femu_state_instance_init(n);
    femu_power_cut_instance_init(n);
    femu_poll_instance_init(n);
    femu_power_counters_instance_init(n);
}

static void femu_instance_finalize(Object *obj)
{
    FemuCtrl *n = FEMU(obj);

    ftl_destroy(n->ftl);   /* normally gone already: exit runs on unrealize */
    n->ftl = NULL;
    qemu_cond_destroy(&n->reset_cond);
    qemu_mutex_destroy(&n->reset_lock);
    femu_state_instance_finalize(n);
    femu_power_cut_instance_finalize(n);
    for (unsigned i = 0; i < FEMU_FTL_KEYS_MAX; i++) {
        g_free(n->ftl_props[i].text);
        n->ftl_props[i].text = NULL;
    }
}

static const Property femu_controller_props[] = {
    DEFINE_PROP_STRING("config", FemuCtrl, config_file),
    DEFINE_PROP_STRING("stats_dir", FemuCtrl, stats_dir),
    DEFINE_PROP_STRING("trace_out", FemuCtrl, trace_out),
    DEFINE_PROP_STRING("serial", FemuCtrl, serial),
    DEFINE_PROP_STRING("namespaces", FemuCtrl, namespaces),
    DEFINE_PROP_STRING("state_in", FemuCtrl, state_in),
    DEFINE_PROP_STRING("state_out", FemuCtrl, state_out),
    DEFINE_PROP_UINT32("queues", FemuCtrl, queues, FEMU_DEFAULT_QUEUES),
    DEFINE_PROP_UINT8("mdts", FemuCtrl, mdts, FEMU_DEFAULT_MDTS),
    DEFINE_PROP_UINT32("kv_ns_mb", FemuCtrl, kv_ns_mb, 0),
    DEFINE_PROP_UINT32("poll_window_us", FemuCtrl, poll.cap_us,
                       FEMU_POLL_WINDOW_CAP_NS / 1000),
};

/* The emulated flash lives in host memory and the FTL state is not serialised. */
static const VMStateDescription femu_vmstate = {
    .name = TYPE_FEMU,
    .unmigratable = 1,
};

static void femu_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    pc->realize = femu_realize;
    pc->exit = femu_exit;
    pc->vendor_id = FEMU_PCI_VENDOR_ID;
    pc->device_id = FEMU_PCI_DEVICE_ID;
    pc->class_id = PCI_CLASS_STORAGE_EXPRESS;

    rc->phases.hold = femu_reset_hold;
    dc->desc = "femu NVMe SSD emulator (FTL with GC, flash latencies, statistics)";
    dc->vmsd = &femu_vmstate;
    set_bit(DEVICE_CATEGORY_STORAGE, dc->categories);
    device_class_set_props(dc, femu_controller_props);
    object_class_property_set_description(oc, "config",
        "SSD configuration file (key=value lines); explicit properties override it");
    object_class_property_set_description(oc, "stats_dir",
        "directory for the CSV statistics (created if missing)");
    object_class_property_set_description(oc, "trace_out",
        "record the requests the FTL serves into this file (a version-2 I/O trace that "
        "ftl-sim --trace replays)");
    object_class_property_set_description(oc, "serial",
        "NVMe serial number, at most 20 characters (default: FEMU + PCI slot)");
    object_class_property_set_description(oc, "state_in",
        "restore the device state (FTL, namespaces, written data) from this state file "
        "at start");
    object_class_property_set_description(oc, "state_out",
        "write the device state to this file at exit and on vendor admin command C2h "
        "(atomically: a temporary file renamed over it)");
    object_class_property_set_description(oc, "queues", "number of I/O queue pairs");
    object_class_property_set_description(oc, "kv_ns_mb",
        "MiB of values of a Key Value namespace (CSI 01h) made beside the NVM namespace at "
        "the end of the conventional space (0: none; given, the KV command set is offered)");
    object_class_property_set_description(oc, "mdts",
        "maximum data transfer size, a power of two of 4 KiB pages (0: no limit)");
    femu_poll_class_init(oc);
    femu_class_add_ftl_props(oc);
}

static const TypeInfo femu_type_info = {
    .name = TYPE_FEMU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(FemuCtrl),
    .instance_init = femu_instance_init,
    .instance_finalize = femu_instance_finalize,
    .class_init = femu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void femu_register_types(void)
{
    type_register_static(&femu_type_info);
}

type_init(femu_register_types)
