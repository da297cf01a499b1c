"""Tensor-shim speed: one SGD step of the seed logistic regression, and single ops.

Model: z = x @ w + b, mean binary cross entropy with logits, backward, SGD update
(`w -= lr * w.grad` under `no_grad()`, then `w.grad.zero_()`). Two sizes: the
tutorial's x (5,), w (5, 3), and a batch of 256 rows. The implementations:

- `eager`:   srcgrad's Tensor shim, op by op (one graph node per op);
- `pytorch`: PyTorch's eager autograd, when PyTorch is installed (one thread);
- `compile`: the loss written in NumPy under `@srcgrad.compile` (one graph node
  whose backward is the generated adjoint); the update is the same Tensor code;
- `compile-numba`: the same with `@srcgrad.compile(backend="numba")`, when numba is
  installed (the generated code compiled by numba).

The implementations are timed interleaved in one process (round r times each of
them once), and the best round counts. Each size gets three rows: the whole step;
`loss + backward`, the part that `@srcgrad.compile` replaces (the update is the same
Tensor code in `eager` and `compile`); and the update alone. Then a per-op table times
single operations on tiny tensors (3 elements) in both libraries; its `numpy`
column is the NumPy arithmetic srcgrad runs for the op, and `overhead/pytorch`
compares what srcgrad adds to it (the per-op overhead) with PyTorch's whole op.
Not a test.

    python benchmarks/bench_tensor.py [--repeat 7] [--number 2000] [--no-ops]
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


def _update(lib, w, b, lr):
    with lib.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()


def _eager_loss(lib):
    bce = lib.nn.functional.binary_cross_entropy_with_logits

    def loss(x, y, w, b):
        return bce(lib.matmul(x, w) + b, y)

    return loss


@srcgrad.compile
def bce_loss(w, b, x, y):
    """The same loss as NumPy code: mean of log(1 + exp(z)) - y * z."""
    z = np.matmul(x, w) + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def _compiled_loss(x, y, w, b):
    return bce_loss(w, b, x, y)


def _numba_loss():
    """The compiled loss with `backend="numba"`, or None without numba."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return None
    compiled = srcgrad.compile(backend="numba")(bce_loss.__wrapped__)
    return lambda x, y, w, b: compiled(w, b, x, y)


def _step(lib, loss_of):
    """One SGD step: the loss, backward, the update."""

    def step(x, y, w, b, lr=0.1):
        loss = loss_of(x, y, w, b)
        loss.backward()
        _update(lib, w, b, lr)
        return loss

    return step


def _loss_backward(loss_of):
    """The step without its update (gradients keep accumulating: the cost is the same)."""

    def part(x, y, w, b):
        loss = loss_of(x, y, w, b)
        loss.backward()
        return loss

    return part


def _update_only(lib):
    def part(x, y, w, b, lr=0.1):
        _update(lib, w, b, lr)

    return part


def _eager_step(lib):
    return _step(lib, _eager_loss(lib))


def _compiled_step():
    return _step(srcgrad, _compiled_loss)


def _implementations(torch):
    """(name, lib, {part: callable}) per implementation; the parts are `PARTS`."""
    impls = [("eager", srcgrad, _eager_loss(srcgrad))]
    if torch is not None:
        impls.append(("pytorch", torch, _eager_loss(torch)))
    impls.append(("compile", srcgrad, _compiled_loss))
    numba_loss = _numba_loss()
    if numba_loss is not None:
        impls.append(("compile-numba", srcgrad, numba_loss))
    return [
        (name, lib, {"step": _step(lib, loss), "loss + backward": _loss_backward(loss), "update": _update_only(lib)})
        for name, lib, loss in impls
    ]


PARTS = ("step", "loss + backward", "update")


def time_steps(impls, batch, repeat, number):
    """Best time in seconds per call of each part of each implementation, timed
    interleaved: {part: {implementation: seconds}}."""
    runs = []
    for name, lib, parts in impls:
        args = _problem(lib, batch)
        parts["step"](*args)  # warm up: first .grad allocation, derivation of the compiled loss
        parts["step"](*args)
        for part in PARTS:
            runs.append((part, name, lambda call=parts[part], args=args: call(*args)))
    best = {part: {} for part in PARTS}
    for _ in range(repeat):
        for part, name, call in runs:
            t = timeit.timeit(call, number=number) / number
            best[part][name] = min(best[part].get(name, float("inf")), t)
    return best


def check_losses(impls, batch, steps=20):
    """The loss after `steps` SGD steps per implementation (they must agree)."""
    out = {}
    for name, lib, parts in impls:
        args = _problem(lib, batch)
        for _ in range(steps):
            loss = parts["step"](*args)
        out[name] = float(loss.item())
    return out


# --- single ops ------------------------------------------------------------------------


def _op_cases(lib):
    """(label, setup() -> zero-argument callable) per operation on tiny tensors: `a`, `b`
    of 3 elements and `m` of 2x3 that require grad, `y` a constant target."""

    def tensors():
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        m = lib.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 0.5]], requires_grad=True)
        y = lib.tensor([1.0, 0.0, 1.0])
        return a, b, m, y

    def op(fn):
        def setup():
            a, b, m, y = tensors()
            return lambda: fn(a, b, m, y)

        return setup

    def untracked_mul():
        g = tensors()[0].detach()
        return lambda: 0.1 * g

    def sgd_update():
        a = tensors()[0]
        (a * a).sum().backward()

        def run():
            with lib.no_grad():
                a.sub_(0.1 * a.grad)
                a.grad.zero_()

        return run

    F = lib.nn.functional
    return [
        ("a * b", op(lambda a, b, m, y: a * b)),
        ("a + b", op(lambda a, b, m, y: a + b)),
        ("a / b", op(lambda a, b, m, y: a / b)),
        ("a + 2.0", op(lambda a, b, m, y: a + 2.0)),
        ("a ** 2", op(lambda a, b, m, y: a**2)),
        ("-a", op(lambda a, b, m, y: -a)),
        ("a.exp()", op(lambda a, b, m, y: a.exp())),
        ("a.log()", op(lambda a, b, m, y: a.log())),
        ("a.tanh()", op(lambda a, b, m, y: a.tanh())),
        ("a.sigmoid()", op(lambda a, b, m, y: a.sigmoid())),
        ("relu(a)", op(lambda a, b, m, y: F.relu(a))),
        ("a.sum()", op(lambda a, b, m, y: a.sum())),
        ("a.mean()", op(lambda a, b, m, y: a.mean())),
        ("m.sum(0)", op(lambda a, b, m, y: m.sum(0))),
        ("m @ a", op(lambda a, b, m, y: m @ a)),
        ("a @ b", op(lambda a, b, m, y: a @ b)),
        ("a[0]", op(lambda a, b, m, y: a[0])),
        ("m.t()", op(lambda a, b, m, y: m.t())),
        ("a.view(3, 1)", op(lambda a, b, m, y: a.view(3, 1))),
        ("a.norm()", op(lambda a, b, m, y: a.norm())),
        ("mse_loss(a, y)", op(lambda a, b, m, y: F.mse_loss(a, y))),
        ("bce_with_logits(a, y)", op(lambda a, b, m, y: F.binary_cross_entropy_with_logits(a, y))),
        ("(a * b).sum().backward()", op(lambda a, b, m, y: (a * b).sum().backward())),
        ("0.1 * g (untracked)", untracked_mul),
        ("no_grad: a -= lr*g; zero_", sgd_update),
    ]


def _numpy_cases():
    """label -> zero-argument callable: the NumPy arithmetic srcgrad runs for the op's
    forward (the same calls on the same arrays), for the ops that are one such call."""
    from srcgrad.rules import activations
    from srcgrad.runtime import mean_of

    a, b = np.array([1.0, 2.0, 3.0], np.float32), np.array([4.0, 5.0, 6.0], np.float32)
    m, y = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 0.5]], np.float32), np.array([1.0, 0.0, 1.0], np.float32)
    flat = a.ravel(order="K")
    return {
        "a * b": lambda: a * b, "a + b": lambda: a + b, "a / b": lambda: a / b, "a + 2.0": lambda: a + 2.0,
        "a ** 2": lambda: a**2, "-a": lambda: -a, "a.exp()": lambda: np.exp(a), "a.log()": lambda: np.log(a),
        "a.tanh()": lambda: np.tanh(a), "a.sigmoid()": lambda: activations.expit(a),
        "relu(a)": lambda: activations.relu(a), "a.sum()": lambda: np.array(np.add.reduce(a, None)),
        "a.mean()": lambda: np.array(mean_of(a)), "m.sum(0)": lambda: np.add.reduce(m, 0, None, None, False),
        "m @ a": lambda: m @ a, "a @ b": lambda: np.array(a @ b), "a[0]": lambda: np.array(a[0]),
        "m.t()": lambda: m.transpose((1, 0)), "a.view(3, 1)": lambda: a.reshape((3, 1)),
        "a.norm()": lambda: np.array(np.sqrt(flat.dot(flat))),
        "mse_loss(a, y)": lambda: np.array(activations.mse_loss(a, y)),
        "bce_with_logits(a, y)": lambda: np.array(activations.binary_cross_entropy_with_logits(a, y)),
    }


def time_ops(libs, repeat, number):
    """Best time per call of each op in each library (label -> {lib name: seconds})."""
    table = {}
    for cases in zip(*(_op_cases(lib) for _, lib in libs)):
        label = cases[0][0]
        calls = [(name, setup()) for (name, _), (_, setup) in zip(libs, cases)]
        best = {name: float("inf") for name, _ in calls}
        for _ in range(repeat):
            for name, call in calls:
                best[name] = min(best[name], timeit.timeit(call, number=number) / number)
        table[label] = best
    return table


def _us(t):
    return f"{t * 1e6:>10.1f}us" if t is not None else f"{'n/a':>12}"


def _ratio(a, b):
    return f"{a / b:>13.2f}x" if a is not None and b else f"{'-':>14}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--no-ops", action="store_true", help="skip the per-op table")
    opts = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
    impls = _implementations(torch)
    print(f"one SGD step of logistic regression (best of {opts.repeat} x {opts.number} calls, interleaved)")
    names = [name for name, _, _ in impls]
    others = [name for name in names if name != "eager"]
    print(f"{'case':<38}" + "".join(f"{n:>14}" for n in names) + "".join(f"{'eager/' + n:>20}" for n in others))
    for label, batch in (("x (5,), w (5, 3)", None), ("x (256, 5), w (5, 3)", 256)):
        best = time_steps(impls, batch, opts.repeat, opts.number)
        for part in PARTS:
            times = best[part]
            row = f"{label}: {part}"
            print(f"{row:<38}" + "".join(f"{_us(times[n]):>14}" for n in names)
                  + "".join(f"{_ratio(times['eager'], times[n]):>20}" for n in others))
    losses = check_losses(impls, 256)
    print("loss after 20 steps (batch 256): " + ", ".join(f"{k} {v:.6f}" for k, v in losses.items()))
    if opts.no_ops:
        return
    libs = [("srcgrad", srcgrad)] + ([("pytorch", torch)] if torch else [])
    print(f"\nsingle ops on tensors of 3 elements (best of {opts.repeat} x {opts.number} calls)")
    print(f"{'op':<28}{'srcgrad':>12}{'pytorch':>12}{'numpy':>12}{'srcgrad/pytorch':>16}{'overhead/pytorch':>17}")
    table = time_ops(libs, opts.repeat, opts.number)
    floors = _numpy_cases()
    for label, best in table.items():
        ours, theirs = best["srcgrad"], best.get("pytorch")
        floor = floors.get(label)
        if floor is not None:
            floor = min(timeit.repeat(floor, number=opts.number, repeat=opts.repeat)) / opts.number
        overhead = ours - floor if floor is not None else None
        print(f"{label:<28}{_us(ours)}{_us(theirs)}{_us(floor)}{_ratio(ours, theirs):>16}{_ratio(overhead, theirs):>17}")
    if torch is not None:
        ratios = sorted(best["srcgrad"] / best["pytorch"] for best in table.values())
        print(f"srcgrad/pytorch over the {len(ratios)} ops: median {ratios[len(ratios) // 2]:.2f}x, worst {ratios[-1]:.2f}x")


if __name__ == "__main__":
    main()
