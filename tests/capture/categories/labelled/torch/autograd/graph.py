# SPDX-License-Identifier: MIT
"""torch/autograd/graph.py: the engine works on the calling thread (CPU-side nodes, the first
gradient buffers) and on its device threads, pt_autograd_N, which have no Python frames."""
from torch._device import empty, empty_on_engine_thread

MIB = 1 << 20


def _engine_run_backward(tensor):
    empty(1 * MIB, "gradients")  # grad_output of the loss and the first node's buffers
    empty_on_engine_thread(4 * MIB, "gradients", b"pt_autograd_0")  # parameters' .grad
    empty_on_engine_thread(2 * MIB, "gradients", b"pt_autograd_0")  # activations' gradients
