# GPT-2 small, HF autocast eager (vector G4 of tests/unit/budget/vectors.txt).
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --model "$models/gpt2.model" method=realistic
