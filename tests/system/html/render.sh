#!/bin/sh
# SPDX-License-Identifier: MIT
# render.sh VRAMTRACE TRAIN_LOOP MKTRACE_DIR SOURCE_DIR: writes the HTML page of two traces and
# checks it as Chromium renders it (check_page.py): the DOM after parsing has every section
# with the right figures, the timeline's SVG laid out at its size, and the screenshot shows the
# chart's category colours; the source loads nothing from outside the file; and the page used
# through its DOM (interact.html: hover, frames toggle, click, zoom, drag) shows what it should.
set -eu
vt=$1 train=$2 mktrace=$3 src=$4
browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
    echo "render: no chromium: skipped (Debian: apt-get install chromium)"
    exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One page per trace: TRACE OUT [vramtrace html options...]
render() {
    trace=$1 page=$2
    shift 2
    "$vt" html "$trace" -o "$page" "$@" >"$tmp/stdout"
    grep -q "^wrote $page: open it in a browser$" "$tmp/stdout"
    # --virtual-time-budget lets layout settle; no network is reachable or needed.
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/profile" --hide-scrollbars --window-size=1280,4000 \
        --screenshot="$page.png" "file://$page" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; exit 1; }
    # The DOM as rendered, and as used (interact.html): the harness reaches into the page's
    # frame, both being files, which --allow-file-access-from-files lets them share.
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/profile" --allow-file-access-from-files --window-size=1400,1400 \
        --virtual-time-budget=5000 --dump-dom "file://$here/interact.html?file://$page" \
        >"$page.interact.dom" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
}

# A simulated-device run of the C training loop, compared with its model, on a device small
# enough (128 MiB) for the chart to draw its capacity line.
"$vt" run --simulate=128M --quiet -o "$tmp/loop.vtr" -- "$train" 3 64 >/dev/null
render "$tmp/loop.vtr" "$tmp/loop.html" --budget "$src/examples/models/train_loop.model"
"$vt" report --json "$tmp/loop.vtr" --budget "$src/examples/models/train_loop.model" \
    >"$tmp/loop.json"
python3 "$(dirname "$0")/check_page.py" "$tmp/loop.html" "$tmp/loop.json" budget

# A fixture with two devices, an OOM, pinned and managed memory, memory never freed.
PATH=$mktrace:$PATH vt-mktrace "$tmp/train.vtr" "$src/tests/cli/report/train.trace"
render "$tmp/train.vtr" "$tmp/train.html"
"$vt" report --json "$tmp/train.vtr" >"$tmp/train.json"
python3 "$(dirname "$0")/check_page.py" "$tmp/train.html" "$tmp/train.json" oom
echo "render: ok"
