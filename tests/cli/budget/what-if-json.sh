# The what-if table as JSON; fp32 GPT-2 so that mixed precision applies.
models=$(cd "$(dirname "$0")/../../../examples/models" && pwd)
vramtrace budget --what-if --model "$models/gpt2.model" dtype=fp32 regime=fp32 act_profile=fp32_eager --json
