# SPDX-License-Identifier: MIT
"""The Python side of bench/capture.sh: ns per cudaMalloc + cudaFree pair of the simulated
libcudart.so.13 called from a Python loop with ctypes, CHAIN Python frames deep. With KIND
"cdll" (the default) ctypes releases the GIL around each call, as PyTorch's bindings do around
every operator; "pydll" keeps it. Either way a traced allocation gets its Python frames
(src/python.c).

The chain is CHAIN distinct functions (as a real call-site has), or with SHAPE "recursive" one
function calling itself CHAIN times (whose frames share one code object).

usage: capture.py [PAIRS] [CHAIN] [cdll|pydll] [distinct|recursive]
       prints "pycapture <ns per pair> <pairs> <chain> <kind> <shape>"
"""
import ctypes
import sys
import time


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    chain = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    kind = sys.argv[3] if len(sys.argv) > 3 else "cdll"
    rt = {"cdll": ctypes.CDLL, "pydll": ctypes.PyDLL}[kind]("libcudart.so.13")
    malloc, free = rt.cudaMalloc, rt.cudaFree
    malloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    malloc.restype = ctypes.c_int
    free.argtypes = [ctypes.c_void_p]
    free.restype = ctypes.c_int
    ptr = ctypes.c_void_p()
    ref = ctypes.byref(ptr)

    def loop(n):
        for _ in range(n):
            if malloc(ref, 4096) != 0 or free(ptr) != 0:
                sys.exit("cudaMalloc/cudaFree failed")

    def timed(_):
        loop(pairs // 10 + 1)  # warm-up
        t0 = time.perf_counter_ns()
        loop(pairs)
        return (time.perf_counter_ns() - t0) / pairs

    def frames(depth):
        if depth > 0:
            return frames(depth - 1)
        return timed(0)

    shape = sys.argv[4] if len(sys.argv) > 4 else "distinct"
    if shape == "recursive":
        ns = frames(chain)
    else:  # step0 -> step1 -> ... -> timed, each its own code object
        source = "".join("def step%d(x):\n    return step%d(x)\n" % (i, i + 1)
                         for i in range(chain - 1))
        source += "def step%d(x):\n    return timed(x)\n" % (chain - 1)
        scope = {"timed": timed}
        exec(compile(source, __file__, "exec"), scope)
        ns = scope["step0"](0)
    print("pycapture %.1f %d %d %s %s" % (ns, pairs, chain, kind, shape))


main()
