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

/* The sample's sections and their most bytes: 200 blocks of 4000 in BIG, the 1 MiB
 * sparse region in chunks of 512. */
static struct state_section_limit sample_limits[3];

/* Open and verify whole, as a restore does; NULL with err set when either refuses. */
static struct state_reader *open_sample(const char *p, char *err, size_t errlen)
{
    struct state_reader *r = state_reader_open(p, sample_limits, 3, err, errlen);
    if (r && state_reader_verify(r, err, errlen)) {
        state_reader_close(r);
        return NULL;
    }
    return r;
}

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
    struct state_reader *r = open_sample(path, err, sizeof(err));
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
    struct state_reader *r = open_sample(path, err, sizeof(err));
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
    struct state_reader *r = open_sample(path, err, sizeof(err));
    CHECK(r != NULL);
    unsigned char buf[4096];
    CHECK(state_reader_sparse(r, TAG_SPRS, buf, sizeof(buf), err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "outside");
    state_reader_close(r);
}

/* Write a file of a header, the sections given (tag, length, payload bytes of that
 * length or NULL for zeroes), CRCs right, and the end record. */
static void write_raw(const char *p, const uint32_t *tags, const uint64_t *lens, size_t n)
{
    FILE *f = fopen(p, "wb");
    unsigned char h[24] = "FEMUSTAT";
    h[8] = 1;
    h[12] = 24;
    uint32_t file_crc = state_crc32c(0, h, sizeof(h));
    fwrite(h, 1, sizeof(h), f);
    for (size_t i = 0; i <= n; i++) {
        uint32_t tag = i < n ? tags[i] : STATE_TAG_END;
        uint64_t len = i < n ? lens[i] : 4;
        unsigned char sh[16] = { 0 }, payload[64] = { 0 }, crc[4];
        for (int b = 0; b < 4; b++) {
            sh[b] = (unsigned char)(tag >> (8 * b));
            if (i == n) {
                payload[b] = (unsigned char)(file_crc >> (8 * b));
            }
        }
        for (int b = 0; b < 8; b++) {
            sh[8 + b] = (unsigned char)(len >> (8 * b));
        }
        CHECK(len <= sizeof(payload));
        uint32_t c = state_crc32c(0, payload, (size_t)len);
        for (int b = 0; b < 4; b++) {
            crc[b] = (unsigned char)(c >> (8 * b));
        }
        file_crc = state_crc32c(file_crc, sh, 16);
        file_crc = state_crc32c(file_crc, payload, (size_t)len);
        file_crc = state_crc32c(file_crc, crc, 4);
        fwrite(sh, 1, 16, f);
        fwrite(payload, 1, (size_t)len, f);
        fwrite(crc, 1, 4, f);
    }
    fclose(f);
}

/*
 * A file is held to the caller's sections before a payload is read: an unknown tag, a tag
 * twice, a section longer than its limit are refused by their headers, so a sparse file
 * of zeroes (every 20 zero bytes would be an empty section) or a huge section with a
 * wrong CRC costs a few reads, not a scan of the whole file.
 */
static void test_limits(void)
{
    char err[256] = "", p[300];
    snprintf(p, sizeof(p), "%s/hostile", dir);

    /* header, then 4 GiB of zeroes (a hole: nothing on disk) */
    write_whole(p, "FEMUSTAT\1\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0", 24);
    CHECK(truncate(p, (off_t)4 << 30) == 0);
    CHECK(open_sample(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "corrupt (section ????: not a section of this configuration's state)");

    /* one section claiming 4 GiB, with a wrong CRC: refused by its length, never read */
    unsigned char big[24 + 16] = "FEMUSTAT\1\0\0\0\x18";
    memcpy(big + 24, "BIG ", 4);
    big[24 + 8 + 4] = 1;    /* length 1 << 32 */
    write_whole(p, big, sizeof(big));
    unsigned char end[24] = "END ";
    end[8] = 4;             /* payload 4 bytes; the CRCs are wrong, never looked at */
    FILE *f = fopen(p, "r+b");
    CHECK(f && fseeko(f, ((off_t)1 << 32) + 24 + 16 + 4, SEEK_SET) == 0 &&
          fwrite(end, 1, sizeof(end), f) == sizeof(end));
    if (f) {
        fclose(f);
    }
    CHECK(open_sample(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "corrupt (section BIG : 4294967296 bytes, this configuration's "
                   "state has at most 800000)");
    /* opened without the whole check, the section is held to its limit at its seek */
    struct state_reader *r = state_reader_open(p, sample_limits, 3, err, sizeof(err));
    CHECK(r != NULL);
    CHECK(r && state_reader_seek(r, TAG_BIG, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "section BIG : 4294967296 bytes");
    state_reader_close(r);

    /* a tag twice, an unknown tag, each with its CRCs right */
    uint32_t twice[] = { TAG_AAAA, TAG_AAAA };
    uint64_t lens[] = { 5, 5 };
    write_raw(p, twice, lens, 2);
    CHECK(open_sample(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "corrupt (section AAAA twice)");
    uint32_t unknown[] = { TAG_AAAA, STATE_TAG('Z', 'Z', 'Z', 'Z') };
    write_raw(p, unknown, lens, 2);
    CHECK(open_sample(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "corrupt (section ZZZZ: not a section of this configuration's state)");
    uint32_t meta_twice[] = { STATE_TAG_META, STATE_TAG_META };
    write_raw(p, meta_twice, lens, 2);
    CHECK(open_sample(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "corrupt (section META twice)");
    /* the same sections, each once, are read */
    write_raw(p, unknown, lens, 1);
    r = open_sample(p, err, sizeof(err));
    CHECK(r != NULL);
    state_reader_close(r);
    /* a section at its limit is read; one byte more is not */
    uint32_t small[] = { TAG_AAAA };
    uint64_t at_limit[] = { 16 }, past[] = { 17 };
    write_raw(p, small, at_limit, 1);
    r = open_sample(p, err, sizeof(err));
    CHECK(r != NULL);
    state_reader_close(r);
    write_raw(p, small, past, 1);
    CHECK(open_sample(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "section AAAA: 17 bytes, this configuration's state has at most 16");
    unlink(p);

    /* the sparse bound: header, every byte, a run header per chunk */
    CHECK_EQ_U64(state_sparse_max_len(0, 4096), 16);
    CHECK_EQ_U64(state_sparse_max_len(4096, 4096), 16 + 16 + 4096);
    CHECK_EQ_U64(state_sparse_max_len(5000, 4096), 16 + 2 * 16 + 5000);
    CHECK_EQ_U64(state_sparse_max_len(UINT64_MAX, 1), UINT64_MAX);
    CHECK_EQ_U64(state_sparse_max_len(UINT64_MAX - 100, 1 << 12), UINT64_MAX);
}

/* Open a copy of the sample cut or changed; returns whether it was refused, err set. */
static bool refused(const unsigned char *bytes, size_t size, char *err, size_t errlen)
{
    char copy[300];
    snprintf(copy, sizeof(copy), "%s/copy", dir);
    write_whole(copy, bytes, size);
    struct state_reader *r = open_sample(copy, err, errlen);
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
    CHECK(open_sample(dir, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "is a directory");
    snprintf(p, sizeof(p), "%s/missing", dir);
    CHECK(open_sample(p, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "No such file");
    if (geteuid() != 0) {   /* root reads anything */
        write_sample(p, 1);
        chmod(p, 0);
        CHECK(open_sample(p, err, sizeof(err)) == NULL);
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
    struct state_reader *r = open_sample(path, err, sizeof(err));
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
    sample_limits[0] = (struct state_section_limit){ TAG_AAAA, 16 };
    sample_limits[1] = (struct state_section_limit){ TAG_BIG, 200 * 4000 };
    sample_limits[2] = (struct state_section_limit){
        TAG_SPRS, state_sparse_max_len(1 << 20, 512) };
    test_crc();
    test_round_trip();
    test_sparse_pieces();
    test_sparse_hostile();
    test_truncated_and_corrupt();
    test_bad_paths();
    test_atomic();
    test_limits();
    unlink(path);
    CHECK(rmdir(dir) == 0);
    return check_summary();
}
