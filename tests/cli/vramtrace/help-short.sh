vramtrace -h
