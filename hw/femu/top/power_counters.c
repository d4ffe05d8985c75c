/*
 * QOM property power-counters (read only): the FTL's power-state counters (struct
 * ftl_counters: ps_transitions, ps_exits, ps_exit_wait_ns, and ps<N>_ns for each state of
 * the table) as KEY=VALUE words, from the copy the FTL thread publishes after every
 * request it serves (backend/ftl_view.c). The model advances lazily, so a state's time
 * counts up to the last request served, not to the instant of the read; transitions and
 * exits are exact once the request that made them has been served.
 */
#include "qemu/osdep.h"
#include "qapi/visitor.h"

#include "backend/ftl_view.h"
#include "top/power_counters.h"

static void femu_power_get_counters(Object *obj, Visitor *v, const char *name, void *opaque,
                                    Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    FemuFtlView view = { 0 };
    GString *text = g_string_new(NULL);
    char *out;

    if (n->view_lock_init) {        /* realized: the FTL thread publishes it */
        femu_ftl_view_get(n, &view);
    }
    g_string_append_printf(text, "ps_transitions=%" PRIu64 " ps_exits=%" PRIu64
                           " ps_exit_wait_ns=%" PRIu64, view.ctr.ps_transitions,
                           view.ctr.ps_exits, view.ctr.ps_exit_wait_ns);
    for (uint64_t i = 0; i < n->ftl_config.ps_count && i < FTL_PS_MAX; i++) {
        g_string_append_printf(text, " ps%" PRIu64 "_ns=%" PRIu64, i, view.ctr.ps_time_ns[i]);
    }
    out = g_string_free(text, false);
    visit_type_str(v, name, &out, errp);
    g_free(out);
}

void femu_power_counters_instance_init(FemuCtrl *n)
{
    Object *obj = OBJECT(n);

    object_property_add(obj, "power-counters", "str", femu_power_get_counters, NULL, NULL,
                        NULL);
    object_property_set_description(obj, "power-counters",
        "the FTL's NVMe power-state counters as of the last request it served: "
        "transitions, exits from a non-operational state a command caused, the ns "
        "commands waited for them, and the ns spent in each state, as KEY=VALUE words");
}
