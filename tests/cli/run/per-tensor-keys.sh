# --per-tensor with the user's own PYTORCH_CUDA_ALLOC_CONF keys: the backend goes first, the
# user's keys follow unchanged.
show='printf "%s\n" "$PYTORCH_CUDA_ALLOC_CONF"'
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True vramtrace run --per-tensor -- sh -c "$show"
echo "exit $?"
PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:128,garbage_collection_threshold:0.6" \
    vramtrace run --per-tensor -- sh -c "$show"
echo "exit $?"
# An empty value is no setting.
PYTORCH_CUDA_ALLOC_CONF= vramtrace run --per-tensor -- sh -c "$show"
echo "exit $?"
