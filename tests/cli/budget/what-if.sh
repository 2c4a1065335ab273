# The usual remedies, each alone, on BERT-base and on ResNet-50 (some do not apply).
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --what-if "$models/bert-base.model"
vramtrace budget --what-if "$models/resnet50.model" batch=64
