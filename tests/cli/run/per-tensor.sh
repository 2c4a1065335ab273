# --per-tensor with nothing set: PyTorch's and TensorFlow's stream-ordered backends, JAX's
# platform allocator, the cache kept (no PYTORCH_NO_CUDA_MEMORY_CACHING).
show='printf "%s|%s|%s|%s\n" "$PYTORCH_CUDA_ALLOC_CONF" "$TF_GPU_ALLOCATOR" \
    "$XLA_PYTHON_CLIENT_ALLOCATOR" "${PYTORCH_NO_CUDA_MEMORY_CACHING-unset}"'
unset PYTORCH_CUDA_ALLOC_CONF TF_GPU_ALLOCATOR XLA_PYTHON_CLIENT_ALLOCATOR
vramtrace run --per-tensor -- sh -c "$show"
echo "exit $?"
# The user's TensorFlow and JAX settings are kept.
TF_GPU_ALLOCATOR=bfc XLA_PYTHON_CLIENT_ALLOCATOR=default vramtrace run --per-tensor -- sh -c "$show"
echo "exit $?"
# --no-caching: the old way, every tensor a cudaMalloc and a synchronizing cudaFree.
vramtrace run --no-caching -- sh -c 'printf "%s|%s|%s\n" "$PYTORCH_NO_CUDA_MEMORY_CACHING" \
    "$XLA_PYTHON_CLIENT_ALLOCATOR" "${PYTORCH_CUDA_ALLOC_CONF-unset}"'
echo "exit $?"
