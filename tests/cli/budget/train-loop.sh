# The example program's MLP: the naive model and the generic realistic one.
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --model "$models/train_loop.model"
