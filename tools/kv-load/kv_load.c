/*
 * kv-load: a YCSB-style key-value load on an NVMe Key Value namespace from inside a Linux
 * guest, through io_uring passthrough on its generic character device /dev/ngXnY (Linux
 * attaches a KV namespace only as that). A load phase stores --keys keys, then the mix
 * runs --ops operations (or for --runtime seconds) at queue depth --qd. docs/kv.md, "In
 * the guest", tells how femu-lab runs it.
 *
 * Every command's status is counted (kv_report.h); nothing but success is expected of a
 * mix, so any other status is an error the summary names. A Retrieve's bytes are checked
 * against the key (kv_value.h) and a List's keys against the keys stored: a wrong answer
 * makes the exit status 3. Exit status: 0 done, 1 a system error, 2 bad options, 3 wrong
 * results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "kv_cmd.h"
#include "kv_mix.h"
#include "kv_options.h"
#include "kv_report.h"
#include "kv_ring.h"
#include "kv_value.h"

static const char usage[] =
    "usage: kv-load --dev /dev/ngXnY [--mix a|b|c|d|e|f] [--dist uniform|zipfian|latest]\n"
    "               [--keys N] [--value-size BYTES] [--ops N] [--runtime S] [--qd N]\n"
    "               [--seed N] [--no-load] [--no-verify] [--csv FILE] [--json FILE]\n"
    "Stores --keys keys (\"user\" + 12 digits, 16 bytes), then runs a YCSB mix (a: read 50\n"
    "update 50, b: read 95 update 5, c: read 100, d: read 95 insert 5, e: scan 95 insert 5,\n"
    "f: read 50 read-modify-write 50) for --ops operations (default 1000; 0: load only) or\n"
    "--runtime seconds, whichever ends first. --no-load: the keys are there already.\n"
    "--csv: one line per operation (end_s,kind,latency_us,status); --json: the summary.\n";

/* One queue slot: an operation in flight. */
struct slot {
    enum kv_kind kind;
    uint8_t opcode;             /* the command in flight */
    uint64_t number;            /* its key's number */
    struct kv_key key;
    uint64_t started_ns;        /* when the operation's first command was issued */
    uint64_t visible_at_issue;  /* a scan: keys visible when it was issued */
    unsigned scan_keys;
    uint32_t buf_len;
    uint8_t *buf;
    bool busy;
};

struct run {
    struct kv_options o;
    struct kv_ring *ring;
    struct kv_chooser chooser;
    struct kv_report report;
    struct slot *slots;
    uint32_t nsid;
    uint64_t next_insert;       /* the next new key's number */
    uint64_t visible;           /* keys [0, visible) are all stored */
    uint8_t *insert_done;       /* per key number from 0: its store completed */
    uint64_t insert_cap;
    uint64_t store_seed;
    uint64_t start_ns;
    unsigned in_flight;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "kv-load: error: %s\n", what);
    exit(1);
}

static void issue(struct run *r, struct slot *s, enum kv_opcode op, uint32_t len)
{
    struct nvme_uring_cmd cmd;
    s->opcode = (uint8_t)op;
    if (op == KV_OP_STORE) {
        kv_value_fill(s->buf, len, &s->key, ++r->store_seed ^ r->o.seed << 32);
    }
    kv_cmd_encode(&cmd, op, r->nsid, &s->key, s->buf, len, 0);
    if (kv_ring_queue(r->ring, &cmd, (uint64_t)(s - r->slots))) {
        die("the submission ring is full (a bug: more commands than --qd)");
    }
}

/* Start an operation of kind on a free slot. */
static void start(struct run *r, struct slot *s, enum kv_kind kind)
{
    s->busy = true;
    s->kind = kind;
    s->started_ns = now_ns();
    r->in_flight++;
    if (kind == KV_LOAD || kind == KV_INSERT) {
        s->number = r->next_insert++;
    } else {
        s->number = kv_choose_key(&r->chooser, r->visible);
    }
    kv_key_of_number(s->number, &s->key);
    switch (kind) {
    case KV_LOAD:
    case KV_INSERT:
    case KV_UPDATE:
        issue(r, s, KV_OP_STORE, r->o.value_size);
        break;
    case KV_SCAN:
        s->scan_keys = kv_choose_scan_length(&r->chooser);
        s->visible_at_issue = r->visible;
        s->buf_len = kv_list_buffer_bytes(s->scan_keys, KV_KEY_MAX);
        issue(r, s, KV_OP_LIST, s->buf_len);
        break;
    default:    /* read, rmw: a Retrieve first */
        issue(r, s, KV_OP_RETRIEVE, r->o.value_size);
        break;
    }
}

static void mark_inserted(struct run *r, uint64_t number)
{
    if (number >= r->insert_cap) {
        uint64_t cap = r->insert_cap ? r->insert_cap : 4096;
        while (cap <= number) {
            cap *= 2;
        }
        uint8_t *grown = realloc(r->insert_done, cap);
        if (!grown) {
            die("out of memory");
        }
        memset(grown + r->insert_cap, 0, cap - r->insert_cap);
        r->insert_done = grown;
        r->insert_cap = cap;
    }
    r->insert_done[number] = 1;
    while (r->visible < r->insert_cap && r->insert_done[r->visible]) {
        r->visible++;
    }
}

/* A List's answer: keys in order from the start key, which exists, as many as asked or
 * as there were from it. */
static bool list_right(const struct slot *s)
{
    struct kv_key keys[KV_SCAN_MAX];
    unsigned count;
    if (kv_list_parse(s->buf, s->buf_len, keys, KV_SCAN_MAX, &count) || count > s->scan_keys) {
        return false;
    }
    uint64_t existing = s->visible_at_issue - s->number;
    if (count < (existing < s->scan_keys ? existing : s->scan_keys)) {
        return false;
    }
    if (count && kv_key_cmp(&keys[0], &s->key) != 0) {
        return false;
    }
    for (unsigned i = 1; i < count; i++) {
        if (kv_key_cmp(&keys[i - 1], &keys[i]) >= 0) {
            return false;
        }
    }
    return true;
}

/* A command of slot s completed; 1 when its operation is done. */
static int complete(struct run *r, struct slot *s, const struct kv_completion *c)
{
    kv_report_command(&r->report, s->opcode, c->res);
    int32_t res = c->res;
    if (res == 0 && s->opcode == KV_OP_RETRIEVE && r->o.verify) {
        uint32_t moved = c->result < r->o.value_size ? (uint32_t)c->result : r->o.value_size;
        if (c->result != r->o.value_size || !kv_value_check(s->buf, moved, r->o.value_size,
                                                            &s->key)) {
            r->report.wrong_values++;
        }
    }
    if (res == 0 && s->opcode == KV_OP_LIST && r->o.verify && !list_right(s)) {
        r->report.wrong_lists++;
    }
    if (res == 0 && s->kind == KV_RMW && s->opcode == KV_OP_RETRIEVE) {
        issue(r, s, KV_OP_STORE, r->o.value_size);     /* the write half */
        return 0;
    }
    if (s->kind == KV_LOAD || s->kind == KV_INSERT) {
        mark_inserted(r, s->number);
    }
    uint64_t end = now_ns();
    kv_report_op(&r->report, s->kind, (double)(end - r->start_ns) / 1e9, end - s->started_ns,
                 res);
    s->busy = false;
    r->in_flight--;
    return 1;
}

/* Run `ops` operations (kind KV_LOAD: the load) or until the deadline; the seconds taken. */
static double run_phase(struct run *r, bool load, uint64_t ops, double runtime)
{
    uint64_t started = 0, begin = now_ns();
    uint64_t deadline = runtime > 0 ? begin + (uint64_t)(runtime * 1e9) : UINT64_MAX;
    r->start_ns = begin;
    for (;;) {
        bool more = started < ops && now_ns() < deadline;
        for (unsigned i = 0; more && i < r->o.qd; i++) {
            struct slot *s = &r->slots[i];
            if (s->busy) {
                continue;
            }
            enum kv_kind kind = load ? KV_LOAD : kv_choose_kind(&r->chooser);
            start(r, s, kind);
            more = ++started < ops;
        }
        if (!r->in_flight) {
            break;
        }
        int rc = kv_ring_submit(r->ring, 1);
        if (rc < 0) {
            fprintf(stderr, "kv-load: error: io_uring_enter: %s\n", strerror(-rc));
            exit(1);
        }
        struct kv_completion c;
        while (kv_ring_reap(r->ring, &c)) {
            if (c.user_data >= r->o.qd || !r->slots[c.user_data].busy) {
                die("a completion for no command in flight");
            }
            complete(r, &r->slots[c.user_data], &c);
        }
        kv_ring_submit(r->ring, 0);    /* an rmw's Store queued by a completion */
    }
    return (double)(now_ns() - begin) / 1e9;
}

/* One phase's report: the summary line on stdout, the JSON and CSV when asked. */
static void report_phase(struct run *r, const char *phase, double seconds, const char *json)
{
    struct kv_run_info info = { .phase = phase, .mix = kv_mix_names[r->o.mix],
                                .dist = kv_dist_names[r->o.dist], .qd = r->o.qd,
                                .keys = r->o.keys, .value_size = r->o.value_size,
                                .seconds = seconds };
    kv_report_summary(&r->report, &info, stdout);
    fflush(stdout);
    if (json && kv_report_json(&r->report, &info, json)) {
        fprintf(stderr, "kv-load: error: --json %s: %s\n", json, strerror(errno));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    struct run r;
    char err[256];
    memset(&r, 0, sizeof(r));
    if (kv_options_parse(argc, argv, &r.o, err, sizeof(err))) {
        fprintf(stderr, "kv-load: error: %s\n", err);
        return 2;
    }
    if (r.o.help) {
        fputs(usage, stdout);
        return 0;
    }
    int fd = open(r.o.dev, O_RDWR);
    if (fd < 0) {
        fprintf(stderr, "kv-load: error: --dev %s: %s\n", r.o.dev, strerror(errno));
        return 1;
    }
    r.nsid = r.o.nsid;
    if (!r.nsid) {
        int id = ioctl(fd, NVME_IOCTL_ID);
        if (id <= 0) {
            fprintf(stderr, "kv-load: error: --dev %s: not an NVMe namespace (%s); give its "
                    "/dev/ngXnY\n", r.o.dev, id < 0 ? strerror(errno) : "no namespace ID");
            return 1;
        }
        r.nsid = (uint32_t)id;
    }
    r.ring = kv_ring_create(fd, r.o.qd, err, sizeof(err));
    if (!r.ring) {
        fprintf(stderr, "kv-load: error: %s\n", err);
        return 1;
    }
    uint32_t list_max = kv_list_buffer_bytes(KV_SCAN_MAX, KV_KEY_MAX);
    size_t buf_bytes = ((r.o.value_size > list_max ? r.o.value_size : list_max) + 4095)
                       / 4096 * 4096;
    r.slots = calloc(r.o.qd, sizeof(*r.slots));
    if (!r.slots) {
        die("out of memory");
    }
    for (unsigned i = 0; i < r.o.qd; i++) {
        if (posix_memalign((void **)&r.slots[i].buf, 4096, buf_bytes)) {
            die("out of memory for the value buffers (--qd x --value-size)");
        }
    }
    kv_chooser_init(&r.chooser, r.o.mix, r.o.dist, r.o.seed);
    int status = 0;
    if (r.o.load) {
        if (kv_report_init(&r.report, NULL)) {
            die("out of memory");
        }
        double seconds = run_phase(&r, true, r.o.keys, 0);
        report_phase(&r, "load", seconds, NULL);
        uint64_t failed = r.report.failed_ops[KV_LOAD];
        kv_report_free(&r.report);
        if (failed) {
            fprintf(stderr, "kv-load: error: %llu of the load's %llu stores failed (the "
                    "summary line names their statuses)\n", (unsigned long long)failed,
                    (unsigned long long)r.o.keys);
            return 1;
        }
    } else {
        r.next_insert = r.visible = r.o.keys;
    }
    if (r.o.ops) {
        if (kv_report_init(&r.report, r.o.csv)) {
            fprintf(stderr, "kv-load: error: --csv %s: %s\n", r.o.csv, strerror(errno));
            return 1;
        }
        double seconds = run_phase(&r, false, r.o.ops, r.o.runtime);
        report_phase(&r, "run", seconds, r.o.json);
        if (r.report.wrong_values || r.report.wrong_lists) {
            status = 3;
        }
        kv_report_free(&r.report);
    }
    kv_ring_destroy(r.ring);
    close(fd);
    return status;
}
