# Every planned command fails the same way until it exists; remove its line when it does.
for cmd in leaks timeline export html diff; do
    vramtrace "$cmd" some.vtr
    echo "$cmd: exit $?"
done
