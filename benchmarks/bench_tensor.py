"""Eager Tensor-shim speed: one SGD step of the seed logistic regression.

Model: z = x @ w + b, mean binary cross entropy with logits, backward, update.
Two sizes: the tutorial's x (5,), w (5, 3), and a batch of 256 rows. srcgrad is
timed against PyTorch's eager autograd when PyTorch is installed. Not a test.

    python benchmarks/bench_tensor.py [--repeat 7] [--number 2000]
"""

import argparse
import timeit

import numpy as np

import srcgrad


def _problem(lib, batch, seed=0):
    rng = np.random.default_rng(seed)
    shape_x = (5,) if batch is None else (batch, 5)
    shape_y = (3,) if batch is None else (batch, 3)
    x = lib.tensor(rng.standard_normal(shape_x).astype(np.float32))
    y = lib.tensor((rng.random(shape_y) < 0.5).astype(np.float32))
    w = lib.tensor(rng.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True)
    return x, y, w, b


def _step(lib):
    bce = lib.nn.functional.binary_cross_entropy_with_logits

    def step(x, y, w, b, lr=0.1):
        loss = bce(lib.matmul(x, w) + b, y)
        loss.backward()
        with lib.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
            w.grad.zero_()
            b.grad.zero_()
        return loss

    return step


def time_step(lib, batch, repeat, number):
    """Best per-step time in seconds over `repeat` runs of `number` steps."""
    args = _problem(lib, batch)
    step = _step(lib)
    step(*args)  # warm up (first .grad allocation)
    return min(timeit.repeat(lambda: step(*args), repeat=repeat, number=number)) / number


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=2000)
    opts = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print(f"one SGD step of logistic regression (best of {opts.repeat} x {opts.number} steps)")
    print(f"{'case':<22}{'srcgrad':>12}{'pytorch':>12}{'srcgrad/pytorch':>18}")
    for label, batch in (("x (5,), w (5, 3)", None), ("x (256, 5), w (5, 3)", 256)):
        ours = time_step(srcgrad, batch, opts.repeat, opts.number)
        theirs = time_step(torch, batch, opts.repeat, opts.number) if torch else None
        ratio = f"{ours / theirs:>17.2f}x" if theirs else f"{'-':>18}"
        pt = f"{theirs * 1e6:>10.1f}us" if theirs else f"{'n/a':>12}"
        print(f"{label:<22}{ours * 1e6:>10.1f}us{pt}{ratio}")


if __name__ == "__main__":
    main()
