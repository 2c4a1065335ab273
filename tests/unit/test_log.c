/* SPDX-License-Identifier: MIT */
/* vt_fmt against libc snprintf for every supported conversion, truncation and termination at
 * cap, and the exact lines vt_warn / vt_log write, with their QUIET / VERBOSE gating. */
#include "vt_internal.h"
#include "unit_util.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>

static char buf[256];

/* Checks vt_fmt(fmt, v) == want, and that libc agrees where it is the reference. */
#define CHECK_FMT(want, fmt, ...)                                                                  \
    do {                                                                                           \
        char ref_[256];                                                                            \
        size_t n_ = vt_fmt(buf, sizeof(buf), fmt, __VA_ARGS__);                                    \
        snprintf(ref_, sizeof(ref_), fmt, __VA_ARGS__);                                            \
        VT_CHECK_STR(fmt, buf, want);                                                              \
        VT_CHECK_STR(fmt " (libc)", ref_, want);                                                   \
        VT_CHECK_EQ(fmt " length", n_, strlen(want));                                              \
    } while (0)

static void test_conversions(void)
{
    CHECK_FMT("abc", "%s", "abc");
    CHECK_FMT("x=-42.", "x=%d.", -42);
    CHECK_FMT("-2147483648", "%d", INT_MIN);
    CHECK_FMT("7", "%i", 7);
    CHECK_FMT("4294967295", "%u", UINT_MAX);
    CHECK_FMT("-9223372036854775808", "%ld", LONG_MIN);
    CHECK_FMT("18446744073709551615", "%lu", ULONG_MAX);
    CHECK_FMT("-9223372036854775808", "%lld", LLONG_MIN);
    CHECK_FMT("18446744073709551615", "%llu", ULLONG_MAX);
    CHECK_FMT("18446744073709551615", "%zu", SIZE_MAX);
    CHECK_FMT("-5", "%zd", (ssize_t)-5);
    CHECK_FMT("beef", "%x", 0xbeefu);
    CHECK_FMT("BEEF", "%X", 0xbeefu);
    CHECK_FMT("ffffffffffffffff", "%llx", ULLONG_MAX);
    CHECK_FMT("7fffffffffffffff", "%lx", LONG_MAX);
    CHECK_FMT("1f", "%zx", (size_t)31);
    CHECK_FMT("0x7f00dead", "%p", (void *)0x7f00deadUL);
    CHECK_FMT("q", "%c", 'q');
    CHECK_FMT("100%", "%d%%", 100);
    CHECK_FMT("0", "%d", 0);
    CHECK_FMT("0", "%x", 0u);
    /* width, zero padding and string precision */
    CHECK_FMT("   42", "%5d", 42);
    CHECK_FMT("00042", "%05d", 42);
    CHECK_FMT("-0042", "%05d", -42);
    CHECK_FMT("  -42", "%5d", -42);
    CHECK_FMT("000000ff", "%08x", 0xffu);
    CHECK_FMT("123456", "%3d", 123456);
    CHECK_FMT("   ab", "%5s", "ab");
    CHECK_FMT("ab", "%.2s", "abcdef");
    CHECK_FMT("abc", "%.*s", 3, "abcdef");
    CHECK_FMT("abcdef", "%.*s", -1, "abcdef");
    CHECK_FMT("    7", "%*d", 5, 7);
    CHECK_FMT("    x", "%5c", 'x');
    CHECK_FMT("a=1 b=two c=0x10", "a=%d b=%s c=%p", 1, "two", (void *)16);

    /* Where vt_fmt deliberately differs from glibc (which prints "(nil)" and rejects NULL). */
    vt_fmt(buf, sizeof(buf), "%p", (void *)0);
    VT_CHECK_STR("null pointer", buf, "0x0");
    const char *volatile null_str = NULL; /* volatile: keep gcc from flagging the NULL */
    vt_fmt(buf, sizeof(buf), "[%s]", null_str);
    VT_CHECK_STR("null string", buf, "[(null)]");
    /* Unknown or truncated specs are copied, so the mistake shows in the output. */
    char fmt[8] = "%q|%";
    vt_fmt(buf, sizeof(buf), fmt, 0);
    VT_CHECK_STR("unknown conversion", buf, "%q|%");
}

static void test_truncation(void)
{
    char small[16];
    memset(small, 'X', sizeof(small));
    size_t n = vt_fmt(small, 5, "hello %s", "world");
    VT_CHECK_EQ("returns the full length", n, 11);
    VT_CHECK_STR("truncated to cap - 1", small, "hell");
    VT_CHECK_EQ("nothing written past cap", small[5], 'X');

    memset(small, 'X', sizeof(small));
    n = vt_fmt(small, 4, "%d", 123456);
    VT_CHECK_STR("number cut at cap", small, "123");
    VT_CHECK_EQ("number length", n, 6);
    VT_CHECK_EQ("no overrun after number", small[4], 'X');

    memset(small, 'X', sizeof(small));
    n = vt_fmt(small, 1, "abc");
    VT_CHECK_EQ("cap 1 gives empty string", small[0], '\0');
    VT_CHECK_EQ("cap 1 length", n, 3);
    VT_CHECK_EQ("cap 1 no overrun", small[1], 'X');

    memset(small, 'X', sizeof(small));
    n = vt_fmt(small, 0, "abc");
    VT_CHECK_EQ("cap 0 writes nothing", small[0], 'X');
    VT_CHECK_EQ("cap 0 length", n, 3);

    memset(small, 'X', sizeof(small));
    n = vt_fmt(small, 6, "%5s", "abc");
    VT_CHECK_STR("exact fit", small, "  abc");
    VT_CHECK_EQ("exact fit length", n, 5);
}

static void test_lines(void)
{
    char out[2048];
    vt_options_parse((char *[]){NULL});

    errno = EBADF;
    vt_capture_begin();
    vt_warn("cannot open '%s': %s", "x.vtr", "No such file or directory");
    vt_capture_end(out, sizeof(out));
    VT_CHECK_STR("warn line", out, "vramtrace: cannot open 'x.vtr': No such file or directory\n");
    VT_CHECK_EQ("errno kept", errno, EBADF);

    vt_capture_begin();
    vt_log(0, "peak %d MiB", 5);
    vt_log(1, "verbose detail");
    vt_capture_end(out, sizeof(out));
    VT_CHECK_STR("log level 0 shown, 1 hidden by default", out, "vramtrace: peak 5 MiB\n");

    vt_log_set_level(true, 1); /* as init sets it for VRAMTRACE_QUIET=1 VRAMTRACE_VERBOSE=1 */
    vt_capture_begin();
    vt_log(0, "summary");
    vt_log(1, "one");
    vt_log(2, "two");
    vt_warn("still warned");
    vt_capture_end(out, sizeof(out));
    VT_CHECK_STR("quiet hides level 0, verbose=1 shows level 1 only", out,
                 "vramtrace: one\nvramtrace: still warned\n");

    /* A line longer than the buffer is cut but still ends in a newline. */
    char long_msg[1000];
    memset(long_msg, 'a', sizeof(long_msg) - 1);
    long_msg[sizeof(long_msg) - 1] = '\0';
    vt_capture_begin();
    vt_warn("%s", long_msg);
    vt_capture_end(out, sizeof(out));
    VT_CHECK_EQ("long line is one line", vt_count_lines(out), 1);
    VT_CHECK_EQ("long line cut to the buffer", strlen(out), 511);
    VT_CHECK("long line prefix", strncmp(out, "vramtrace: aaa", 14) == 0);
    VT_CHECK_EQ("long line ends in newline", out[510], '\n');
    vt_log_set_level(false, 0);
}

int main(void)
{
    test_conversions();
    test_truncation();
    test_lines();
    return vt_test_done();
}
