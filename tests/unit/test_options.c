/* SPDX-License-Identifier: MIT */
/* The VRAMTRACE_* option table parsed from fake environ arrays: defaults, every kind, every
 * bool spelling, sizes, the exact warning for each kind of invalid value (one line, default
 * kept), unknown names, first-entry-wins, and the cap of VT_OPTIONS_MAX_WARNINGS lines. */
#include "vt_internal.h"
#include "unit_util.h"

#include <errno.h>
#include <stdint.h>

static char out[8192];

/* Parses envp with stderr captured into out; returns the number of lines written. */
static int parse(char **envp)
{
    vt_capture_begin();
    vt_options_parse(envp);
    vt_capture_end(out, sizeof(out));
    return vt_count_lines(out);
}

#define ENV(...) ((char *[]){__VA_ARGS__, NULL})

static void check_defaults(const char *when)
{
    VT_CHECK_STR(when, vt_option_get_str(VT_OPTION_OUTPUT), "vramtrace");
    VT_CHECK_STR(when, vt_option_get_str(VT_OPTION_RULES), "");
    VT_CHECK_EQ(when, vt_option_get(VT_OPTION_DISABLE), 0);
    VT_CHECK_EQ(when, vt_option_get(VT_OPTION_QUIET), 0);
    VT_CHECK_EQ(when, vt_option_get(VT_OPTION_ALL_FRAMES), 0);
    VT_CHECK_EQ(when, vt_option_get(VT_OPTION_VERBOSE), 0);
    VT_CHECK_EQ(when, vt_option_get(VT_OPTION_DEPTH), 64);
    VT_CHECK_EQ(when, vt_option_get(VT_OPTION_FOLLOW_FORK), 1);
    VT_CHECK_EQ(when, vt_option_get(VT_OPTION_DEFAULT_RULES), 1);
    for (int i = 0; i < VT_OPTION_COUNT; i++)
        VT_CHECK(when, !vt_option_is_set((vt_option_t)i));
}

static void test_defaults(void)
{
    VT_CHECK("not parsed at start", !vt_options_parsed());
    check_defaults("defaults before any parse");
    VT_CHECK_EQ("empty env is silent", parse(ENV("PATH=/bin", "VRAMTRACE=1", "VRAMTRACE_DEPTH")),
                0);
    VT_CHECK("parsed", vt_options_parsed());
    check_defaults("defaults after parse");
    VT_CHECK_STR("names", vt_option_name(VT_OPTION_FOLLOW_FORK), "VRAMTRACE_FOLLOW_FORK");
}

static void test_values(void)
{
    VT_CHECK_EQ(
        "valid values are silent",
        parse(ENV("VRAMTRACE_OUTPUT=/tmp/run1", "VRAMTRACE_DISABLE=yes", "VRAMTRACE_QUIET=on",
                  "VRAMTRACE_VERBOSE=3", "VRAMTRACE_DEPTH=256", "VRAMTRACE_FOLLOW_FORK=off",
                  "VRAMTRACE_RULES=rules.txt", "VRAMTRACE_MAX_SIZE=64MiB", "VRAMTRACE_ALL_FRAMES=1",
                  "VRAMTRACE_DEFAULT_RULES=0")),
        0);
    VT_CHECK_STR("str", vt_option_get_str(VT_OPTION_OUTPUT), "/tmp/run1");
    VT_CHECK_STR("str", vt_option_get_str(VT_OPTION_RULES), "rules.txt");
    VT_CHECK_EQ("bool", vt_option_is_enabled(VT_OPTION_DISABLE), 1);
    VT_CHECK_EQ("bool", vt_option_is_enabled(VT_OPTION_QUIET), 1);
    VT_CHECK_EQ("bool default on, set off", vt_option_is_enabled(VT_OPTION_FOLLOW_FORK), 0);
    VT_CHECK_EQ("int", vt_option_get(VT_OPTION_VERBOSE), 3);
    VT_CHECK_EQ("int max", vt_option_get(VT_OPTION_DEPTH), 256);
    VT_CHECK_EQ("size", vt_option_get(VT_OPTION_MAX_SIZE), 64LL << 20);
    VT_CHECK_EQ("bool default off, set on", vt_option_is_enabled(VT_OPTION_ALL_FRAMES), 1);
    VT_CHECK_EQ("no built-in rules", vt_option_is_enabled(VT_OPTION_DEFAULT_RULES), 0);
    for (int i = 0; i < VT_OPTION_COUNT; i++)
        VT_CHECK("is_set", vt_option_is_set((vt_option_t)i));

    parse(ENV("VRAMTRACE_DEPTH=0"));
    VT_CHECK_EQ("int min", vt_option_get(VT_OPTION_DEPTH), 0);
    parse(ENV("VRAMTRACE_DEPTH=+12"));
    VT_CHECK_EQ("int plus sign", vt_option_get(VT_OPTION_DEPTH), 12);
    parse(ENV("PATH=/bin"));
    check_defaults("each parse starts from the defaults");

    VT_CHECK_EQ("first entry wins, as getenv",
                parse(ENV("VRAMTRACE_DEPTH=10", "VRAMTRACE_DEPTH=x")), 0);
    VT_CHECK_EQ("first entry wins", vt_option_get(VT_OPTION_DEPTH), 10);
}

static void test_bool_spellings(void)
{
    static const char *const on[] = {"1",   "on",   "ON",   "On",   "yes", "YES",
                                     "Yes", "true", "TRUE", "True", "tRuE"};
    static const char *const off[] = {"0",  "off",   "OFF",   "Off",   "no",   "NO",
                                      "No", "false", "FALSE", "False", "fAlSe"};
    char entry[64];
    for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
        snprintf(entry, sizeof(entry), "VRAMTRACE_QUIET=%s", on[i]);
        VT_CHECK_EQ(on[i], parse(ENV(entry)), 0);
        VT_CHECK_EQ(on[i], vt_option_is_enabled(VT_OPTION_QUIET), 1);
        snprintf(entry, sizeof(entry), "VRAMTRACE_FOLLOW_FORK=%s", off[i]);
        VT_CHECK_EQ(off[i], parse(ENV(entry)), 0);
        VT_CHECK_EQ(off[i], vt_option_is_enabled(VT_OPTION_FOLLOW_FORK), 0);
    }
    static const char *const bad[] = {"", "2", "y", "n", "o", "yess", "truex", "on ", " off", "-1"};
    bool b = true;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        VT_CHECK_EQ(bad[i], vt_parse_bool(bad[i], &b), -EINVAL);
        VT_CHECK(bad[i], b); /* untouched on error */
    }
}

static void test_numbers(void)
{
    long long v = 0;
    VT_CHECK_EQ("int", vt_parse_int("-5", &v), 0);
    VT_CHECK_EQ("int", v, -5);
    VT_CHECK_EQ("int max", vt_parse_int("9223372036854775807", &v), 0);
    VT_CHECK("int max", v == INT64_MAX);
    VT_CHECK_EQ("int min", vt_parse_int("-9223372036854775808", &v), 0);
    VT_CHECK("int min", v == INT64_MIN);
    VT_CHECK_EQ("int overflow", vt_parse_int("9223372036854775808", &v), -ERANGE);
    VT_CHECK_EQ("int overflow", vt_parse_int("-9223372036854775809", &v), -ERANGE);
    static const char *const bad_int[] = {"",   "-",    "+",     "1.5", " 1",
                                          "1 ", "0x10", "12abc", "abc", "99999999999999999999x"};
    for (size_t i = 0; i < sizeof(bad_int) / sizeof(bad_int[0]); i++)
        VT_CHECK_EQ(bad_int[i], vt_parse_int(bad_int[i], &v), -EINVAL);

    static const struct {
        const char *s;
        unsigned long long want;
    } sizes[] = {
        {"0", 0},
        {"4096", 4096},
        {"4K", 4096},
        {"4k", 4096},
        {"4KB", 4000},
        {"4KiB", 4096},
        {"4kib", 4096},
        {"4kB", 4000},
        {"2M", 2ULL << 20},
        {"2MiB", 2ULL << 20},
        {"2mb", 2000000},
        {"1G", 1ULL << 30},
        {"3GiB", 3ULL << 30},
        {"4GB", 4000000000ULL},
        {"1.5G", 3ULL << 29},
        {"1.5GB", 1500000000ULL},
        {"0.5k", 512},
        {"1.0009765625K", 1025},
        {"1.9B", 1},
        {"1T", 1ULL << 40},
        {"2tb", 2000000000000ULL},
        {"1TiB", 1ULL << 40},
        {"4B", 4},
        {"4b", 4},
        {"17179869183G", 17179869183ULL << 30},
        {"18446744073709551615", UINT64_MAX},
        {"18446744073709551615.9", UINT64_MAX},
        {"15.999999999999999999T", 17592186044415ULL},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        unsigned long long got = 1;
        VT_CHECK_EQ(sizes[i].s, vt_parse_size(sizes[i].s, &got), 0);
        VT_CHECK(sizes[i].s, got == sizes[i].want);
    }
    static const char *const bad_size[] = {"",     "K",    "-1",    "+1",  "4X", "4Ki",  "4KiBx",
                                           "4 K",  "1P",   "4iB",   "1.",  ".5", "1.5.", "1e3",
                                           "0x10", "4kbb", "4KiBB", "inf", "4BB"};
    unsigned long long got = 7;
    for (size_t i = 0; i < sizeof(bad_size) / sizeof(bad_size[0]); i++)
        VT_CHECK_EQ(bad_size[i], vt_parse_size(bad_size[i], &got), -EINVAL);
    VT_CHECK_EQ("size overflow", vt_parse_size("18446744073709551616", &got), -ERANGE);
    VT_CHECK_EQ("size overflow by suffix", vt_parse_size("17179869184G", &got), -ERANGE);
    VT_CHECK_EQ("size overflow by decimal suffix", vt_parse_size("18446745TB", &got), -ERANGE);
    VT_CHECK_EQ("size overflow, long", vt_parse_size("99999999999999999999999999999", &got),
                -ERANGE);
    VT_CHECK_EQ("size overflow by fraction", vt_parse_size("16777216.5T", &got), -ERANGE);
    VT_CHECK("untouched on error", got == 7);
}

/* Each invalid value gives exactly one line and leaves the default in place. */
static void test_invalid(void)
{
    static const struct {
        const char *entry;
        const char *line;
    } cases[] = {
        {"VRAMTRACE_DEPTH=abc", "vramtrace: ignoring VRAMTRACE_DEPTH='abc': not a number\n"},
        {"VRAMTRACE_DEPTH=", "vramtrace: ignoring VRAMTRACE_DEPTH='': not a number\n"},
        {"VRAMTRACE_DEPTH=12abc", "vramtrace: ignoring VRAMTRACE_DEPTH='12abc': not a number\n"},
        {"VRAMTRACE_DEPTH=257", "vramtrace: ignoring VRAMTRACE_DEPTH='257': out of range 0..256\n"},
        {"VRAMTRACE_DEPTH=-1", "vramtrace: ignoring VRAMTRACE_DEPTH='-1': out of range 0..256\n"},
        {"VRAMTRACE_DEPTH=99999999999999999999",
         "vramtrace: ignoring VRAMTRACE_DEPTH='99999999999999999999': out of range 0..256\n"},
        {"VRAMTRACE_VERBOSE=-2",
         "vramtrace: ignoring VRAMTRACE_VERBOSE='-2': out of range 0..2147483647\n"},
        {"VRAMTRACE_QUIET=maybe", "vramtrace: ignoring VRAMTRACE_QUIET='maybe': not a boolean\n"},
        {"VRAMTRACE_DISABLE=", "vramtrace: ignoring VRAMTRACE_DISABLE='': not a boolean\n"},
        {"VRAMTRACE_OUTPUT=", "vramtrace: ignoring VRAMTRACE_OUTPUT='': empty\n"},
        {"VRAMTRACE_DEPHT=3", "vramtrace: ignoring unknown option VRAMTRACE_DEPHT\n"},
        {"VRAMTRACE_=3", "vramtrace: ignoring unknown option VRAMTRACE_\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        VT_CHECK_EQ(cases[i].entry, parse(ENV((char *)cases[i].entry)), 1);
        VT_CHECK_STR(cases[i].entry, out, cases[i].line);
        check_defaults(cases[i].entry);
    }

    /* A name given twice is read once, so it warns once. */
    VT_CHECK_EQ("twice", parse(ENV("VRAMTRACE_DEPTH=abc", "VRAMTRACE_DEPTH=abc")), 1);

    /* An invalid first entry hides a valid later one, as with getenv. */
    VT_CHECK_EQ("bad then good", parse(ENV("VRAMTRACE_DEPTH=abc", "VRAMTRACE_DEPTH=8")), 1);
    VT_CHECK_EQ("bad then good keeps default", vt_option_get(VT_OPTION_DEPTH), 64);

    /* The value is quoted at most 64 bytes long, and an over-long path is refused. */
    static char long_entry[5000] = "VRAMTRACE_OUTPUT=";
    memset(long_entry + 17, 'p', sizeof(long_entry) - 18);
    VT_CHECK_EQ("too long", parse(ENV(long_entry)), 1);
    char want[256];
    snprintf(want, sizeof(want), "vramtrace: ignoring VRAMTRACE_OUTPUT='%.64s': too long\n",
             long_entry + 17);
    VT_CHECK_STR("too long line", out, want);
    VT_CHECK_STR("too long keeps default", vt_option_get_str(VT_OPTION_OUTPUT), "vramtrace");
    long_entry[17 + 4095] = '\0';
    VT_CHECK_EQ("longest accepted", parse(ENV(long_entry)), 0);
    VT_CHECK_EQ("longest accepted", strlen(vt_option_get_str(VT_OPTION_OUTPUT)), 4095);

    /* Good and bad together: only the bad ones warn, the good ones apply. */
    VT_CHECK_EQ("mixed",
                parse(ENV("VRAMTRACE_DEPTH=9", "VRAMTRACE_QUIET=2", "VRAMTRACE_VERBOSE=1")), 1);
    VT_CHECK_EQ("mixed good", vt_option_get(VT_OPTION_DEPTH), 9);
    VT_CHECK_EQ("mixed good", vt_option_get(VT_OPTION_VERBOSE), 1);
    VT_CHECK_EQ("mixed bad", vt_option_get(VT_OPTION_QUIET), 0);
    VT_CHECK_EQ("mixed count", vt_options_n_invalid(), 1);
}

static void test_warning_cap(void)
{
    static char names[40][32];
    char *envp[41];
    for (int i = 0; i < 40; i++) {
        snprintf(names[i], sizeof(names[i]), "VRAMTRACE_TYPO%d=1", i);
        envp[i] = names[i];
    }
    envp[20] = "VRAMTRACE_DEPTH=oops"; /* past the cap: not printed, still ignored */
    envp[40] = NULL;
    VT_CHECK_EQ("capped lines", parse(envp), VT_OPTIONS_MAX_WARNINGS);
    VT_CHECK_EQ("all counted", vt_options_n_invalid(), 40);
    VT_CHECK("first line",
             strncmp(out, "vramtrace: ignoring unknown option VRAMTRACE_TYPO0\n", 51) == 0);
    VT_CHECK("depth warning suppressed", !strstr(out, "DEPTH"));
    VT_CHECK_EQ("default kept past the cap", vt_option_get(VT_OPTION_DEPTH), 64);
    /* The cap is per parse. */
    VT_CHECK_EQ("next parse warns again", parse(ENV("VRAMTRACE_DEPTH=oops")), 1);
}

int main(void)
{
    test_defaults();
    test_values();
    test_bool_spellings();
    test_numbers();
    test_invalid();
    test_warning_cap();
    return vt_test_done();
}
