vramtrace --version
