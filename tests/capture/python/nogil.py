# SPDX-License-Identifier: MIT
"""Allocations made with the GIL released, as PyTorch's bindings make them, for tests/capture/python
(run by run_python.sh under libvramtrace.so on the simulated device). The extension
libnogil.so (nogil.c) releases the GIL around each cudaMalloc / cuMemAlloc; the functions here
are named for what they allocate and each call site has its own size, so the bytes per category
in the exit report say which rule decided each one: the main thread, a threading.Thread, deep
recursion, a generator, coroutines, a thread holding the GIL that walks every thread's frames,
makes garbage and raises meanwhile, an atexit handler, ctypes.CDLL (as numba calls the driver),
and plain pthreads with no Python at all. Works on CPython 3.8-3.13.

usage: nogil.py LIBNOGIL                 the run; writes the expected frames to nogil-lines.txt
       nogil.py --check FOLDED LINES      checks the trace's folded stacks against them
"""
import atexit
import ctypes
import gc
import sys
import threading

KIB = 1024
MIB = 1024 * KIB
LINES = []  # (caller, caller's line, rt_alloc's or drv_alloc's name and line)


def setup(path):
    lib = ctypes.PyDLL(path)  # the GIL is held on entry; the extension releases it
    lib.nogil_runtime_alloc.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
    lib.nogil_runtime_free.argtypes = [ctypes.c_void_p]
    lib.nogil_driver_alloc.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_ulonglong)]
    lib.nogil_plain_thread_alloc.argtypes = [ctypes.c_size_t, ctypes.c_char_p]
    rc = lib.nogil_setup()
    if rc != 0:
        sys.exit("nogil_setup failed at step %d" % rc)
    return lib


NOGIL = None
KEEP = []  # live at exit: the report counts them


def rt_alloc(nbytes, keep=True):
    caller = sys._getframe(1)
    ptr = ctypes.c_void_p()
    rc = NOGIL.nogil_runtime_alloc(nbytes, ctypes.byref(ptr)); line = sys._getframe().f_lineno
    assert rc == 0, rc
    LINES.append((caller.f_code.co_name, caller.f_lineno, "rt_alloc", line))
    if keep:
        KEEP.append(ptr)
    return ptr


def drv_alloc(nbytes):
    caller = sys._getframe(1)
    ptr = ctypes.c_ulonglong()
    rc = NOGIL.nogil_driver_alloc(nbytes, ctypes.byref(ptr)); line = sys._getframe().f_lineno
    assert rc == 0, rc
    LINES.append((caller.f_code.co_name, caller.f_lineno, "drv_alloc", line))
    KEEP.append(ptr)


def init_weights():  # weights: py:*:*weight*
    rt_alloc(1 * MIB)


def forward():  # activations: py:*:*forward*, through the driver
    drv_alloc(2 * MIB)


def load_batch():  # data, on a threading.Thread
    rt_alloc(512 * KIB)


def compute_grads():  # gradients, 150 Python frames below main: the innermost ones are kept
    drv_alloc(64 * KIB)


def recurse(depth, fn):
    return recurse(depth - 1, fn) if depth else fn()


def weight_shards():  # weights, from a generator
    for _ in range(3):
        yield rt_alloc(32 * KIB)


async def make_moments():
    return rt_alloc(256 * KIB)


async def optimizer_state():  # optimizer: a coroutine awaiting another
    return await make_moments()


def run_coroutine(coro):
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the coroutine did not finish")


def churn(stop):
    """Holds the GIL between the main thread's allocations: reads every thread's frames (which
    makes frame objects for them), makes cyclic garbage and raises."""
    while not stop.is_set():
        sys._current_frames()
        garbage = [[]]
        garbage[0].append(garbage)
        del garbage
        try:
            raise ValueError("churn")
        except ValueError:
            pass
        gc.collect(0)


def forward_under_contention():  # activations, 300 allocations while churn runs
    stop = threading.Event()
    noise = threading.Thread(target=churn, args=(stop,))
    noise.start()
    try:
        for i in range(300):
            ptr = rt_alloc(4 * KIB, keep=i == 299)  # the last one stays, for the folded stacks
            if i < 299:
                assert NOGIL.nogil_runtime_free(ptr) == 0
    finally:
        stop.set()
        noise.join()
    del LINES[-300:-1]  # one of them is enough to check


def load_input_via_cdll():  # data: ctypes.CDLL releases the GIL, as numba's driver calls do
    rt = ctypes.CDLL("libcudart.so.13")
    rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    ptr = ctypes.c_void_p()
    assert rt.cudaMalloc(ctypes.byref(ptr), 48 * KIB) == 0
    KEEP.append(ptr)


def weights_from_plain_thread():  # unknown: no Python on that thread, whatever this is called
    assert NOGIL.nogil_plain_thread_alloc(16 * KIB, b"vt-plain") == 0


def autograd_engine():  # gradients, by the thread's name alone
    assert NOGIL.nogil_plain_thread_alloc(128 * KIB, b"pt_autograd_0") == 0


def too_big_for_the_device():  # out of memory: not live, the OOM record names this frame
    ptr = ctypes.c_void_p()
    assert NOGIL.nogil_runtime_alloc(1 << 50, ctypes.byref(ptr)) != 0


def save_weights_at_exit():  # weights, while the interpreter shuts down (atexit)
    rt_alloc(8 * KIB)


def main():
    global NOGIL
    NOGIL = setup(sys.argv[1])
    atexit.register(save_weights_at_exit)
    init_weights()
    forward()
    worker = threading.Thread(target=load_batch)
    worker.start()
    worker.join()
    recurse(150, compute_grads)
    list(weight_shards())
    run_coroutine(optimizer_state())
    forward_under_contention()
    load_input_via_cdll()
    weights_from_plain_thread()
    autograd_engine()
    too_big_for_the_device()
    with open("nogil-lines.txt", "w") as out:
        for caller, caller_line, inner, inner_line in LINES:
            out.write("%s %d %s %d\n" % (caller, caller_line, inner, inner_line))
    print("nogil.py: ok")


def is_python(frame):
    return ".py:" in frame and " (" not in frame


def interpreter(frame):
    return "libpython3" in frame or "(python3" in frame


def check(folded_path, lines_path):
    """Each recorded allocation's two innermost Python frames, with their lines, must appear in
    a stack of the trace, the caller outside the callee with no other Python frame between, and
    every run of Python frames must sit inside the interpreter's native frames: spliced in
    order, not appended after the program's entry point nor left innermost."""
    stacks = [line.rsplit(" ", 1)[0].split(";") for line in open(folded_path)]
    ok = True
    for stack in stacks:
        if any(":compute_grads:" in f for f in stack):
            continue  # the native unwind stops inside the recursion: the rest go outermost
        for i, frame in enumerate(stack):
            if not is_python(frame):
                continue
            if i == 0 or (not is_python(stack[i - 1]) and not interpreter(stack[i - 1])):
                print("check: %s follows %r" % (frame, stack[i - 1] if i else "nothing"))
                ok = False
            if i + 1 == len(stack):
                print("check: %s is the innermost frame" % frame)
                ok = False
    for entry in open(lines_path):
        caller, caller_line, inner, inner_line = entry.split()
        outer = "/nogil.py:%s:%s" % (caller, caller_line)
        inside = "/nogil.py:%s:%s" % (inner, inner_line)
        found = False
        for stack in stacks:
            for i, frame in enumerate(stack):
                if frame.endswith(outer):
                    j = i + 1
                    while j < len(stack) and not is_python(stack[j]):
                        j += 1
                    found = found or (j < len(stack) and stack[j].endswith(inside))
        if not found:
            print("check: no stack has %s just outside %s" % (outer, inside))
            ok = False
    print("nogil.py: check ok" if ok else "nogil.py: check FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    main()
