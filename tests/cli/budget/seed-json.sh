# The contract check's command: integers under the category names and total.
vramtrace budget method=naive params=110M dtype=fp16 batch=32 seq=512 hidden=768 layers=12 optimizer=adam --json
