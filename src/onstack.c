/* SPDX-License-Identifier: MIT */
/* vt_call_on_stack: runs a function on another stack and comes back. The capture of a call-site
 * (libunwind's unwind, whose first run in a thread parses DWARF on the stack, and the Python
 * splice's arrays) runs on a per-thread mapping this way, so a traced call takes little more of
 * the program's stack than the call untraced (docs/reliability.md).
 *
 * The trampoline keeps a frame-pointer frame on the caller's stack and describes it in CFI
 * (CFA = frame pointer + 16), so an unwinder that starts in fn walks back through it onto the
 * caller's stack: the backtrace is the one fn would see on the caller's stack, with the
 * trampoline's own frame (inside libvramtrace.so, skipped like our other frames) between. */
#include "vt_internal.h"

#if VT_HAVE_STACK_SWITCH
#    if defined(__x86_64__)
/* rdi = fn, rsi = arg, rdx = top */
__asm__(".text\n"
        ".globl vt_call_on_stack\n"
        ".hidden vt_call_on_stack\n"
        ".type vt_call_on_stack, @function\n"
        "vt_call_on_stack:\n"
        "    .cfi_startproc\n"
        "    push %rbp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    .cfi_offset %rbp, -16\n"
        "    mov %rsp, %rbp\n"
        "    .cfi_def_cfa_register %rbp\n"
        "    and $-16, %rdx\n"
        "    mov %rdx, %rsp\n"
        "    mov %rdi, %rax\n"
        "    mov %rsi, %rdi\n"
        "    call *%rax\n"
        "    mov %rbp, %rsp\n"
        "    .cfi_def_cfa_register %rsp\n"
        "    pop %rbp\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    .cfi_restore %rbp\n"
        "    ret\n"
        "    .cfi_endproc\n"
        ".size vt_call_on_stack, .-vt_call_on_stack\n");
#    elif defined(__aarch64__)
/* x0 = fn, x1 = arg, x2 = top */
__asm__(".text\n"
        ".globl vt_call_on_stack\n"
        ".hidden vt_call_on_stack\n"
        ".type vt_call_on_stack, %function\n"
        "vt_call_on_stack:\n"
        "    .cfi_startproc\n"
        "    stp x29, x30, [sp, #-16]!\n"
        "    .cfi_def_cfa_offset 16\n"
        "    .cfi_offset x29, -16\n"
        "    .cfi_offset x30, -8\n"
        "    mov x29, sp\n"
        "    .cfi_def_cfa_register x29\n"
        "    and x2, x2, #~15\n"
        "    mov sp, x2\n"
        "    mov x9, x0\n"
        "    mov x0, x1\n"
        "    blr x9\n"
        "    mov sp, x29\n"
        "    .cfi_def_cfa_register sp\n"
        "    ldp x29, x30, [sp], #16\n"
        "    .cfi_def_cfa_offset 0\n"
        "    .cfi_restore x29\n"
        "    .cfi_restore x30\n"
        "    ret\n"
        "    .cfi_endproc\n"
        ".size vt_call_on_stack, .-vt_call_on_stack\n");
#    endif
#endif
