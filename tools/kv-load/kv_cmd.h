/*
 * kv-load's NVMe Key Value commands as io_uring passthrough commands (struct
 * nvme_uring_cmd, NVME_URING_CMD_IO), the one place their encoding lives. The layout is
 * the NVMe Key Value Command Set 1.0's, as the femu device decodes it (hw/femu/cmd/io/kv.c):
 *  - the key, 1..16 bytes: bytes 0..7 in CDW2-3, bytes 8..15 in CDW14-15, each dword
 *    little endian (key byte 0 is CDW2 bits 7:0); its length in CDW11 bits 7:0;
 *  - Store: CDW10 the value size; CDW11 bits 15:8 the Store Options (bit 8 Overwrite
 *    Only, bit 9 No Overwrite); the value is the data buffer (host to controller);
 *  - Retrieve, List: CDW10 the host buffer size, the data buffer (controller to host);
 *    a Retrieve completes with the value's full size in DW0; List's key is its start key;
 *  - Delete, Exist: the key only, no data.
 */
#ifndef KV_LOAD_KV_CMD_H
#define KV_LOAD_KV_CMD_H

#include <stddef.h>
#include <stdint.h>

#include <linux/nvme_ioctl.h>

#define KV_KEY_MAX 16

enum kv_opcode {
    KV_OP_STORE = 0x01,
    KV_OP_RETRIEVE = 0x02,
    KV_OP_LIST = 0x06,
    KV_OP_DELETE = 0x10,
    KV_OP_EXIST = 0x14,
};

/* Store Options (CDW11 bits 15:8). */
#define KV_STORE_OVERWRITE_ONLY (1u << 8)
#define KV_STORE_NO_OVERWRITE   (1u << 9)

struct kv_key {
    uint8_t len;                /* 1..KV_KEY_MAX */
    uint8_t bytes[KV_KEY_MAX];
};

/*
 * Fill *cmd: opcode op on namespace nsid with key; buf/buf_len the data buffer (Store: the
 * value, buf_len its size; Retrieve, List: the host buffer; Delete, Exist: none, pass NULL
 * and 0); store_options for a Store (KV_STORE_*), else 0.
 */
void kv_cmd_encode(struct nvme_uring_cmd *cmd, enum kv_opcode op, uint32_t nsid,
                   const struct kv_key *key, void *buf, uint32_t buf_len,
                   uint32_t store_options);

/* The command's name ("store", ...); "?" for another opcode. */
const char *kv_opcode_name(enum kv_opcode op);

/*
 * An NVMe status as io_uring passthrough completes it (cqe->res > 0: the status field,
 * DNR and More bits included): its status code type and code, e.g. "0/87h KV Key Does Not
 * Exist", into out. cqe->res < 0 (an errno) is "errno N (text)".
 */
void kv_status_text(int res, char *out, size_t outlen);

/* Bytes of List's host buffer that hold max_keys keys of key_len bytes each. */
uint32_t kv_list_buffer_bytes(unsigned max_keys, unsigned key_len);

/*
 * Read List's buffer (buf_len bytes): its Number of Returned Keys, then each key (2-byte
 * length, the bytes, zero padding to 4 bytes). Keys into keys[0..max), *count the number
 * returned. 0, or -1 when the buffer does not hold what it claims (a key of length 0 or
 * over 16, or beyond the buffer).
 */
int kv_list_parse(const uint8_t *buf, uint32_t buf_len, struct kv_key *keys, unsigned max,
                  unsigned *count);

/* memcmp order of two keys, a shorter key first when one is the other's prefix. */
int kv_key_cmp(const struct kv_key *a, const struct kv_key *b);

#endif
