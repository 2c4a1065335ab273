# SPDX-License-Identifier: MIT
"""Device memory for the stand-in: libnogil.so (tests/capture/python/nogil.c) releases the GIL
around cudaMalloc. Each allocation prints "label SIZE CATEGORY NAME" with the category a PyTorch
user would give it, named by the caller; every size is made distinct so run_labelled.sh can match
the trace's allocations to their labels. Names here avoid every rule's words: only the frames of
the callers may decide."""
import ctypes
import sys

LIB = None
KEEP = []  # live to the end, as a training run's tensors are
_count = [0]


def setup(path):
    global LIB
    LIB = ctypes.PyDLL(path)
    LIB.nogil_runtime_alloc.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
    LIB.nogil_plain_thread_alloc.argtypes = [ctypes.c_size_t, ctypes.c_char_p]
    rc = LIB.nogil_setup()
    if rc != 0:
        sys.exit("nogil_setup failed at step %d" % rc)


def _size(nbytes):
    _count[0] += 1
    return nbytes + 256 * _count[0]


def empty(nbytes, label):
    """cudaMalloc of about nbytes, GIL released, on this thread."""
    nbytes = _size(nbytes)
    print("label %d %s %s" % (nbytes, label, sys._getframe(1).f_code.co_name))
    ptr = ctypes.c_void_p()
    rc = LIB.nogil_runtime_alloc(nbytes, ctypes.byref(ptr))
    assert rc == 0, rc
    KEEP.append(ptr)


def empty_on_engine_thread(nbytes, label, thread_name):
    """cudaMalloc on a native thread without Python, as the autograd engine's device threads."""
    nbytes = _size(nbytes)
    print("label %d %s %s" % (nbytes, label, thread_name.decode()))
    assert LIB.nogil_plain_thread_alloc(nbytes, thread_name) == 0
