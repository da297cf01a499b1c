"""Forward-mode benchmarks: JVP cost against the forward pass, and Hessians.

    python benchmarks/forward.py            # about 20 s
    python benchmarks/forward.py --quick

- JVP of the MLP and RNN workloads (tangents for every differentiated argument),
  relative to the forward pass alone (the function itself). The goal is <= 2x. In the
  RNN, compiler/hoist.py computes every x[t] @ U (and @ U_dot) before the loop.
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


def _fmt(seconds):
    return f"{seconds * 1e6:9.1f} us" if seconds < 1e-2 else f"{seconds * 1e3:9.2f} ms"


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
    print(f"{'workload':34} {'forward':>12} {'jvp':>12} {'jvp/forward':>12}")
    for module in (mlp, rnn):
        w = module.WORKLOADS[0]
        primals = w.make_args(rng)
        tangents = tuple(rng.standard_normal(np.shape(a)) if i in w.wrt else None for i, a in enumerate(primals))
        t_fwd = _median_time(lambda: w.fn(*primals), rounds, block)
        t_jvp = _median_time(lambda: srcgrad.jvp(w.fn, primals, tangents), rounds, block)
        print(f"{'JVP ' + w.title:34} {_fmt(t_fwd):>12} {_fmt(t_jvp):>12} {t_jvp / t_fwd:11.2f}x")

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
