# A preset with both models (the default method); arguments override the file.
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --model "$models/bert-base.model" batch=16
