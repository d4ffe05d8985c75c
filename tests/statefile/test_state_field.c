/* One field description for both directions (state_field.h): what it encodes it decodes
 * back, little endian in order, and a short input sets the cursor's overrun. */
#include "state_field.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

struct sample {
    uint8_t flag;
    uint32_t count;
    uint64_t big;
    uint8_t id[5];
};

static void sample_fields(struct state_fields *f, struct sample *s)
{
    state_field_u8(f, &s->flag);
    state_field_u32(f, &s->count);
    state_field_u64(f, &s->big);
    state_field_bytes(f, s->id, sizeof(s->id));
}

static void test_both_directions(void)
{
    struct sample in = { 7, 0x01020304u, UINT64_C(0x1112131415161718), "abcde" }, out;
    static const unsigned char want[] = {
        7, 4, 3, 2, 1, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11, 'a', 'b', 'c', 'd', 'e',
    };
    struct state_buf b = { 0 };
    struct state_fields put = { .put = &b };

    sample_fields(&put, &in);
    CHECK(!b.failed);
    CHECK_EQ_U64(b.len, sizeof(want));
    CHECK(memcmp(b.p, want, sizeof(want)) == 0);

    struct state_cursor c = { .p = b.p, .len = b.len };
    struct state_fields get = { .get = &c };

    memset(&out, 0xff, sizeof(out));
    sample_fields(&get, &out);
    CHECK(!c.overrun);
    CHECK_EQ_U64(c.pos, c.len);
    CHECK(out.flag == in.flag && out.count == in.count && out.big == in.big);
    CHECK(memcmp(out.id, in.id, sizeof(in.id)) == 0);

    /* one byte short: overrun, and the field cut off reads as zero */
    c = (struct state_cursor){ .p = b.p, .len = b.len - 1 };
    sample_fields(&get, &out);
    CHECK(c.overrun);
    CHECK(out.id[4] == 0 && out.big == in.big);
    free(b.p);
}

int main(void)
{
    test_both_directions();
    return check_summary();
}
