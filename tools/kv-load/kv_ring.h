/*
 * A minimal io_uring for NVMe passthrough (no liburing: the raw system calls and the
 * rings mapped by hand), set up with IORING_SETUP_SQE128 | IORING_SETUP_CQE32 as
 * IORING_OP_URING_CMD with NVME_URING_CMD_IO needs: a 128-byte SQE carries the 72-byte
 * struct nvme_uring_cmd, a 32-byte CQE carries the command's result (DW0) in big_cqe[0].
 */
#ifndef KV_LOAD_KV_RING_H
#define KV_LOAD_KV_RING_H

#include <stddef.h>
#include <stdint.h>

#include <linux/nvme_ioctl.h>

struct kv_ring;

struct kv_completion {
    uint64_t user_data;
    int32_t res;        /* 0, an NVMe status (> 0), or -errno */
    uint64_t result;    /* the command's DW0 */
};

/* A ring of `entries` slots for commands on fd; NULL with one line in err. */
struct kv_ring *kv_ring_create(int fd, unsigned entries, char *err, size_t errlen);
/* Queue one command (copied); -1 when every slot is taken. */
int kv_ring_queue(struct kv_ring *r, const struct nvme_uring_cmd *cmd, uint64_t user_data);
/* Submit what was queued and wait for at least wait_nr completions; 0 or -errno. */
int kv_ring_submit(struct kv_ring *r, unsigned wait_nr);
/* Take one completion if there is one: 1, else 0. */
int kv_ring_reap(struct kv_ring *r, struct kv_completion *c);
void kv_ring_destroy(struct kv_ring *r);

#endif
