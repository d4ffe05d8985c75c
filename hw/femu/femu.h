/*
 * femu: an NVMe SSD emulator whose flash translation layer lives in the device.
 *
 * FemuCtrl is the controller-facing state shared by the device's source files: its
 * properties, the FTL configuration they resolve to, and the FTL handle. top/realize.c owns
 * the QOM type, the properties and realize; the NVMe controller (registers, queues,
 * commands) builds on this struct from its own files (layers.txt: this is the bottom).
 */
#ifndef HW_FEMU_FEMU_H
#define HW_FEMU_FEMU_H

#include "block/nvme.h"
#include "hw/pci/pci_device.h"
#include "qemu/event_notifier.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qom/object.h"

#include "femu_ftl/engine.h"
#include "femu_ftl/ftl.h"
#include "femu_ftl/stats.h"
#include "store/data_store.h"
#include "util/completion_heap.h"
#include "util/lba_bitmap.h"
#include "util/spsc_ring.h"
#include "nvme/prp.h"

#define TYPE_FEMU "femu"
OBJECT_DECLARE_SIMPLE_TYPE(FemuCtrl, FEMU)

/*
 * PCI identity. Guests bind their NVMe driver on the class code (mass storage, NVM
 * subclass, NVMe programming interface), so the IDs only name the device: these are the
 * ones FEMU and older QEMU NVMe controllers show, so lab scripts that grep lspci still work.
 */
#define FEMU_PCI_VENDOR_ID      PCI_VENDOR_ID_INTEL
#define FEMU_PCI_DEVICE_ID      0x5845
#define FEMU_PCI_PROG_IF_NVME   0x02

/* Controller property limits (FEMU's defaults: queues=8, mdts=10). */
#define FEMU_DEFAULT_QUEUES     8
#define FEMU_MAX_QUEUES         64      /* I/O queue pairs the controller offers at most */
#define FEMU_DEFAULT_MDTS       10      /* 2^10 minimum-size (4 KiB) pages: 4 MiB */
#define FEMU_MAX_MDTS           20      /* 4 GiB: larger transfers are surely a typo */
#define FEMU_SERIAL_MAX_LEN     20      /* the NVMe Identify Controller SN field */

/* Controller limits and identity values (see CONTROLLER.md). */
#define FEMU_BAR0_SIZE          0x4000  /* registers + doorbells, a power of two */
#define FEMU_MSIX_BAR           4
#define FEMU_DOORBELL_BASE      0x1000
#define FEMU_MAX_QSIZE          2048    /* entries per queue: CAP.MQES + 1 */
#define FEMU_CAP_TIMEOUT        30      /* CAP.TO in 500 ms units: 15 s */
#define FEMU_MPSMAX             4       /* host pages of 4 KiB to 64 KiB */
#define FEMU_AERL               3       /* 0-based: four AERs may be outstanding */
#define FEMU_ACL                3       /* 0-based abort command limit */
#define FEMU_ELPE               3       /* 0-based: four error log entries */
#define FEMU_MAX_INFLIGHT       16384   /* requests between fetch and completion */
#define FEMU_FETCH_BURST        64      /* SQEs taken from one queue per poller pass */
#define FEMU_MAX_PHASE_MARKERS  4096    /* C1h rows per device lifetime; more get a status */
/* Dataset Management limits (Identify CNS 06h): one command deallocates at most 1 GiB. */
#define FEMU_DMRL               255     /* ranges per command (the field's largest value) */
#define FEMU_DSM_MAX_BYTES      (UINT64_C(1) << 30)
/* Verify Size Limit (Identify CNS 06h VSL): 2^FEMU_VSL pages of 4 KiB per Verify, 4 MiB. */
#define FEMU_VSL                10
#define FEMU_TEMPERATURE_K      310
#define FEMU_WCTEMP_K           343
#define FEMU_CCTEMP_K           373
#define FEMU_MODEL              "femu SSD"
#define FEMU_FIRMWARE           "1.0"

/* The device's clock: FTL arrival and completion times, statistics rows, SMART hours. */
static inline uint64_t femu_now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

/* Status with Do Not Retry, for every error the guest's input caused. */
static inline uint16_t femu_dnr(uint16_t status)
{
    return status | NVME_DNR;
}

/*
 * The Key Value command set (NVMe Key Value Command Set Specification 1.0; the values
 * cross-checked with SPDK's include/spdk/nvme_kv.h): its Command Set Identifier and the
 * statuses block/nvme.h does not name, generic status type (the I/O command set specific
 * range 80h-BFh); Capacity Exceeded is the generic 81h (NVME_CAP_EXCEEDED).
 */
#define FEMU_CSI_KV                     0x01
#define NVME_KV_INVALID_VALUE_SIZE      0x0085
#define NVME_KV_INVALID_KEY_SIZE        0x0086
#define NVME_KV_KEY_NOT_EXIST           0x0087
#define NVME_KV_KEY_EXISTS              0x0089

/* Namespaces (cmd/admin/ns.c). NSIDs 1..FEMU_MAX_NAMESPACES; NN reports the maximum. */
#define FEMU_MAX_NAMESPACES     32
#define FEMU_CNTLID             0       /* the one controller of the subsystem */
#define FEMU_MAX_LBAF           2       /* LBA formats: the FTL sector, and 4 KiB */

/* Flexible Data Placement (FemuFdp below): the endurance group and its limits. */
#define FEMU_ENDGID             1       /* the one endurance group */
#define FEMU_FDP_MAX_RUHS       FTL_MAX_WRITE_POINTERS
#define FEMU_FDP_MAX_EVENTS     63      /* FDP events kept per list (the log's room) */
#define FEMU_FDP_EVENT_BYTES    64      /* one FDP Event data structure */

/* Room for every FTL key (ftl_config_key(), 225 the power states'): checked at class init. */
#define FEMU_FTL_KEYS_MAX       384

/* One FTL key exposed as a device property. */
typedef struct FemuFtlProperty {
    char *text;         /* current value as the FTL parses it (decimal, or a placement name) */
    bool explicit;      /* set on -device / -global / QMP, so it overrides config=FILE */
} FemuFtlProperty;

/* An I/O or admin submission queue; slots indexed by queue id, never freed while realized. */
typedef struct FemuSQueue {
    bool valid;
    uint16_t cqid;
    uint32_t size;              /* entries (atomic: doorbell writes are checked against it) */
    uint64_t dma_addr;
    uint32_t head;              /* next entry to fetch (poller) */
    uint32_t gen;               /* bumped on delete: completions of an older gen are dropped */
    uint32_t db_tail;           /* last MMIO doorbell value (atomic: written by vCPUs) */
} FemuSQueue;

typedef struct FemuCQueue {
    bool valid;                 /* atomic: the pin level is computed under the BQL */
    bool irq_enabled;
    uint16_t vector;
    uint32_t size;
    uint64_t dma_addr;
    uint32_t tail;              /* atomic: next entry to post, written by the poller */
    uint32_t phase;
    uint32_t head;              /* last head the poller knows of */
    uint32_t db_head;           /* last MMIO doorbell value (atomic: written by vCPUs) */
    uint32_t nsq;               /* SQs bound to this CQ */
    struct FemuRequest *held_head, *held_tail;  /* due completions waiting for room (FIFO) */
} FemuCQueue;

/*
 * What the FTL thread does with a request. FTL work is described by the request's
 * struct ftl_request (femu_ftl/engine.h: one vocabulary with ftl-sim); the rest is the
 * device's own.
 */
typedef enum FemuWork {
    FEMU_WORK_NONE,             /* complete at once (errors; admin without the link model) */
    FEMU_WORK_FTL,              /* the engine serves ftl (FTL_OP_FORMAT: once per range) */
    FEMU_WORK_LPN_DUMP,         /* write lpn_access_count.csv */
    FEMU_WORK_PHASE,            /* phases.csv marker */
} FemuWork;

typedef struct FemuRequest {
    uint16_t sqid, cid;
    uint32_t sq_gen;
    uint32_t epoch;             /* controller generation: a reset drops older requests */
    bool internal;              /* no CQE: the shutdown's lpn dump */
    bool drain;                 /* lpn dump: drain the FTL's write buffer first (a
                                 * shutdown's, or one a shutdown rides on) */
    uint32_t shutdown_seq;      /* internal: the shutdown it completes */
    uint16_t status;            /* NVMe status without phase, DNR included */
    uint32_t result;            /* CQE DW0 */
    uint32_t result_hi;         /* CQE DW1 (a Zone Append's LBA, bits 63:32) */
    FemuWork work;
    /*
     * FEMU_WORK_FTL: what the engine serves. For every request ftl.arrival_ns is when the
     * poller fetched it. ftl.ranges, when set, is g_new memory the request owns
     * (femu_req_free frees it): FTL_OP_TRIM's Dataset Management ranges, FTL_OP_COPY's
     * sources, FTL_OP_ZONE_MGMT's zones, and FTL_OP_FORMAT's namespaces (each range
     * formatted by itself); so is ftl.power (FTL_OP_POWER's, cmd/admin/power_features.c).
     * In the zoned namespace (cmd/io/zns.c) the zone operations are admitted at fetch
     * (FTL_REQ_ADMITTED) and slba/nlb are zoned sectors.
     */
    struct ftl_request ftl;
    /* A write's FTL sectors [pre_first, pre_first + pre_count) as they were before it
     * (g_malloc, freed with the request, counted in power_cut.captured): the bytes a
     * power cut puts back if the write is lost from the buffer. */
    uint8_t *pre_data;
    uint64_t pre_first, pre_count;
    uint64_t done_ns;
    bool keep_on_reset;         /* the FTL does it even if a reset drops the completion */
    char phase[17];
    /* What a read, Compare or Verify completes with when the FTL serves it without error:
     * Unrecovered Read Error for marked LBAs, Compare Failure; 0 for success. */
    uint16_t status_on_done;
    /* the FTL failed a flash page read: error_lpn (cmd/health/media.c) */
    bool media_error;
    uint64_t error_lpn;
    uint64_t error_lba;         /* the namespace LBA an error after fetch is logged with */
    /*
     * FDP (cmd/fdp/, backend/fdp_ftl.c). ruh_update: the handles an FTL_OP_RUH_UPDATE
     * request closes, one engine request each (a Reclaim Unit Handle Update's, or every
     * handle for a controller reset's, which is internal). fdp_named: the handles the
     * command named through a placement handle of its namespace, fdp_phndl[ruh] each, for
     * the events the FTL raises while serving it. fdp_reset_report: a controller reset's
     * update: the handles whose Controller Level Reset event was enabled when the reset
     * came (the reset brings back the saved enables before the FTL serves the update).
     */
    uint32_t ruh_update;
    uint32_t fdp_named;
    uint8_t fdp_phndl[FEMU_FDP_MAX_RUHS];
    uint32_t fdp_reset_report;
    /* Last, kept by femu_execute's reset: the next request of the one list holding this
     * one (the free list, its CQ's held completions, the LPN dump waiters or riders). */
    struct FemuRequest *list_next;
} FemuRequest;

/* Make req FTL work of kind op; the command fills in the rest of req->ftl. */
static inline void femu_req_ftl(FemuRequest *req, enum ftl_op op)
{
    req->work = FEMU_WORK_FTL;
    req->ftl.op = op;
}

/* The controller's state (top/ctrl_state.c lists the transitions and their CSTS). */
typedef enum FemuCtrlState {
    FEMU_CTRL_DISABLED,         /* CC.EN 0: no queues */
    FEMU_CTRL_ENABLING,         /* CC.EN 0->1 seen: checking, latching the admin queues */
    FEMU_CTRL_READY,            /* CSTS.RDY: serving commands */
    FEMU_CTRL_SHUTTING_DOWN,    /* CC.SHN set while ready: still serving commands */
    FEMU_CTRL_FATAL,            /* CSTS.CFS: serving nothing until a reset */
    FEMU_CTRL_RESETTING,        /* dropping commands, queues and features */
} FemuCtrlState;

/* One MSI-X vector's KVM irqfd (ctrl/irqfd.c). */
typedef struct FemuIrqfd {
    EventNotifier notifier;
    QemuMutex lock;             /* orders the poller's signal against mask/unmask */
    int virq;                   /* KVM route, -1 until the vector is first unmasked */
    bool active;                /* under lock: wired to KVM (the vector is unmasked) */
} FemuIrqfd;

/* Events of one kind (host or controller), oldest first, the oldest dropped when full. */
typedef struct FemuFdpEventList {
    uint8_t records[FEMU_FDP_MAX_EVENTS][FEMU_FDP_EVENT_BYTES];
    unsigned first, count;
} FemuFdpEventList;

/*
 * Flexible Data Placement (cmd/fdp/, backend/fdp_ftl.c). With placement=fdp the device
 * has one endurance group with one reclaim group, and its reclaim unit handles (RUHs) are
 * the FTL's (femu_ftl/fdp.h); the conventional namespaces belong to the group.
 */
typedef struct FemuFdp {
    bool supported;             /* realize: placement=fdp (CTRATT.FDPS) */
    bool enabled;               /* poller: FDPE of feature 1Dh (on at power-on) */
    uint32_t ruhs;              /* NRUH: the FTL's handles */
    uint64_t ru_bytes;          /* RUNS: a reclaim unit (the FTL's GC unit) in bytes */
    /* Feature 1Eh: bit (1 << event type) per RUH, set by the poller, read by whoever
     * raises an event (atomic). A controller reset brings back the saved ones. */
    uint32_t event_enable[FEMU_FDP_MAX_RUHS];
    /* Features 1Dh and 1Eh as saved (Set Features with SV; cmd/fdp/fdp_features.c): what a
     * controller reset or a restored state starts from. Poller; kept in state files. */
    bool saved_enabled;
    uint32_t saved_event_enable[FEMU_FDP_MAX_RUHS];
    /* The event lists: the poller adds Invalid Placement Identifier events, the FTL thread
     * the events the FTL raised, the poller reads them for log 23h. */
    QemuMutex lock;
    bool lock_init;
    FemuFdpEventList host_events;   /* femu raises no controller event */
    /* Event timestamps count milliseconds from the last controller reset (atomic). */
    uint64_t clock_base_ns;
    /* The FTL counters log 22h counts from: a configuration change clears the figures. */
    uint64_t base_host_bytes, base_copy_pages, base_programs, base_erases;
} FemuFdp;

/*
 * Get/Set Features values as Set Features stored them (CDW11 bits), reset to defaults by
 * a controller reset; cmd/admin/features.c maps each FID to its field.
 */
typedef struct FemuFeatures {
    uint32_t arbitration;
    uint32_t power_mgmt;            /* 02h, 0Ch as set (cmd/admin/power_features.c) */
    uint32_t apst_enable;
    uint64_t apst_table[FTL_PS_MAX];
    bool power_changed;             /* either set since the last reset */
    uint32_t temp_threshold[2];     /* kelvin, by THSEL: */
#define FEMU_THSEL_OVER     0
#define FEMU_THSEL_UNDER    1
    uint32_t err_rec[FEMU_MAX_NAMESPACES + 1];     /* by NSID ([0] unused) */
    uint32_t vwc;
    uint32_t int_coalescing;
    uint32_t int_vector_config[FEMU_MAX_QUEUES + 1];    /* per vector: CD, bit 16 */
    uint32_t write_atomicity;
    uint32_t async_config;
    uint32_t kv_config;             /* 20h Key Value Configuration: EDNEK (cmd/io/kv.c) */
    uint32_t iocs_profile;          /* 19h I/O Command Set Profile: IOCSCI (CNS 1Ch index) */
} FemuFeatures;

/* SMART/health counters (poller-owned): the controller's, and one set per namespace. */
typedef struct FemuSmart {
    uint64_t units_read, units_written;     /* bytes, converted when the log is read */
    uint64_t read_cmds, write_cmds;
    uint64_t media_errors;                   /* commands ended by Unrecovered Read Error */
    int64_t power_on_ns;                     /* realtime at realize (controller only) */
} FemuSmart;

/*
 * A command set's table, one row per opcode (cmd/core/cmd_set.h). The rows name every
 * command, so they live at the top (top/cmd_tables.c); the controller and its namespaces
 * hold pointers to them, which realize fills, and the commands below read only those.
 */
typedef struct FemuAdminCmd FemuAdminCmd;
typedef struct FemuIoCmd FemuIoCmd;
#define FEMU_CSI_COUNT          (NVME_CSI_ZONED + 1)    /* I/O command sets by CSI */

/*
 * A namespace: a range of the FTL's logical sectors, whole flash pages, seen through an
 * LBA size of 512 B or 4 KiB (a multiple of the FTL sector, secsz). Poller-owned, like
 * everything the admin commands change; indexed by NSID in FemuCtrl.ns.
 */
struct kv_values;

typedef struct FemuNamespace {
    bool allocated;             /* created (Namespace Management) or given at realize */
    bool attached;              /* attached to the controller: active, I/O allowed */
    bool zoned;                 /* the zoned namespace (cmd/io/zns.c): the FTL's zones */
    bool kv;                    /* a Key Value namespace (cmd/io/kv.c, CSI 01h): the
                                 * FTL's KV store of this NSID over its sectors */
    struct kv_values *kv_values;    /* kv: its value bytes (store/kv_values.h) */
    const FemuIoCmd *io_cmds;   /* its command set's table (femu_cmd_set_select) */
    uint32_t nsid;
    uint64_t base_sector;       /* first FTL sector */
    uint64_t sectors;           /* FTL sectors it owns (a multiple of secs_per_pg) */
    uint64_t bytes;             /* the size asked for: NSZE * LBA size, <= sectors * secsz */
    uint8_t flbas;              /* the LBA format in use (index into femu's LBAFs) */
    uint64_t lba_bytes;         /* 512 or 4096 */
    uint32_t lba_shift;         /* log2(lba_bytes / secsz): namespace LBA -> FTL sector */
    uint64_t nsze;              /* LBAs (NSZE = NCAP) */
    uint32_t dmrsl;             /* DSM: LBAs per range, and in all ranges (DMSL) */
    uint8_t uuid[16];
    FemuSmart smart;
    /* FDP (cmd/fdp/fdp.c): the placement handle list, placement handle i -> RUH phndl_ruh[i];
     * phndl_chosen when the controller chose its one handle (created without a list) */
    uint8_t nphndls;
    uint8_t phndl_ruh[FEMU_FDP_MAX_RUHS];
    bool phndl_chosen;
} FemuNamespace;

/*
 * The poller's busy-waits (top/poll_window.c): the poll window after I/O and the spin
 * before a due completion. The poller writes the counters (atomics), QOM poll-counters
 * reads them.
 */
typedef struct FemuPollCounters {
    uint64_t windows;           /* poll windows run */
    uint64_t found;             /* ... that ended on work (a submission above all) */
    uint64_t due;               /* ... that ended on a completion's due time */
    uint64_t expired;           /* ... that ran to their end and found nothing */
    uint64_t preempted;         /* ... cut short: the host took the CPU away */
    uint64_t window_ns;         /* time inside windows, each at most its end */
    uint64_t window_iters;      /* iterations of their loops */
    uint64_t spins;             /* spins to a due completion */
    uint64_t spin_found;        /* ... cut short by new work */
    uint64_t spin_ns;
    uint64_t spin_iters;
} FemuPollCounters;

typedef struct FemuPoll {
    uint64_t window_ns;         /* the window now: 0 (no polling) up to the cap */
    uint64_t last_io_ns;        /* the last fetch or post on an I/O queue, 0 before any */
    unsigned backoff;           /* polls still to skip after a preempted one */
    uint32_t cap_us;            /* property poll_window_us: the window's cap, 0 = no poll */
    FemuPollCounters ctr;
} FemuPoll;

/* FTL counters and wear as the FTL thread last published them (backend/ftl_view.c). */
typedef struct FemuFtlView {
    struct ftl_counters ctr;
    struct ftl_wear wear;
} FemuFtlView;

/* Newest-first error log, as Get Log Page 01h returns it. */
/*
 * Power loss (backend/power_cut.c). pre and masks: under engine_lock (the FTL thread, or
 * the poller cutting). asked and armed: atomics the main loop sets and the poller takes.
 * status, cuts: under lock; taken, outcome: the poller's.
 */
struct preimage_table;

typedef enum FemuCutTrigger {
    FEMU_CUT_NONE,
    FEMU_CUT_AFTER_WRITES,      /* once `left` more writes are acknowledged */
    FEMU_CUT_AFTER_FLUSHES,     /* once `left` more flushes are acknowledged */
} FemuCutTrigger;

typedef struct FemuPowerCut {
    struct preimage_table *pre; /* NULL: a cut loses no buffered data (none, or plp) */
    uint64_t *masks;            /* FTL thread: the buffered sectors before a write */
    size_t masks_cap;
    uint64_t no_preimage;       /* lost sectors with no kept bytes: read back as zeroes */
    uint64_t captured;          /* atomic: bytes of requests' pre_data (a budget) */
    uint64_t budget;            /* the most pre_data may hold at once */
    int asked;                  /* atomic: cut at the poller's next pass */
    int armed;                  /* atomic FemuCutTrigger */
    uint64_t left;              /* poller: acknowledgements to go */
    uint64_t taken;             /* poller: cuts taken */
    char outcome[320];          /* poller: the last one's, until it is published */
    QemuMutex lock;
    char status[320];
    uint64_t cuts;              /* published: the controller was power cycled */
} FemuPowerCut;

typedef struct FemuErrorLog {
    NvmeErrorLog entries[FEMU_ELPE + 1];
    unsigned next;
    uint64_t count;
} FemuErrorLog;

struct FemuCtrl {
    PCIDevice parent_obj;

    /* Properties; read only by realize. */
    char *config_file;                  /* config=FILE: a conf/ file, applied before ftl_props */
    char *stats_dir;                    /* stats_dir=DIR: where the CSV statistics go */
    char *trace_out;                    /* trace_out=FILE: record the FTL's requests */
    char *serial;                       /* serial=: NVMe serial number; derived when unset */
    char *namespaces;                   /* namespaces=: N, or MiB sizes "a:b:..."
                                         * (cmd/admin/ns.c) */
    char *state_in;                     /* state_in=FILE: restore at realize (top/state.c) */
    char *state_out;                    /* state_out=FILE: save at exit and on C2h */
    uint32_t queues;                    /* queues=: I/O queue pairs */
    uint8_t mdts;                       /* mdts=: max data transfer, power of two of 4 KiB */
    FemuFtlProperty ftl_props[FEMU_FTL_KEYS_MAX];   /* indexed like ftl_config_key() */

    /* State built by realize, valid while the device is realized. */
    struct ftl_config ftl_config;       /* defaults <- config file <- explicit properties */
    struct ftl_geometry geometry;       /* derived from ftl_config */
    char serial_number[FEMU_SERIAL_MAX_LEN + 1];    /* serial, or one derived from the slot */
    struct ftl *ftl;

    /* The command sets' tables (top/cmd_tables.c), filled by realize before the first
     * namespace: the admin set, and the I/O sets by CSI (NULL: a set femu does not have). */
    const FemuAdminCmd *admin_cmds;
    const FemuIoCmd *io_cmds[FEMU_CSI_COUNT];

    /* Controller (see CONTROLLER.md for the threading rules). */
    MemoryRegion bar0;
    uint8_t regs[FEMU_DOORBELL_BASE];   /* register file: vCPUs write CC etc., poller CSTS */
    uint64_t secsz;                     /* FTL sector bytes (ftl_config.secsz) */
    uint64_t capacity_sectors;          /* the FTL's logical sectors: NVM capacity */
    uint32_t dmrsl;                     /* DSM limit in LBAs: 1 GiB of FTL sectors */
    /* zoned=on: the zoned namespace's sectors, placed after the conventional capacity in
     * the data store and the maps (0 when not zoned) */
    uint64_t zoned_sectors;
    /* kv_ns_mb=: the KV namespace made at realize (MiB of values; 0: none). Given, the
     * controller offers the Key Value command set (CAP.CSS bit 6, CNS 1Ch). */
    uint32_t kv_ns_mb;
    bool kv_offered;
    bool css_all;                       /* poller: CC.CSS 110b at enable, the zoned
                                         * namespace is active (000b: NVM only) */
    FemuNamespace ns[FEMU_MAX_NAMESPACES + 1];  /* by NSID; [0] unused */
    uint32_t ns_created;                /* namespaces made so far: salts their UUIDs */
    uint64_t ns_changed;                /* bit per NSID: the Changed Namespace List */
    bool ns_event_masked;               /* reported; masked until the log is read */
    /* Poller, over FTL sectors: sectors holding host data (NUSE), and sectors a read
     * fails on (Write Uncorrectable, or a flash read that failed) until written again. */
    struct lba_bitmap written;
    struct lba_bitmap uncorrectable;
    /* The LBA Status Information log (cmd/health/media.c): its LSGC; whether LBAs were marked
     * since the host last read it; an LBA Status Information Alert outstanding, and the
     * LSGC the host last heard of; the page a read with RAE saw, returned as it was until
     * a read without RAE (NULL: none). */
    uint16_t lba_status_gen;
    bool lba_status_fresh;
    bool lba_status_alerted;
    uint16_t lba_status_alert_gen;
    uint8_t *lba_status_frozen;
    size_t lba_status_frozen_size;
    struct data_store *store;           /* byte = FTL sector * secsz */
    FemuFtlView view;                   /* under view_lock */
    struct ftl_gauges view_gauges;      /* under view_lock: published with view */
    QemuMutex view_lock;
    bool view_lock_init;
    uint32_t num_vectors;

    FemuSQueue sq[FEMU_MAX_QUEUES + 1];
    FemuCQueue cq[FEMU_MAX_QUEUES + 1];
    bool io_queues_created;             /* since the last reset: Number of Queues is fixed */
    uint64_t dbbuf_shadow, dbbuf_eventidx;  /* 0 when shadow doorbells are off */

    /* Poller thread: fetches, executes, completes; owns queues, features, logs. */
    QemuThread poller;
    EventNotifier poller_wake;
    int poller_sleeping;                /* atomic: wakers kick only a sleeping poller */
    uint64_t wake_cost_ns;              /* poller: how late a timed sleep ends, averaged */
    FemuPoll poll;                      /* poller: its busy-waits (top/poll_window.c) */
    bool stop;                          /* atomic */
    uint32_t epoch;                     /* atomic: the FTL thread skips older flash work */
    uint32_t page_size;                 /* host page size from CC.MPS */
    unsigned aer_outstanding;
    FemuRequest *aer_waiting;           /* AERs held for an event (list_next) */
    uint32_t aer_events[8];             /* events no AER was waiting for: CQE DW0 */
    unsigned aer_queued;
    bool lpn_dump_busy;                 /* a dump is with the FTL thread */
    FemuRequest *dump_waiting;          /* C0h / shutdown saves asked for meanwhile */
    FemuRequest *dump_riders;           /* answered together with the dump in flight */
    unsigned phase_markers;
    FemuFeatures features;
    FemuPowerCut power_cut;
    FemuFdp fdp;                        /* cmd/fdp/fdp.c */
    FemuErrorLog errlog;
    FemuSmart smart;
    FemuRequest *pool;                  /* ctrl/request.c */
    FemuRequest *free_requests;
    /* The pool's last entry, kept for a shutdown's save: CC.SHN is honoured even when
     * the guest holds every other request (never-consumed CQs). */
    FemuRequest *shutdown_req;
    bool shutdown_req_busy;
    bool shutdown_retry;                /* a shutdown waits for shutdown_req to come back */
    struct completion_heap heap;
    struct prp_segments segs;
    /* The payload the command being executed moved through its PRPs so far, from and into
     * guest memory (ctrl/dma.c counts, femu_execute zeroes): what a command without FTL
     * work hands the engine with the link model on (cmd/core/front_cmd.c). */
    uint64_t cmd_bytes_in, cmd_bytes_out;

    /* FTL thread (or the poller holding engine_lock): the FTL and its statistics writer. */
    QemuThread ftl_thread;
    EventNotifier ftl_wake;
    int ftl_sleeping;                   /* atomic */
    struct spsc_ring *to_ftl, *from_ftl;
    struct ftl_stats_writer *stats;
    struct ftl_engine *engine;          /* under engine_lock: drives ftl and stats */
    /* Held by the FTL thread from taking requests off to_ftl until they are served, and
     * by the poller (trylock only) to serve a read itself when the FTL thread is idle. */
    QemuMutex engine_lock;
    bool engine_lock_init;
    struct io_trace_writer *trace;      /* FTL thread (realize until it starts): trace_out */
    uint64_t stats_start_ns;
    bool stats_error_reported;
    bool trace_error_reported;           /* FTL thread: trace_out failed, said once */

    /* The controller's state machine (top/ctrl_state.c): the poller runs it. */
    FemuCtrlState state;                /* poller */
    uint32_t cc_seen;                   /* poller: the CC value the state machine acted on */
    bool cc_changed;                    /* atomic: a vCPU wrote CC */
    uint32_t shutdown_seq;              /* bumped by SHN set/clear and reset: stale saves */
    /* Synchronous reset: a vCPU (or machine reset) asks, the poller resets, the asker
     * waits, so nothing of the old epoch reaches the guest once the register write ends. */
    QemuMutex reset_lock;
    QemuCond reset_cond;
    uint32_t reset_requested;           /* atomic, bumped under reset_lock */
    uint32_t reset_done;                /* under reset_lock: last request served */
    uint32_t reset_seen;                /* poller: last request taken */

    /* Interrupts: vectors the poller wants raised, delivered by a BH under the BQL. */
    QEMUBH *irq_bh;
    uint64_t irq_pending[2];            /* atomic bitmap over vectors */
    bool irqfd_enabled;                 /* KVM routes MSIs through irqfds */
    FemuIrqfd irqfd[FEMU_MAX_QUEUES + 1];
    bool threads_running;
    bool wake_fds;                      /* poller_wake and ftl_wake exist */
    Notifier exit_notifier;

    /* State files (top/state.c, top/state_save.c). */
    bool state_ready;                   /* realize succeeded: a save has a device to save */
    bool state_final_saved;             /* state_out written at exit or unplug */
    /* QMP save-state: the main loop asks under save_lock and returns; the poller starts
     * the save and reports how it ended in save_status (qom-get save-state-status). */
    QemuMutex save_lock;
    char *save_path;                    /* under save_lock: the path QMP asked for */
    bool save_asked;                    /* atomic: a QMP save waits for the poller */
    char save_status[600];              /* under save_lock */
    /* A save in progress (poller; one at a time): the worker thread writes the file while
     * the poller fetches nothing, so the data store and the FTL stay as they were. */
    bool save_running;
    bool save_for_qmp;                  /* poller: the running save is QMP's */
    FemuRequest *save_req;              /* the C2h it completes, or NULL */
    struct FemuStateSnapshot *save_snap;    /* the poller's part, taken at the start */
    char *save_job_path;
    QemuThread save_thread;
    bool save_job_done;                 /* atomic: the worker finished */
    int save_job_rc;                    /* worker, read after save_job_done */
    char save_job_err[512];
    /* x-save-hold (tests): the worker waits under save_lock until it is cleared, so a test
     * can act while a save is provably in progress. */
    bool save_hold;
    QemuCond save_hold_cond;
};

/*
 * The controller has a volatile write cache exactly when the FTL has a DRAM write buffer:
 * Identify's VWCP, feature 06h, FUA, FDP's FDPA.VWC and the drain at shutdown follow it.
 */
static inline bool femu_has_write_cache(const FemuCtrl *n)
{
    return n->ftl_config.write_buffer_sectors > 0;
}

/*
 * The FTL engine models the PCIe link or the controller's cores (pcie_gen, ctrl_cores):
 * then the commands without FTL work go to the engine too (cmd/core/front_cmd.c) and the
 * recording is version 7.
 */
static inline bool femu_front_on(const FemuCtrl *n)
{
    return ftl_config_front_on(&n->ftl_config);
}

#endif
