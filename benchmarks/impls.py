"""The implementations compared on each workload.

An implementation knows how to turn a workload into a zero-argument callable
that computes one gradient (or one VJP, forward pass included) and returns a
tuple with one gradient per differentiated argument. Building happens outside
the timed region; ``build`` raises ``NotApplicable`` where the implementation
cannot express the workload.
"""

from __future__ import annotations

import importlib.metadata
import os
import types

import numpy as np

from workloads import NA, SAME


class NotApplicable(Exception):
    pass


def rebind(fn, **names):
    """A copy of ``fn`` whose module globals ``names`` are replaced (e.g. np -> jax.numpy)."""
    scope = dict(fn.__globals__)
    scope.update(names)
    return types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)


def math_like(xnp):
    """Stand-in for the ``math`` module that a traced peer can differentiate."""
    return types.SimpleNamespace(**{k: getattr(xnp, k) for k in ("sin", "cos", "exp", "log", "tanh", "sqrt")})


def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


class Impl:
    name = ""
    numpy_backed = False  # its arrays are NumPy's, so tracemalloc sees them
    required = False  # an import failure is an error cell rather than a silent skip

    def version(self) -> str:
        """Import the library; ModuleNotFoundError means "not installed"."""
        raise NotImplementedError

    def variant(self, w):
        """The workload's entry for this implementation: SAME, NA or a factory."""
        entry = w.peers.get(self.name, SAME)
        if isinstance(entry, NA):
            raise NotApplicable(entry.reason)
        return entry

    def build(self, w, args, seed):
        raise NotImplementedError


class Hand(Impl):
    name = "hand"
    numpy_backed = True
    required = True

    def version(self):
        return np.__version__

    def build(self, w, args, seed):
        hand = w.hand
        if w.is_vjp:
            return lambda: hand(seed, *args)
        return lambda: hand(*args)


def _fresh_copy(fn):
    """A new function object, so a cache keyed on the function object misses."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _clear_srcgrad_cache(srcgrad):
    """Empty srcgrad's derivative cache where it offers a way to, so builds are cold."""
    for owner, attr in (("srcgrad", "clear_cache"), ("srcgrad.compiler.cache", "clear")):
        try:
            fn = getattr(importlib.import_module(owner), attr, None)
        except ImportError:
            continue
        if callable(fn):
            fn()
            return True
    return False


class Srcgrad(Impl):
    name = "srcgrad"
    numpy_backed = True
    required = True

    def version(self):
        import srcgrad

        return srcgrad.__version__

    def build(self, w, args, seed):
        import srcgrad

        _clear_srcgrad_cache(srcgrad)
        fn = _fresh_copy(w.fn)
        if w.is_vjp:
            wrt = w.wrt

            def call():
                _, pullback = srcgrad.vjp(fn, *args)
                grads = pullback(seed)
                return tuple(grads[i] for i in wrt)

            return call
        df = srcgrad.grad(fn, wrt=w.wrt)
        return lambda: df(*args)


class SrcgradNumba(Srcgrad):
    """``srcgrad.grad(f, backend="numba")``: the generated code compiled by numba."""

    name = "srcgrad-numba"
    required = False

    def version(self):
        import numba

        return f"{super().version()} + numba {numba.__version__}"

    def build(self, w, args, seed):
        import srcgrad

        if w.is_vjp:
            raise NotApplicable("the numba backend covers grad and value_and_grad")
        _clear_srcgrad_cache(srcgrad)
        df = srcgrad.grad(_fresh_copy(w.fn), wrt=w.wrt, backend="numba")
        df(*args)  # builds and compiles this signature
        backend = df.__srcgrad_backend__
        if not any(sig.runs == "numba" for sig in backend.signatures.values()):
            reasons = {sig.reason for sig in backend.signatures.values()}
            raise NotApplicable("runs the Python derivative: " + "; ".join(sorted(reasons)))
        return lambda: df(*args)


class Autograd(Impl):
    name = "autograd"
    numpy_backed = True

    def version(self):
        import autograd  # noqa: F401

        return _version("autograd")

    def build(self, w, args, seed):
        import autograd
        import autograd.numpy as anp

        entry = self.variant(w)
        f = rebind(w.fn, np=anp, math=math_like(anp)) if entry is SAME else entry()
        if w.is_vjp:
            make_vjp = autograd.make_vjp(f, argnum=w.wrt)

            def call():
                pullback, _ = make_vjp(*args)
                return pullback(seed)

            return call
        g = autograd.grad(f, argnum=w.wrt)
        return lambda: g(*args)


class Jax(Impl):
    name = "jax"
    jit = False

    def version(self):
        import jax

        jax.config.update("jax_enable_x64", True)
        return jax.__version__

    def variant(self, w):
        entry = w.peers.get(self.name, w.peers.get("jax", SAME))
        if isinstance(entry, NA):
            raise NotApplicable(entry.reason)
        return entry

    def build(self, w, args, seed):
        import jax
        import jax.numpy as jnp

        entry = self.variant(w)
        f = rebind(w.fn, np=jnp, math=math_like(jnp)) if entry is SAME else entry()
        jargs = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        if w.is_vjp:
            jseed, wrt = jnp.asarray(seed), w.wrt

            def g(*a):
                _, pullback = jax.vjp(f, *a)
                grads = pullback(jseed)
                return tuple(grads[i] for i in wrt)

        else:
            g = jax.grad(f, argnums=w.wrt)
        if self.jit:
            g = jax.jit(g)
        return lambda: jax.block_until_ready(g(*jargs))


class JaxJit(Jax):
    name = "jax-jit"
    jit = True


class Torch(Impl):
    name = "torch"

    def version(self):
        import torch

        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
        return torch.__version__

    def variant(self, w):
        entry = w.peers.get(self.name)
        if entry is None or entry is SAME:
            raise NotApplicable("no torch version written for this workload")
        return super().variant(w)

    def build(self, w, args, seed):
        import torch

        f = self.variant(w)()

        def leaf(i, a):
            t = torch.tensor(a, dtype=torch.float64) if isinstance(a, float) else torch.from_numpy(a)
            return t.requires_grad_(i in w.wrt)

        targs = [leaf(i, a) for i, a in enumerate(args)]
        inputs = [targs[i] for i in w.wrt]
        if w.is_vjp:
            tseed = torch.from_numpy(seed)
            return lambda: torch.autograd.grad(f(*targs), inputs, grad_outputs=tseed)
        return lambda: torch.autograd.grad(f(*targs), inputs)


class Tangent(Impl):
    name = "tangent"
    numpy_backed = True

    def version(self):
        import tangent  # noqa: F401

        return _version("tangent")

    def build(self, w, args, seed):
        import tangent

        entry = self.variant(w)
        f = w.fn if entry is SAME else entry()
        if w.is_vjp:
            df = tangent.autodiff(f, wrt=w.wrt, mode="reverse", preserve_result=False, check_dims=False)
            return lambda: df(*args, seed)
        df = tangent.grad(f, wrt=w.wrt)
        return lambda: df(*args)


ALL = [Hand(), Srcgrad(), SrcgradNumba(), Autograd(), Torch(), Jax(), JaxJit(), Tangent()]


def _flat(grads):
    """The gradients with each dict's entries in its place, in the order of their keys (a
    dict argument's gradient is a dict; JAX gives its entries in that order)."""
    return [leaf for g in grads for leaf in ([g[k] for k in sorted(g)] if isinstance(g, dict) else [g])]


def to_numpy(grads, n):
    """Normalize an implementation's result to a tuple of n NumPy arrays or floats."""
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    if len(grads) != n:
        raise ValueError(f"expected {n} gradients, got {len(grads)}")
    out = []
    for g in _flat(grads):
        if hasattr(g, "detach"):  # torch
            g = g.detach().numpy()
        out.append(g if isinstance(g, float) else np.asarray(g))
    return tuple(out)
