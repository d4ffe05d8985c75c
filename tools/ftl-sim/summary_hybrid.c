/* Merge counters of the measured phase under mapping=block|bast|fast (summary_hybrid.h). */
#include "summary_hybrid.h"

#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)

void summary_json_hybrid(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    if (!ftl_mapping_is_hybrid(ftl_config_of(ftl)->mapping)) {
        return;
    }
    fprintf(f, "  \"merge_switch\": %llu,\n  \"merge_partial\": %llu,\n"
            "  \"merge_full\": %llu,\n  \"merge_copied_pages\": %llu,\n"
            "  \"merge_erased_blocks\": %llu,\n", DELTA(merge_switch), DELTA(merge_partial),
            DELTA(merge_full), DELTA(merge_copied_pages), DELTA(merge_erased_blocks));
}

void summary_print_hybrid(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    if (!ftl_mapping_is_hybrid(ftl_config_of(ftl)->mapping)) {
        return;
    }
    fprintf(f, "merges (%s): %llu switch, %llu partial, %llu full; %llu pages copied, "
            "%llu blocks erased\n", ftl_mapping_name(ftl_config_of(ftl)->mapping),
            DELTA(merge_switch), DELTA(merge_partial), DELTA(merge_full),
            DELTA(merge_copied_pages), DELTA(merge_erased_blocks));
}
