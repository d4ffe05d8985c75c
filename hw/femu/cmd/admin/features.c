/*
 * Get Features and Set Features (poller thread), driven by one table indexed by FID:
 * the field a feature lives in, the CDW11 bits Set Features stores, the CDW11 bits that
 * pick an element of the field (temperature threshold, interrupt vector), whether the
 * feature is namespace specific (then the element is the NSID), whether it is saveable,
 * the value checks and the defaults a controller reset brings back. A feature that is
 * more than a CDW11 value (Flexible Data Placement's 1Dh and 1Eh, cmd/fdp/fdp_features.c)
 * names its own Get and Set functions, and whether the controller offers it; only such a
 * feature is saveable (1Dh and 1Eh are: NVMe 2.1 says they shall be), its functions keep
 * the saved value. Set Features with SV on any other is Feature Identifier Not Saveable.
 *
 * Power Management (02h) and Autonomous Power State Transition (0Ch, offered when some
 * power state is non-operational) are the FTL's power-state model's: cmd/admin/power_features.c.
 *
 * Volatile Write Cache (06h) is the FTL's write buffer (femu_ftl/ftl.h,
 * ftl_set_write_cache): offered only when the FTL has one (write_buffer_sectors > 0, and
 * then Identify's VWCP is set). NVMe 1.0 already told the host not to send Set or Get
 * Features of 06h without a cache; femu answers them as an unknown FID, Invalid Field in
 * Command. With one, WCE is on at power-on and after a controller reset (its default; not
 * saveable), and a Set switches the FTL's cache through the engine
 * (FTL_OP_SET_WRITE_CACHE, so a recording holds it and a replay does it again), on the FTL
 * thread in fetch order: every command fetched after the Set finds the cache as it says.
 * WCE 0 drains the buffer first, and the Set completes when that drain's last program
 * ends; from then on writes complete when programmed. Get (current) returns the value the
 * FTL follows, which the poller keeps.
 *
 * NSID rules (NVMe base specification): a namespace-specific feature takes an active
 * NSID (Get and Set) or FFFFFFFFh (Set only: every namespace); a valid NSID that is not
 * active is Invalid Field in Command, any other Invalid Namespace or Format. Get Features
 * of any other feature ignores the NSID; Set Features of one takes 0h or FFFFFFFFh, and a
 * valid NSID gets Feature Not Namespace Specific.
 */
#include "qemu/osdep.h"

#include "cmd/admin/features.h"
#include "cmd/admin/power_desc.h"
#include "cmd/admin/power_features.h"
#include "cmd/core/cmd.h"
#include "cmd/core/ns_table.h"
#include "cmd/fdp/fdp.h"
#include "cmd/fdp/fdp_features.h"
#include "ctrl/request.h"
#include "ctrl/wake.h"

#define FEMU_FEAT_LBA_STATUS_ATTRS      0x15    /* LBA Status Information Attributes */
/* Key Value Configuration (KV Command Set 1.0; SPDK's SPDK_NVME_FEAT_KEY_VALUE_CONFIG):
 * CDW11 bit 0 EDNEK, Error on Delete of Non-Existent Key (cmd/io/kv.c). */
#define FEMU_FEAT_KV_CONFIG             0x20
/* I/O Command Set Profile (NVMe base 2.0): CDW11 bits 8:0, IOCSCI, the index of the
 * combination in Identify CNS 1Ch that CC.CSS 110b enables; femu lists one, index 0. */
#define FEMU_FEAT_IOCS_PROFILE          0x19
#define FEMU_IOCSCI_MASK                0x1ffu
#define FEMU_KV_CONFIG_EDNEK_BIT        (1u << 0)
#define FEMU_VWC_WCE                    (1u << 0)   /* CDW11 and DW0: Write Cache Enable */
#define FEMU_FEAT_SEL_CURRENT           0

typedef struct FemuFeature {
    bool supported;
    bool ns_specific;       /* a value per namespace: the field's element is the NSID */
    /* SV accepted (SEL 3 bit 0): the feature's own get and set keep a saved value, which
     * SEL 2 returns and a controller reset brings back (cmd/fdp/fdp_features.c). */
    bool saveable;
    size_t field;           /* offset in FemuFeatures of a uint32_t or an array of them */
    unsigned elements;      /* uint32_t values in the field */
    uint32_t writable;      /* CDW11 bits Set Features stores; Get returns them */
    uint32_t echoed;        /* CDW11 bits Get returns as given (the vector number) */
    /* The element of the field CDW11 names (NULL: element 0); false: none (Invalid Field). */
    bool (*element)(FemuCtrl *n, uint32_t dw11, unsigned *index);
    /* Set Features: the status for a command femu cannot take now (NULL: none). */
    uint16_t (*allowed)(FemuCtrl *n);
    /* Set Features: false for a value femu cannot take (Invalid Field). */
    bool (*settable)(FemuCtrl *n, uint32_t dw11);
    /* A value the controller computes instead of storing (Set returns it too). */
    uint32_t (*computed)(FemuCtrl *n);
    uint32_t defaults[2];   /* of elements 0 and 1; other elements default to 0 */
    /* A feature with functions of its own: they check everything but SEL 3, SV and a
     * Set's NSID rule (for a feature that is not namespace specific). */
    uint16_t (*get)(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel, FemuRequest *req);
    uint16_t (*set)(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
    bool (*offered)(FemuCtrl *n);      /* NULL: always; false: as an unknown FID */
} FemuFeature;

/* 19h: the only I/O command set combination femu lists (CNS 1Ch vector 0). */
static bool femu_feature_iocs_index(FemuCtrl *n, uint32_t dw11)
{
    return (dw11 & FEMU_IOCSCI_MASK) == 0;
}

/* Temperature threshold: the composite sensor (TMPSEL 0), over or under (THSEL 0/1). */
static bool femu_feature_thsel(FemuCtrl *n, uint32_t dw11, unsigned *index)
{
    unsigned tmpsel = (dw11 >> 16) & 0xf, thsel = (dw11 >> 20) & 0x3;

    *index = thsel;
    return tmpsel == 0 && thsel <= FEMU_THSEL_UNDER;
}

/* Interrupt vector configuration: the vector in CDW11[15:0]. */
static bool femu_feature_vector(FemuCtrl *n, uint32_t dw11, unsigned *index)
{
    *index = dw11 & 0xffff;
    return *index < n->num_vectors;
}

static bool femu_feature_no_dulbe(FemuCtrl *n, uint32_t dw11)
{
    return !(dw11 & (1u << 16));   /* no errors for deallocated or unwritten blocks */
}

static bool femu_feature_queues_asked(FemuCtrl *n, uint32_t dw11)
{
    return (dw11 & 0xffff) != 0xffff && (dw11 >> 16) != 0xffff;   /* NSQR, NCQR */
}

/* Number of queues is set during initialization: not once an I/O queue was created. */
static uint16_t femu_feature_queues_allowed(FemuCtrl *n)
{
    return n->io_queues_created ? femu_dnr(NVME_CMD_SEQ_ERROR) : NVME_SUCCESS;
}

/*
 * LBA Status Information Attributes: femu reports at once (report and poll intervals 0),
 * so Set takes any value and answers with the closest supported one, 0.
 */
static uint32_t femu_feature_lba_status_attrs(FemuCtrl *n)
{
    return 0;
}

/* Number of queues: the queues property, 0-based, for SQs and CQs alike. */
static uint32_t femu_feature_queues(FemuCtrl *n)
{
    return (n->queues - 1) | (n->queues - 1) << 16;
}

/* Volatile Write Cache: there is one only with the FTL's write buffer. */
static bool femu_feature_vwc_offered(FemuCtrl *n)
{
    return femu_has_write_cache(n);
}

/* The FTL request that switches its cache; the FTL thread serves it in fetch order. */
static void femu_feature_vwc_request(FemuRequest *req, bool wce)
{
    femu_req_ftl(req, FTL_OP_SET_WRITE_CACHE);
    req->ftl.flags = wce ? FTL_REQ_WCE : 0;
}

static uint16_t femu_feature_vwc_get(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                                     FemuRequest *req)
{
    /* Default and saved (none is kept) are the power-on value: on. */
    bool wce = sel == FEMU_FEAT_SEL_CURRENT ? n->features.vwc : true;

    req->result = wce ? FEMU_VWC_WCE : 0;
    return NVME_SUCCESS;
}

/* Completes when the FTL has switched: WCE 0 after the buffer's drain. */
static uint16_t femu_feature_vwc_set(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    bool wce = femu_cdw(cmd, 11) & FEMU_VWC_WCE;

    n->features.vwc = wce;
    femu_feature_vwc_request(req, wce);
    return NVME_SUCCESS;
}

/*
 * A controller reset brings WCE's default back: the FTL's cache on again, if a Set turned
 * it off, through an internal request served after the work queued before the reset. When
 * every request is in flight (the guest holds them all in full CQs) there is none to send:
 * the cache stays off and Get says so. The WCE the controller has after the reset.
 */
static bool femu_feature_vwc_reset(FemuCtrl *n)
{
    FemuRequest *req;

    if (!femu_feature_vwc_offered(n) || n->features.vwc) {
        return true;
    }
    req = femu_req_alloc(n);
    if (!req) {
        return false;
    }
    memset(req, 0, offsetof(FemuRequest, list_next));
    req->internal = true;
    req->epoch = n->epoch;
    req->keep_on_reset = true;
    req->ftl.arrival_ns = femu_now_ns();
    femu_feature_vwc_request(req, true);
    spsc_ring_push(n->to_ftl, req);     /* the ring holds the whole pool */
    femu_ftl_kick(n);
    return true;
}

#define FEMU_FIELD(name) .supported = true, .field = offsetof(FemuFeatures, name), \
    .elements = sizeof(((FemuFeatures *)NULL)->name) / sizeof(uint32_t)

static const FemuFeature femu_features[] = {
    [NVME_ARBITRATION] = { FEMU_FIELD(arbitration), .writable = UINT32_MAX },
    [NVME_POWER_MANAGEMENT] = {
        .supported = true, .get = femu_power_get_feature, .set = femu_power_set_feature,
    },
    [NVME_TEMPERATURE_THRESHOLD] = {
        FEMU_FIELD(temp_threshold), .writable = 0xffff, .element = femu_feature_thsel,
        .defaults = { [FEMU_THSEL_OVER] = FEMU_WCTEMP_K, [FEMU_THSEL_UNDER] = 0 },
    },
    /* Namespace specific since NVMe 1.3 (DULBE); TLER applies to the namespace too. */
    [NVME_ERROR_RECOVERY] = {
        FEMU_FIELD(err_rec), .ns_specific = true, .writable = 0xffff,
        .settable = femu_feature_no_dulbe,
    },
    [NVME_VOLATILE_WRITE_CACHE] = {
        FEMU_FIELD(vwc), .defaults = { 1 }, .get = femu_feature_vwc_get,
        .set = femu_feature_vwc_set, .offered = femu_feature_vwc_offered,
    },
    [NVME_NUMBER_OF_QUEUES] = {
        .supported = true, .computed = femu_feature_queues,
        .allowed = femu_feature_queues_allowed, .settable = femu_feature_queues_asked,
    },
    [NVME_INTERRUPT_COALESCING] = { FEMU_FIELD(int_coalescing), .writable = 0xffff },
    [NVME_INTERRUPT_VECTOR_CONF] = {
        FEMU_FIELD(int_vector_config), .writable = 1u << 16, .echoed = 0xffff,
        .element = femu_feature_vector,   /* CD, coalescing disable */
    },
    [NVME_WRITE_ATOMICITY] = { FEMU_FIELD(write_atomicity), .writable = 1 },
    [NVME_ASYNCHRONOUS_EVENT_CONF] = { FEMU_FIELD(async_config), .writable = UINT32_MAX },
    [FEMU_FEAT_APST] = {
        .supported = true, .get = femu_apst_get_feature, .set = femu_apst_set_feature,
        .offered = femu_power_apst_offered,
    },
    [FEMU_FEAT_LBA_STATUS_ATTRS] = {
        .supported = true, .computed = femu_feature_lba_status_attrs,
    },
    [FEMU_FEAT_FDP] = {
        .supported = true, .saveable = true, .get = femu_fdp_get_feature,
        .set = femu_fdp_set_feature, .offered = femu_fdp_offered,
    },
    [FEMU_FEAT_IOCS_PROFILE] = {
        FEMU_FIELD(iocs_profile), .writable = FEMU_IOCSCI_MASK,
        .settable = femu_feature_iocs_index, .offered = femu_kv_offered,
    },
    [FEMU_FEAT_KV_CONFIG] = {
        FEMU_FIELD(kv_config), .writable = FEMU_KV_CONFIG_EDNEK_BIT,
        .offered = femu_kv_offered,     /* EDNEK 0 at power-on: a missing key is no error */
    },
    [FEMU_FEAT_FDP_EVENTS] = {
        .supported = true, .ns_specific = true, .saveable = true,
        .get = femu_fdp_get_events_feature, .set = femu_fdp_set_events_feature,
        .offered = femu_fdp_offered,
    },
};

QEMU_BUILD_BUG_ON(sizeof(((FemuFeatures *)NULL)->err_rec) !=
                  sizeof(uint32_t) * (FEMU_MAX_NAMESPACES + 1));

static uint32_t *femu_feature_slot(const FemuFeature *feature, FemuFeatures *values,
                                   unsigned index)
{
    return (uint32_t *)((uint8_t *)values + feature->field) + index;
}

static void femu_features_defaults(FemuFeatures *values)
{
    memset(values, 0, sizeof(*values));
    for (unsigned fid = 0; fid < ARRAY_SIZE(femu_features); fid++) {
        const FemuFeature *feature = &femu_features[fid];

        for (unsigned i = 0; i < MIN(feature->elements, ARRAY_SIZE(feature->defaults)); i++) {
            *femu_feature_slot(feature, values, i) = feature->defaults[i];
        }
    }
}

void femu_features_init(FemuCtrl *n)
{
    femu_features_defaults(&n->features);
    n->io_queues_created = false;
}

void femu_features_reset(FemuCtrl *n)
{
    bool wce = femu_feature_vwc_reset(n);
    FemuFeatures before = n->features;

    femu_features_init(n);
    n->features.vwc = wce;
    if (!femu_power_reset(n, &before)) {    /* no request for it: 0Ch as the FTL has it */
        n->features.apst_enable = before.apst_enable;
        memcpy(n->features.apst_table, before.apst_table, sizeof(before.apst_table));
        n->features.power_changed = true;
    }
}

void femu_features_ns_reset(FemuCtrl *n, uint32_t nsid)
{
    FemuFeatures defaults;

    femu_features_defaults(&defaults);
    for (unsigned fid = 0; fid < ARRAY_SIZE(femu_features); fid++) {
        const FemuFeature *feature = &femu_features[fid];

        if (feature->ns_specific && nsid < feature->elements) {
            *femu_feature_slot(feature, &n->features, nsid) =
                *femu_feature_slot(feature, &defaults, nsid);
        }
    }
}

/* Supported capabilities (SEL 11b): bit 0 saveable, 1 namespace specific, 2 changeable. */
static uint32_t femu_feature_capabilities(const FemuFeature *feature)
{
    return (feature->saveable ? NVME_FEAT_CAP_SAVE : 0) |
           (feature->ns_specific ? NVME_FEAT_CAP_NS : 0) |
           (feature->writable || feature->computed || feature->set ?
            NVME_FEAT_CAP_CHANGE : 0);
}

/*
 * The feature a command names, with the element of its field CDW11 selects: NULL for an
 * unknown FID or a CDW11 selecting nothing (both Invalid Field). A namespace-specific
 * feature's element is chosen by the NSID, later.
 */
static const FemuFeature *femu_feature_find(FemuCtrl *n, uint8_t fid, uint32_t dw11,
                                            unsigned *index)
{
    const FemuFeature *feature = fid < ARRAY_SIZE(femu_features) ? &femu_features[fid] : NULL;

    *index = 0;
    if (!feature || !feature->supported || (feature->offered && !feature->offered(n)) ||
        (feature->element && !feature->element(n, dw11, index)) ||
        (!feature->computed && !feature->get && *index >= feature->elements)) {
        return NULL;
    }
    return feature;
}

/* A namespace-specific feature's element: the active namespace the NSID names. */
static uint16_t femu_feature_namespace(FemuCtrl *n, uint32_t nsid, unsigned *index)
{
    FemuNamespace *ns;
    uint16_t status = femu_ns_for_io(n, nsid, &ns);

    if (status == NVME_SUCCESS) {
        *index = ns->nsid;
    }
    return status;
}

static uint32_t femu_feature_get(FemuCtrl *n, const FemuFeature *feature, uint32_t dw11,
                                 unsigned index, FemuFeatures *values)
{
    if (feature->computed) {
        return feature->computed(n);
    }
    return *femu_feature_slot(feature, values, index) | (dw11 & feature->echoed);
}

uint16_t femu_get_features(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw10 = le32_to_cpu(cmd->cdw10), dw11 = le32_to_cpu(cmd->cdw11);
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    unsigned sel = (dw10 >> 8) & 0x7;
    const FemuFeature *feature;
    FemuFeatures defaults;
    unsigned index;

    if (sel > 3) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    feature = femu_feature_find(n, dw10 & 0xff, sel == 3 ? 0 : dw11, &index);
    if (!feature) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (feature->get && sel != 3) {
        return feature->get(n, cmd, sel, req);
    }
    if (feature->ns_specific) {
        /* FFFFFFFFh names no one value: Invalid Namespace or Format, as for NSID 0. */
        uint16_t status = femu_feature_namespace(n, nsid, &index);

        if (status) {
            return status;
        }
    }
    switch (sel) {
    case 0:         /* current */
        req->result = femu_feature_get(n, feature, dw11, index, &n->features);
        break;
    case 1:         /* default */
    case 2:         /* saved: the table's features are not saveable, so the default */
        femu_features_defaults(&defaults);
        req->result = femu_feature_get(n, feature, dw11, index, &defaults);
        break;
    case 3:         /* supported capabilities */
        req->result = femu_feature_capabilities(feature);
        break;
    }
    return NVME_SUCCESS;
}

/* Set Features' NSID: the element to set, or every namespace's (*all). */
static uint16_t femu_feature_set_nsid(FemuCtrl *n, const FemuFeature *feature, uint32_t nsid,
                                      unsigned *index, bool *all)
{
    *all = false;
    if (feature->ns_specific) {
        if (nsid == NVME_NSID_BROADCAST) {
            *all = true;
            return NVME_SUCCESS;
        }
        return femu_feature_namespace(n, nsid, index);
    }
    if (nsid == 0 || nsid == NVME_NSID_BROADCAST) {
        return NVME_SUCCESS;
    }
    if (nsid > FEMU_MAX_NAMESPACES) {
        return femu_dnr(NVME_INVALID_NSID);
    }
    return femu_dnr(NVME_FEAT_NOT_NS_SPEC);
}

uint16_t femu_set_features(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw10 = le32_to_cpu(cmd->cdw10), dw11 = le32_to_cpu(cmd->cdw11);
    const FemuFeature *feature;
    unsigned index;
    bool all;
    uint16_t status;

    feature = femu_feature_find(n, dw10 & 0xff, dw11, &index);
    if (!feature) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if ((dw10 >> 31) && !feature->saveable) {
        return femu_dnr(NVME_FID_NOT_SAVEABLE);
    }
    if (feature->set) {
        status = feature->ns_specific ? NVME_SUCCESS :
                 femu_feature_set_nsid(n, feature, le32_to_cpu(cmd->nsid), &index, &all);
        return status ? status : feature->set(n, cmd, req);
    }
    status = femu_feature_set_nsid(n, feature, le32_to_cpu(cmd->nsid), &index, &all);
    if (status == NVME_SUCCESS && feature->allowed) {
        status = feature->allowed(n);
    }
    if (status) {
        return status;
    }
    if (feature->settable && !feature->settable(n, dw11)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (feature->computed) {
        req->result = feature->computed(n);
    } else if (all) {
        /* Every NSID, so a namespace attached later has the value too. */
        for (unsigned nsid = 1; nsid < feature->elements; nsid++) {
            *femu_feature_slot(feature, &n->features, nsid) = dw11 & feature->writable;
        }
    } else {
        *femu_feature_slot(feature, &n->features, index) = dw11 & feature->writable;
    }
    return NVME_SUCCESS;
}
