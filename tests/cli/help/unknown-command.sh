vramtrace help frobnicate
