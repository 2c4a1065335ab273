# SPDX-License-Identifier: MIT
"""A stand-in for PyTorch's Python layer, for labelled/train.py: its files and functions are named
as PyTorch's are, so the built-in rules see the Python frames a real training script has. Device
memory comes from torch/_device.py, with the GIL released around cudaMalloc as PyTorch's
bindings release it."""
from torch._device import empty, setup  # noqa: F401
from torch._tensor import Tensor  # noqa: F401
