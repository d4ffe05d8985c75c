/*
 * An LRU order over the entries of an array, linked by index: the CMT (dftl.c) and the
 * write buffer (write_buffer.c) each keep one, the read cache (rcache/) up to four. An entry embeds a struct lru_link; the
 * list finds it from the array's base and the entry size, so it allocates nothing.
 */
#ifndef FEMU_FTL_LRU_LIST_H
#define FEMU_FTL_LRU_LIST_H

#include <stddef.h>
#include <stdint.h>

#define LRU_NONE UINT32_MAX

struct lru_link {
    uint32_t newer, older;  /* neighbours (LRU_NONE at the ends) */
};

struct lru_list {
    void *base;             /* the array */
    size_t stride;          /* bytes per entry */
    size_t offset;          /* of the struct lru_link in an entry */
    uint32_t mru, lru;      /* the ends, LRU_NONE when empty */
};

static inline struct lru_link *lru_link_of(const struct lru_list *l, uint32_t i)
{
    return (struct lru_link *)((char *)l->base + (size_t)i * l->stride + l->offset);
}

static inline void lru_init(struct lru_list *l, void *base, size_t stride, size_t offset)
{
    *l = (struct lru_list){ base, stride, offset, LRU_NONE, LRU_NONE };
}

static inline void lru_unlink(struct lru_list *l, uint32_t i)
{
    struct lru_link *e = lru_link_of(l, i);
    if (e->newer != LRU_NONE) {
        lru_link_of(l, e->newer)->older = e->older;
    } else {
        l->mru = e->older;
    }
    if (e->older != LRU_NONE) {
        lru_link_of(l, e->older)->newer = e->newer;
    } else {
        l->lru = e->newer;
    }
}

static inline void lru_push_mru(struct lru_list *l, uint32_t i)
{
    struct lru_link *e = lru_link_of(l, i);
    e->newer = LRU_NONE;
    e->older = l->mru;
    if (l->mru != LRU_NONE) {
        lru_link_of(l, l->mru)->newer = i;
    } else {
        l->lru = i;
    }
    l->mru = i;
}

/* Entry i was used again: it becomes the most recent. */
static inline void lru_touch(struct lru_list *l, uint32_t i)
{
    if (l->mru != i) {
        lru_unlink(l, i);
        lru_push_mru(l, i);
    }
}

#endif
