"""Measuring: build each implementation, time them interleaved, check them.

Timing is round-robin: every round runs one block of calls per implementation,
starting with a different implementation each round, so slow drift of the
machine (frequency, caches, other load) lands on all of them alike. A block is
long enough (``block_s``) for the timer to be negligible; the reported time per
call is the median over rounds.
"""

from __future__ import annotations

import dataclasses
import gc
import statistics
import time
import tracemalloc
from dataclasses import dataclass, field

import numpy as np

from impls import NotApplicable, to_numpy


@dataclass
class Cell:
    """One implementation on one workload."""

    impl: str
    times: list = field(default_factory=list)  # seconds per call, one per round
    build_s: float | None = None  # construction + first-call excess (see build)
    peak_bytes: int | None = None
    error: str | None = None  # "error: ..." or "n/a: ..."

    @property
    def median(self):
        return statistics.median(self.times) if self.times else None

    @property
    def spread(self):
        """Interquartile range over the median: how noisy the rounds were."""
        if len(self.times) < 4:
            return None
        q1, _, q3 = statistics.quantiles(self.times, n=4)
        return (q3 - q1) / self.median


def describe(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def inputs(w, seed):
    rng = np.random.default_rng(seed)
    args = w.make_args(rng)
    return args, (w.make_seed(rng) if w.is_vjp else None)


def build(impl, w, args, seed, repeat):
    """Build ``repeat`` times from scratch; return the callable and the build time in seconds.

    The build time is the construction (``srcgrad.grad``, ``jax.jit``, ...) plus
    what the first call costs beyond the call after it (where a lazy library
    does its work), each the median over the builds.
    """
    constructs, excesses = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        thunk = impl.build(w, args, seed)
        t1 = time.perf_counter()
        thunk()
        t2 = time.perf_counter()
        thunk()
        t3 = time.perf_counter()
        constructs.append(t1 - t0)
        excesses.append((t2 - t1) - (t3 - t2))
    return thunk, statistics.median(constructs) + max(0.0, statistics.median(excesses))


def _block(thunk, count):
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(count):
            thunk()
        return (time.perf_counter() - t0) / count
    finally:
        gc.enable()


def _calls_per_block(thunk, block_s):
    calls, t0 = 0, time.perf_counter()
    while True:
        thunk()
        calls += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= block_s / 4 or calls >= 1000:
            return max(1, round(block_s / (elapsed / calls)))


def time_interleaved(thunks, cells, repeat, block_s):
    counts = {name: _calls_per_block(th, block_s) for name, th in thunks.items()}
    names = list(thunks)
    for r in range(repeat):
        for name in names[r % len(names):] + names[: r % len(names)]:
            if cells[name].error:
                continue
            try:
                cells[name].times.append(_block(thunks[name], counts[name]))
            except Exception as exc:  # noqa: BLE001 - report it in the cell
                cells[name].error = "error: " + describe(exc)


def peak_memory(thunk, repeat=3):
    """Peak bytes traced by tracemalloc during one call, above what was live before it."""
    peaks = []
    for _ in range(repeat):
        gc.collect()
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            result = thunk()
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
            del result
        finally:
            tracemalloc.stop()
    return statistics.median(peaks)


def run_workload(w, impls, opts):
    """Measure every implementation on one workload; never raises.

    A derivation workload measures srcgrad's build time alone, over `opts.derive_repeat`
    builds; its calls are not timed.
    """
    args, seed = inputs(w, opts.seed)
    cells, thunks = {}, {}
    if w.derivation_only:
        impls = [impl for impl in impls if impl.name == "srcgrad"]
    for impl in impls:
        cell = cells[impl.name] = Cell(impl.name)
        try:
            repeat = opts.derive_repeat if w.derivation_only else opts.build_repeat
            thunks[impl.name], cell.build_s = build(impl, w, args, seed, repeat)
        except NotApplicable as exc:
            cell.error = f"n/a: {exc}"
        except Exception as exc:  # noqa: BLE001
            cell.error = "error: " + describe(exc)
    if w.derivation_only:
        return list(cells.values())
    time_interleaved(thunks, cells, opts.repeat, opts.block_s)
    for impl in impls:
        cell = cells[impl.name]
        if cell.error or impl.name not in thunks:
            continue
        if w.measure_memory and impl.numpy_backed:
            cell.peak_bytes = peak_memory(thunks[impl.name])
    return list(cells.values())


# -- checking ---------------------------------------------------------------


def objective(w, seed):
    """The scalar whose gradient each implementation computes."""
    if w.is_vjp:
        return lambda *a: float(np.vdot(seed, w.fn(*a)))
    return lambda *a: float(w.fn(*a))


def _shift(args, wrt, deltas, eps):
    args = list(args)
    for i, d in zip(wrt, deltas):
        args[i] = args[i] + eps * d if isinstance(args[i], np.ndarray) else float(args[i] + eps * d)
    return args


def _entries_as_arguments(w, args):
    """The workload `w` at `args` seen with each entry of a differentiated dict argument
    an argument of its own (in the order of `to_numpy`'s gradients), for `fd_errors`."""
    parts, wrt, flat = [], [], []
    for i, a in enumerate(args):
        keys = sorted(a) if i in w.wrt and isinstance(a, dict) else None
        if i in w.wrt:
            wrt += range(len(flat), len(flat) + (len(keys) if keys is not None else 1))
        parts.append((len(flat), keys))
        flat += [a[k] for k in keys] if keys is not None else [a]

    def fn(*values):
        rebuilt = [dict(zip(keys, values[at:at + len(keys)])) if keys is not None else values[at] for at, keys in parts]
        return w.fn(*rebuilt)

    return dataclasses.replace(w, fn=fn, wrt=tuple(wrt)), flat


def fd_errors(w, args, seed, grads, rng, h=1e-5, per_arg=8):
    """Central finite differences against ``grads``: (directional error, worst element error).

    The directional test perturbs every differentiated argument along one random
    unit direction; its error is relative to the gradient's norm. The element
    test perturbs up to ``per_arg`` entries per argument (always including the
    largest-gradient entry); its error is relative to that gradient's largest entry.
    """
    if any(isinstance(args[i], dict) for i in w.wrt):
        w, args = _entries_as_arguments(w, args)
    L = objective(w, seed)
    dirs = [rng.standard_normal(np.shape(args[i])) for i in w.wrt]
    norm = np.sqrt(sum(np.sum(d * d) for d in dirs))
    dirs = [d / norm for d in dirs]
    fd = (L(*_shift(args, w.wrt, dirs, h)) - L(*_shift(args, w.wrt, dirs, -h))) / (2 * h)
    exact = sum(float(np.sum(np.asarray(g) * d)) for g, d in zip(grads, dirs))
    gnorm = np.sqrt(sum(float(np.sum(np.square(g))) for g in grads))
    directional = abs(fd - exact) / max(gnorm, 1e-300)

    worst = 0.0
    for pos, (i, g) in enumerate(zip(w.wrt, grads)):
        g = np.asarray(g, dtype=float)
        flat = np.abs(g).ravel()
        picks = {int(np.argmax(flat))} | set(rng.choice(flat.size, min(per_arg - 1, flat.size), replace=False).tolist())
        for k in sorted(picks):
            idx = np.unravel_index(k, g.shape)
            x = np.asarray(args[i], dtype=float)
            step = h * max(1.0, abs(float(x[idx])))
            e = np.zeros(g.shape)
            e[idx] = 1.0
            deltas = [e if p == pos else np.zeros(np.shape(args[j])) for p, j in enumerate(w.wrt)]
            fd_k = (L(*_shift(args, w.wrt, deltas, step)) - L(*_shift(args, w.wrt, deltas, -step))) / (2 * step)
            worst = max(worst, abs(fd_k - g[idx]) / max(flat.max(), 1e-300))
    return directional, worst


def rel_error(grads, ref):
    """Largest, over arguments, of max|g - ref| / max|ref|; inf on a shape mismatch."""
    worst = 0.0
    for g, r in zip(grads, ref):
        if np.shape(g) != np.shape(r):
            return float("inf")
        r = np.asarray(r, dtype=float)
        worst = max(worst, float(np.max(np.abs(np.asarray(g, dtype=float) - r), initial=0.0)) / max(np.max(np.abs(r), initial=0.0), 1e-300))
    return worst


def check_workload(w, impls, opts, fd_tol=1e-6, tol=1e-10):
    """Yield (implementation, passed, message) rows; 'hand' is checked against finite differences,
    and so is srcgrad on a derivation workload (which has no hand-written gradient)."""
    args, seed = inputs(w, opts.seed)
    n = len(w.wrt)
    ref = None
    if w.derivation_only:
        impls = [impl for impl in impls if impl.name == "srcgrad"]
    for impl in impls:
        try:
            thunk = impl.build(w, args, seed)
            grads = to_numpy(thunk(), n)
        except NotApplicable as exc:
            yield impl.name, None, f"n/a: {exc}"
            continue
        except Exception as exc:  # noqa: BLE001
            yield impl.name, False, "error: " + describe(exc)
            continue
        if impl.name == "hand" or w.derivation_only:
            ref = grads
            d, e = fd_errors(w, args, seed, grads, np.random.default_rng(opts.seed + 1))
            ok = d <= fd_tol and e <= fd_tol
            yield impl.name, ok, f"vs finite differences: directional {d:.1e}, elementwise {e:.1e} (tol {fd_tol:g})"
        elif ref is None:
            yield impl.name, None, "skipped: no hand-written reference"
        else:
            err = rel_error(grads, ref)
            yield impl.name, err <= tol, f"vs hand: max rel. error {err:.1e} (tol {tol:g})"
