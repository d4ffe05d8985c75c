/* Erasing lines and the wear it leaves (erase.c). */
#ifndef FEMU_FTL_FLASH_ERASE_H
#define FEMU_FTL_FLASH_ERASE_H

#include "flash/ftl_handle.h"

/* The wear figures recomputed from every good block's erase count: O(blocks). */
struct wear_figures {
    uint32_t min, max;          /* min 0 when there is no good block */
    uint64_t at_min, sum;       /* blocks at the minimum; total erases */
};
void wear_scan(const struct ftl *ftl, struct wear_figures *out);
void wear_init(struct ftl *ftl);
/* Erase every good block of line id (each on its LUN, from now_ns), mark its pages erased
 * and put it in the free queue. Returns when the last erase ends (now_ns if none);
 * *blocks gets the number of blocks erased. Counts nand_erases, not who asked. */
uint64_t line_erase(struct ftl *ftl, uint32_t id, uint64_t now_ns, uint32_t *blocks);
/* line_erase without the flash time: the caller charges nand_erase on each LUN it gets
 * in luns[] (line_luns entries at most); returns how many. */
uint32_t line_erase_untimed(struct ftl *ftl, uint32_t id, uint32_t *luns);
/* A good block (index line * luns + lun) was erased: its erase count and the wear. */
void block_erased(struct ftl *ftl, uint64_t index);

#endif
