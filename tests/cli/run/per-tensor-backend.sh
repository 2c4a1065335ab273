# --per-tensor never overrides a backend the user chose: another one is kept with a one-line
# note (unless --quiet), cudaMallocAsync itself silently.
show='printf "%s\n" "$PYTORCH_CUDA_ALLOC_CONF"'
PYTORCH_CUDA_ALLOC_CONF=backend:native,expandable_segments:True \
    vramtrace run --per-tensor -- sh -c "$show"
echo "exit $?"
PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:64, backend : native" vramtrace run --per-tensor -- sh -c "$show"
echo "exit $?"
PYTORCH_CUDA_ALLOC_CONF=backend:native vramtrace run --per-tensor --quiet -- sh -c "$show"
echo "exit $?"
PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync vramtrace run --per-tensor -- sh -c "$show"
echo "exit $?"
