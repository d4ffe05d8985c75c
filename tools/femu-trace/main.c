/*
 * femu-trace: facts about a block trace and conversion between trace formats, over the
 * readers ftl-sim replays with (tools/trace-in). docs/femu-trace.md.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "fields.h"
#include "info.h"
#include "one_line.h"
#include "options.h"

#define EXIT_USAGE 2

static const char usage_text[] =
    "usage: femu-trace info FILE [--json] [trace options]\n"
    "       femu-trace convert IN OUT --to fio-iolog|femu|mqsim [--fio-file PATH]\n"
    "                  [--device-bytes N] [trace options]\n"
    "\n"
    "info      records, time span, reads / writes / trims / flushes, bytes, footprint in\n"
    "          distinct 4 KiB pages, request sizes in power-of-two buckets, the format\n"
    "convert   rewrite IN as fio iolog version 3 (--fio-file names its file, default\n"
    "          /dev/nvme0n1), femu's trace version 2 or MQSim ASCII; OUT appears whole or\n"
    "          not at all\n"
    "  --device-bytes N  the device's capacity: --trace-lba-map folds requests into it\n"
    "trace options (docs/ftl-sim.md, \"Trace formats\"):\n"
    "  --trace-format auto|msr|spc|blkparse|fio-iolog|mqsim|disksim|femu   (default auto)\n"
    "  --trace-host NAME  --trace-disk N  --trace-asu stream|offset\n"
    "  --trace-events queue|complete  --trace-sector-size N  --trace-skip-bad\n"
    "  --trace-lba-map refuse|modulo|scale  --trace-extent BYTES\n"
    "  --trace-time scale=F|closed-loop\n"
    "Exit status: 0, 1 (cannot write), 2 (bad arguments or a bad trace line, FILE:LINE).\n";

static void usage_error(const char *fmt, ...)
{
    char text[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    one_line(stderr, "femu-trace", "%s (see femu-trace --help)", text);
    exit(EXIT_USAGE);
}

enum { OPT_JSON = 1, OPT_TO, OPT_FIO_FILE, OPT_DEVICE_BYTES, OPT_HELP };

static const struct option long_options[] = {
    { "json", no_argument, NULL, OPT_JSON },
    { "to", required_argument, NULL, OPT_TO },
    { "fio-file", required_argument, NULL, OPT_FIO_FILE },
    { "device-bytes", required_argument, NULL, OPT_DEVICE_BYTES },
    { "help", no_argument, NULL, OPT_HELP },
    TIN_GETOPT_OPTIONS,
    { NULL, 0, NULL, 0 },
};

struct args {
    const char *command, *files[2];
    int nfiles;
    bool json, to_set;
    enum out_format to;
    const char *fio_file;
    struct tin_settings trace;
};

static void parse_args(int argc, char **argv, struct args *a)
{
    char err[512];
    int c, index;
    *a = (struct args){ .fio_file = "/dev/nvme0n1" };
    tin_settings_init(&a->trace);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", long_options, &index)) != -1) {
        switch (c) {
        case OPT_JSON: a->json = true; break;
        case OPT_TO:
            if (out_format_parse(optarg, &a->to)) {
                usage_error("--to: '%s' is not one of fio-iolog, femu, mqsim", optarg);
            }
            a->to_set = true;
            break;
        case OPT_FIO_FILE:
            if (!optarg[0] || strpbrk(optarg, " \t\n")) {
                usage_error("--fio-file: '%s' must be a name without blanks", optarg);
            }
            a->fio_file = optarg;
            break;
        case OPT_DEVICE_BYTES:
            if (!fields_u64(optarg, &a->trace.map.device_bytes) ||
                a->trace.map.device_bytes < 512) {
                usage_error("--device-bytes: '%s' is not a byte count of 512 or more", optarg);
            }
            break;
        case OPT_HELP: fputs(usage_text, stdout); exit(0);
        case TIN_OPT:
            if (tin_settings_option(&a->trace, long_options[index].name, optarg, err,
                                    sizeof(err))) {
                usage_error("%s", err);
            }
            break;
        default:
            usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc) {
        usage_error("no command: want info or convert");
    }
    a->command = argv[optind++];
    while (optind < argc) {
        if (a->nfiles == 2) {
            usage_error("unexpected argument '%s'", argv[optind]);
        }
        a->files[a->nfiles++] = argv[optind++];
    }
}

int main(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv, &a);
    /* the detected format's line would mix into info's output on a terminal: it goes to
     * stderr anyway, and a script reads stdout */
    if (strcmp(a.command, "info") == 0) {
        if (a.nfiles != 1) {
            usage_error("info: want one FILE");
        }
        if (a.to_set || a.trace.map.device_bytes) {
            usage_error("info: --to and --device-bytes are convert's");
        }
        return info_run(a.files[0], &a.trace, a.json);
    }
    if (strcmp(a.command, "convert") == 0) {
        if (a.nfiles != 2) {
            usage_error("convert: want IN and OUT");
        }
        if (!a.to_set) {
            usage_error("convert: --to fio-iolog|femu|mqsim is required");
        }
        if (a.trace.map_set && !a.trace.map.device_bytes) {
            usage_error("--trace-lba-map: needs --device-bytes N (the device's capacity)");
        }
        return convert_run(a.files[0], a.files[1], a.to, a.fio_file, &a.trace);
    }
    usage_error("unknown command '%s': want info or convert", a.command);
    return EXIT_USAGE;
}
