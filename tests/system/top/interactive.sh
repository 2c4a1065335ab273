#!/bin/sh
# SPDX-License-Identifier: MIT
# interactive.sh VRAMTRACE T_TOP_STEPS: `vramtrace top` in a terminal (tmux; skipped without
# it): the view of a running job shows its bars and refreshes; q quits, exit 0, and the terminal
# is restored (the main screen back, echo on); Ctrl-C too.
vt=$1 prog=$2
. "$(dirname "$0")/../../lib/preamble.sh"
command -v tmux >/dev/null 2>&1 || { echo "interactive: no tmux: skipped (Debian: tmux)"; exit 77; }

"$vt" run --simulate=1G --quiet -o job.vtr -- "$prog" 30 100 >/dev/null 2>&1 &
job=$!
i=0
while [ ! -s job.vtr ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sock="$tmp/tmux.sock"
tmux -S "$sock" new-session -d -x 120 -y 40 "sh -c '\"$vt\" top --interval 0.3 job.vtr; echo \"top exit \$?\"; stty -a | grep -o -- \" -\\{0,1\\}echo \" | head -n 1; sleep 30'"
screen() { tmux -S "$sock" capture-pane -p; }
seen=0
i=0
while [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
    if screen | grep -q 'weights *8.00 MiB |#'; then seen=1; break; fi
done
check "the view shows the bars" test $seen -eq 1
screen >first
sleep 0.8
screen >second
check "the view names the job's call-site" grep -q 'alloc_activations' second
check "the view refreshes" sh -c '! cmp -s first second'
check "the quit key is shown" grep -q 'q: quit' second
tmux -S "$sock" send-keys q
i=0
while [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
    if screen | grep -q '^top exit'; then break; fi
done
screen >after
check "q quits with status 0" grep -q '^top exit 0' after
check "the terminal's echo is back" grep -q '^ echo *$' after
check "the main screen is back (the view is gone)" sh -c '! grep -q "q: quit" after'
# Ctrl-C quits as q does, with the terminal restored (the shell around it ignores the SIGINT
# the terminal sends the whole foreground group, to say what came after).
tmux -S "$sock" new-window "sh -c 'trap \"\" INT; \"$vt\" top --interval 0.3 job.vtr; echo \"top exit \$?\"; stty -a | grep -o -- \" -\\{0,1\\}echo \" | head -n 1; sleep 30'"
sleep 1
tmux -S "$sock" send-keys C-c
i=0
while [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
    if screen | grep -q '^top exit'; then break; fi
done
screen >after-c
check "Ctrl-C quits with status 0" grep -q '^top exit 0' after-c
check "Ctrl-C: the terminal's echo is back" grep -q '^ echo *$' after-c
tmux -S "$sock" kill-server 2>/dev/null
wait "$job"
if [ $fail -ne 0 ]; then
    cat first second after >&2
fi
exit $fail
