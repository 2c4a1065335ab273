# The usage, on stdout, for -h and --help, even after other options.
vramtrace run --help
vramtrace run -o x.vtr -h -- true
