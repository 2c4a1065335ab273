# SPDX-License-Identifier: MIT
from torch.optim.adam import Adam  # noqa: F401
