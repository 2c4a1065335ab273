# SPDX-License-Identifier: MIT
"""torch/utils/data/dataloader.py: a dataset kept on the device, its samples stacked by
default_collate into each batch."""
from torch.utils.data._utils.collate import default_collate


class DataLoader:
    def __init__(self, batches, batch_bytes):
        self.batches = batches
        self.batch_bytes = batch_bytes

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)


class _SingleProcessDataLoaderIter:
    def __init__(self, loader):
        self.loader = loader
        self.left = loader.batches

    def __iter__(self):
        return self

    def _next_data(self):
        return default_collate(self.loader.batch_bytes)

    def __next__(self):
        if not self.left:
            raise StopIteration
        self.left -= 1
        return self._next_data()
