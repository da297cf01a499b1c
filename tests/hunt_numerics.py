"""Runs every transform on each program of numerics_programs.py and reports each
disagreement (not part of the default test run: `PYTHONPATH=. python tests/hunt_numerics.py
[name ...]`). Checks: grad of all float arguments against central differences,
value_and_grad, vjp with a random cotangent against jvp (the dot-product test), jvp
against differences, jacobian in both modes, the Hessian of the first argument where
asked, float32 gradients keep float32, arguments not changed, and where JAX is installed
the gradient and Hessian of the same code with `np` bound to jax.numpy."""

import copy
import math
import sys
import traceback
import types

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import numerics_programs as P  # noqa: E402
import srcgrad  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as jsp

    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover
    jax = None

EPS = 1e-6
VERBOSE = False


def _floaty(a):
    return isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")


def _call(fn, args):
    return fn(*copy.deepcopy(args))


def _fd_jac(fn, args, i):
    """d out / d args[i], shape out.shape + arg.shape (flattened as needed)."""
    out = np.asarray(_call(fn, args), dtype=np.float64)
    x = np.asarray(args[i], dtype=np.float64)
    J = np.zeros(out.shape + x.shape)
    for k in np.ndindex(x.shape):
        vals = []
        for s in (EPS, -EPS):
            a = list(args)
            if isinstance(args[i], float):
                a[i] = args[i] + s
            else:
                m = x.copy()
                m[k] += s
                a[i] = m
            vals.append(np.asarray(_call(fn, a), dtype=np.float64))
        J[(Ellipsis,) + k] = (vals[0] - vals[1]) / (2 * EPS)
    return J


def _sym(g):
    g = np.asarray(g)
    return 0.5 * (g + np.swapaxes(g, -1, -2))


def _close(a, b, rtol=1e-5, atol=1e-6):
    a, b = np.asarray(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64), np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=atol)


def _jax_twin(fn):
    scope = dict(fn.__globals__)
    scope["np"] = jnp
    scope["math"] = types.SimpleNamespace(
        **{k: getattr(jnp, k) for k in ("sin", "cos", "exp", "log", "sqrt", "tanh", "log1p", "expm1", "cosh", "sinh",
                                       "log2", "log10", "tan", "cbrt", "exp2", "copysign", "hypot", "degrees", "radians")},
        atan2=jnp.arctan2, pi=math.pi, pow=jnp.power, atan=jnp.arctan, asin=jnp.arcsin, acos=jnp.arccos,
        asinh=jnp.arcsinh, acosh=jnp.arccosh, atanh=jnp.arctanh, fabs=jnp.abs, erf=jsp.erf, erfc=jsp.erfc,
        gamma=lambda x: jnp.exp(jsp.gammaln(x)), lgamma=jsp.gammaln,
    )
    for name, value in list(scope.items()):
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            scope[name] = types.FunctionType(value.__code__, scope, value.__name__, value.__defaults__, value.__closure__)
    return scope[fn.__name__]


def run_case(area, fn, args, opts, report):
    name = fn.__name__
    problems = []

    def bad(what, detail=""):
        problems.append(f"{what}: {detail}")

    wrt = tuple(i for i, a in enumerate(args) if _floaty(a))
    before = copy.deepcopy(args)
    out = _call(fn, args)
    vec = np.ndim(out) > 0
    fd = opts.get("fd", True)
    sym = opts.get("sym", False)
    nchecks = 0
    fdj = {i: _fd_jac(fn, args, i) for i in wrt} if fd else {}

    def cmp_grad(g, i, what):
        ref = fdj[i]
        if sym:
            g, ref = _sym(g), _sym(ref)
        if not _close(g, ref):
            bad(what, f"arg {i}: got {np.round(np.asarray(g), 6).tolist()} fd {np.round(ref, 6).tolist()}")

    # grad and value_and_grad
    if not vec:
        nchecks += 1
        try:
            gs = srcgrad.grad(fn, wrt=wrt)(*args)
            for i, g in zip(wrt, gs):
                if type(g) is not type(args[i]) or np.shape(g) != np.shape(args[i]):
                    bad("grad type/shape", f"arg {i}: {type(g).__name__}{np.shape(g)}")
                if fd:
                    cmp_grad(g, i, "grad")
            v, gs2 = srcgrad.value_and_grad(fn, wrt=wrt)(*args)
            if not _close(v, out, 1e-12, 1e-12) or not all(_close(a, b, 1e-12, 1e-12) for a, b in zip(gs, gs2)):
                bad("value_and_grad", "differs from fn / grad")
        except Exception as e:  # noqa: BLE001
            bad("grad raised", f"{type(e).__name__}: {str(e)[:300]}" + (traceback.format_exc() if VERBOSE else ""))
            gs = None
        nchecks += 1
    # vjp and jvp
    rng = np.random.default_rng(1)
    try:
        o, pb = srcgrad.vjp(fn, *args)
        seed = rng.normal(size=np.shape(o)) if np.ndim(o) else float(rng.normal())
        cts = pb(seed)
        tangents = tuple((rng.normal(size=np.shape(a)) if isinstance(a, np.ndarray) else float(rng.normal())) if i in wrt else None
                         for i, a in enumerate(args))
        o2, odot = srcgrad.jvp(fn, args, tangents)
        lhs = float(np.sum(np.asarray(seed) * np.asarray(odot)))
        rhs = sum(float(np.sum(np.asarray(cts[i]) * tangents[i])) for i in wrt)
        if not np.isclose(lhs, rhs, rtol=1e-8, atol=1e-10):
            bad("vjp/jvp dot", f"{lhs} vs {rhs}")
        if fd:
            for i in wrt:
                ref = np.tensordot(np.asarray(seed), fdj[i], axes=np.ndim(seed))
                g = cts[i]
                if sym:
                    g, ref = _sym(g), _sym(ref)
                if not _close(g, ref):
                    bad("vjp", f"arg {i}")
            fd_dir = sum(np.tensordot(fdj[i], tangents[i], axes=np.ndim(args[i])) for i in wrt) if not sym else None
            if fd_dir is not None and not _close(odot, fd_dir):
                bad("jvp", f"{np.round(np.asarray(odot), 6).tolist()} fd {np.round(np.asarray(fd_dir), 6).tolist()}")
        if not _close(o2, out, 1e-10, 1e-12):
            bad("jvp value", "")
    except Exception as e:  # noqa: BLE001
        bad("vjp/jvp raised", f"{type(e).__name__}: {str(e)[:300]}")
    nchecks += 3
    # jacobian, both modes, of the first float argument
    i0 = wrt[0]
    for mode in ("forward", "reverse"):
        nchecks += 1
        try:
            J = srcgrad.jacobian(fn, wrt=i0, mode=mode)(*args)
            if np.shape(J) != np.shape(out) + np.shape(args[i0]):
                bad(f"jacobian {mode} shape", f"{np.shape(J)}")
            elif fd:
                ref = fdj[i0]
                if sym:
                    J, ref = _sym(J), _sym(ref)
                if not _close(J, ref):
                    bad(f"jacobian {mode}", "")
        except Exception as e:  # noqa: BLE001
            bad(f"jacobian {mode} raised", f"{type(e).__name__}: {str(e)[:300]}")
    # hessian
    if opts.get("hess") and not vec:
        nchecks += 1
        try:
            H = srcgrad.hessian(fn, wrt=i0)(*args)
            g0 = srcgrad.grad(fn, wrt=i0)
            x = np.asarray(args[i0], dtype=np.float64)
            ref = np.zeros(x.shape + x.shape)
            for k in np.ndindex(x.shape):
                vals = []
                for s in (1e-5, -1e-5):
                    a = list(args)
                    m = x.copy()
                    m[k] += s
                    a[i0] = m if isinstance(args[i0], np.ndarray) else float(m)
                    vals.append(np.asarray(g0(*a)))
                ref[(Ellipsis,) + k] = (vals[0] - vals[1]) / 2e-5
            if sym:
                pass  # the Hessian of a function of a symmetric matrix: compared with JAX below
            elif not _close(H, ref.reshape(np.shape(H)), 1e-4, 1e-5):
                bad("hessian", f"max err {np.max(np.abs(np.asarray(H) - ref.reshape(np.shape(H))))}")
        except Exception as e:  # noqa: BLE001
            bad("hessian raised", f"{type(e).__name__}: {str(e)[:300]}")
    # float32
    if not vec and opts.get("f32", True):
        nchecks += 1
        a32 = tuple(np.asarray(a, dtype=np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args)
        try:
            gs = srcgrad.grad(fn, wrt=wrt)(*a32)
            for i, g in zip(wrt, gs):
                if isinstance(a32[i], np.ndarray) and getattr(g, "dtype", None) != np.float32:
                    bad("float32 dtype", f"arg {i}: {getattr(g, 'dtype', type(g))}")
        except Exception as e:  # noqa: BLE001
            bad("float32 raised", f"{type(e).__name__}: {str(e)[:200]}")
    if opts.get("f32", True) and any(isinstance(args[i], np.ndarray) for i in wrt):
        nchecks += 1
        a32 = tuple(np.asarray(a, dtype=np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args)
        want = np.result_type(*[np.asarray(_call(fn, a32)).dtype])
        try:
            t32 = tuple((np.ones(np.shape(a), np.float32) if isinstance(a, np.ndarray) else 1.0) if i in wrt else None
                        for i, a in enumerate(a32))
            o32, d32 = srcgrad.jvp(fn, a32, t32)
            if np.asarray(d32).dtype != np.asarray(o32).dtype:
                bad("float32 jvp dtype", f"out {np.asarray(o32).dtype} tangent {np.asarray(d32).dtype}")
            o, pb = srcgrad.vjp(fn, *a32)
            cts = pb(np.ones_like(o))
            for i in wrt:
                if isinstance(a32[i], np.ndarray) and np.asarray(cts[i]).dtype != np.float32:
                    bad("float32 vjp dtype", f"arg {i}: {np.asarray(cts[i]).dtype}")
            J = srcgrad.jacobian(fn, wrt=i0, mode="forward")(*a32)
            if isinstance(a32[i0], np.ndarray) and np.asarray(J).dtype != want:
                bad("float32 jacobian dtype", f"{np.asarray(J).dtype} (output {want})")
            if opts.get("hess") and not vec and isinstance(a32[i0], np.ndarray):
                H = srcgrad.hessian(fn, wrt=i0)(*a32)
                if np.asarray(H).dtype != np.float32:
                    bad("float32 hessian dtype", f"{np.asarray(H).dtype}")
        except Exception as e:  # noqa: BLE001
            bad("float32 transforms raised", f"{type(e).__name__}: {str(e)[:200]}")
    # not mutated
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray) and not np.array_equal(a, b):
            bad("argument changed", "")
    # JAX
    if jax is not None and opts.get("jax", True) and not vec:
        nchecks += 1
        try:
            twin = _jax_twin(fn)
            jargs = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
            jg = jax.grad(twin, argnums=wrt)(*jargs)
            ours = srcgrad.grad(fn, wrt=wrt)(*args)
            for i, a, b in zip(wrt, ours, jg):
                if not _close(a, np.asarray(b), 1e-8, 1e-10):
                    bad("jax grad", f"arg {i}: ours {np.round(np.asarray(a), 6).tolist()} jax {np.round(np.asarray(b), 6).tolist()}")
            if opts.get("hess"):
                nchecks += 1
                jh = jax.hessian(twin, argnums=i0)(*jargs)
                H = srcgrad.hessian(fn, wrt=i0)(*args)
                if not _close(H, np.asarray(jh), 1e-7, 1e-9):
                    bad("jax hessian", f"max err {np.max(np.abs(np.asarray(H) - np.asarray(jh)))}")
        except Exception as e:  # noqa: BLE001
            report.append(f"  (jax could not run {name}: {type(e).__name__}: {str(e)[:120]})")
    for p in problems:
        report.append(f"[{area}] {name}: {p}")
    return nchecks, len(problems)


def main(names):
    report = []
    counts = {}
    for area, fn, args, opts in P.CASES:
        if names and fn.__name__ not in names:
            continue
        try:
            n, nbad = run_case(area, fn, args, opts, report)
        except Exception:  # noqa: BLE001
            report.append(f"[{area}] {fn.__name__}: harness error\n{traceback.format_exc()}")
            n, nbad = 0, 1
        c = counts.setdefault(area, [0, 0, 0])
        c[0] += 1
        c[1] += n
        c[2] += nbad
    print("\n".join(report))
    for area, (p, n, b) in counts.items():
        print(f"{area}: {p} programs, {n} checks, {b} problems")


if __name__ == "__main__":
    if "-v" in sys.argv:
        VERBOSE = True
    main([a for a in sys.argv[1:] if a != "-v"])
