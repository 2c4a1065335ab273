vramtrace version
