/* SPDX-License-Identifier: MIT */
/* The trace builder: writes traces record by record with common/vt_format.h, the way the writer
 * lays them out (implicit ids, address and time delta chains), plus the damage the reader must
 * survive (raw bytes, truncation). Test-only: it allocates freely and aborts when out of
 * memory. */
#ifndef VT_TRACE_BUILDER_H
#define VT_TRACE_BUILDER_H
#include <stddef.h>
#include <stdint.h>

#include "vt_categories.h"
#include "vt_format.h"

/* The last minor version whose events are all full ALLOC and FREE records (format 1.1): the
 * version of the golden fixtures that vt-mktrace makes. */
#define TB_MINOR_FULL_FORMS 1

typedef struct tb_s {
    uint8_t *buf;
    size_t len, cap;
    uint64_t address;             /* the address chain */
    uint32_t n_strings, n_stacks; /* ids given so far */
    uint32_t n_threads;
    uint64_t *stack_ips; /* [id]: to write ip deltas from the parent */
    uint32_t cap_stacks;
} tb_t;

/* tb_init: an empty trace with the preamble of version major.minor. */
void tb_init(tb_t *tb, unsigned major, unsigned minor);
void tb_release(tb_t *tb);

void tb_u8(tb_t *tb, uint8_t v);
void tb_varint(tb_t *tb, uint64_t v);
void tb_svarint(tb_t *tb, int64_t v);
void tb_bytes(tb_t *tb, const void *p, size_t len);

/* Records. The ones that define an id return it (from 1). The series of tb_alloc and tb_free
 * may carry VT_FLAG_HANDLE (a VMM handle's key space). */
uint32_t tb_string(tb_t *tb, const char *s);
uint32_t tb_stack(tb_t *tb, uint32_t parent_id, uint64_t ip);
uint32_t tb_thread(tb_t *tb, uint64_t thread, uint64_t os_tid, uint32_t name_string_id);
void tb_process(tb_t *tb, uint64_t t0_ns, uint64_t start_unix_ns, unsigned n,
                const uint32_t *kv_string_ids);
void tb_device(tb_t *tb, uint32_t device, uint32_t name_string_id, uint64_t total_bytes);
void tb_api_names(tb_t *tb, unsigned n, const uint32_t *string_ids);
void tb_module(tb_t *tb, uint64_t load_bias, uint64_t lo, uint64_t hi, uint32_t path_string_id,
               const void *build_id, size_t build_id_len);
void tb_alloc(tb_t *tb, uint64_t dt_ns, unsigned series, unsigned category, uint32_t device,
              uint32_t api, uint64_t address, uint64_t size_bytes, uint32_t stack_id,
              uint64_t thread);
void tb_free(tb_t *tb, uint64_t dt_ns, unsigned series, int unmatched, uint32_t api,
             uint64_t address, uint64_t thread);
void tb_failed(tb_t *tb, uint64_t dt_ns, uint32_t api, uint64_t requested_bytes, uint64_t error,
               uint32_t stack_id, uint64_t thread);
void tb_oom(tb_t *tb, uint64_t dt_ns, uint32_t device, uint32_t api, uint64_t requested_bytes,
            uint32_t stack_id, uint64_t thread, uint64_t free_bytes, uint64_t total_bytes,
            const uint64_t live_bytes[VT_CAT_COUNT]);
void tb_phase_push(tb_t *tb, uint64_t dt_ns, uint64_t thread, uint32_t name_string_id);
void tb_phase_pop(tb_t *tb, uint64_t dt_ns, uint64_t thread);
void tb_mark(tb_t *tb, uint64_t dt_ns, uint64_t thread, uint32_t label_string_id);
void tb_meminfo(tb_t *tb, uint64_t dt_ns, uint32_t device, uint64_t free_bytes,
                uint64_t total_bytes);
void tb_end(tb_t *tb, uint64_t dt_ns, uint64_t allocs, uint64_t frees, uint64_t failed,
            uint64_t unmatched_frees, uint64_t dropped);
/* SKIP, then zeros up to the next chunk boundary (as the writer's pre-extended file has). */
void tb_skip(tb_t *tb);
void tb_extension(tb_t *tb, unsigned type, const void *body, size_t len);
void tb_end_of_data(tb_t *tb); /* one zero byte */

/* tb_write: the trace, or its first len bytes when len < tb->len, into path. 0 or -1. */
int tb_write(const tb_t *tb, const char *path, size_t len);
#endif
