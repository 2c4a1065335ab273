# SPDX-License-Identifier: MIT
# vt_target_flags(TARGET): the compile flags every vramtrace C target gets (STYLE.md §8), set per
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
    target_compile_options(${target} PRIVATE -fsanitize=${VRAMTRACE_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${VRAMTRACE_SANITIZE})
  endif()
endfunction()
