# Every key with its values and default.
vramtrace budget --keys
