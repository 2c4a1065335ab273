# ResNet-50 from measured per-image activations (rows R fp32 bs32 and R amp bs64).
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --model "$models/resnet50.model"
vramtrace budget --model "$models/resnet50.model" regime=torch_amp_fp16 batch=64 --json
