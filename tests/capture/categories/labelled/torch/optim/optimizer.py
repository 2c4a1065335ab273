# SPDX-License-Identifier: MIT
"""torch/optim/optimizer.py: step is wrapped (profiling hooks), zero_grad resets the gradients."""
import functools

from torch._device import empty


def _use_grad(step):
    @functools.wraps(step)
    def wrapper(self, *args):
        return step(self, *args)

    return wrapper


class Optimizer:
    def __init__(self, params):
        self.params = list(params)
        self.state = {}

    def zero_grad(self, set_to_none=True):
        if not set_to_none:
            empty(96 << 10, "gradients")
