/* kv-load's NVMe Key Value commands (kv_cmd.h). */
#include "kv_cmd.h"

#include <stdio.h>
#include <string.h>

#define KV_LIST_HEADER 4        /* Number of Returned Keys */
#define KV_LIST_LEN_BYTES 2     /* each key's length */

static uint32_t le32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Key bytes from..from+3 as a little-endian dword (zero past the key's length). */
static uint32_t key_dword(const struct kv_key *key, unsigned from)
{
    uint8_t raw[4] = { 0 };
    for (unsigned i = 0; i < 4; i++) {
        if (from + i < key->len) {
            raw[i] = key->bytes[from + i];
        }
    }
    return le32_at(raw);
}

void kv_cmd_encode(struct nvme_uring_cmd *cmd, enum kv_opcode op, uint32_t nsid,
                   const struct kv_key *key, void *buf, uint32_t buf_len,
                   uint32_t store_options)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = (uint8_t)op;
    cmd->nsid = nsid;
    cmd->cdw2 = key_dword(key, 0);
    cmd->cdw3 = key_dword(key, 4);
    cmd->cdw14 = key_dword(key, 8);
    cmd->cdw15 = key_dword(key, 12);
    cmd->cdw11 = key->len | (op == KV_OP_STORE ? store_options : 0);
    if (buf && buf_len) {
        cmd->addr = (uint64_t)(uintptr_t)buf;
        cmd->data_len = buf_len;
        cmd->cdw10 = buf_len;   /* Store: the value size; Retrieve, List: the buffer's */
    }
}

const char *kv_opcode_name(enum kv_opcode op)
{
    switch (op) {
    case KV_OP_STORE: return "store";
    case KV_OP_RETRIEVE: return "retrieve";
    case KV_OP_LIST: return "list";
    case KV_OP_DELETE: return "delete";
    case KV_OP_EXIST: return "exist";
    }
    return "?";
}

/* The generic statuses a KV command may end with (SCT 0). */
static const char *generic_status_name(unsigned sc)
{
    switch (sc) {
    case 0x00: return "Successful Completion";
    case 0x01: return "Invalid Command Opcode";
    case 0x02: return "Invalid Field in Command";
    case 0x04: return "Data Transfer Error";
    case 0x06: return "Internal Error";
    case 0x0b: return "Invalid Namespace or Format";
    case 0x81: return "Capacity Exceeded";
    case 0x82: return "Namespace Not Ready";
    case 0x85: return "Invalid Value Size";
    case 0x86: return "Invalid Key Size";
    case 0x87: return "KV Key Does Not Exist";
    case 0x88: return "Unrecovered Error";
    case 0x89: return "KV Key Exists";
    }
    return "status";
}

void kv_status_text(int res, char *out, size_t outlen)
{
    if (res < 0) {
        snprintf(out, outlen, "errno %d (%s)", -res, strerror(-res));
        return;
    }
    unsigned sct = ((unsigned)res >> 8) & 0x7, sc = (unsigned)res & 0xff;
    snprintf(out, outlen, "%u/%02xh %s", sct, sc,
             sct == 0 ? generic_status_name(sc) : "status");
}

uint32_t kv_list_buffer_bytes(unsigned max_keys, unsigned key_len)
{
    uint32_t entry = (KV_LIST_LEN_BYTES + key_len + 3) / 4 * 4;
    return KV_LIST_HEADER + max_keys * entry;
}

int kv_list_parse(const uint8_t *buf, uint32_t buf_len, struct kv_key *keys, unsigned max,
                  unsigned *count)
{
    if (buf_len < KV_LIST_HEADER) {
        return -1;
    }
    uint32_t n = le32_at(buf), at = KV_LIST_HEADER;
    for (uint32_t i = 0; i < n; i++) {
        if (at + KV_LIST_LEN_BYTES > buf_len) {
            return -1;
        }
        unsigned len = (unsigned)buf[at] | (unsigned)buf[at + 1] << 8;
        if (len == 0 || len > KV_KEY_MAX || at + KV_LIST_LEN_BYTES + len > buf_len) {
            return -1;
        }
        if (i < max) {
            keys[i].len = (uint8_t)len;
            memset(keys[i].bytes, 0, KV_KEY_MAX);
            memcpy(keys[i].bytes, buf + at + KV_LIST_LEN_BYTES, len);
        }
        at += (KV_LIST_LEN_BYTES + len + 3) / 4 * 4;
    }
    *count = n;
    return 0;
}

int kv_key_cmp(const struct kv_key *a, const struct kv_key *b)
{
    unsigned common = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->bytes, b->bytes, common);
    return c ? c : (int)a->len - (int)b->len;
}
