/* writers.c - fio iolog v3, femu v2 and MQSim lines (writers.h). */
#include "writers.h"

#include <inttypes.h>
#include <string.h>

int out_format_parse(const char *name, enum out_format *out)
{
    static const char *const names[] = { "fio-iolog", "femu", "mqsim" };
    for (unsigned i = 0; i < 3; i++) {
        if (strcmp(name, names[i]) == 0) {
            *out = (enum out_format)i;
            return 0;
        }
    }
    return -1;
}

/* A comment's text: a control byte (a newline above all) would end the comment and let
 * the rest of a file name become trace records, so each is written as '?'. */
static void comment_text(FILE *f, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
    }
}

int writer_begin(struct writer *w, const char *source)
{
    switch (w->format) {
    case OUT_FIO:
        fprintf(w->f, "fio version 3 iolog\n0 %s add\n0 %s open\n", w->fio_file, w->fio_file);
        break;
    case OUT_FEMU:
        fprintf(w->f, "V %d\n# converted by femu-trace from ", w->femu_version);
        comment_text(w->f, source);
        fputc('\n', w->f);
        break;
    case OUT_MQSIM:
        break;  /* MQSim's reader takes no comments */
    }
    return ferror(w->f) ? -1 : 0;
}

static int fio_request(struct writer *w, const struct tin_record *rec, uint64_t us)
{
    static const char *const acts[] = { [TIN_READ] = "read", [TIN_WRITE] = "write",
                                        [TIN_TRIM] = "trim", [TIN_FLUSH] = "sync" };
    return fprintf(w->f, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n", us, w->fio_file,
                   acts[rec->op], rec->offset, rec->length);
}

static int femu_request(struct writer *w, const struct tin_record *rec, uint64_t t)
{
    uint64_t lba = rec->offset / 512, n = rec->length / 512;
    switch (rec->op) {
    case TIN_WRITE:
        return fprintf(w->f, "W %" PRIu64 " %" PRIu64 " %" PRIu64 " 1 0%s\n", t, lba, n,
                       w->femu_version >= 5 && rec->fua ? " fua" : "");
    case TIN_READ:
        return fprintf(w->f, "R %" PRIu64 " %" PRIu64 " %" PRIu64 " 1\n", t, lba, n);
    case TIN_TRIM:
        return fprintf(w->f, "D %" PRIu64 " 1 %" PRIu64 " %" PRIu64 "\n", t, lba, n);
    default:
        return fprintf(w->f, "F %" PRIu64 " 1\n", t);
    }
}

int writer_request(struct writer *w, const struct tin_record *rec, uint64_t time_ns)
{
    if (time_ns > w->last_ns) {
        w->last_ns = time_ns;
    }
    switch (w->format) {
    case OUT_FIO:
        fio_request(w, rec, time_ns / 1000);
        break;
    case OUT_FEMU:
        femu_request(w, rec, time_ns);
        break;
    case OUT_MQSIM:
        if (rec->op != TIN_READ && rec->op != TIN_WRITE) {
            w->left_out++;
            break;
        }
        fprintf(w->f, "%" PRIu64 " 0 %" PRIu64 " %" PRIu64 " %d\n", time_ns,
                rec->offset / 512, rec->length / 512, rec->op == TIN_READ);
        break;
    }
    return ferror(w->f) ? -1 : 0;
}

int writer_end(struct writer *w)
{
    if (w->format == OUT_FIO) {
        fprintf(w->f, "%" PRIu64 " %s close\n", w->last_ns / 1000, w->fio_file);
    }
    return ferror(w->f) ? -1 : 0;
}
