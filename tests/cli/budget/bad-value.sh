# Bad values name the key and what it takes: usage, exit 2.
vramtrace budget method=naive params=110X
echo "exit $?"
vramtrace budget batch=0
echo "exit $?"
vramtrace budget regime=fp64
echo "exit $?"
vramtrace budget zero_stage=4
echo "exit $?"
vramtrace budget method=realistic family=bert layers=12 hidden=768 heads=5 vocab=30522 batch=1 seq=1
echo "exit $?"
vramtrace budget method=naive params=1B batch=1000000000 seq=1000000000 hidden=768 layers=12
echo "exit $?"
