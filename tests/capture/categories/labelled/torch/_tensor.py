# SPDX-License-Identifier: MIT
"""torch/_tensor.py: Tensor.backward hands over to torch.autograd."""
import torch.autograd


class Tensor:
    def __init__(self, nbytes):
        self.nbytes = nbytes

    def backward(self):
        torch.autograd.backward(self)
