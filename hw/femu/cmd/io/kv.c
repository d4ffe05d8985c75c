/*
 * The Key Value command set (poller thread; NVMe Key Value Command Set Specification 1.0,
 * CSI 01h): Store, Retrieve, Delete, Exist and List on a KV namespace, one function each,
 * listed in the KV command set's table (top/cmd_tables.c) with the NVM set's Flush.
 *
 * The FTL decides every rule of the set (ftl_kv_admit_*, femu_ftl/kv.h): which keys exist,
 * value sizes, capacity, the status of each violation. The poller asks it when it fetches
 * a command, holding engine_lock, and before any value byte moves into the namespace's
 * store, so a refused command changes nothing. An admitted command then changes the value
 * store (store/kv_values.h) and goes to the FTL thread as FTL_OP_KV_* marked
 * FTL_REQ_ADMITTED, which does the flash work (index lookups, value log reads and
 * programs). A Store reads the whole value from the host before admission, so a transfer
 * error changes nothing either.
 *
 * Command fields (KV Command Set 1.0, Store/Retrieve/Delete/Exist/List; cross-checked with
 * SPDK's include/spdk/nvme_kv.h struct spdk_nvme_kv_cmd and xNVMe's kvs_cmd_set_key):
 *  - the key: KL bytes (CDW11 bits 7:0, 1..16, else Invalid Key Size) in CDW2, CDW3,
 *    CDW14, CDW15: key byte 0 is CDW2 bits 7:0, byte 4 CDW3 bits 7:0, byte 8 CDW14 bits
 *    7:0, byte 12 CDW15 bits 7:0 (the dwords are little endian, so bytes 8..15 of the
 *    command hold key bytes 0..7 and bytes 56..63 hold key bytes 8..15);
 *  - Store: CDW10 the value size in bytes; CDW11 bits 15:8 the Store Option: bit 8
 *    Overwrite Only (store only if the key exists), bit 9 No Overwrite (only if it does
 *    not), bit 10 No Compression (femu never compresses: accepted, no effect);
 *  - Retrieve: CDW10 the host buffer size; min(buffer, value) bytes are transferred and
 *    CQE DW0 is the value's full size; CDW11 bit 8 (Retrieve raw) has no effect;
 *  - List: CDW10 the host buffer size; the key in the command is the start key (it need not
 *    exist). The buffer returns the Number of Returned Keys (bytes 3:0), then each key as
 *    its length (2 bytes), its bytes, and zero padding to a 4-byte boundary, as many as fit.
 * SMART (log page 02h): the set names Retrieve its SMART Host Read and Data Units Read
 * command and Store its User Data Out command, so a served Retrieve counts one read and the
 * bytes it moved to the host, a served Store one write and its value's bytes; Delete, Exist
 * and List count nothing. A refused command counts nothing either, as for NVM I/O.
 * Statuses (generic status type, the I/O command set specific range): 85h Invalid Value
 * Size, 86h Invalid Key Size, 87h KV Key Does Not Exist, 89h KV Key Exists; 81h Capacity
 * Exceeded (backend/ftl_status.c maps the FTL's codes).
 */
#include "qemu/osdep.h"

#include "backend/ftl_status.h"
#include "cmd/core/cmd.h"
#include "cmd/health/smart.h"
#include "cmd/io/kv.h"
#include "ctrl/dma.h"
#include "store/kv_values.h"

#define FEMU_KV_KL_MASK         0xffu
#define FEMU_KV_SO_OVERWRITE_ONLY (1u << 8)     /* Store Option bit 0 */
#define FEMU_KV_SO_NO_OVERWRITE   (1u << 9)     /* Store Option bit 1 */
#define FEMU_KV_LIST_HEADER     4               /* Number of Returned Keys */
#define FEMU_KV_LIST_KL_BYTES   2               /* each key's length */
#define FEMU_KV_KEY_LO_OFFSET   8               /* CDW2-3 in the command */
#define FEMU_KV_KEY_HI_OFFSET   56              /* CDW14-15 */
/* Feature 20h, Key Value Configuration: Error on Delete of Non-Existent Key. */
#define FEMU_KV_CONFIG_EDNEK    (1u << 0)

/* The command's key; false for a length of 0 or over 16 (Invalid Key Size). */
static bool femu_kv_key(const NvmeCmd *cmd, struct ftl_kv_key *key)
{
    const uint8_t *raw = (const uint8_t *)cmd;
    unsigned kl = le32_to_cpu(cmd->cdw11) & FEMU_KV_KL_MASK;

    memset(key, 0, sizeof(*key));
    if (kl == 0 || kl > FTL_KV_KEY_MAX) {
        return false;
    }
    key->len = kl;
    for (unsigned i = 0; i < kl; i++) {
        key->bytes[i] = i < 8 ? raw[FEMU_KV_KEY_LO_OFFSET + i]
                              : raw[FEMU_KV_KEY_HI_OFFSET + i - 8];
    }
    return true;
}

static struct kv_values_key femu_kv_values_key(const struct ftl_kv_key *key)
{
    struct kv_values_key vk = { .len = key->len };

    memcpy(vk.bytes, key->bytes, sizeof(vk.bytes));
    return vk;
}

static void femu_kv_request(FemuRequest *req, const FemuNamespace *ns, enum ftl_op op,
                            const struct ftl_kv_key *key, uint32_t kv_bytes)
{
    femu_req_ftl(req, op);
    req->ftl.nsid = ns->nsid;
    req->ftl.key = *key;
    req->ftl.kv_bytes = kv_bytes;
    req->ftl.flags = FTL_REQ_ADMITTED;
}

uint16_t femu_kv_store(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t size = le32_to_cpu(cmd->cdw10), dw11 = le32_to_cpu(cmd->cdw11);
    unsigned opts = 0;
    struct ftl_kv_key key;
    struct ftl_kv_info info;
    struct kv_values_key vk;
    uint8_t *value;
    uint64_t tag;
    uint16_t status;
    int rc;

    if (!femu_kv_key(cmd, &key)) {
        return femu_dnr(NVME_KV_INVALID_KEY_SIZE);
    }
    if ((dw11 & FEMU_KV_SO_OVERWRITE_ONLY) && (dw11 & FEMU_KV_SO_NO_OVERWRITE)) {
        return femu_dnr(NVME_INVALID_FIELD);   /* both: no key could be stored */
    }
    opts |= dw11 & FEMU_KV_SO_OVERWRITE_ONLY ? FTL_KV_ONLY_IF_EXISTS : 0;
    opts |= dw11 & FEMU_KV_SO_NO_OVERWRITE ? FTL_KV_ONLY_IF_ABSENT : 0;
    if (!ftl_kv_info(n->ftl, ns->nsid, &info)) {
        return NVME_INTERNAL_DEV_ERROR;
    }
    if (size > info.max_value_bytes) {
        return femu_dnr(NVME_KV_INVALID_VALUE_SIZE);  /* before reading any of it */
    }
    /* The whole value first: a transfer error changes nothing. */
    value = g_malloc(MAX(size, 1));
    status = femu_dma_prp(n, cmd, value, size, femu_max_transfer(n), FEMU_FROM_GUEST);
    if (status) {
        g_free(value);
        return femu_dnr(status);
    }
    tag = kv_values_tag(value, size);
    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_kv_admit_store(n->ftl, ns->nsid, &key, size, opts, tag);
    qemu_mutex_unlock(&n->engine_lock);
    if (rc != FTL_OK) {
        g_free(value);
        return femu_ftl_status(rc);
    }
    vk = femu_kv_values_key(&key);
    /* g_malloc and malloc share an allocator (GLib >= 2.46): the store frees with free() */
    if (!kv_values_put(ns->kv_values, &vk, value, size)) {
        g_free(value);
        return NVME_INTERNAL_DEV_ERROR;
    }
    femu_smart_write(n, ns, size);  /* a User Data Out command: its value bytes */
    femu_kv_request(req, ns, FTL_OP_KV_STORE, &key, size);
    req->ftl.value_tag = tag;
    req->ftl.flags |= opts;
    req->keep_on_reset = true;      /* admission already holds the new value */
    return NVME_SUCCESS;
}

uint16_t femu_kv_retrieve(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                          FemuRequest *req)
{
    uint32_t buf_len = le32_to_cpu(cmd->cdw10), size = 0, held = 0, moved;
    struct ftl_kv_key key;
    struct kv_values_key vk;
    const uint8_t *value;
    uint64_t tag = 0;
    uint16_t status;
    int rc;

    if (!femu_kv_key(cmd, &key)) {
        return femu_dnr(NVME_KV_INVALID_KEY_SIZE);
    }
    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_kv_admit_retrieve(n->ftl, ns->nsid, &key, &size, &tag);
    qemu_mutex_unlock(&n->engine_lock);
    if (rc != FTL_OK) {
        return femu_ftl_status(rc);
    }
    vk = femu_kv_values_key(&key);
    value = kv_values_get(ns->kv_values, &vk, &held);
    /* The FTL's record and the bytes must agree: never return another value's bytes. */
    if (!value || held != size || kv_values_tag(value, held) != tag) {
        return NVME_INTERNAL_DEV_ERROR;
    }
    moved = MIN(buf_len, size);
    status = femu_dma_prp_part(n, cmd, (void *)value, moved, buf_len, femu_max_transfer(n),
                               FEMU_TO_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    femu_smart_read(n, ns, moved, true);    /* the bytes the host got, not the value's size */
    femu_kv_request(req, ns, FTL_OP_KV_RETRIEVE, &key, moved);
    req->result = size;             /* CQE DW0: the value's full size */
    return NVME_SUCCESS;
}

uint16_t femu_kv_delete(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    struct ftl_kv_key key;
    struct kv_values_key vk;
    int rc;

    if (!femu_kv_key(cmd, &key)) {
        return femu_dnr(NVME_KV_INVALID_KEY_SIZE);
    }
    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_kv_admit_delete(n->ftl, ns->nsid, &key);
    qemu_mutex_unlock(&n->engine_lock);
    if (rc == FTL_E_KV_NO_KEY && !(n->features.kv_config & FEMU_KV_CONFIG_EDNEK)) {
        /* EDNEK 0: a missing key is no error; the FTL still looks it up */
        femu_kv_request(req, ns, FTL_OP_KV_DELETE, &key, 0);
        return NVME_SUCCESS;
    }
    if (rc != FTL_OK) {
        return femu_ftl_status(rc);
    }
    vk = femu_kv_values_key(&key);
    kv_values_del(ns->kv_values, &vk);
    femu_kv_request(req, ns, FTL_OP_KV_DELETE, &key, 0);
    req->keep_on_reset = true;
    return NVME_SUCCESS;
}

uint16_t femu_kv_exist(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    struct ftl_kv_key key;
    int rc;

    if (!femu_kv_key(cmd, &key)) {
        return femu_dnr(NVME_KV_INVALID_KEY_SIZE);
    }
    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_kv_admit_exist(n->ftl, ns->nsid, &key);
    qemu_mutex_unlock(&n->engine_lock);
    if (rc != FTL_OK) {
        return femu_ftl_status(rc);
    }
    femu_kv_request(req, ns, FTL_OP_KV_EXIST, &key, 0);
    return NVME_SUCCESS;
}

/* Bytes one key takes in List's buffer: its length field, its bytes, padding to 4. */
static uint32_t femu_kv_list_entry_bytes(const struct ftl_kv_key *key)
{
    return ROUND_UP(FEMU_KV_LIST_KL_BYTES + key->len, 4);
}

uint16_t femu_kv_list(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t buf_len = le32_to_cpu(cmd->cdw10), max_keys, found = 0, fit = 0, at;
    g_autofree struct ftl_kv_key *keys = NULL;
    g_autofree uint8_t *buf = NULL;
    struct ftl_kv_key start;
    uint16_t status;
    int rc;

    if (!femu_kv_key(cmd, &start)) {
        return femu_dnr(NVME_KV_INVALID_KEY_SIZE);
    }
    if (buf_len > femu_max_transfer(n)) {
        return femu_dnr(NVME_INVALID_FIELD);       /* beyond MDTS */
    }
    /* The shortest entry is 4 bytes: no more keys than that can fit. */
    max_keys = buf_len > FEMU_KV_LIST_HEADER ? (buf_len - FEMU_KV_LIST_HEADER) / 4 : 0;
    keys = g_new(struct ftl_kv_key, MAX(max_keys, 1));
    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_kv_admit_list(n->ftl, ns->nsid, &start, keys, max_keys, &found);
    qemu_mutex_unlock(&n->engine_lock);
    if (rc != FTL_OK) {
        return femu_ftl_status(rc);
    }
    buf = g_malloc0(MAX(buf_len, FEMU_KV_LIST_HEADER));
    at = FEMU_KV_LIST_HEADER;
    for (; fit < found && at + femu_kv_list_entry_bytes(&keys[fit]) <= buf_len; fit++) {
        stw_le_p(buf + at, keys[fit].len);
        memcpy(buf + at + FEMU_KV_LIST_KL_BYTES, keys[fit].bytes, keys[fit].len);
        at += femu_kv_list_entry_bytes(&keys[fit]);
    }
    stl_le_p(buf, fit);
    status = femu_dma_prp(n, cmd, buf, buf_len, UINT64_MAX, FEMU_TO_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    femu_kv_request(req, ns, FTL_OP_KV_LIST, &start, fit);
    return NVME_SUCCESS;
}
