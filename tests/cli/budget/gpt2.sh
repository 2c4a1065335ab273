# GPT-2 small, HF autocast eager (budget.md §9.4 row G4).
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --model "$models/gpt2.model" method=realistic
