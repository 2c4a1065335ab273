# SPDX-License-Identifier: MIT
"""The Python half of the labelled set: a training script in PyTorch's shape, run by
run_labelled.sh under libvramtrace.so on the simulated device. torch/ here stands in for
PyTorch's Python layer, its files and functions named as PyTorch's are, and allocates with the
GIL released (libnogil.so). Each allocation prints "label SIZE CATEGORY NAME" with the category a
PyTorch user would give it, whatever the rules say: the model moved to the device and a
checkpoint loaded (weights), module calls (activations), loss.backward() on this thread and on
the engine's pt_autograd threads (gradients), Adam's state and temporaries (optimizer), the
DataLoader's batches (data), and the batch copied to the device by the loop itself, a
Tensor.to from a frame named for nothing (data, though no rule can know it). Sizes are in
proportion to a small model's. Exit 77 (skip) on an interpreter that is not CPython 3.8-3.13.

usage: python3 -B train.py LIBNOGIL
"""
import sys

if not ((3, 8) <= sys.version_info[:2] <= (3, 13) and sys.implementation.name == "cpython"):
    print("SKIP: not CPython 3.8-3.13", file=sys.stderr)
    sys.exit(77)

import torch  # noqa: E402 (the stand-in next to this file)
import torch.nn as nn  # noqa: E402
from torch.optim import Adam  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402

KIB = 1 << 10
MIB = 1 << 20


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8 * MIB, 4 * MIB)
        self.fc2 = nn.Linear(2 * MIB, 1 * MIB)
        self._modules = [self.fc1, self.fc2]

    def forward(self, x):
        return self.fc2(nn.functional.relu(self.fc1(x)))


def train_one_epoch(model, loader, loss_fn, optimizer):
    for inputs in loader:
        torch.empty(512 * KIB, "data")  # inputs.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=False)
        loss = loss_fn(model(inputs))
        loss.backward()
        optimizer.step()


def main():
    torch.setup(sys.argv[1])
    model = Net().to("cuda")
    model.load_state_dict({"bias": 16 * KIB})  # a checkpoint whose biases are resized
    model.zero_grad(set_to_none=False)
    optimizer = Adam(model.parameters())
    loader = DataLoader(batches=2, batch_bytes=768 * KIB)
    train_one_epoch(model, loader, nn.CrossEntropyLoss(), optimizer)
    print("train.py: ok", file=sys.stderr)


if __name__ == "__main__":
    main()
