/* SPDX-License-Identifier: MIT */
/* Numbers for people (units.h). */
#include "units.h"
#include "trace_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *vt_fmt_commas(uint64_t v, char *buf, size_t cap)
{
    char digits[24];
    int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    if (cap)
        buf[o] = '\0';
    return buf;
}

const char *vt_fmt_seconds(uint64_t ns, char *buf, size_t cap)
{
    /* Below a second a time that is not whole milliseconds keeps its microseconds: "--at 0.5ms"
     * is 0.000500 s, not 0.000 s. */
    if (ns < 1000000000u && ns % 1000000u != 0) {
        snprintf(buf, cap, "0.%06" PRIu64 " s", ns / 1000u);
        return buf;
    }
    snprintf(buf, cap, "%" PRIu64 ".%03" PRIu64 " s", ns / 1000000000u,
             (ns % 1000000000u) / 1000000u);
    return buf;
}

const char *vt_reader_device_text(const vt_reader_t *r, uint32_t device, char *buf, size_t cap)
{
    const vt_trace_device_t *info = vt_reader_device(r, device);
    char name[256] = "", total[32] = "";
    if (info) {
        vt_reader_cstring(r, info->name_string_id, name, sizeof(name));
        if (info->total_bytes)
            vt_fmt_binary(info->total_bytes, total, sizeof(total));
    }
    if (name[0] && total[0])
        snprintf(buf, cap, "device %" PRIu32 " (%s, %s)", device, name, total);
    else if (name[0] || total[0])
        snprintf(buf, cap, "device %" PRIu32 " (%s)", device, name[0] ? name : total);
    else
        snprintf(buf, cap, "device %" PRIu32, device);
    return buf;
}

const char *vt_reader_device_share(const vt_reader_t *r, uint32_t device, uint64_t bytes, char *buf,
                                   size_t cap)
{
    const vt_trace_device_t *info = vt_reader_device(r, device);
    if (!info || !info->total_bytes)
        snprintf(buf, cap, "%s", "");
    else
        snprintf(buf, cap, "%.1f%% of its memory",
                 100.0 * (double)bytes / (double)info->total_bytes);
    return buf;
}

int vt_parse_duration(const char *s, uint64_t *t_ns)
{
    static const struct {
        const char *unit;
        uint64_t ns;
    } units[] = {
        {"", 1000000000u}, {"s", 1000000000u}, {"ms", 1000000u}, {"us", 1000u}, {"ns", 1u}};
    uint64_t whole = 0, frac = 0, frac_scale = 1;
    int n_digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, n_digits++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, n_digits++)
            if (frac_scale < 1000000000u) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                frac_scale *= 10;
            }
    }
    if (!n_digits)
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(s, units[i].unit) != 0)
            continue;
        uint64_t scale = units[i].ns;
        if (whole > UINT64_MAX / scale - 1)
            return -1;
        *t_ns = whole * scale + frac * scale / frac_scale;
        return 0;
    }
    return -1;
}
