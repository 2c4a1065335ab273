# SPDX-License-Identifier: MIT
# Writes the anonymous version script of libvramtrace.so from hooks.def, so the exported names
# cannot drift from the hook table: every VT_HOOK_CU / VT_HOOK_RT row, dlsym, the annotation
# API and NVTX's tool entry point (nvtx.c). Anonymous on purpose: a named version node silently
# stops interposition (docs/style.md, "Build"). tests/exports.expected pins the
# result.
function(vt_write_exports_map hooks_def out)
  set(names dlsym dlopen dlmopen vramtrace_mark vramtrace_pause vramtrace_resume vramtrace_category_push
    vramtrace_category_pop InitializeInjectionNvtx2)
  # A sanitizer build exports its built-in options (cmake/vt_sanitizer_options.c), so that the
  # runtime finds them in a program that has none; tests/capture/preload/check_exports.sh ignores them.
  if(VRAMTRACE_SANITIZE)
    list(APPEND names __asan_default_options __ubsan_default_options __tsan_default_options
      __lsan_default_options __lsan_default_suppressions)
  endif()
  list(SORT names)
  set(text "/* Generated from src/hooks.def by src/exports.cmake: do not edit. */\n{\n  global:\n")
  foreach(name IN LISTS names)
    string(APPEND text "    ${name};\n")
  endforeach()
  string(APPEND text "  local: *;\n};\n")
  file(WRITE ${out} "${text}")
endfunction()
