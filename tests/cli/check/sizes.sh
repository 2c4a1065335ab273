# The one size grammar at the byte: the training process peaks at 2227176424 bytes
# (2174976.9765625 KiB). K, M, G, T and KiB... are powers of 1024, KB... powers of 1000, in any
# case, with fractions (rounded down); the same grammar as the library's VRAMTRACE_MAX_SIZE
# (common/size.c, tests/unit/test_options.c). Within: exit 0; over: exit 3.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
for size in 2227176424 2227176424b 2.227176424GB 2.227176424gb 2227176.424kB \
    2174976.9765625K 2174976.9765625kib 0.002227176424TB; do
    vramtrace check t.vtr --max-peak "$size" >/dev/null
    echo "$size: exit $?"
done
# 2124.0009536743164MiB is a hair below the peak: the fraction rounds down.
for size in 2227176423 2.227176423GB 2174976.9765624K 2124.0009536743164MiB 2.07G 2GiB 2.2GB 2124m; do
    vramtrace check t.vtr --max-peak "$size" 2>/dev/null
    echo "$size: exit $?"
done
