# --svg OUT: a well-formed, self-contained SVG with one <path> per category that had device
# memory on each device, the phases as labelled bands, and each device's peak marked.
valid() {
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$1" && echo "$1: well-formed"
    else
        python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" &&
            echo "$1: well-formed"
    fi
}
# What a test can see of a chart: the areas per device, the labels, no outside reference.
shape() {
    awk '/^<g class="device">/ { n++ } /^<path / { sub(/^<path class="/, ""); sub(/".*/, ""); print "  device panel " n ": path " $0 }' "$1"
    grep -o '<text class="peak-label"[^>]*>[^<]*' "$1" | sed 's/.*>/  peak label: /'
    grep -o '<text class="phase-label"[^>]*>[^<]*' "$1" | sed 's/.*>/  phase label: /'
    grep -o '<title>[^<]*' "$1" | sed 's/<title>/  title: /' | sort | uniq -c
    echo "  http: $(grep -o 'http' "$1" | wc -l), xmlns http: $(grep -o 'xmlns="http://www.w3.org/2000/svg"' "$1" | wc -l)"
    echo "  script: $(grep -ci '<script\|href' "$1")"
}
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace timeline t.vtr --svg t.svg
echo "exit $?"
valid t.svg
shape t.svg
# nested phases on two threads, two devices; '-' is stdout; --svg=OUT works too
vt-mktrace p.vtr <<'T' || exit
process t0=1000 pid=1
thread 1 11 main
thread 2 12 loader
push dt=1000000 thread=1 epoch<1>
alloc dt=1000000 cat=weights addr=0x1000 size=1G
push dt=1000000 thread=1 forward
alloc dt=1000000 cat=activations addr=0x2000000000 size=512M
free dt=1000000 addr=0x2000000000
pop dt=1000000 thread=1
push dt=1000000 thread=2 load
alloc dt=1000000 cat=data dev=1 addr=0x3000 size=2G
pop dt=1000000 thread=2
push dt=1000000 thread=1 forward
pop dt=1000000 thread=1
pop dt=1000000 thread=1
end dt=1000
T
vramtrace timeline p.vtr --svg - >p.svg
echo "exit $?"
valid p.svg
shape p.svg
vramtrace timeline --svg=p2.svg p.vtr && cmp p.svg p2.svg && echo "--svg=OUT: the same chart"
# 5000 steps of 1 MiB and one 4 GiB spike of 20 ns: the steps are one band, and the spike's
# column keeps its highest moment, so the chart reaches the peak (the top of the spike is at
# y 165.9 for a 5 GiB axis of 260 px from y 114)
{
    echo "process t0=0 pid=1"
    echo "thread 1 11 main"
    i=0
    while [ $i -lt 5000 ]; do
        echo "push dt=100000 thread=1 step"
        echo "alloc dt=100000 cat=activations addr=0x1000 size=1M"
        if [ $i = 2500 ]; then
            echo "alloc dt=10 cat=workspace addr=0x9000000 size=4G"
            echo "free dt=10 addr=0x9000000"
        fi
        echo "free dt=100000 addr=0x1000"
        echo "pop dt=100000 thread=1"
        i=$((i + 1))
    done
    echo "end dt=1000"
} >big.trace
vt-mktrace big.vtr big.trace || exit
vramtrace timeline big.vtr --svg big.svg
echo "exit $?"
valid big.svg
shape big.svg
echo "  phase bands: $(grep -c '<rect class="phase"' big.svg)"
echo "  highest area point: y $(sed -n 's/^<path .* d="\([^"]*\)".*/\1/p' big.svg | tr -d 'MLZ' | tr ' ' '\n' | awk 'NF { if (++n % 2 == 0) print }' | sort -n | head -1)"
echo "  under 64 KiB: $(test "$(wc -c <big.svg)" -lt 65536 && echo yes)"
