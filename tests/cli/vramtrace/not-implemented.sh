# Every planned command fails the same way until it exists; remove its line when it does.
for cmd in html; do
    vramtrace "$cmd" some.vtr
    echo "$cmd: exit $?"
done
