# oom --help: the usage on stdout, exit 0.
vramtrace oom --help
echo "exit $?"
