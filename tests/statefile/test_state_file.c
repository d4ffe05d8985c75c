/* The state file container: sections read back as written, sparse sections, META, every
 * truncation and every flipped byte refused, atomic replacement of an existing file. */
#include "state_file.h"
#include "check.h"
#include "file_test_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAG_AAAA STATE_TAG('A', 'A', 'A', 'A')
#define TAG_BIG  STATE_TAG('B', 'I', 'G', ' ')
#define TAG_SPRS STATE_TAG('S', 'P', 'R', 'S')

static char dir[] = "/tmp/femu-test-state-file-XXXXXX";
static char path[256];

static void test_crc(void)
{
    CHECK_EQ_U64(state_crc32c(0, "123456789", 9), 0xE3069283u);
    /* in pieces, the same */
    uint32_t c = state_crc32c(0, "1234", 4);
    CHECK_EQ_U64(state_crc32c(c, "56789", 5), 0xE3069283u);
    CHECK_EQ_U64(state_crc32c(0, "", 0), 0);
}

/* The region the sparse section holds: zeroes but for a few scattered bytes. */
static unsigned char *sparse_region(size_t bytes)
{
    unsigned char *m = calloc(bytes, 1);
    m[0] = 1;
    m[5000] = 2;
    m[5001] = 3;
    m[bytes / 2] = 4;
    m[bytes - 1] = 5;
    return m;
}

/* META, a small section, a streamed one (blocks x 4000 bytes: past the write buffer
 * from 66 blocks), a sparse one. */
static void write_sample(const char *p, uint32_t blocks)
{
    char err[256] = "";
    struct state_writer *w = state_writer_open(p, err, sizeof(err));
    CHECK(w != NULL);
    CHECK(state_writer_meta(w, "test", false) == 0);
    CHECK(state_writer_section(w, TAG_AAAA, "hello", 5) == 0);
    CHECK(state_writer_begin(w, TAG_BIG) == 0);
    uint32_t block[1000];
    for (uint32_t i = 0; i < blocks; i++) {
        for (uint32_t k = 0; k < 1000; k++) {
            block[k] = i * 1000 + k;
        }
        CHECK(state_writer_append(w, block, sizeof(block)) == 0);
    }
    CHECK(state_writer_end(w) == 0);
    unsigned char *m = sparse_region(1 << 20);
    CHECK(state_writer_sparse(w, TAG_SPRS, m, 1 << 20, 512) == 0);
    free(m);
    if (!check_record(state_writer_commit(w, err, sizeof(err)) == 0, __FILE__, __LINE__,
                      "commit")) {
        fprintf(stderr, "    %s\n", err);
    }
}

static void test_round_trip(void)
{
    char err[256] = "";
    write_sample(path, 200);
    struct state_reader *r = state_reader_open(path, err, sizeof(err));
    CHECK(r != NULL);
    if (!r) {
        fprintf(stderr, "    %s\n", err);
        return;
    }
    char v[64];
    CHECK(state_reader_meta(r, "producer", v, sizeof(v)) && strcmp(v, "test") == 0);
    CHECK(state_reader_meta(r, "data", v, sizeof(v)) && strcmp(v, "absent") == 0);
    CHECK(state_reader_meta(r, "created", v, sizeof(v)) && strlen(v) == 20);
    CHECK(!state_reader_meta(r, "nothing", v, sizeof(v)));
    uint64_t len = 0;
    CHECK(state_reader_has(r, TAG_AAAA, &len) && len == 5);
    CHECK(!state_reader_has(r, STATE_TAG('N', 'O', 'N', 'E'), NULL));
    CHECK(state_reader_seek(r, STATE_TAG('N', 'O', 'N', 'E'), err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "no NONE section");
    char hello[6] = "";
    CHECK(state_reader_seek(r, TAG_AAAA, err, sizeof(err)) == 0);
    CHECK(state_reader_read(r, hello, 5, err, sizeof(err)) == 0 && memcmp(hello, "hello", 5) == 0);
    CHECK(state_reader_read(r, hello, 1, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "section AAAA: short");
    CHECK(state_reader_seek(r, TAG_BIG, err, sizeof(err)) == 0);
    CHECK_EQ_U64(state_reader_left(r), 200 * 1000 * 4);
    bool same = true;
    for (uint32_t i = 0; i < 200 * 1000; i++) {
        uint32_t x;
        CHECK(state_reader_read(r, &x, 4, err, sizeof(err)) == 0 || (same = false));
        same = same && x == i;
    }
    CHECK(same);
    CHECK_EQ_U64(state_reader_left(r), 0);
    unsigned char *want = sparse_region(1 << 20), *got = calloc(1 << 20, 1);
    CHECK(state_reader_sparse(r, TAG_SPRS, got, 1 << 20, err, sizeof(err)) == 0);
    CHECK(memcmp(want, got, 1 << 20) == 0);
    CHECK(state_reader_sparse(r, TAG_SPRS, got, 1 << 19, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "expected 524288");
    CHECK(state_reader_has(r, TAG_SPRS, &len));
    CHECK(len < 4 * 512 + 200);     /* four chunks hold the five bytes */
    free(want);
    free(got);
    CHECK_CONTAINS(state_reader_path(r), "state");
    state_reader_close(r);
    CHECK_EQ_U64(temporaries_left(dir), 0);
}

/* Pieces cut anywhere store the region as a whole write would. */
static void test_sparse_pieces(void)
{
    char err[256] = "";
    size_t bytes = 64 * 1024;
    unsigned char *m = sparse_region(bytes);
    struct state_writer *w = state_writer_open(path, err, sizeof(err));
    CHECK(state_writer_begin(w, TAG_SPRS) == 0);
    CHECK(state_writer_sparse_header(w, bytes, 4096) == 0);
    size_t cuts[] = { 0, 1, 4999, 5001, 7000, 40000, bytes };
    for (size_t i = 0; i + 1 < sizeof(cuts) / sizeof(cuts[0]); i++) {
        CHECK(state_writer_sparse_piece(w, m + cuts[i], cuts[i], cuts[i + 1] - cuts[i], 4096) == 0);
    }
    CHECK(state_writer_end(w) == 0);
    CHECK(state_writer_commit(w, err, sizeof(err)) == 0);
    struct state_reader *r = state_reader_open(path, err, sizeof(err));
    CHECK(r != NULL);
    unsigned char *got = calloc(bytes, 1);
    /* read run by run, as the data store does */
    uint64_t total, chunk, off, len, runs = 0;
    CHECK(state_reader_seek(r, TAG_SPRS, err, sizeof(err)) == 0);
    CHECK(state_reader_sparse_header(r, &total, &chunk, err, sizeof(err)) == 0);
    CHECK_EQ_U64(total, bytes);
    CHECK_EQ_U64(chunk, 4096);
    int rc;
    while ((rc = state_reader_sparse_next(r, total, &off, &len, err, sizeof(err))) == 1) {
        CHECK(state_reader_read(r, got + off, len, err, sizeof(err)) == 0);
        runs++;
    }
    CHECK(rc == 0);
    CHECK(runs >= 3);
    CHECK(memcmp(m, got, bytes) == 0);
    state_reader_close(r);
    free(m);
    free(got);
}

/* A CRC-valid sparse section whose run lies outside the region is refused. */
static void test_sparse_hostile(void)
{
    char err[256] = "";
    unsigned char payload[16 + 16 + 8] = { 0 };
    payload[0] = 0x00; payload[1] = 0x10;   /* total 4096 */
    payload[8] = 0x00; payload[9] = 0x02;   /* chunk 512 */
    payload[16] = 0xFC; payload[17] = 0x0F; /* offset 4092 */
    payload[24] = 8;                        /* length 8: past the end */
    struct state_writer *w = state_writer_open(path, err, sizeof(err));
    CHECK(state_writer_section(w, TAG_SPRS, payload, sizeof(payload)) == 0);
    CHECK(state_writer_commit(w, err, sizeof(err)) == 0);
    struct state_reader *r = state_reader_open(path, err, sizeof(err));
    CHECK(r != NULL);
    unsigned char buf[4096];
    CHECK(state_reader_sparse(r, TAG_SPRS, buf, sizeof(buf), err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "outside");
    state_reader_close(r);
}

/* Open a copy of the sample cut or changed; returns whether it was refused, err set. */
static bool refused(const unsigned char *bytes, size_t size, char *err, size_t errlen)
{
    char copy[300];
    snprintf(copy, sizeof(copy), "%s/copy", dir);
    write_whole(copy, bytes, size);
    struct state_reader *r = state_reader_open(copy, err, errlen);
    state_reader_close(r);
    unlink(copy);
    return r == NULL && err[0] && !strchr(err, '\n');
}

static void test_truncated_and_corrupt(void)
{
    char err[256];
    write_sample(path, 2);
    size_t size;
    unsigned char *orig = read_whole(path, &size);
    unsigned char *bytes = malloc(size);
    CHECK(size > 8000);
    /* every cut over the first bytes, then a few later */
    unsigned long bad = 0;
    for (size_t cut = 0; cut < size; cut = cut < 600 ? cut + 1 : cut + size / 37 + 1) {
        err[0] = '\0';
        if (!refused(orig, cut, err, sizeof(err))) {
            bad++;
        }
    }
    CHECK(refused(orig, size - 1, err, sizeof(err)));
    CHECK_CONTAINS(err, "truncated");
    CHECK_EQ_U64(bad, 0);
    CHECK(refused(orig, 0, err, sizeof(err)));
    CHECK_CONTAINS(err, "empty file");
    /* a flipped byte anywhere in the small sections and headers, and in the big one */
    bad = 0;
    for (size_t at = 0; at < size; at = at < 1000 ? at + 1 : at + size / 53 + 1) {
        memcpy(bytes, orig, size);
        bytes[at] ^= 0x40;
        err[0] = '\0';
        if (!refused(bytes, size, err, sizeof(err))) {
            bad++;
            fprintf(stderr, "    flipped byte %zu accepted\n", at);
        }
    }
    CHECK_EQ_U64(bad, 0);
    for (size_t at = size - 40; at < size; at++) {   /* the sparse section's tail, END */
        memcpy(bytes, orig, size);
        bytes[at] ^= 1;
        CHECK(refused(bytes, size, err, sizeof(err)));
    }
    memcpy(bytes, orig, size);
    bytes[8] = 7;
    CHECK(refused(bytes, size, err, sizeof(err)));
    CHECK_CONTAINS(err, "state format version 7, this femu reads version 1");
    memcpy(bytes, orig, size);
    bytes[0] = 'X';
    CHECK(refused(bytes, size, err, sizeof(err)));
    CHECK_CONTAINS(err, "not a femu state file");
    memcpy(bytes, orig, size);
    bytes[40] ^= 1;     /* inside META's payload */
    CHECK(refused(bytes, size, err, sizeof(err)));
    CHECK_CONTAINS(err, "corrupt (section META: CRC mismatch)");
    /* bytes after the end record */
    unsigned char *longer = malloc(size + 1);
    memcpy(longer, orig, size);
    longer[size] = 0;
    CHECK(refused(longer, size + 1, err, sizeof(err)));
    CHECK_CONTAINS(err, "after the end record");
    free(longer);
    free(bytes);
    free(orig);
}

static void test_bad_paths(void)
{
    char err[256] = "", p[300];
    CHECK(state_reader_open(dir, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "is a directory");
    snprintf(p, sizeof(p), "%s/missing", dir);
    CHECK(state_reader_open(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "No such file");
    if (geteuid() != 0) {   /* root reads anything */
        write_sample(p, 1);
        chmod(p, 0);
        CHECK(state_reader_open(p, err, sizeof(err)) == NULL);
        CHECK_CONTAINS(err, "Permission denied");
        unlink(p);
    }
    snprintf(p, sizeof(p), "%s/no/such/folder/file", dir);
    CHECK(state_writer_open(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "cannot create");
}

/* Replacing a file: a failed or abandoned write leaves the old one, and no temporary. */
static void test_atomic(void)
{
    char err[256] = "";
    write_whole(path, "old content", 11);
    struct state_writer *w = state_writer_open(path, err, sizeof(err));
    CHECK(state_writer_section(w, TAG_AAAA, "new", 3) == 0);
    CHECK_EQ_U64(temporaries_left(dir), 1);
    state_writer_abort(w);
    size_t size;
    char *s = (char *)read_whole(path, &size);
    CHECK(size == 11 && memcmp(s, "old content", 11) == 0);
    free(s);
    CHECK_EQ_U64(temporaries_left(dir), 0);
    /* a commit that fails (a section left open) */
    w = state_writer_open(path, err, sizeof(err));
    CHECK(state_writer_begin(w, TAG_AAAA) == 0);
    CHECK(state_writer_commit(w, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "left open");
    s = (char *)read_whole(path, &size);
    CHECK(size == 11 && memcmp(s, "old content", 11) == 0);
    free(s);
    CHECK_EQ_U64(temporaries_left(dir), 0);
    /* a misuse earlier is reported by commit */
    w = state_writer_open(path, err, sizeof(err));
    CHECK(state_writer_append(w, "x", 1) == -1);
    CHECK(state_writer_section(w, TAG_AAAA, "x", 1) == -1);
    CHECK(state_writer_commit(w, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "outside a section");
    CHECK_EQ_U64(temporaries_left(dir), 0);
    /* two writers of one path at once use two temporaries; the last commit wins */
    struct state_writer *a = state_writer_open(path, err, sizeof(err));
    struct state_writer *b = state_writer_open(path, err, sizeof(err));
    CHECK(a && b);
    CHECK(state_writer_section(a, TAG_AAAA, "a", 1) == 0);
    CHECK(state_writer_section(b, TAG_AAAA, "b", 1) == 0);
    CHECK(state_writer_commit(a, err, sizeof(err)) == 0);
    CHECK(state_writer_commit(b, err, sizeof(err)) == 0);
    struct state_reader *r = state_reader_open(path, err, sizeof(err));
    char c = 0;
    CHECK(r && state_reader_seek(r, TAG_AAAA, err, sizeof(err)) == 0 &&
          state_reader_read(r, &c, 1, err, sizeof(err)) == 0 && c == 'b');
    state_reader_close(r);
    CHECK_EQ_U64(temporaries_left(dir), 0);
    char name[5];
    CHECK(strcmp(state_tag_name(STATE_TAG('M', 'E', 'T', 1), name), "MET?") == 0);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/test.state", dir);
    test_crc();
    test_round_trip();
    test_sparse_pieces();
    test_sparse_hostile();
    test_truncated_and_corrupt();
    test_bad_paths();
    test_atomic();
    unlink(path);
    CHECK(rmdir(dir) == 0);
    return check_summary();
}
