# SPDX-License-Identifier: MIT
"""Code objects freed and their addresses reused, for tests/capture/python (run by run_python.sh with
reuse.rules): src/python.c caches a frame's "path/file.py:function" string, and a cache keyed
by the code object's address would give a new code object at a freed one's address the old
one's name. Here each round makes a function from source, allocates from it, drops it, and
makes another one, from another file or with another name, that CPython's allocator usually
puts at the same address (half the rounds compile new source, half copy one template code object
with another file or name, CodeType.replace, which 3.12 and 3.13 put at the freed address every
time; there a code object's address and co_version key the frame caches); each allocation's category says which name its frame got (the
rules match the file or the function), so the exit report's counts are exact only if no frame
got a stale name. Works on CPython 3.8-3.13.

usage: reuse.py LIBPYHELPER
"""
import ctypes
import gc
import sys
import types

ROUNDS = 200

RT = ctypes.PyDLL("libcudart.so.13")
RT.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
RT.cudaMalloc.restype = ctypes.c_int
RT.cudaFree.argtypes = [ctypes.c_void_p]
RT.cudaFree.restype = ctypes.c_int


def alloc():
    ptr = ctypes.c_void_p()
    if RT.cudaMalloc(ctypes.byref(ptr), 4096) != 0:
        sys.exit("cudaMalloc failed")
    if RT.cudaFree(ptr) != 0:
        sys.exit("cudaFree failed")


def make(filename, name):
    """A new function (and code object) called name, compiled as if from filename."""
    namespace = {}
    source = "def %s(alloc):\n    return alloc()\n" % name
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


TEMPLATE = make("template.py", "template").__code__


def make_copy(filename, name):
    """A new function whose code object is TEMPLATE's with another file and name: one object
    of the freed one's size, made right after it is freed."""
    return types.FunctionType(TEMPLATE.replace(co_filename=filename, co_name=name), {})


def run_in_turn(first, second, make=make):
    """Allocates from a function made as first, frees it, then from one made as second;
    returns whether the second code object took the first one's address."""
    fn = make(*first)
    fn(alloc)
    address = id(fn.__code__)
    del fn
    gc.collect()
    fn = make(*second)
    fn(alloc)
    return id(fn.__code__) == address


def main():
    reused = 0
    for i in range(ROUNDS):
        maker = make if i % 2 else make_copy
        # Same function name, another file: weights, then gradients (reuse.rules).
        reused += run_in_turn(("reuse_w.py", "step"), ("reuse_g.py", "step"), maker)
        # Same file, another function name: optimizer, then data.
        reused += run_in_turn(("reuse_n.py", "opt_step"), ("reuse_n.py", "data_step"), maker)
    # Not asserted: whether addresses are reused is CPython's allocator's business; say it.
    print("reuse.py: %d of %d code objects at a freed one's address" % (reused, 2 * ROUNDS))
    print("reuse.py: ok")


if __name__ == "__main__":
    main()
