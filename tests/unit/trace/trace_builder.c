/* SPDX-License-Identifier: MIT */
/* The trace builder (trace_builder.h): records laid out as common/vt_format.h defines them. */
#include "trace_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(tb_t *tb, size_t n)
{
    if (tb->len + n <= tb->cap)
        return;
    size_t cap = tb->cap ? tb->cap : 4096;
    while (cap < tb->len + n)
        cap *= 2;
    tb->buf = realloc(tb->buf, cap);
    if (!tb->buf)
        abort();
    tb->cap = cap;
}

void tb_init(tb_t *tb, unsigned major, unsigned minor)
{
    memset(tb, 0, sizeof(*tb));
    tb_bytes(tb, VT_FORMAT_MAGIC, VT_FORMAT_MAGIC_BYTES);
    uint8_t v[8] = {(uint8_t)major, (uint8_t)(major >> 8), (uint8_t)minor, (uint8_t)(minor >> 8)};
    tb_bytes(tb, v, sizeof(v));
}

void tb_release(tb_t *tb)
{
    free(tb->buf);
    free(tb->stack_ips);
    memset(tb, 0, sizeof(*tb));
}

void tb_u8(tb_t *tb, uint8_t v)
{
    tb_bytes(tb, &v, 1);
}

void tb_varint(tb_t *tb, uint64_t v)
{
    reserve(tb, 10);
    tb->len += vt_put_varint(tb->buf + tb->len, v);
}

void tb_svarint(tb_t *tb, int64_t v)
{
    reserve(tb, 10);
    tb->len += vt_put_svarint(tb->buf + tb->len, v);
}

void tb_bytes(tb_t *tb, const void *p, size_t len)
{
    reserve(tb, len);
    memcpy(tb->buf + tb->len, p, len);
    tb->len += len;
}

static void address(tb_t *tb, uint64_t a)
{
    tb_svarint(tb, (int64_t)(a - tb->address));
    tb->address = a;
}

uint32_t tb_string(tb_t *tb, const char *s)
{
    size_t n = strlen(s);
    tb_u8(tb, VT_REC_STRING);
    tb_varint(tb, n);
    tb_bytes(tb, s, n);
    return ++tb->n_strings;
}

uint32_t tb_stack(tb_t *tb, uint32_t parent_id, uint64_t ip)
{
    uint32_t id = ++tb->n_stacks;
    if (id >= tb->cap_stacks) {
        tb->cap_stacks = tb->cap_stacks ? tb->cap_stacks * 2 : 64;
        tb->stack_ips = realloc(tb->stack_ips, tb->cap_stacks * sizeof(*tb->stack_ips));
        if (!tb->stack_ips)
            abort();
    }
    tb->stack_ips[id] = ip;
    uint64_t parent_ip = parent_id && parent_id < id ? tb->stack_ips[parent_id] : 0;
    tb_u8(tb, VT_REC_STACK);
    tb_varint(tb, parent_id);
    tb_svarint(tb, (int64_t)(ip - parent_ip));
    return id;
}

uint32_t tb_thread(tb_t *tb, uint64_t thread, uint64_t os_tid, uint32_t name_string_id)
{
    tb_u8(tb, VT_REC_THREAD);
    tb_varint(tb, thread);
    tb_varint(tb, os_tid);
    tb_varint(tb, name_string_id);
    return ++tb->n_threads;
}

void tb_process(tb_t *tb, uint64_t t0_ns, uint64_t start_unix_ns, unsigned n,
                const uint32_t *kv_string_ids)
{
    tb_u8(tb, VT_REC_PROCESS);
    tb_varint(tb, t0_ns);
    tb_varint(tb, start_unix_ns);
    tb_varint(tb, n);
    for (unsigned i = 0; i < 2 * n; i++)
        tb_varint(tb, kv_string_ids[i]);
}

void tb_device(tb_t *tb, uint32_t device, uint32_t name_string_id, uint64_t total_bytes)
{
    tb_u8(tb, VT_REC_DEVICE);
    tb_varint(tb, device);
    tb_varint(tb, name_string_id);
    tb_varint(tb, total_bytes);
}

void tb_api_names(tb_t *tb, unsigned n, const uint32_t *string_ids)
{
    tb_u8(tb, VT_REC_API_NAMES);
    tb_varint(tb, n);
    for (unsigned i = 0; i < n; i++)
        tb_varint(tb, string_ids[i]);
}

void tb_module(tb_t *tb, uint64_t load_bias, uint64_t lo, uint64_t hi, uint32_t path_string_id,
               const void *build_id, size_t build_id_len)
{
    tb_u8(tb, VT_REC_MODULE);
    tb_varint(tb, load_bias);
    tb_varint(tb, lo);
    tb_varint(tb, hi);
    tb_varint(tb, path_string_id);
    tb_varint(tb, build_id_len);
    tb_bytes(tb, build_id, build_id_len);
}

void tb_alloc(tb_t *tb, uint64_t dt_ns, unsigned series, unsigned category, uint32_t device,
              uint32_t api, uint64_t addr, uint64_t size_bytes, uint32_t stack_id, uint64_t thread)
{
    tb_u8(tb, VT_REC_ALLOC);
    tb_varint(tb, dt_ns);
    tb_u8(tb, (uint8_t)(series | category << 2));
    tb_varint(tb, device);
    tb_varint(tb, api);
    address(tb, addr);
    tb_varint(tb, size_bytes);
    tb_varint(tb, stack_id);
    tb_varint(tb, thread);
}

void tb_free(tb_t *tb, uint64_t dt_ns, unsigned series, int unmatched, uint32_t api, uint64_t addr,
             uint64_t thread)
{
    tb_u8(tb, VT_REC_FREE);
    tb_varint(tb, dt_ns);
    tb_u8(tb, (uint8_t)(series | (unmatched ? VT_FLAG_UNMATCHED : 0u)));
    tb_varint(tb, api);
    address(tb, addr);
    tb_varint(tb, thread);
}

void tb_failed(tb_t *tb, uint64_t dt_ns, uint32_t api, uint64_t requested_bytes, uint64_t error,
               uint32_t stack_id, uint64_t thread)
{
    tb_u8(tb, VT_REC_FAILED);
    tb_varint(tb, dt_ns);
    tb_varint(tb, api);
    tb_varint(tb, requested_bytes);
    tb_varint(tb, error);
    tb_varint(tb, stack_id);
    tb_varint(tb, thread);
}

void tb_oom(tb_t *tb, uint64_t dt_ns, uint32_t device, uint32_t api, uint64_t requested_bytes,
            uint32_t stack_id, uint64_t thread, uint64_t free_bytes, uint64_t total_bytes,
            const uint64_t live_bytes[VT_CAT_COUNT])
{
    tb_u8(tb, VT_REC_OOM);
    tb_varint(tb, dt_ns);
    tb_varint(tb, device);
    tb_varint(tb, api);
    tb_varint(tb, requested_bytes);
    tb_varint(tb, stack_id);
    tb_varint(tb, thread);
    tb_varint(tb, free_bytes);
    tb_varint(tb, total_bytes);
    for (int i = 0; i < VT_CAT_COUNT; i++)
        tb_varint(tb, live_bytes[i]);
}

void tb_phase_push(tb_t *tb, uint64_t dt_ns, uint64_t thread, uint32_t name_string_id)
{
    tb_u8(tb, VT_REC_PHASE_PUSH);
    tb_varint(tb, dt_ns);
    tb_varint(tb, thread);
    tb_varint(tb, name_string_id);
}

void tb_phase_pop(tb_t *tb, uint64_t dt_ns, uint64_t thread)
{
    tb_u8(tb, VT_REC_PHASE_POP);
    tb_varint(tb, dt_ns);
    tb_varint(tb, thread);
}

void tb_mark(tb_t *tb, uint64_t dt_ns, uint64_t thread, uint32_t label_string_id)
{
    tb_u8(tb, VT_REC_MARK);
    tb_varint(tb, dt_ns);
    tb_varint(tb, thread);
    tb_varint(tb, label_string_id);
}

void tb_meminfo(tb_t *tb, uint64_t dt_ns, uint32_t device, uint64_t free_bytes,
                uint64_t total_bytes)
{
    tb_u8(tb, VT_REC_MEMINFO);
    tb_varint(tb, dt_ns);
    tb_varint(tb, device);
    tb_varint(tb, free_bytes);
    tb_varint(tb, total_bytes);
}

void tb_end(tb_t *tb, uint64_t dt_ns, uint64_t allocs, uint64_t frees, uint64_t failed,
            uint64_t unmatched_frees, uint64_t dropped)
{
    tb_u8(tb, VT_REC_END);
    tb_varint(tb, dt_ns);
    tb_varint(tb, allocs);
    tb_varint(tb, frees);
    tb_varint(tb, failed);
    tb_varint(tb, unmatched_frees);
    tb_varint(tb, dropped);
}

void tb_skip(tb_t *tb)
{
    tb_u8(tb, VT_REC_SKIP);
    size_t next =
        (tb->len + VT_FORMAT_CHUNK_BYTES - 1) / VT_FORMAT_CHUNK_BYTES * VT_FORMAT_CHUNK_BYTES;
    reserve(tb, next - tb->len);
    memset(tb->buf + tb->len, 0, next - tb->len);
    tb->len = next;
}

void tb_extension(tb_t *tb, unsigned type, const void *body, size_t len)
{
    tb_u8(tb, (uint8_t)type);
    tb_varint(tb, len);
    tb_bytes(tb, body, len);
}

void tb_end_of_data(tb_t *tb)
{
    tb_u8(tb, VT_REC_END_OF_DATA);
}

int tb_write(const tb_t *tb, const char *path, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    if (len > tb->len)
        len = tb->len;
    int ok = fwrite(tb->buf, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}
