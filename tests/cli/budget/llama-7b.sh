# Llama-2-7B, Megatron bf16 with FlashAttention (row L2), and ZeRO-3 over 8 GPUs (row L4).
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --model "$models/llama-7b.model" method=realistic
vramtrace budget --model "$models/llama-7b.model" method=realistic regime=mixed16 zero_stage=3 dp=8 checkpointing=full --json
