/* Where the commands' time went, summed per kind (time_split.h). */
#include "time_split.h"

void split_sums_add(struct split_sums *s, const struct ftl_time_split *t)
{
    s->count++;
    s->flash_ns += t->flash_ns;
    s->link_ns += t->link_ns;
    s->ctrl_ns += t->ctrl_ns;
    s->wait_ns += t->wait_ns;
}
