/*
 * Flushes still programming, for buf_flush_mode=ahead: a binary min-heap on the program's
 * end. A write needs only their earliest ends (which free DRAM first), so a heap serves;
 * its array is allocated with the buffer, so noting a flush never fails for memory.
 */
#include "wbuf/flush_ahead.h"

#include <stdint.h>
#include <stdlib.h>

bool flights_init(struct flights *f, uint64_t cap)
{
    *f = (struct flights){ 0 };
    f->v = cap <= SIZE_MAX / sizeof(*f->v) ? calloc((size_t)cap, sizeof(*f->v)) : NULL;
    f->cap = f->v ? cap : 0;
    return f->v != NULL;
}

void flights_free(struct flights *f)
{
    free(f->v);
    *f = (struct flights){ 0 };
}

static void swap(struct flight *a, struct flight *b)
{
    struct flight t = *a;
    *a = *b;
    *b = t;
}

bool flights_add(struct flights *f, uint64_t end_ns, uint64_t sectors)
{
    if (f->n == f->cap) {
        return false;
    }
    uint64_t i = f->n++;
    f->v[i] = (struct flight){ .end_ns = end_ns, .sectors = sectors };
    while (i && f->v[(i - 1) / 2].end_ns > f->v[i].end_ns) {
        swap(&f->v[(i - 1) / 2], &f->v[i]);
        i = (i - 1) / 2;
    }
    f->sectors += sectors;
    if (end_ns > f->last_end_ns) {
        f->last_end_ns = end_ns;
    }
    return true;
}

/* Remove the earliest-ending entry (the heap is not empty). */
static struct flight take_min(struct flights *f)
{
    struct flight top = f->v[0];
    f->v[0] = f->v[--f->n];
    for (uint64_t i = 0;;) {
        uint64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < f->n && f->v[l].end_ns < f->v[m].end_ns) {
            m = l;
        }
        if (r < f->n && f->v[r].end_ns < f->v[m].end_ns) {
            m = r;
        }
        if (m == i) {
            break;
        }
        swap(&f->v[i], &f->v[m]);
        i = m;
    }
    f->sectors -= top.sectors;
    return top;
}

void flights_forget_ended(struct flights *f, uint64_t now_ns)
{
    while (f->n && f->v[0].end_ns <= now_ns) {
        take_min(f);
    }
}

uint64_t flights_make_room(struct flights *f, uint64_t buffered, uint64_t cap)
{
    uint64_t at = 0;
    while (f->n && buffered + f->sectors > cap) {
        at = take_min(f).end_ns;
    }
    return at;
}

void flights_clear(struct flights *f)
{
    f->n = 0;
    f->sectors = 0;
    f->last_end_ns = 0;
}

size_t flights_bytes(const struct flights *f)
{
    return (size_t)f->cap * sizeof(*f->v);
}

const char *flights_check(const struct flights *f)
{
    uint64_t sectors = 0;
    if (f->n > f->cap) {
        return "more flushes in flight than the heap holds";
    }
    for (uint64_t i = 0; i < f->n; i++) {
        if (i && f->v[(i - 1) / 2].end_ns > f->v[i].end_ns) {
            return "in-flight flush heap out of order";
        }
        if (f->v[i].sectors == 0 || f->v[i].end_ns > f->last_end_ns) {
            return "an in-flight flush without sectors or past the latest end";
        }
        sectors += f->v[i].sectors;
    }
    return sectors == f->sectors ? NULL : "in-flight flush sectors miscounted";
}
