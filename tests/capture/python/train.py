# SPDX-License-Identifier: MIT
"""Allocations from named Python functions, for tests/capture/python (run by run_python.sh under
libvramtrace.so on the simulated device). Each call site has its own size, so the bytes per
category in the exit report say which rule decided each one. Works on CPython 3.8-3.13.

usage: train.py LIBPYHELPER
"""
import ctypes
import gc
import sys

KIB = 1024
MIB = 1024 * KIB


def runtime(kind):
    lib = kind("libcudart.so.13")
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.cudaMalloc.restype = ctypes.c_int
    lib.cudaFree.argtypes = [ctypes.c_void_p]
    lib.cudaFree.restype = ctypes.c_int
    return lib


# PyDLL keeps the GIL across the call; CDLL releases it, as PyTorch's bindings and numba's driver
# calls do. Either way the allocation has the thread's Python frames.
RT = runtime(ctypes.PyDLL)
RT_NO_GIL = runtime(ctypes.CDLL)
HELPER = ctypes.PyDLL(sys.argv[1])
ALLOC_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t)
CUDA_MALLOC = ctypes.cast(RT.cudaMalloc, ALLOC_FN)
HELPER.pyhelper_alloc_in_thread.argtypes = [ALLOC_FN, ctypes.c_size_t, ctypes.c_char_p]
HELPER.pyhelper_raise_then_alloc.argtypes = [ALLOC_FN, ctypes.c_size_t]
HELPER.pyhelper_flagged_alloc.argtypes = [ALLOC_FN, ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.c_size_t]


def malloc(nbytes, lib=RT):
    ptr = ctypes.c_void_p()
    rc = lib.cudaMalloc(ctypes.byref(ptr), nbytes)
    if rc != 0:
        sys.exit("cudaMalloc(%d) failed: %d" % (nbytes, rc))
    return ptr


def free(ptr):
    rc = RT.cudaFree(ptr)
    if rc != 0:
        sys.exit("cudaFree failed: %d" % rc)


def init_weights():  # weights: py:*:*weight*
    return malloc(1 * MIB)


def forward():  # activations: py:*:*forward*
    return malloc(2 * MIB)


def backward():  # gradients: py:*:*backward*
    return malloc(64 * KIB)


def train_step():
    activations = forward()
    grads = backward()
    free(activations)
    return grads


def load_batch():  # data: py:*:*batch*
    return malloc(512 * KIB)


def load_small_batch():  # data, though 300 frames below main: the innermost frames are kept
    return malloc(4 * KIB)


def recurse(depth, fn):
    return recurse(depth - 1, fn) if depth else fn()


def weights_without_gil():
    """The allocating thread has released the GIL: weights all the same."""
    return malloc(32 * KIB, RT_NO_GIL)


def weights_from_native_thread():
    """A plain pthread, no Python thread state: unknown, whatever this frame is called."""
    rc = HELPER.pyhelper_alloc_in_thread(CUDA_MALLOC, 16 * KIB, b"vt-helper")
    assert rc == 0, rc


def autograd_engine():
    """A native thread named like PyTorch's autograd threads: gradients by thread name."""
    rc = HELPER.pyhelper_alloc_in_thread(CUDA_MALLOC, 128 * KIB, b"pt_autograd_0")
    assert rc == 0, rc


def weights_with_pending_exception():
    """The exception set before the allocation comes out unchanged."""
    try:
        HELPER.pyhelper_raise_then_alloc(CUDA_MALLOC, 8 * KIB)
    except KeyError as e:
        assert e.args == ("kept",), e.args
    else:
        raise AssertionError("the pending KeyError was lost")
    assert sys.exc_info() == (None, None, None)


def weights_under_gc_pressure():
    """With a collection due at every container allocation, none may start inside the
    recording path: a collection runs Python code (finalizers, callbacks)."""
    in_alloc = ctypes.c_int.in_dll(HELPER, "pyhelper_in_alloc")
    during = []

    def callback(phase, info):
        if in_alloc.value:
            during.append(phase)

    def nested(depth):
        # Fresh frames each time: 3.11+ makes a frame object for each when the call-site is
        # taken, and each one counts towards the next collection.
        if depth:
            return nested(depth - 1)
        garbage = [[]]
        garbage[0].append(garbage)  # cyclic garbage for the collector to find
        del garbage
        ptr = ctypes.c_void_p()
        rc = HELPER.pyhelper_flagged_alloc(CUDA_MALLOC, ctypes.byref(ptr), 256)
        assert rc == 0, rc

    threshold = gc.get_threshold()
    gc.callbacks.append(callback)
    gc.set_threshold(1, 1, 1)
    try:
        for _ in range(20):
            nested(4)
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(callback)
    assert not during, "a collection ran inside cudaMalloc: %r" % during


def main():
    weights = init_weights()
    grads = train_step()
    batch = load_batch()
    deep = recurse(300, load_small_batch)
    weights_without_gil()
    weights_from_native_thread()
    autograd_engine()
    weights_with_pending_exception()
    weights_under_gc_pressure()
    del weights, grads, batch, deep  # live at exit: the report counts them
    print("train.py: ok")


if __name__ == "__main__":
    main()
