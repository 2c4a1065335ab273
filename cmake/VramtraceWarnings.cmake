# SPDX-License-Identifier: MIT
# vt_target_flags(TARGET): the compile flags every vramtrace C target gets (docs/style.md, "Build"), set per
# target, never directory-wide.
function(vt_target_flags target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wstrict-prototypes -Werror=implicit-function-declaration
    -fvisibility=hidden>)
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE)
  if(VRAMTRACE_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-Werror>)
  endif()
  if(VRAMTRACE_SANITIZE)
    # -fno-sanitize-recover: every report ends the process with an error, so a test fails.
    target_compile_options(${target} PRIVATE -fsanitize=${VRAMTRACE_SANITIZE}
      -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${VRAMTRACE_SANITIZE})
    # The built-in sanitizer options (vt_sanitizer_options.c says why), in every program and in
    # the preload library, whose version script exports them (src/exports.cmake).
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE" OR target STREQUAL "vramtrace_preload")
      target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/vt_sanitizer_options.c)
      if(type STREQUAL "EXECUTABLE")
        target_link_options(${target} PRIVATE
          -Wl,--export-dynamic-symbol=__asan_default_options
          -Wl,--export-dynamic-symbol=__ubsan_default_options
          -Wl,--export-dynamic-symbol=__tsan_default_options
          -Wl,--export-dynamic-symbol=__lsan_default_suppressions
          -Wl,--export-dynamic-symbol=__lsan_default_options)
      endif()
    endif()
  endif()
endfunction()
