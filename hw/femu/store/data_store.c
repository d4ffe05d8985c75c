/* Lazily mapped data store: see data_store.h. */
#define _DEFAULT_SOURCE  /* madvise and mincore are Linux/BSD, not POSIX */
#include "data_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct data_store {
    uint8_t *base;
    uint64_t size;
    uint64_t host_page;
};

struct data_store *data_store_create(uint64_t bytes, char *err, size_t errlen)
{
    if (bytes == 0 || bytes > (uint64_t)SIZE_MAX / 2) {
        snprintf(err, errlen, "data store: %llu bytes is not a usable size",
                 (unsigned long long)bytes);
        return NULL;
    }
    struct data_store *ds = calloc(1, sizeof(*ds));
    if (!ds) {
        snprintf(err, errlen, "data store: out of memory");
        return NULL;
    }
    /* MAP_NORESERVE: a 16 GiB namespace must not need 16 GiB of commit up front. */
    void *base = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        snprintf(err, errlen, "data store: cannot map %llu bytes: %s",
                 (unsigned long long)bytes, strerror(errno));
        free(ds);
        return NULL;
    }
    long page = sysconf(_SC_PAGESIZE);
    *ds = (struct data_store){ .base = base, .size = bytes,
                               .host_page = page > 0 ? (uint64_t)page : 4096 };
    return ds;
}

void data_store_destroy(struct data_store *ds)
{
    if (ds) {
        munmap(ds->base, (size_t)ds->size);
        free(ds);
    }
}

uint64_t data_store_size(const struct data_store *ds)
{
    return ds->size;
}

bool data_store_range_ok(const struct data_store *ds, uint64_t offset, uint64_t len)
{
    return offset <= ds->size && len <= ds->size - offset;
}

uint8_t *data_store_at(struct data_store *ds, uint64_t offset)
{
    return ds->base + offset;
}

void data_store_read(const struct data_store *ds, uint64_t offset, void *buf, size_t len)
{
    memcpy(buf, ds->base + offset, len);
}

void data_store_write(struct data_store *ds, uint64_t offset, const void *buf, size_t len)
{
    memcpy(ds->base + offset, buf, len);
}

/* Reading a never-written page maps the shared zero page: no memory is allocated. */
static bool all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (p[i]) {
            return false;
        }
    }
    return true;
}

/* Zero a piece of a host page, writing (and so allocating) only if it holds data. */
static void zero_partial(uint8_t *p, size_t len)
{
    if (!all_zero(p, len)) {
        memset(p, 0, len);
    }
}

int data_store_discard(struct data_store *ds, uint64_t offset, uint64_t len)
{
    uint64_t end = offset + len;
    uint64_t first_page = (offset + ds->host_page - 1) / ds->host_page * ds->host_page;
    uint64_t last_page = end / ds->host_page * ds->host_page;
    if (first_page >= last_page) {
        zero_partial(ds->base + offset, (size_t)len);  /* inside one host page */
        return 0;
    }
    zero_partial(ds->base + offset, (size_t)(first_page - offset));
    zero_partial(ds->base + last_page, (size_t)(end - last_page));
    /* Private anonymous pages read back as zeroes after MADV_DONTNEED. */
    if (madvise(ds->base + first_page, (size_t)(last_page - first_page), MADV_DONTNEED)) {
        memset(ds->base + first_page, 0, (size_t)(last_page - first_page));
        return -1;
    }
    return 0;
}

uint64_t data_store_resident_bytes(const struct data_store *ds)
{
    uint64_t pages = (ds->size + ds->host_page - 1) / ds->host_page, resident = 0;
    unsigned char vec[4096];
    /* mincore in chunks, so a huge store needs no huge vector */
    for (uint64_t first = 0; first < pages; first += sizeof(vec)) {
        uint64_t n = pages - first < sizeof(vec) ? pages - first : sizeof(vec);
        uint64_t bytes = n * ds->host_page;
        if (first * ds->host_page + bytes > ds->size) {
            bytes = ds->size - first * ds->host_page;
        }
        if (mincore(ds->base + first * ds->host_page, (size_t)bytes, vec)) {
            return 0;
        }
        for (uint64_t i = 0; i < n; i++) {
            resident += vec[i] & 1;
        }
    }
    return resident * ds->host_page;
}
