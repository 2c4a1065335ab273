# The seed's BERT-base hand estimate (DESIGN.md §5): 220 / 220 / 440 / 301.99 / 0.03 MB.
vramtrace budget method=naive params=110M dtype=fp16 batch=32 seq=512 hidden=768 layers=12 optimizer=adam
