# SPDX-License-Identifier: MIT
"""torch/nn/modules/loss.py"""
import torch.nn.functional as F
from torch.nn.modules.module import Module


class CrossEntropyLoss(Module):
    def forward(self, x):
        return F.cross_entropy(x)
