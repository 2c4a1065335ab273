# SPDX-License-Identifier: MIT
"""torch/nn/functional.py: the operators a forward pass runs, each output an activation."""
from torch._device import empty
from torch._tensor import Tensor


def linear(x, nbytes):
    empty(nbytes, "activations")
    return Tensor(nbytes)


def relu(x):
    empty(x.nbytes, "activations")
    return Tensor(x.nbytes)


def cross_entropy(x):
    empty(64 << 10, "activations")
    return Tensor(64 << 10)
