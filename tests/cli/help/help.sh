vramtrace help
