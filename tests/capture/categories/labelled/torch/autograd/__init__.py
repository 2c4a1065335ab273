# SPDX-License-Identifier: MIT
"""torch/autograd/__init__.py: backward runs the engine (torch/autograd/graph.py)."""
from torch.autograd.graph import _engine_run_backward


def backward(tensor):
    _engine_run_backward(tensor)
