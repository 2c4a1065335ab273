#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A tiny GPT-style model trained a few steps on random tokens, for tests/system/gpu/validate.sh.

Each step runs under torch.cuda.nvtx ranges "forward", "backward" and "optimizer" (the batch is
made in get_batch, a name the default category rules call data). At the end it prints
machine-readable lines, one `key=value` each:

    train.py: max_memory_allocated=BYTES
    train.py: max_memory_reserved=BYTES
    train.py: step_ms=MS          (median over the steps after --warmup)
    train.py: loss_first=X loss_last=Y

It needs PyTorch with a CUDA device; the default test suite never runs it.
    usage: train.py [--steps N] [--warmup N] [--batch N] [--seq N] [--vocab N] [--dim N]
                    [--layers N] [--heads N]
"""
import argparse
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    """Pre-norm transformer block: causal self-attention, then a 4x GELU MLP."""

    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab, seq, dim, layers, heads):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied, as in GPT-2

    def forward(self, idx):
        seq = idx.shape[1]
        pos = torch.arange(seq, device=idx.device)
        mask = torch.triu(torch.ones(seq, seq, device=idx.device, dtype=torch.bool), 1)
        x = self.tok(idx) + self.pos(pos)
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.ln_f(x))


def get_batch(args, device):
    tokens = torch.randint(args.vocab, (args.batch, args.seq + 1), device=device)
    return tokens[:, :-1], tokens[:, 1:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seq", type=int, default=256)
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--heads", type=int, default=6)
    args = parser.parse_args()
    if args.steps <= args.warmup or args.warmup < 0:
        parser.error("--steps must exceed --warmup (>= 0)")
    if not torch.cuda.is_available():
        raise SystemExit("train.py: no CUDA device for PyTorch")
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = TinyGPT(args.vocab, args.seq, args.dim, args.layers, args.heads).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    times, losses = [], []
    for step in range(args.steps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        x, y = get_batch(args, device)
        with torch.cuda.nvtx.range("forward"):
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, args.vocab), y.reshape(-1))
        with torch.cuda.nvtx.range("backward"):
            loss.backward()
        with torch.cuda.nvtx.range("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        losses.append(loss.item())  # synchronizes
        torch.cuda.synchronize()
        if step >= args.warmup:
            times.append(time.perf_counter() - start)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"train.py: params={n_params} batch={args.batch} seq={args.seq} steps={args.steps}")
    print(f"train.py: max_memory_allocated={torch.cuda.max_memory_allocated()}")
    print(f"train.py: max_memory_reserved={torch.cuda.max_memory_reserved()}")
    print(f"train.py: step_ms={1e3 * statistics.median(times):.3f}")
    print(f"train.py: loss_first={losses[0]:.4f} loss_last={losses[-1]:.4f}")


if __name__ == "__main__":
    main()
