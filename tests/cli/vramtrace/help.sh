vramtrace --help
