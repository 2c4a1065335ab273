# SPDX-License-Identifier: MIT
from torch.nn.modules.linear import Linear  # noqa: F401
from torch.nn.modules.loss import CrossEntropyLoss  # noqa: F401
from torch.nn.modules.module import Module  # noqa: F401
