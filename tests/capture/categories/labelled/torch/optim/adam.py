# SPDX-License-Identifier: MIT
"""torch/optim/adam.py: the first step makes exp_avg and exp_avg_sq for every parameter; every
step makes the foreach kernels' temporaries."""
from torch._device import empty
from torch.optim.optimizer import Optimizer, _use_grad


class Adam(Optimizer):
    def _init_group(self):
        for i, nbytes in enumerate(self.params):
            if i not in self.state:
                empty(nbytes, "optimizer")  # exp_avg
                empty(nbytes, "optimizer")  # exp_avg_sq
                self.state[i] = True

    @_use_grad
    def step(self):
        self._init_group()
        _multi_tensor_adam(self.params)


def _multi_tensor_adam(params):
    empty(256 << 10, "optimizer")  # torch._foreach_sqrt's results
