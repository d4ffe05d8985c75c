/*
 * When the device writes its state (backend/state.c says what a state file holds):
 *   - at QEMU's exit or a hot-unplug, to state_out, once both threads have stopped;
 *   - on vendor admin command C2h, to state_out: the guest never names a host path;
 *   - on QMP `qom-set ... save-state PATH` (empty PATH: state_out), from the main loop,
 *     which hands the save to the poller and waits for its answer.
 * A save in flight runs on the poller (backend/state.h): nothing queues, so a guest
 * repeating C2h gets one save per command, one after the other, and a QMP save waits
 * at most for the C2h being written. Every save is atomic (a temporary file renamed over
 * the path); a failed one leaves the old file and the device goes on.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qapi/error.h"

#include "backend/ftl_thread.h"
#include "backend/state.h"
#include "backend/state_save.h"

/* state_out is checked at realize, so a bad path fails at start-up, not at exit. */
bool femu_state_check_out(FemuCtrl *n, Error **errp)
{
    g_autofree char *dir = NULL;
    struct stat st;

    if (!n->state_out) {
        return true;
    }
    if (!n->state_out[0]) {
        error_setg(errp, "state_out: empty path");
        return false;
    }
    dir = g_path_get_dirname(n->state_out);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        error_setg(errp, "state_out: %s: the folder %s does not exist or is not writable",
                   n->state_out, dir);
        return false;
    }
    if (stat(n->state_out, &st) == 0 && S_ISDIR(st.st_mode)) {
        error_setg(errp, "state_out: %s is a folder", n->state_out);
        return false;
    }
    return true;
}

/* Poller: serve what waits for the FTL, then write while nothing moves. */
static int femu_state_save(FemuCtrl *n, const char *path, char *err, size_t errlen)
{
    FemuStateSnapshot snap;
    int rc;

    if (!femu_state_snapshot(n, &snap)) {
        snprintf(err, errlen, "%s: out of memory for the sector maps", path);
        return -1;
    }
    qemu_mutex_lock(&n->engine_lock);
    femu_ftl_serve_queued(n);       /* in fetch order, as the FTL thread would */
    rc = femu_state_write(n, path, &snap, femu_now_ns(), err, errlen);
    qemu_mutex_unlock(&n->engine_lock);
    femu_state_snapshot_free(&snap);
    return rc;
}

uint16_t femu_state_vendor_save(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    char err[FEMU_STATE_ERR_LEN];

    if (!n->state_out) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (femu_state_save(n, n->state_out, err, sizeof(err)) != 0) {
        error_report("femu: state_out: %s", err);
        return NVME_INTERNAL_DEV_ERROR;
    }
    return NVME_SUCCESS;
}

/* Poller, every pass: the save the main loop asked for, answered under save_lock. */
bool femu_state_poll(FemuCtrl *n)
{
    char err[FEMU_STATE_ERR_LEN] = "";
    g_autofree char *path = NULL;
    int rc;

    if (!qatomic_read(&n->save_asked)) {
        return false;
    }
    qemu_mutex_lock(&n->save_lock);
    path = g_strdup(n->save_path);
    qemu_mutex_unlock(&n->save_lock);
    rc = femu_state_save(n, path, err, sizeof(err));
    qemu_mutex_lock(&n->save_lock);
    n->save_rc = rc;
    pstrcpy(n->save_err, sizeof(n->save_err), err);
    n->save_done = true;
    qatomic_set(&n->save_asked, false);
    qemu_cond_broadcast(&n->save_cond);
    qemu_mutex_unlock(&n->save_lock);
    return true;
}

/*
 * QMP qom-set save-state (main loop, BQL). The wait is bounded by one save: the poller
 * and the FTL thread never take the BQL, and only the main loop stops them.
 */
static void femu_state_qmp_save(Object *obj, const char *value, Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    const char *path = value && value[0] ? value : n->state_out;

    if (!n->state_ready || !n->threads_running) {
        error_setg(errp, "save-state: the device is not running");
        return;
    }
    if (!path) {
        error_setg(errp, "save-state: no path given and no state_out");
        return;
    }
    qemu_mutex_lock(&n->save_lock);
    g_free(n->save_path);
    n->save_path = g_strdup(path);
    n->save_done = false;
    qatomic_set(&n->save_asked, true);
    /* Always signal: the poller clears the eventfd when it wakes, so a spare wake-up
     * costs one pass, and a missed one cannot happen. */
    event_notifier_set(&n->poller_wake);
    while (!n->save_done) {
        qemu_cond_wait(&n->save_cond, &n->save_lock);
    }
    if (n->save_rc != 0) {
        error_setg(errp, "save-state: %s", n->save_err);
    }
    qemu_mutex_unlock(&n->save_lock);
}

/* Exit or unplug, threads stopped: state_out gets the device as it is, once. */
void femu_state_save_final(FemuCtrl *n)
{
    char err[FEMU_STATE_ERR_LEN];
    FemuStateSnapshot snap;

    if (!n->state_out || !n->state_ready || n->state_final_saved) {
        return;
    }
    n->state_final_saved = true;
    if (!femu_state_snapshot(n, &snap)) {
        error_report("femu: state_out: %s: out of memory for the sector maps", n->state_out);
        return;
    }
    if (femu_state_write(n, n->state_out, &snap, femu_now_ns(), err, sizeof(err)) != 0) {
        error_report("femu: state_out: %s", err);
    }
    femu_state_snapshot_free(&snap);
}

void femu_state_instance_init(FemuCtrl *n)
{
    Object *obj = OBJECT(n);

    qemu_mutex_init(&n->save_lock);
    qemu_cond_init(&n->save_cond);
    object_property_add_str(obj, "save-state", NULL, femu_state_qmp_save);
    object_property_set_description(obj, "save-state",
        "write the device state to this file now (empty: to state_out)");
}

void femu_state_instance_finalize(FemuCtrl *n)
{
    g_free(n->save_path);
    n->save_path = NULL;
    qemu_cond_destroy(&n->save_cond);
    qemu_mutex_destroy(&n->save_lock);
}
