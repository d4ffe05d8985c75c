/* What each command moves over the link and what it costs the controller: one table of
 * operation kinds, so a new operation is added here once. */
#include "front/front.h"

#define DSM_RANGE_BYTES 16u     /* a Dataset Management range */
#define COPY_DESC_BYTES 32u     /* a Copy source range, descriptor format 0 */
#define APST_TABLE_BYTES 256u   /* the APST data structure: 32 entries of 8 bytes */

enum cost_kind { COST_NONE, COST_READ, COST_WRITE, COST_FLUSH, COST_DSM, COST_ADMIN };

/* count x each, saturated: a cost past 100 s a range is refused by the keys, but a count
 * of ranges comes from a hostile guest or file */
static uint64_t times(uint64_t count, uint64_t each)
{
    uint64_t out;
    return __builtin_mul_overflow(count, each, &out) ? UINT64_MAX / 4 : out;
}

static uint64_t cost_of(const struct ftl_config *cfg, enum cost_kind kind)
{
    switch (kind) {
    case COST_READ: return cfg->ctrl_read_ns;
    case COST_WRITE: return cfg->ctrl_write_ns;
    case COST_FLUSH: return cfg->ctrl_flush_ns;
    case COST_ADMIN: return cfg->ctrl_admin_ns;
    default: return 0;
    }
}

/* A List returns a 4-byte count, then per key its 2-byte length and bytes padded to 4;
 * the keys returned are not known here, so each is priced at the start key's length. */
static uint64_t list_bytes(const struct ftl_request *r)
{
    uint64_t entry = (2u + r->key.len + 3u) & ~UINT64_C(3);
    return 4u + times(r->kv_bytes, entry);
}

void front_moves_of(const struct ftl_config *cfg, const struct ftl_request *r,
                    struct front_moves *m)
{
    uint64_t bytes = r->nlb * cfg->secsz;   /* nlb is checked against the device's size */
    uint64_t ranges = r->nranges ? r->nranges : 1;
    enum cost_kind kind = COST_ADMIN;

    *m = (struct front_moves){ .command = true };
    switch (r->op) {
    case FTL_OP_READ:
    case FTL_OP_ZONE_READ:
        m->data_out = bytes, m->prp = true, kind = COST_READ;
        break;
    case FTL_OP_VERIFY:
    case FTL_OP_KV_EXIST:
        kind = COST_READ;
        break;
    case FTL_OP_KV_RETRIEVE:     /* the bytes returned are learnt from the FTL */
        m->prp = true, kind = COST_READ;
        break;
    case FTL_OP_KV_LIST:
        m->data_out = list_bytes(r), m->prp = true, kind = COST_READ;
        break;
    case FTL_OP_WRITE:
    case FTL_OP_ZONE_WRITE:
        m->data_in = bytes, m->prp = true, kind = COST_WRITE;
        break;
    case FTL_OP_KV_STORE:
        m->data_in = r->kv_bytes, m->prp = true, kind = COST_WRITE;
        break;
    case FTL_OP_KV_DELETE:
        kind = COST_WRITE;
        break;
    case FTL_OP_COPY:
        m->data_in = times(ranges, COPY_DESC_BYTES), kind = COST_WRITE;
        m->cost_ns = times(ranges, cfg->ctrl_dsm_range_ns);
        break;
    case FTL_OP_TRIM:
        m->data_in = times(ranges, DSM_RANGE_BYTES), kind = COST_DSM;
        m->cost_ns = times(ranges, cfg->ctrl_dsm_range_ns);
        break;
    case FTL_OP_FLUSH:
        kind = COST_FLUSH;
        break;
    case FTL_OP_KV_CREATE:
    case FTL_OP_KV_DESTROY:
        m->command = false, kind = COST_NONE;
        break;
    case FTL_OP_ADMIN:          /* what the device moved for it, through PRPs */
        m->data_in = r->data_in, m->data_out = r->data_out, m->prp = true;
        kind = (r->flags & FTL_REQ_IO) ? COST_READ : COST_ADMIN;
        break;
    case FTL_OP_POWER:          /* Set Features APST: its 256-byte table comes in */
        if (r->power && r->power->action == FTL_POWER_SET_APST) {
            m->data_in = APST_TABLE_BYTES, m->prp = true;
        }
        break;
    default:                    /* Format, Zone Management, RUH Update, other features */
        break;
    }
    m->cost_ns += cost_of(cfg, kind);
}
