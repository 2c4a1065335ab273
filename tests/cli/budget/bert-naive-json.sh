# The naive budget as JSON: integers under the category names and total (docs/design.md, "Contracts").
vramtrace budget method=naive params=110M dtype=fp16 batch=32 seq=512 hidden=768 layers=12 optimizer=adam --json
