/* DFTL (dftl.c, mapping=dftl): the cached mapping table's cost model. Every entry point
 * is only called when ftl->dftl is set. */
#ifndef FEMU_FTL_MAP_DFTL_H
#define FEMU_FTL_MAP_DFTL_H

#include "flash/ftl_handle.h"

int dftl_init(struct ftl *ftl);             /* FTL_OK or FTL_E_NOMEM */
void dftl_free(struct ftl *ftl);
/* lpn's mapping entry is needed at now_ns; returns when it is in the CMT (now_ns on a
 * hit). update: the caller is about to change it (it becomes dirty). */
uint64_t dftl_lookup(struct ftl *ftl, uint32_t lpn, bool update, uint64_t now_ns);
/* lpn's mapping changed without a host lookup (GC moved it, trim or format unmapped it):
 * a cached entry turns dirty, else its translation page is queued for a rewrite. */
void dftl_note_update(struct ftl *ftl, uint32_t lpn);
/* Rewrite the queued translation pages (read-modify-write each once). gc: count them in
 * gc_map_updates. Returns when the last program ends (now_ns if none). */
uint64_t dftl_write_pending(struct ftl *ftl, bool gc, uint64_t now_ns);
/* Translation page tvpn was just placed at ppa (rewritten, or moved by map GC): the
 * directory follows. map_bind leaves this to the callers of wp_place with a translation
 * page: the directory is DFTL's, and the page map knows nothing of it. */
void dftl_tpage_bind(struct ftl *ftl, uint32_t tvpn, uint32_t ppa);
int dftl_check(const struct ftl *ftl, char *err, size_t errlen);
uint64_t dftl_written_tpages(const struct ftl *ftl);    /* on flash now */
size_t dftl_metadata_bytes(const struct ftl *ftl);

#endif
