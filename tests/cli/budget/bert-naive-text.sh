# The hand estimate of BERT-base (docs/budget.md): 220 / 220 / 440 / 301.99 / 0.03 MB.
vramtrace budget method=naive params=110M dtype=fp16 batch=32 seq=512 hidden=768 layers=12 optimizer=adam
