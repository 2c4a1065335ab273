#!/bin/sh
# SPDX-License-Identifier: MIT
# extreme.sh VRAMTRACE VT_EXTREME STRICT_JSON COUNT: every command on COUNT valid traces with
# extreme values (extreme.h: sizes near 2^63 and 2^64, times at the ends, counts at their
# maximum): each answers with 0, 1 or 3 (never a crash or a sanitizer report, which fail the
# run), within 20 s, its JSON strict (strict_json.py), its SVG and HTML within a bound that does
# not depend on the values (the chart has a fixed resolution). Run by every build, the
# ASan+UBSan one included, where an overflow or a wrapped loop is caught.
set -u
vt=$1 gen=$2 strict=$3 count=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir traces && "$gen" traces 1 "$count" || exit 1
failed=0
run() { # NAME CMD...: the command's status must be 0, 1 or 3, with no sanitizer report (whose
    # exit status is 1 too)
    name=$1
    shift
    timeout 20 "$@" >out 2>err
    status=$?
    grep -qE 'runtime error:|Sanitizer' err && status=sanitizer
    case $status in
    0 | 1 | 3) ;;
    *)
        echo "FAIL $trace: $name: exit $status" >&2
        head -c 2000 err >&2
        failed=1
        ;;
    esac
}
bound() { # FILE BYTES: FILE is at most BYTES long
    size=$(wc -c <"$1")
    if [ "$size" -gt "$2" ]; then
        echo "FAIL $trace: $1 is $size bytes, more than $2" >&2
        failed=1
    fi
}
json() { # FILE: strict JSON when the command wrote any
    if [ -s "$1" ] && ! python3 "$strict" "$1" >/dev/null; then
        echo "FAIL $trace: $name: invalid JSON: $(python3 "$strict" "$1")" >&2
        failed=1
    fi
}
for trace in traces/*.vtr; do
    run report "$vt" report "$trace"
    run report-json "$vt" report "$trace" --json --all-frames --top 0 && json out
    run report-at "$vt" report "$trace" --at 18446744072s
    run report-category "$vt" report "$trace" --category weights
    run oom "$vt" oom "$trace"
    run oom-json "$vt" oom "$trace" --json && json out
    run leaks "$vt" leaks "$trace" --top 0
    run timeline "$vt" timeline "$trace"
    run timeline-csv "$vt" timeline "$trace" --csv
    run timeline-svg "$vt" timeline "$trace" --svg chart.svg && bound chart.svg 4000000
    run check "$vt" check "$trace" --max-peak 1 --max-category weights=8000000T
    run diff "$vt" diff "$trace" traces/extreme-1.vtr --top 0
    run diff-json "$vt" diff traces/extreme-1.vtr "$trace" --json && json out
    for format in perfetto speedscope folded csv; do
        run "export-$format" "$vt" export "$trace" --format $format -o exported
        case $format in perfetto | speedscope) json exported ;; esac
    done
    run html "$vt" html "$trace" -o page.html && bound page.html 8000000
    rm -f out err chart.svg exported page.html
done
run report-dir "$vt" report traces --json
json out
n=$(ls traces | wc -l)
echo "extreme: $n traces, every command: $([ $failed = 0 ] && echo ok || echo FAILED)"
exit $failed
