"""Forward-mode benchmarks: JVP cost against the forward pass, and Hessians.

    python benchmarks/forward.py            # about 20 s
    python benchmarks/forward.py --quick

- JVP of the MLP and RNN workloads (tangents for every differentiated argument),
  relative to the forward pass alone (the function itself), and the same ratio for a
  JVP written by hand (the floor: the tangent needs as many matrix products as the
  forward pass, and more elementwise work). The goal is <= 2x. In the RNN,
  compiler/hoist.py computes every x[t] @ U (and @ U_dot + b_dot) before the loop.
- Hessian of a 100-dimensional logsumexp: srcgrad.hessian (forward over the
  generated gradient: its primal statements once, its tangent statements once per
  input element) against a hand-written closed form
  (diag(p) - p p^T) and against jax.hessian without jit when JAX is installed.

Times are medians of repeated blocks, each block long enough to time reliably; one
BLAS thread unless --threads says otherwise.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


def _median_time(call, rounds, block_s):
    call()  # warm up (and build)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < block_s:
        call()
        n += 1
    per_block = max(n, 1)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(per_block):
            call()
        samples.append((time.perf_counter() - start) / per_block)
    return statistics.median(samples)


def _interleaved(calls, rounds, block_s):
    """{name: median time per call}, the calls timed in turn within each round (ratios
    between them are what a busy machine leaves intact)."""
    per_block = {}
    for name, call in calls.items():
        call()  # warm up (and build)
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < block_s:
            call()
            n += 1
        per_block[name] = max(n, 1)
    samples = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            for _ in range(per_block[name]):
                call()
            samples[name].append((time.perf_counter() - start) / per_block[name])
    return {name: statistics.median(s) for name, s in samples.items()}


def _fmt(seconds):
    return f"{seconds * 1e6:9.1f} us" if seconds < 1e-2 else f"{seconds * 1e3:9.2f} ms"


def mlp_jvp_hand(W1, b1, W2, b2, x, y, W1_dot, b1_dot, W2_dot, b2_dot):
    """The MLP's JVP written by hand: the floor a generated one is measured against."""
    h = np.tanh(x @ W1 + b1)
    h_dot = (x @ W1_dot + b1_dot) * (1.0 - h * h)
    r = h @ W2 + b2 - y
    r_dot = h_dot @ W2 + h @ W2_dot + b2_dot
    return np.mean(r * r), 2.0 * np.mean(r * r_dot)


def rnn_jvp_hand(W, U, b, x, W_dot, U_dot, b_dot):
    """The RNN's JVP written by hand, with x @ U and x @ U_dot + b_dot before the loop."""
    h, h_dot = np.zeros((x.shape[1], W.shape[0])), np.zeros((x.shape[1], W.shape[0]))
    xU, xU_dot = x @ U, x @ U_dot + b_dot
    for t in range(x.shape[0]):
        pre_dot = h_dot @ W + h @ W_dot + xU_dot[t]
        h = np.tanh(h @ W + xU[t] + b)
        h_dot = pre_dot * (1.0 - h * h)
    return np.sum(h * h), 2.0 * np.sum(h * h_dot)


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_hessian(x):
    p = np.exp(x - np.max(x))
    p /= p.sum()
    return np.diag(p) - np.outer(p, p)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))
    global np
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import srcgrad
    from workloads import mlp, rnn

    rounds, block = (5, 0.02) if args.quick else (15, 0.05)
    rng = np.random.default_rng(0)
    print(f"{'workload':34} {'forward':>12} {'jvp':>12} {'jvp/forward':>12} {'hand jvp/fwd':>13}")
    for module, hand in ((mlp, mlp_jvp_hand), (rnn, rnn_jvp_hand)):
        w = module.WORKLOADS[0]
        primals = w.make_args(rng)
        tangents = tuple(rng.standard_normal(np.shape(a)) if i in w.wrt else None for i, a in enumerate(primals))
        given = [t for t in tangents if t is not None]
        _, want = srcgrad.jvp(w.fn, primals, tangents)
        assert np.isclose(hand(*primals, *given)[1], want, rtol=1e-10), "the hand-written JVP disagrees"
        calls = {
            "forward": lambda: w.fn(*primals),
            "jvp": lambda: srcgrad.jvp(w.fn, primals, tangents),
            "hand": lambda: hand(*primals, *given),
        }
        t = _interleaved(calls, rounds, block)
        print(f"{'JVP ' + w.title:34} {_fmt(t['forward']):>12} {_fmt(t['jvp']):>12} "
              f"{t['jvp'] / t['forward']:11.2f}x {t['hand'] / t['forward']:12.2f}x")

    x = rng.standard_normal(100)
    hess = srcgrad.hessian(logsumexp)
    assert np.allclose(hess(x), logsumexp_hessian(x), atol=1e-12)
    t_hand = _median_time(lambda: logsumexp_hessian(x), rounds, block)
    t_src = _median_time(lambda: hess(x), rounds, block)
    print(f"\n{'Hessian of logsumexp, x in R^100':34} {'time':>12} {'vs hand':>12}")
    print(f"{'  hand-written diag(p) - p p^T':34} {_fmt(t_hand):>12} {1.0:11.2f}x")
    print(f"{'  srcgrad.hessian':34} {_fmt(t_src):>12} {t_src / t_hand:11.2f}x")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print(f"{'  jax.hessian (no jit)':34} {'n/a: jax is not installed':>25}")
        return
    jax.config.update("jax_enable_x64", True)

    def jax_logsumexp(v):
        m = jnp.max(v)
        return m + jnp.log(jnp.sum(jnp.exp(v - m)))

    jhess = jax.hessian(jax_logsumexp)
    xj = jnp.asarray(x)
    t_jax = _median_time(lambda: np.asarray(jhess(xj)), rounds, block)
    print(f"{'  jax.hessian (no jit)':34} {_fmt(t_jax):>12} {t_jax / t_hand:11.2f}x")
    print(f"{'  srcgrad / jax':34} {'':>12} {t_src / t_jax:11.2f}x")


if __name__ == "__main__":
    main()
