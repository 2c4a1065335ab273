# SPDX-License-Identifier: MIT
"""fork_names.sh's script: two functions allocate (through ctypes.CDLL, the GIL released) in the
parent, so their names are cached; the forked child, whose strings start over, allocates from
them again in the other order: its trace must name each allocation by its own function."""
import ctypes
import os

rt = ctypes.CDLL("libcudart.so.13")
rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
ptr = ctypes.c_void_p()


def parent_first(size):
    assert rt.cudaMalloc(ctypes.byref(ptr), size) == 0


def child_first(size):
    assert rt.cudaMalloc(ctypes.byref(ptr), size) == 0


for _ in range(3):
    parent_first(1 << 20)
    child_first(3 << 20)
pid = os.fork()
if pid == 0:
    child_first(2 << 20)
    parent_first(5 << 20)
    os._exit(0)
_, status = os.waitpid(pid, 0)
assert status == 0
print("fork_names.py: ok")
