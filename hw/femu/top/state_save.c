/*
 * When the device writes its state (top/state.c says what a state file holds):
 *   - at QEMU's exit or a hot-unplug, to state_out, once both threads have stopped;
 *   - on vendor admin command C2h, to state_out: the guest never names a host path;
 *   - on QMP `qom-set ... save-state PATH` (empty PATH: state_out), from the main loop,
 *     which hands the save to the poller and returns; `save-state-status` tells the end.
 * The poller takes the instant of the save (its maps and namespace table copied) and a
 * worker thread writes the file, one save at a time. Until it is written the poller
 * fetches no command, so the data store and the FTL stay as they were, but it goes on
 * serving resets, shutdowns and completions: a register write or a QMP command never
 * waits for a save (a guest looping on C2h used to freeze the VM for seconds). Every save
 * is atomic (a temporary file renamed over the path); a failed one leaves the old file
 * and the device goes on.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/rcu.h"
#include "qapi/error.h"

#include "backend/ftl_thread.h"
#include "top/state.h"
#include "top/state_parts.h"
#include "top/state_save.h"
#include "ctrl/request.h"

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

/* Worker thread: serve what waits for the FTL, then write while nothing moves (the poller
 * fetches nothing until it sees save_job_done). */
static void *femu_state_save_worker(void *opaque)
{
    FemuCtrl *n = opaque;

    rcu_register_thread();
    qemu_mutex_lock(&n->save_lock);
    while (n->save_hold) {
        qemu_cond_wait(&n->save_hold_cond, &n->save_lock);
    }
    qemu_mutex_unlock(&n->save_lock);
    qemu_mutex_lock(&n->engine_lock);
    femu_ftl_serve_queued(n);       /* in fetch order, as the FTL thread would */
    n->save_job_rc = femu_state_write(n, n->save_job_path, n->save_snap, femu_now_ns(),
                                      n->save_job_err, sizeof(n->save_job_err));
    qemu_mutex_unlock(&n->engine_lock);
    qatomic_store_release(&n->save_job_done, true);
    event_notifier_set(&n->poller_wake);
    rcu_unregister_thread();
    return NULL;
}

static void femu_state_set_status(FemuCtrl *n, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void femu_state_set_status(FemuCtrl *n, const char *fmt, ...)
{
    va_list ap;

    qemu_mutex_lock(&n->save_lock);
    va_start(ap, fmt);
    vsnprintf(n->save_status, sizeof(n->save_status), fmt, ap);
    va_end(ap);
    qemu_mutex_unlock(&n->save_lock);
}

/* Poller: the instant of the save (its part of the state copied), then the worker. */
static bool femu_state_save_start(FemuCtrl *n, const char *path, FemuRequest *req)
{
    /* Between two commands: no KV Store or Delete is half done (admission and the value
     * bytes change in one call, cmd/admin/ns_kv_state.c says why that is enough). */
    FemuStateSnapshot *snap = g_new0(FemuStateSnapshot, 1);

    if (!femu_state_snapshot(n, femu_state_parts, snap)) {
        g_free(snap);
        snprintf(n->save_job_err, sizeof(n->save_job_err),
                 "%s: out of memory for the sector maps", path);
        return false;
    }
    femu_state_set_status(n, "saving %s", path);
    n->save_snap = snap;
    n->save_req = req;
    n->save_job_path = g_strdup(path);
    n->save_job_done = false;
    n->save_running = true;
    qemu_thread_create(&n->save_thread, "femu-save", femu_state_save_worker, n,
                       QEMU_THREAD_JOINABLE);
    return true;
}

/* Poller, or the thread stopping both: wait for the worker and answer whoever asked. */
static void femu_state_save_finish(FemuCtrl *n)
{
    FemuRequest *req = n->save_req;

    qemu_thread_join(&n->save_thread);
    if (n->save_job_rc != 0 && !n->save_for_qmp) {
        error_report("femu: state_out: %s", n->save_job_err);   /* QMP's: in its status */
    }
    if (n->save_job_rc == 0) {
        femu_state_set_status(n, "saved %s", n->save_job_path);
    } else {
        femu_state_set_status(n, "failed: %s", n->save_job_err);
    }
    if (req && femu_req_stale(n, req)) {
        femu_req_free(n, req);          /* a reset or a deleted SQ: nobody waits */
    } else if (req) {
        req->status = n->save_job_rc == 0 ? NVME_SUCCESS : NVME_INTERNAL_DEV_ERROR;
        req->done_ns = femu_now_ns();
        completion_heap_push(&n->heap, req->done_ns, req);
    }
    femu_state_snapshot_free(n->save_snap);
    g_free(n->save_snap);
    g_free(n->save_job_path);
    n->save_snap = NULL;
    n->save_job_path = NULL;
    n->save_req = NULL;
    n->save_for_qmp = false;
    n->save_running = false;
}

/* Vendor C2h: the save to state_out starts now and the command completes when it is
 * written; meanwhile nothing else is fetched, and resets and CC.SHN are served. */
uint16_t femu_state_vendor_save(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    if (!n->state_out) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (!femu_state_save_start(n, n->state_out, req)) {
        error_report("femu: state_out: %s", n->save_job_err);
        return NVME_INTERNAL_DEV_ERROR;
    }
    return NVME_NO_COMPLETE;
}

/* Poller, every pass: a save that finished, then the one QMP asked for. */
bool femu_state_poll(FemuCtrl *n)
{
    g_autofree char *path = NULL;

    if (n->save_running) {
        if (!qatomic_load_acquire(&n->save_job_done)) {
            return false;
        }
        femu_state_save_finish(n);
        return true;
    }
    if (!qatomic_read(&n->save_asked)) {
        return false;
    }
    qemu_mutex_lock(&n->save_lock);
    path = g_strdup(n->save_path);
    qatomic_set(&n->save_asked, false);
    qemu_mutex_unlock(&n->save_lock);
    if (femu_state_save_start(n, path, NULL)) {
        n->save_for_qmp = true;
    } else {
        femu_state_set_status(n, "failed: %s", n->save_job_err);
    }
    return true;
}

static void femu_state_set_hold(FemuCtrl *n, bool hold)
{
    qemu_mutex_lock(&n->save_lock);
    n->save_hold = hold;
    qemu_cond_broadcast(&n->save_hold_cond);
    qemu_mutex_unlock(&n->save_lock);
}

/* Stopping the threads (the poller already gone): a save still being written ends first. */
void femu_state_save_join(FemuCtrl *n)
{
    femu_state_set_hold(n, false);
    if (n->save_running) {
        femu_state_save_finish(n);
    }
}

/* The folder a QMP save writes into, checked before the save is handed over. */
static bool femu_state_qmp_path_ok(const char *path, Error **errp)
{
    g_autofree char *dir = g_path_get_dirname(path);
    struct stat st;

    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        error_setg(errp, "save-state: %s: the folder %s is missing", path, dir);
        return false;
    }
    return true;
}

/*
 * QMP qom-set save-state (main loop, BQL): hand the save to the poller and return at
 * once, never waiting for it with the BQL held; qom-get save-state-status says when it
 * has been written ("saved PATH") or why not ("failed: ..."). One save at a time: a
 * request while one (QMP's or a C2h's) is asked for or running is refused.
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
    if (!femu_state_qmp_path_ok(path, errp)) {
        return;
    }
    qemu_mutex_lock(&n->save_lock);
    if (qatomic_read(&n->save_asked) || g_str_has_prefix(n->save_status, "saving ")) {
        error_setg(errp, "save-state: a save is already under way (%s)", n->save_status);
        qemu_mutex_unlock(&n->save_lock);
        return;
    }
    g_free(n->save_path);
    n->save_path = g_strdup(path);
    snprintf(n->save_status, sizeof(n->save_status), "saving %s", path);
    qatomic_set(&n->save_asked, true);
    qemu_mutex_unlock(&n->save_lock);
    event_notifier_set(&n->poller_wake);
}

static bool femu_state_get_hold(Object *obj, Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    bool hold;

    qemu_mutex_lock(&n->save_lock);
    hold = n->save_hold;
    qemu_mutex_unlock(&n->save_lock);
    return hold;
}

static void femu_state_qmp_hold(Object *obj, bool hold, Error **errp)
{
    femu_state_set_hold(FEMU(obj), hold);
}

static char *femu_state_qmp_status(Object *obj, Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    char *status;

    qemu_mutex_lock(&n->save_lock);
    status = g_strdup(n->save_status);
    qemu_mutex_unlock(&n->save_lock);
    return status;
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
    if (!femu_state_snapshot(n, femu_state_parts, &snap)) {
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
    pstrcpy(n->save_status, sizeof(n->save_status), "idle");
    object_property_add_str(obj, "save-state", NULL, femu_state_qmp_save);
    object_property_set_description(obj, "save-state",
        "write the device state to this file (empty: to state_out); returns at once, "
        "save-state-status tells when it is written");
    object_property_add_str(obj, "save-state-status", femu_state_qmp_status, NULL);
    object_property_set_description(obj, "save-state-status",
        "the last save (QMP or C2h): idle, saving PATH, saved PATH or failed: REASON");
    qemu_cond_init(&n->save_hold_cond);
    object_property_add_bool(obj, "x-save-hold", femu_state_get_hold, femu_state_qmp_hold);
    object_property_set_description(obj, "x-save-hold",
        "tests only: a save waits, before writing anything, while this is on");
}

void femu_state_instance_finalize(FemuCtrl *n)
{
    g_free(n->save_path);
    n->save_path = NULL;
    qemu_cond_destroy(&n->save_hold_cond);
    qemu_mutex_destroy(&n->save_lock);
}
