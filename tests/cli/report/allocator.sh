# The allocator mode, from the variables the PROCESS record keeps: the first that says one wins
# (per-tensor, stream-ordered, expandable segments, caching, on-demand growth), else default.
for env in "" PYTORCH_NO_CUDA_MEMORY_CACHING=1 XLA_PYTHON_CLIENT_ALLOCATOR=platform \
    PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync \
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128 \
    PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128 TF_FORCE_GPU_ALLOW_GROWTH=true \
    XLA_PYTHON_CLIENT_PREALLOCATE=false PYTORCH_NO_CUDA_MEMORY_CACHING=0 TF_FORCE_GPU_ALLOW_GROWTH=1; do
    printf 'process t0=0 pid=7 %s\nalloc dt=1000 cat=weights addr=0x1000 size=1M\nend dt=1\n' \
        "$env" | vt-mktrace t.vtr || exit
    vramtrace report t.vtr | grep '^allocator'
    vramtrace report --json t.vtr | python3 -c 'import json,sys; print(json.load(sys.stdin)["allocator"])'
done
