#!/bin/sh
# SPDX-License-Identifier: MIT
# `vramtrace run` exits with CMD's status, 128 + N when signal N killed it, 127 when CMD is not
# found and 126 when it cannot be run, as shells do.
. "$(dirname "$0")/lib.sh"

"$vramtrace" run -- sh -c 'exit 3'
expect "exit 3" $? 3
"$vramtrace" run -- sh -c 'kill -TERM $$'
expect "SIGTERM" $? 143
"$vramtrace" run -- sh -c 'kill -KILL $$'
expect "SIGKILL" $? 137
"$vramtrace" run -- no-such-command-here 2>err
expect "not found" $? 127
expect "not found: stderr" "$(cat err)" \
    "vramtrace: cannot run 'no-such-command-here': No such file or directory"
echo 'exit 0' >not-executable
chmod 644 not-executable
"$vramtrace" run -o X.vtr -- ./not-executable 2>err
expect "not executable" $? 126
expect "not executable: stderr" "$(cat err)" \
    "vramtrace: cannot run './not-executable': Permission denied"
# PATH is searched, and the arguments arrive as they were.
mkdir bin
printf '#!/bin/sh\nprintf "[%%s]" "$@"\nexit 5\n' >bin/args
chmod 755 bin/args
PATH="$cwd/bin:$PATH" "$vramtrace" run -- args 'a b' '' -- -x >out
expect "PATH lookup" $? 5
expect "arguments" "$(cat out)" "[a b][][--][-x]"
echo "ok"
