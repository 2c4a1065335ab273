# With method=both, one object under naive and one under realistic.
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --model="$models/bert-base.model" --json
