# SPDX-License-Identifier: MIT
"""torch/nn/modules/module.py: parameters moved by to()/_apply, loaded by load_state_dict, called
through _wrapped_call_impl/_call_impl, and zero_grad."""
from torch._device import empty


class Module:
    def __init__(self):
        self._parameters = {}  # name: bytes, on the host until to() moves them
        self._modules = []

    def register_parameter(self, name, nbytes):
        self._parameters[name] = nbytes

    def parameters(self):
        for m in [self] + self._modules:
            for nbytes in m._parameters.values():
                yield nbytes

    def _apply(self, fn):
        for m in self._modules:
            m._apply(fn)
        for name, nbytes in self._parameters.items():
            fn(nbytes)  # Tensor.to: a new tensor on the device
        return self

    def to(self, device):
        return self._apply(lambda nbytes: empty(nbytes, "weights"))

    def load_state_dict(self, state_dict):
        for m in [self] + self._modules:
            m._load_from_state_dict(state_dict)

    def _load_from_state_dict(self, state_dict):
        for name in self._parameters:
            if name in state_dict:
                empty(state_dict[name], "weights")  # a buffer the checkpoint resized

    def zero_grad(self, set_to_none=True):
        if not set_to_none:
            empty(128 << 10, "gradients")  # a .grad materialised as zeros

    def _call_impl(self, *args):
        return self.forward(*args)

    def _wrapped_call_impl(self, *args):
        return self._call_impl(*args)

    __call__ = _wrapped_call_impl
