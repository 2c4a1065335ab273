# SPDX-License-Identifier: MIT
"""numba (a real third-party client: it reaches the driver through ctypes with the GIL
released) allocating from functions named for what they hold, for tests/capture/python (run by
run_python.sh under libvramtrace.so on the simulated device): each device allocation's bytes
must land in the category its Python function names, from the frames read without the GIL.

usage: numba_categories.py IGNORED
"""
import numpy as np
from numba import cuda


def init_weights():  # weights: device_array
    return cuda.device_array(1 << 20, dtype=np.uint8)


def load_batch():  # data: to_device
    return cuda.to_device(np.zeros(1 << 19, dtype=np.uint8))


def compute_grads():  # gradients: device_array_like
    return cuda.device_array_like(np.zeros(1 << 18, dtype=np.uint8))


def pinned_input_batch():  # pinned host memory: not a device category
    return cuda.pinned_array(1 << 16, dtype=np.uint8)


def mapped_weights():  # mapped host memory: not a device category
    return cuda.mapped_array(1 << 15, dtype=np.uint8)


def managed_optimizer_state():  # managed memory
    return cuda.managed_array(1 << 14, dtype=np.uint8)


KEEP = [init_weights(), load_batch(), compute_grads(), pinned_input_batch(), mapped_weights(),
        managed_optimizer_state()]
print("numba_categories.py: ok")
