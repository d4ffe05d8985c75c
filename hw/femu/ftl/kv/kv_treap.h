/* Admission's ordered map of the live keys: a treap (kv_treap.c). */
#ifndef FEMU_FTL_KV_KV_TREAP_H
#define FEMU_FTL_KV_KV_TREAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kv/kv_tables.h"

struct ftl;

int kv_adm_init(struct kv_admission *a);
void kv_adm_free(struct kv_admission *a);
void kv_adm_clear(struct kv_admission *a);
const struct kv_anode *kv_adm_find(const struct kv_admission *a, const struct ftl_kv_key *k);
/* The smallest key >= k (> k when strict), or NULL. */
const struct kv_anode *kv_adm_ceil(const struct kv_admission *a, const struct ftl_kv_key *k,
                                   bool strict);

/* Room for one more key, before anything changes (false: out of memory); then insert
 * key (absent), or erase key (present). */
bool kv_adm_reserve(struct kv_admission *a);
void kv_adm_insert(struct kv_admission *a, const struct ftl_kv_key *k, uint32_t value_bytes,
                   uint64_t tag);
void kv_adm_erase(struct kv_admission *a, const struct ftl_kv_key *k);

#endif
