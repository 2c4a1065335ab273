/* SPDX-License-Identifier: MIT */
/* A plugin found only through its loader's RUNPATH ($ORIGIN/sub). */
__attribute__((visibility("default"))) int plugin_answer(void)
{
    return 7;
}
