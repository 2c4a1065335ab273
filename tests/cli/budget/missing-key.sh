# A key a model needs: usage, exit 2.
vramtrace budget method=naive params=110M batch=32 seq=512 hidden=768
echo "exit $?"
vramtrace budget params=110M batch=32 seq=512 hidden=768 layers=12
echo "exit $?"
vramtrace budget method=realistic family=gpt2 layers=12 hidden=768 vocab=50257 batch=8 seq=1024
echo "exit $?"
