#!/bin/sh
# SPDX-License-Identifier: MIT
# run_fuzz.sh HARNESS SECONDS CORPUS ARTIFACTS SEEDS... : runs a libFuzzer harness for SECONDS
# (one worker), growing CORPUS from the SEEDS directories; fails on any crash, leak, timeout or
# out-of-memory, whose input libFuzzer leaves in ARTIFACTS.
set -u
harness=$1 seconds=$2 corpus=$3 artifacts=$4
shift 4
mkdir -p "$corpus" "$artifacts" || exit 1
# -max_len: the seeds are up to a few hundred KiB, but a mutated input needs no more than 64 KiB
# to reach every record type; -timeout: one input taking 10 s is a hang.
"$harness" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$@"
status=$?
if [ $status != 0 ]; then
    echo "run_fuzz: $harness failed ($status); the input is in $artifacts:" >&2
    ls -l "$artifacts" >&2
fi
exit $status
