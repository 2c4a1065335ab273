# The JSON report (the contract's keys, docs/design.md; plus file, format_version, exit_clean, complete, process).
vt-mktrace t.vtr "$(dirname "$0")/train.trace" || exit
vramtrace report t.vtr --json
