/* SPDX-License-Identifier: MIT */
/* A library that calls got_target through its PLT (a JUMP_SLOT) and hands out the address of
 * got_other (a GLOB_DAT; a function both called and taken would share one slot), built with
 * immediate binding and full RELRO, and lazily (test_got.c). */
int got_target(void);
int got_other(void);
int caller_calls(void);
void *caller_address(void);

__attribute__((visibility("default"))) int caller_calls(void)
{
    return got_target();
}

__attribute__((visibility("default"))) void *caller_address(void)
{
    return (void *)&got_other;
}
