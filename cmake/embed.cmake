# SPDX-License-Identifier: MIT
# cmake -DIN=FILE -DOUT=FILE.c -DNAME=SYMBOL -P embed.cmake: writes FILE's bytes as the C string
# SYMBOL (NUL-terminated), so a text the program writes out (the page's script) stays a file of
# its own in the source tree.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
get_filename_component(name "${IN}" NAME)
file(WRITE "${OUT}" "/* Generated from ${name} by cmake/embed.cmake: do not edit. */\n"
  "extern const char ${NAME}[];\n"
  "const char ${NAME}[] = {${bytes} 0};\n")
