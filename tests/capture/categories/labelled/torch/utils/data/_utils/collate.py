# SPDX-License-Identifier: MIT
"""torch/utils/data/_utils/collate.py: torch.stack of the samples, on the samples' device."""
from torch._device import empty
from torch._tensor import Tensor


def default_collate(nbytes):
    empty(nbytes, "data")
    return Tensor(nbytes)
