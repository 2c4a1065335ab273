/* SPDX-License-Identifier: MIT */
/* The functions test_got's callers reach through their GOT. */
int got_target(void);
int got_other(void);

__attribute__((visibility("default"))) int got_target(void)
{
    return 1;
}

__attribute__((visibility("default"))) int got_other(void)
{
    return 1;
}
