# The usage, on stdout.
vramtrace budget --help
