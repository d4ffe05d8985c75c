/*
 * The write buffer's flushes still programming (buf_flush_mode=ahead, flush_ahead.c): a
 * flushed page's sectors stay in DRAM until its program ends, so they count against
 * write_buffer_sectors beside the buffered ones.
 */
#ifndef FEMU_FTL_WBUF_FLUSH_AHEAD_H
#define FEMU_FTL_WBUF_FLUSH_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct flight {
    uint64_t end_ns;    /* when the program ends */
    uint64_t sectors;   /* buffered sectors it carries */
};

/* A min-heap on end_ns, sized once: every entry carries a sector and at most
 * write_buffer_sectors + a page's worth are ever held (write_buffer.c keeps it so). */
struct flights {
    struct flight *v;
    uint64_t n, cap;
    uint64_t sectors;   /* of the entries held */
    uint64_t last_end_ns;   /* the latest end ever added: a Flush waits for it */
};

bool flights_init(struct flights *f, uint64_t cap);     /* false: no memory */
void flights_free(struct flights *f);
/* Note a program; false only if the heap is full (write_buffer.c never lets it be). */
bool flights_add(struct flights *f, uint64_t end_ns, uint64_t sectors);
/* Forget the programs ended by now_ns. */
void flights_forget_ended(struct flights *f, uint64_t now_ns);
/* Take programs, earliest end first, until buffered + their sectors fit in cap; returns
 * the end of the last one taken (0: none was needed). */
uint64_t flights_make_room(struct flights *f, uint64_t buffered, uint64_t cap);
/* A power cut or a restore: nothing is in flight. */
void flights_clear(struct flights *f);
size_t flights_bytes(const struct flights *f);
/* Whether the heap order and the sector count hold; NULL if so, else what broke. */
const char *flights_check(const struct flights *f);

#endif
