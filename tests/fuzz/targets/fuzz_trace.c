/*
 * libFuzzer target: a block I/O trace (versions 1 to 3: hw/femu/ftl/include/femu_ftl/
 * trace.h) through the femu reader (tools/trace-in/femu_trace.c) and its conversion
 * into FTL requests (workload.c: sector ranges, namespaces, streams, zones, copies),
 * once for a device with a zoned namespace and once without. A refusal must be one
 * line naming the file and line, and come from workload_create's dry run, never from the
 * replay; an accepted request must lie inside the device. Seeds: traces the device and
 * ftl-sim record, and hand-written ones of every record kind (corpus/trace).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "workload.h"

#define SECSZ 512u
#define CAPACITY_SECTORS 8192u          /* 4 MiB conventional */
#define ZONES 8u
#define ZONE_SECTORS 512u               /* 256 KiB zones */

static void check_request(const struct request *req, bool zoned)
{
    const struct ftl_request *r = &req->ftl;
    uint64_t limit = r->op >= FTL_OP_ZONE_WRITE && r->op <= FTL_OP_ZONE_MGMT
                     ? (uint64_t)ZONES * ZONE_SECTORS : CAPACITY_SECTORS;
    if (req->event != REPLAY_NONE || r->op == FTL_OP_COPY || r->nranges) {
        return;     /* events; range lists are checked against their own namespace */
    }
    if ((r->op == FTL_OP_READ || r->op == FTL_OP_WRITE) &&
        (r->slba > limit || r->nlb > limit - r->slba)) {
        fprintf(stderr, "fuzz: op %d of %llu+%llu sectors beyond %llu (zoned %d)\n", r->op,
                (unsigned long long)r->slba, (unsigned long long)r->nlb,
                (unsigned long long)limit, zoned);
        abort();
    }
}

static void replay(const char *path, bool zoned)
{
    struct workload_spec spec = {
        .trace_path = path, .nstreams = 4,
        .layout = zoned ? (struct zone_layout){ ZONES, ZONE_SECTORS, ZONE_SECTORS }
                        : (struct zone_layout){ 0 },
    };
    char err[1024] = "";
    struct workload *w = workload_create(&spec, SECSZ, CAPACITY_SECTORS, err, sizeof(err));
    int rc = w ? 1 : -1;
    struct request req;
    while (rc == 1 && (rc = workload_next(w, &req, err, sizeof(err))) == 1) {
        check_request(&req, zoned);
    }
    if (rc < 0 && (!err[0] || strchr(err, '\n') || !strstr(err, path))) {
        fprintf(stderr, "fuzz: a refusal that does not name the file on one line: '%s'\n",
                err);
        abort();
    }
    /* workload_create's dry run made every request already: the replay cannot refuse */
    if (w && rc < 0) {
        fprintf(stderr, "fuzz: the replay refused what the dry run accepted: '%s'\n", err);
        abort();
    }
    workload_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    replay(path, true);
    replay(path, false);
    return 0;
}
