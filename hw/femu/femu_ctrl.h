/*
 * The NVMe controller's internal interfaces, shared by the device's source files.
 *
 * Threads and what they own:
 *  - vCPU threads (BQL held) run the BAR0 handlers: they store register and doorbell
 *    values and kick the poller; they never touch queue state.
 *  - The poller thread owns the controller: its state machine (enable/reset/shutdown),
 *    queues, admin and I/O command execution, guest DMA, the request pool, the completion
 *    heap, SMART counters, features, logs.
 *  - The FTL thread owns the FTL and its statistics writer; requests reach it through a
 *    lock-free ring and come back through another.
 *  - A bottom half in the main loop (BQL held) raises the interrupts the poller asks for.
 */
#ifndef HW_FEMU_FEMU_CTRL_H
#define HW_FEMU_FEMU_CTRL_H

#include "qemu/timer.h"

#include "femu.h"

/* The device's clock: FTL arrival and completion times, statistics rows, SMART hours. */
static inline uint64_t femu_now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

/* femu_regs.c */
extern const MemoryRegionOps femu_bar0_ops;
void femu_regs_init(FemuCtrl *n);
void femu_regs_reset(FemuCtrl *n);
uint32_t femu_reg_read32(FemuCtrl *n, unsigned offset);
uint64_t femu_reg_read64(FemuCtrl *n, unsigned offset);
void femu_reg_write32(FemuCtrl *n, unsigned offset, uint32_t value);

/* femu_irq.c */
void femu_irq_init(FemuCtrl *n);
void femu_irq_cleanup(FemuCtrl *n);
void femu_irq_request(FemuCtrl *n, FemuCQueue *cq);    /* poller */
void femu_irq_update_pin(FemuCtrl *n);                  /* BQL */
void femu_irq_discard_pending(FemuCtrl *n);             /* BQL, after a reset */

/* femu_irqfd.c */
void femu_irqfd_init(FemuCtrl *n);                      /* BQL, after MSI-X init */
void femu_irqfd_cleanup(FemuCtrl *n);
bool femu_irqfd_notify(FemuCtrl *n, unsigned vector);   /* poller */

/* femu_dma.c */
uint16_t femu_dma_read(FemuCtrl *n, uint64_t addr, void *buf, uint64_t len);
uint16_t femu_dma_write(FemuCtrl *n, uint64_t addr, const void *buf, uint64_t len);
bool femu_dma_ram(FemuCtrl *n, uint64_t addr, uint64_t len, bool write);
typedef enum { FEMU_TO_GUEST, FEMU_FROM_GUEST } FemuDmaDir;
/* Copy between buf and the command's PRPs (admin data, DSM ranges, I/O data). */
uint16_t femu_dma_prp(FemuCtrl *n, const NvmeCmd *cmd, void *buf, uint64_t len,
                      uint64_t max_len, FemuDmaDir dir);
/* The checks femu_dma_prp makes (MDTS, PRPs, guest RAM), with no data moved. */
uint16_t femu_dma_prp_check(FemuCtrl *n, const NvmeCmd *cmd, uint64_t len,
                            uint64_t max_len, FemuDmaDir dir);

/* femu_queue.c (poller) */
uint16_t femu_cq_create(FemuCtrl *n, uint16_t qid, uint64_t addr, uint32_t size,
                        bool contiguous, bool irq_enabled, uint16_t vector);
uint16_t femu_sq_create(FemuCtrl *n, uint16_t qid, uint64_t addr, uint32_t size,
                        bool contiguous, uint16_t cqid);
uint16_t femu_cq_delete(FemuCtrl *n, uint16_t qid);
uint16_t femu_sq_delete(FemuCtrl *n, uint16_t qid);
void femu_queues_reset(FemuCtrl *n);
void femu_cq_hold(FemuCQueue *cq, FemuRequest *req);    /* a due completion, CQ full */
FemuRequest *femu_cq_unhold(FemuCQueue *cq);            /* the oldest held one */
void femu_cq_drop_held(FemuCtrl *n, FemuCQueue *cq);
uint32_t femu_sq_tail(FemuCtrl *n, uint16_t qid);
bool femu_cq_full(FemuCtrl *n, FemuCQueue *cq);
uint16_t femu_cq_post(FemuCtrl *n, FemuCQueue *cq, const NvmeCqe *cqe);
bool femu_sq_pending(FemuCtrl *n, uint16_t qid, uint32_t *tail);
void femu_dbbuf_init(FemuCtrl *n, uint16_t qid, bool cq, uint32_t value);
bool femu_arm_eventidx(FemuCtrl *n);

/* Command dword 10..15. */
static inline uint32_t femu_cdw(const NvmeCmd *cmd, unsigned index)
{
    return ldl_le_p((const uint8_t *)cmd + offsetof(NvmeCmd, cdw10) + 4 * (index - 10));
}

/* An I/O command's SLBA (CDW10-11) and NLB (CDW12[15:0], 1-based here). */
static inline uint64_t femu_cmd_slba(const NvmeCmd *cmd)
{
    return le32_to_cpu(cmd->cdw10) | (uint64_t)le32_to_cpu(cmd->cdw11) << 32;
}

static inline uint32_t femu_cmd_nlb(const NvmeCmd *cmd)
{
    return (le32_to_cpu(cmd->cdw12) & 0xffff) + 1;
}

/* Values block/nvme.h does not name (NVMe base specification 2.0). */
#define FEMU_ADM_CMD_NS_MANAGEMENT      0x0d
#define FEMU_NS_INSUFFICIENT_CAPACITY   0x0115
#define FEMU_NS_ID_UNAVAILABLE          0x0116
#define FEMU_NS_THIN_PROV_UNSUPPORTED   0x011b
#define FEMU_OACS_GET_LBA_STATUS        (1u << 9)
#define FEMU_OAES_LBA_STATUS_INFO       (1u << 13)
#define FEMU_FEAT_LBA_STATUS_ATTRS      0x15
#define FEMU_ADM_CMD_GET_LBA_STATUS     0x86
#define FEMU_LPA_SMART_PER_NS           (1u << 0)
#define FEMU_LPA_EXTENDED_DATA          (1u << 2)
#define FEMU_LPA_CMD_EFFECTS            (1u << 1)
#define FEMU_ID_CNS_IO_CMD_SETS         0x1c    /* I/O Command Set data structure */

#define FEMU_MODEL          "femu SSD"
#define FEMU_FIRMWARE       "1.0"

/* femu_admin.c (poller) */
uint16_t femu_admin_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);

/* femu_identify.c (poller) */
uint16_t femu_identify(FemuCtrl *n, const NvmeCmd *cmd);

/* femu_log.c (poller) */
#define FEMU_LOG_LBA_STATUS         0x0e    /* LBA Status Information */
#define FEMU_LOG_OCP_SMART          0xc0    /* OCP SMART / Health Information Extended */
uint16_t femu_get_log_page(FemuCtrl *n, const NvmeCmd *cmd);
void femu_error_log_add(FemuCtrl *n, const FemuRequest *req, uint32_t nsid, uint64_t lba);
uint8_t femu_available_spare(const struct ftl_wear *wear);     /* percent of spare left */

/* femu_ocp_log.c (poller): the OCP Datacenter NVMe SSD log page C0h, 512 bytes */
#define FEMU_OCP_SMART_LOG_BYTES    512
void femu_ocp_smart_log(FemuCtrl *n, uint8_t *buf);

/*
 * femu_media.c (poller): the uncorrectable marks (n->uncorrectable, FTL sectors), what a
 * completion from the FTL does with them, Get LBA Status and the LBA Status Information
 * log (*buf from g_malloc, returns its size).
 */
void femu_media_mark(FemuCtrl *n, uint64_t first, uint64_t count);
void femu_media_clear(FemuCtrl *n, uint64_t first, uint64_t count);
/* Whether LBAs [slba, slba + nlb) of ns hold a mark; *lba: the first LBA that does. */
bool femu_media_marked(FemuCtrl *n, const FemuNamespace *ns, uint64_t slba, uint64_t nlb,
                       uint64_t *lba);
/* A request the FTL served is back: marks, error log, media error count. */
void femu_media_done(FemuCtrl *n, FemuRequest *req);
uint16_t femu_get_lba_status(FemuCtrl *n, const NvmeCmd *cmd);
size_t femu_lba_status_log(FemuCtrl *n, uint8_t **buf, bool rae);
/* Controller reset and unrealize: no alert outstanding, no page kept for RAE reads. */
void femu_media_reset(FemuCtrl *n);

/* femu_ns.c (poller): namespaces, Namespace Management / Attachment, Format NVM */
bool femu_ns_realize(FemuCtrl *n, Error **errp);       /* namespaces given at realize */
/* The namespace an NSID names when it is attached (active), else NULL. */
FemuNamespace *femu_ns_active(FemuCtrl *n, uint32_t nsid);
/*
 * The namespace an I/O command addresses: NVME_SUCCESS with *ns, or the status for an
 * NSID that is out of range or not active (with DNR).
 */
uint16_t femu_ns_for_io(FemuCtrl *n, uint32_t nsid, FemuNamespace **ns);
static inline uint64_t femu_ns_sector(const FemuNamespace *ns, uint64_t lba)
{
    return ns->base_sector + (lba << ns->lba_shift);
}
/* LBAs of ns holding host data (NUSE). */
uint64_t femu_ns_nuse(FemuCtrl *n, const FemuNamespace *ns);
uint64_t femu_ns_unallocated_bytes(FemuCtrl *n);                    /* UNVMCAP */
unsigned femu_lbafs(FemuCtrl *n, uint64_t bytes[FEMU_MAX_LBAF]);    /* LBA sizes offered */
uint16_t femu_ns_management(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_ns_attachment(FemuCtrl *n, const NvmeCmd *cmd);
uint16_t femu_format_nvm(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
/* Changed Namespace List log (4 KiB into buf); without rae it clears and re-arms. */
size_t femu_ns_changed_log(FemuCtrl *n, uint8_t *buf, size_t len, bool rae);
void femu_ns_reset(FemuCtrl *n);        /* controller reset: event masks */

/* femu_aer.c (poller): Asynchronous Event Requests and the events they report */
uint16_t femu_aer_request(FemuCtrl *n, FemuRequest *req);
void femu_aer_post(FemuCtrl *n, uint8_t type, uint8_t info, uint8_t log_page);
void femu_aer_reset(FemuCtrl *n);       /* drop held requests and queued events */

/* femu_ftl_view.c: FTL counters and wear for the logs */
void femu_ftl_view_init(FemuCtrl *n);
void femu_ftl_view_destroy(FemuCtrl *n);
void femu_ftl_view_publish(FemuCtrl *n);    /* FTL thread, or the poller under engine_lock */
void femu_ftl_view_get(FemuCtrl *n, FemuFtlView *out);     /* poller */
void femu_ftl_view_get_gauges(FemuCtrl *n, struct ftl_gauges *out);    /* poller */

/* femu_features.c (poller) */
uint16_t femu_get_features(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_set_features(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
void femu_features_reset(FemuCtrl *n);
/* A namespace created or deleted: its namespace-specific features back to defaults. */
void femu_features_ns_reset(FemuCtrl *n, uint32_t nsid);

/* femu_io.c (poller) */
uint16_t femu_io_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_io_nvm(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req);
uint64_t femu_max_transfer(FemuCtrl *n);       /* MDTS in bytes (UINT64_MAX: none) */
/* SMART: bytes written and one write command, the controller's and ns's. */
void femu_smart_write(FemuCtrl *n, FemuNamespace *ns, uint64_t bytes);

/* femu_copy.c (poller): Copy (19h) on any namespace, and its limits (MSSRL, MCL, MSRC) */
uint16_t femu_io_copy(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req);
void femu_copy_limits(const FemuNamespace *ns, NvmeIdNs *id);

/*
 * femu_zns.c (poller): the zoned namespace's I/O commands. Zone rules are admitted by the
 * FTL (ftl_zone_admit_*, under engine_lock) before any data moves.
 */
uint16_t femu_zns_io_cmd(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                         FemuRequest *req);
/* The NVMe status of an FTL_E_* admission result (with DNR). */
uint16_t femu_zns_status(int rc);
/* Whether the zoned namespace's command set is enabled (CC.CSS 110b). */
static inline bool femu_zns_enabled(FemuCtrl *n)
{
    return n->zoned_sectors > 0 && n->css_all;
}

/* femu_request.c (poller; pool made and destroyed with the threads) */
void femu_req_pool_init(FemuCtrl *n);
void femu_req_pool_destroy(FemuCtrl *n);
FemuRequest *femu_req_alloc(FemuCtrl *n);              /* NULL when all are in flight */
void femu_req_free(FemuCtrl *n, FemuRequest *req);
void femu_req_free_all(FemuCtrl *n, FemuRequest **head);
bool femu_req_stale(FemuCtrl *n, const FemuRequest *req);
void femu_req_drop_inflight(FemuCtrl *n);

static inline bool femu_req_available(FemuCtrl *n)
{
    return n->free_requests != NULL;
}

/* femu_lpn_dump.c (poller) */
void femu_lpn_dump_submit(FemuCtrl *n, FemuRequest *req);
void femu_lpn_dump_returned(FemuCtrl *n, FemuRequest *done);
void femu_lpn_dump_drop_queued(FemuCtrl *n);

/* femu_ctrl_state.c */
void femu_ctrl_cc_written(FemuCtrl *n, uint32_t old_cc, uint32_t cc);   /* BQL */
void femu_ctrl_machine_reset(FemuCtrl *n);      /* BQL: registers cleared; waits */
bool femu_ctrl_poll(FemuCtrl *n);               /* poller: run what CC/reset asked for */
bool femu_ctrl_work_pending(FemuCtrl *n);       /* poller: a CC write or reset waits */
void femu_ctrl_fatal(FemuCtrl *n);              /* poller */
void femu_ctrl_shutdown_saved(FemuCtrl *n, uint32_t shutdown_seq);     /* poller */

/* Poller: whether the controller fetches and completes commands. */
static inline bool femu_ctrl_serving(FemuCtrl *n)
{
    return n->state == FEMU_CTRL_READY || n->state == FEMU_CTRL_SHUTTING_DOWN;
}

/* femu_poller.c */
bool femu_threads_start(FemuCtrl *n, Error **errp);
void femu_threads_stop(FemuCtrl *n);
void femu_poller_kick(FemuCtrl *n);                     /* any thread */

/* femu_ftl_thread.c */
void *femu_ftl_thread_run(void *opaque);
/* Serve what waits in the poller's ring now, as the FTL thread would; the caller holds
 * engine_lock (the poller, before a save). */
void femu_ftl_serve_queued(FemuCtrl *n);
bool femu_ftl_engine_create(FemuCtrl *n);   /* before the FTL thread starts */
void femu_ftl_kick(FemuCtrl *n);
/* Poller: serve a read now when the FTL thread is idle (true), else leave it (false). */
bool femu_ftl_serve_inline(FemuCtrl *n, FemuRequest *req);

/*
 * femu_state.c: device state files. Realize restores state_in (after the namespaces,
 * before the threads) and checks state_out's directory; C2h (poller) and QMP save-state
 * save at once; the exit save runs after the threads stopped.
 */
bool femu_state_restore(FemuCtrl *n, Error **errp);
bool femu_state_check_out(FemuCtrl *n, Error **errp);
int femu_state_save(FemuCtrl *n, const char *path, char *err, size_t errlen);
uint16_t femu_state_vendor_save(FemuCtrl *n);          /* poller: vendor C2h */
bool femu_state_poll(FemuCtrl *n);                      /* poller: a QMP save waiting */
void femu_state_save_final(FemuCtrl *n);                /* threads stopped */
void femu_state_instance_init(FemuCtrl *n);
void femu_state_instance_finalize(FemuCtrl *n);

/* Status with Do Not Retry, for every error the guest's input caused. */
static inline uint16_t femu_dnr(uint16_t status)
{
    return status | NVME_DNR;
}

#endif
