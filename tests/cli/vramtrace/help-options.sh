# Every option a command's --help lists is one its parser takes, spelled both ways when it has
# two (the help is written from the table the parser reads), and a spelling the help does not
# list is not taken. Each option gets a value 'x' and no trace exists, so nothing runs.
for cmd in "" run report oom leaks timeline check export html budget rules diff; do
    opts=$(vramtrace $cmd --help | sed -n 's/^    \(-[a-zA-Z]\)\{0,1\}\(, \)\{0,1\}\(--[a-z-]*\)\{0,1\}.*/\1 \3/p')
    n=0 bad=""
    for opt in $opts; do
        n=$((n + 1))
        vramtrace $cmd "$opt" x </dev/null 2>err >/dev/null
        grep -q 'unknown option' err && bad="$bad $opt"
    done
    vramtrace $cmd --no-such-option </dev/null 2>err >/dev/null
    unknown=$(grep -c 'unknown option' err)
    echo "${cmd:-vramtrace}: $n spellings listed, not taken:${bad:- none}; an unlisted one refused: $unknown"
done
