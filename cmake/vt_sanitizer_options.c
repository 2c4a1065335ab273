/* SPDX-License-Identifier: MIT */
/* Built-in sanitizer options, linked only into VRAMTRACE_SANITIZE builds (cmake/VramtraceWarnings
 * .cmake adds this file to every executable and to libvramtrace.so, which exports it). Built in,
 * not set in the environment, because most tests run the traced program under `env -i`, which
 * would drop ASAN_OPTIONS; ASAN_OPTIONS and UBSAN_OPTIONS still override them. The runtime looks
 * the hooks up by name through the dynamic symbol table, so the preloaded library's copy serves
 * an uninstrumented program (sh, python3) too. Nothing here may touch instrumented memory: the
 * runtime calls these before it has initialised. */

#define VT_SAN_EXPORT __attribute__((visibility("default"), used))

/* verify_asan_link_order=0: the tests LD_PRELOAD libvramtrace.so, so it, not the ASan runtime,
 * is first in the initial library list. For an instrumented program that costs nothing: its own
 * NEEDED libasan still comes before libc, so the runtime's malloc and interceptors win. For an
 * uninstrumented one (sh, python3, an nvcc program) libc comes first and the runtime's allocator
 * and interceptors are not used; the library's own code is still checked (stack, globals, UB).
 * Preloading the runtime first (LD_PRELOAD="$(cc -print-file-name=libasan.so) libvramtrace.so")
 * restores them, for a program run by hand (docs/reliability.md).
 * handle_segv=0 and friends: the writer and run tests kill the traced program with SIGSEGV and
 * SIGBUS on purpose and compare its exit status; ASan's handler would turn the signal into
 * exit(1). A real wild access still kills the test with the signal. */
VT_SAN_EXPORT const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "verify_asan_link_order=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:"
           "detect_leaks=1:abort_on_error=0:strict_string_checks=1";
}

VT_SAN_EXPORT const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "print_stacktrace=1:halt_on_error=1";
}

/* Known leaks to suppress, each with where it is reported; none now (remove a line with its
 * fix). */
VT_SAN_EXPORT const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "";
}

/* print_suppressions=0: the report of the suppressions used would change the golden stderr. */
VT_SAN_EXPORT const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

/* halt_on_error=1: the first race ends the test, as -fno-sanitize-recover does for the others. */
VT_SAN_EXPORT const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "halt_on_error=1:second_deadlock_stack=1";
}
