/* FDP's reclaim unit handles inside the FTL (fdp.c); the public side is femu_ftl/fdp.h. */
#ifndef FEMU_FTL_PLACE_FDP_H
#define FEMU_FTL_PLACE_FDP_H

#include "flash/ftl_handle.h"

/* Before a host page goes to handle ruh: a unit open past fdp_ru_time_limit_s is closed
 * as it is (an RU Time Limit Exceeded event), so the page opens a new one. */
void fdp_before_host_page(struct ftl *ftl, uint32_t ruh, uint64_t now_ns);

#endif
