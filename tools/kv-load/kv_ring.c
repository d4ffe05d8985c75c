/* A minimal io_uring for NVMe passthrough (kv_ring.h). */
#define _GNU_SOURCE
#include "kv_ring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/io_uring.h>

struct kv_ring {
    int ring_fd, dev_fd;
    unsigned entries;
    /* submission ring: its indices array and the 128-byte SQEs */
    void *sq_map;
    size_t sq_map_len;
    unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
    uint8_t *sqes;
    size_t sqes_len;
    /* completion ring: 32-byte CQEs */
    void *cq_map;
    size_t cq_map_len;
    unsigned *cq_head, *cq_tail, *cq_mask;
    uint8_t *cqes;
    unsigned queued;    /* queued since the last submit */
};

#define SQE_BYTES 128
#define CQE_BYTES 32

static unsigned load_acquire(const unsigned *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_release(unsigned *p, unsigned v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

struct kv_ring *kv_ring_create(int fd, unsigned entries, char *err, size_t errlen)
{
    struct io_uring_params p;
    struct kv_ring *r = calloc(1, sizeof(*r));
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memset(&p, 0, sizeof(p));
    p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
    r->ring_fd = (int)syscall(__NR_io_uring_setup, entries, &p);
    if (r->ring_fd < 0) {
        snprintf(err, errlen, "io_uring_setup with 128-byte SQEs and 32-byte CQEs: %s "
                 "(needs Linux 5.19 or later)", strerror(errno));
        free(r);
        return NULL;
    }
    r->dev_fd = fd;
    r->entries = p.sq_entries;
    r->sq_map_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    r->cq_map_len = p.cq_off.cqes + p.cq_entries * CQE_BYTES;
    r->sqes_len = p.sq_entries * SQE_BYTES;
    r->sq_map = mmap(NULL, r->sq_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                     r->ring_fd, IORING_OFF_SQ_RING);
    r->cq_map = mmap(NULL, r->cq_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                     r->ring_fd, IORING_OFF_CQ_RING);
    r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                   r->ring_fd, IORING_OFF_SQES);
    if (r->sq_map == MAP_FAILED || r->cq_map == MAP_FAILED || r->sqes == MAP_FAILED) {
        snprintf(err, errlen, "mapping the io_uring rings: %s", strerror(errno));
        kv_ring_destroy(r);
        return NULL;
    }
    uint8_t *sq = r->sq_map, *cq = r->cq_map;
    r->sq_head = (unsigned *)(sq + p.sq_off.head);
    r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
    r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    r->sq_array = (unsigned *)(sq + p.sq_off.array);
    r->cq_head = (unsigned *)(cq + p.cq_off.head);
    r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
    r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
    r->cqes = cq + p.cq_off.cqes;
    return r;
}

int kv_ring_queue(struct kv_ring *r, const struct nvme_uring_cmd *cmd, uint64_t user_data)
{
    unsigned tail = *r->sq_tail, head = load_acquire(r->sq_head);
    if (tail - head >= r->entries) {
        return -1;
    }
    unsigned index = tail & *r->sq_mask;
    struct io_uring_sqe *sqe = (struct io_uring_sqe *)(r->sqes + (size_t)index * SQE_BYTES);
    memset(sqe, 0, SQE_BYTES);
    sqe->opcode = IORING_OP_URING_CMD;
    sqe->fd = r->dev_fd;
    sqe->cmd_op = NVME_URING_CMD_IO;
    sqe->user_data = user_data;
    memcpy(sqe->cmd, cmd, sizeof(*cmd));    /* 72 bytes: within the SQE's 80 of command */
    r->sq_array[index] = index;
    store_release(r->sq_tail, tail + 1);
    r->queued++;
    return 0;
}

int kv_ring_submit(struct kv_ring *r, unsigned wait_nr)
{
    unsigned flags = wait_nr ? IORING_ENTER_GETEVENTS : 0;
    while (r->queued || wait_nr) {
        int done = (int)syscall(__NR_io_uring_enter, r->ring_fd, r->queued, wait_nr, flags,
                                NULL, 0);
        if (done < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -errno;
        }
        r->queued -= (unsigned)done <= r->queued ? (unsigned)done : r->queued;
        if (!r->queued) {
            break;
        }
    }
    return 0;
}

int kv_ring_reap(struct kv_ring *r, struct kv_completion *c)
{
    unsigned head = *r->cq_head;
    if (head == load_acquire(r->cq_tail)) {
        return 0;
    }
    const struct io_uring_cqe *cqe =
        (const struct io_uring_cqe *)(r->cqes + (size_t)(head & *r->cq_mask) * CQE_BYTES);
    c->user_data = cqe->user_data;
    c->res = cqe->res;
    c->result = cqe->big_cqe[0];
    store_release(r->cq_head, head + 1);
    return 1;
}

void kv_ring_destroy(struct kv_ring *r)
{
    if (!r) {
        return;
    }
    if (r->sqes && r->sqes != MAP_FAILED) {
        munmap(r->sqes, r->sqes_len);
    }
    if (r->cq_map && r->cq_map != MAP_FAILED) {
        munmap(r->cq_map, r->cq_map_len);
    }
    if (r->sq_map && r->sq_map != MAP_FAILED) {
        munmap(r->sq_map, r->sq_map_len);
    }
    close(r->ring_fd);
    free(r);
}
