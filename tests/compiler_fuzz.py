"""Differential fuzzer for the compiler, run on demand (not part of the suite).

    PYTHONPATH=. python tests/compiler_fuzz.py [count] [seed] [--verbose] [--session]

(`--session`: most statements from tests/fuzz_session.py.)

Draws random NumPy programs from tests/fuzz_grammar.py (arguments `a`, `b` floats, `x`
(3,), `M` (2, 3), `c` (3, 1); sometimes float32 arrays; a program with statements over
lists of functions also takes `fs`, `ft`, `fd`, the module's `FS`, `FT`, `FD`, passed
after them and never differentiated) and checks each one:

- `value_and_grad`: the value equals the function's, each gradient has its argument's
  type, shape and dtype and agrees with central differences in float64 (and with
  `jax.grad` under x64 for programs with only jax.numpy functions and no control flow
  on data, where JAX is installed);
- a second call (the code specialized to the call) gives the same bits, a call with
  keyword arguments (the general code) the same values, and a call at another point
  agrees with differences there;
- `jvp` against the gradient (the dot-product test), its value and its output's type;
- `jacobian` of the program's vector twin (the same body returning a (3,) vector) in
  both modes, against differences;
- for every fourth program, `hessian` blocks for `a` and `x`: symmetric and against
  differences of the gradient;
- no argument changed.

The grammar also draws statements where NumPy's semantics are easy to get wrong
(tests/fuzz_risky.py): writes through views and aliases, overlapping in-place operations,
repeated fancy indices, row swaps, helpers writing their argument, `out=`.

Programs closer to a kink (a comparison, maximum, abs, clip, sort, max) than differences
can tell apart are skipped (the twin program records the margins). A refusal
(`SrcGradError`, `NotDifferentiableError`) is counted by kind; any other exception from
srcgrad is a crash. Each disagreement is minimized (statements dropped while it stays)
and printed, the smallest per kind.
"""

import collections
import math
import re
import signal
import sys
import traceback
import warnings

import numpy as np

import fuzz_grammar
import srcgrad
from fuzz_grammar import Program
from test_random_programs import _make as load  # a program made under its own file name, its text in linecache

EPS = 1e-6
ARG_NAMES = ("a", "b", "x", "M", "c")

try:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
except ImportError:  # pragma: no cover
    jax = None


class Disagreement(Exception):
    def __init__(self, kind, detail):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


class Kinks:
    """The twin's `_k`: each comparison and kink records its distance from flipping."""

    def __init__(self):
        self.margins = []

    def _note(self, values):
        values = np.asarray(values, dtype=np.float64)
        if values.size:
            self.margins.append(float(np.min(np.abs(values))))

    def gt(self, left, threshold):
        self._note(np.asarray(left) - threshold)
        return left > threshold

    def _gap(self, v, axis):
        s = np.sort(np.asarray(v, dtype=np.float64), axis=-1 if axis is None else axis)
        if s.shape and s.shape[-1 if axis is None else axis] > 1:
            self._note(np.diff(s, axis=-1 if axis is None else axis))

    def max(self, v, axis=None, keepdims=False):
        self._gap(np.ravel(v) if axis is None else v, None if axis is None else axis)
        return np.max(v, axis=axis, keepdims=keepdims)

    def min(self, v, axis=None, keepdims=False):
        self._gap(np.ravel(v) if axis is None else v, None if axis is None else axis)
        return np.min(v, axis=axis, keepdims=keepdims)

    def sort(self, v, axis=-1):
        self._gap(v, axis)
        return np.sort(v, axis=axis)

    def argmax(self, v):
        self._gap(np.ravel(v), None)
        return np.argmax(v)

    def maximum(self, p, q):
        self._note(np.subtract(p, q))
        return np.maximum(p, q)

    def minimum(self, p, q):
        self._note(np.subtract(p, q))
        return np.minimum(p, q)

    def clip(self, v, lo, hi):
        self._note(np.minimum(np.abs(np.subtract(v, lo)), np.abs(np.subtract(v, hi))))
        return np.clip(v, lo, hi)

    def abs(self, v):
        self._note(v)
        return np.abs(v)

    def bmax(self, *values):
        self._gap(np.array([float(v) for v in values]), None)
        return max(*values)

    def bmin(self, *values):
        self._gap(np.array([float(v) for v in values]), None)
        return min(*values)

    def bsorted(self, values, key=None, reverse=False):
        values = list(values)
        self._gap(np.array([float(v if key is None else key(v)) for v in values]), None)
        return sorted(values, key=key, reverse=reverse)

    def round(self, v, decimals=0):
        scaled = np.asarray(v, dtype=np.float64) * 10.0 ** decimals
        self._note((scaled - np.floor(scaled) - 0.5) / 10.0 ** decimals)
        return np.round(v, decimals)


def make_args(seed, float32):
    rng = np.random.default_rng(seed + 10_000_000)
    dtype = np.float32 if float32 else np.float64
    return (float(rng.uniform(-1.5, 1.5)), float(rng.uniform(-1.5, 1.5)), rng.uniform(-1.5, 1.5, 3).astype(dtype),
            rng.uniform(-1.5, 1.5, (2, 3)).astype(dtype), rng.uniform(-1.5, 1.5, (3, 1)).astype(dtype))


def margin(twin_text, args):
    kinks = Kinks()
    with np.errstate(all="ignore"):
        load(twin_text, "f", {"_k": kinks})(*args)
    return min(kinks.margins, default=math.inf)


def to64(args):
    return tuple(np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) else a for a in args)


def numeric_grad(fn, args, i):
    """Central differences of the (summed) output of fn w.r.t. args[i], in float64."""
    args = to64(args)
    x = np.asarray(args[i], dtype=np.float64)
    out = np.asarray(fn(*args), dtype=np.float64)
    g = np.zeros(out.shape + x.shape)
    for k in np.ndindex(x.shape):
        vals = []
        for step in (EPS, -EPS):
            moved = x.copy()
            moved[k] += step
            a = list(args)
            a[i] = float(moved) if isinstance(args[i], float) else moved
            vals.append(np.asarray(fn(*a), dtype=np.float64))
        g[(Ellipsis,) + k] = (vals[0] - vals[1]) / (2 * EPS)
    return g


def close(got, want, what, rtol=1e-5, atol=1e-6):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise Disagreement(what + "-shape", f"{got.shape} != {want.shape}")
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    if not np.allclose(got, want, rtol=rtol, atol=atol * scale, equal_nan=True):
        worst = np.unravel_index(np.argmax(np.abs(got - want)), got.shape) if got.shape else ()
        raise Disagreement(what, f"at {worst}: got {got[worst]!r}, expected {want[worst]!r}")


def same_type(got, arg, what):
    if type(got) is not type(arg):
        raise Disagreement(what + "-type", f"{type(got).__name__} for a {type(arg).__name__}")
    if isinstance(arg, np.ndarray) and (got.shape != arg.shape or got.dtype != arg.dtype):
        raise Disagreement(what + "-dtype", f"{got.dtype}{got.shape} for {arg.dtype}{arg.shape}")


def passed(fn, prog):
    """The values of the program's extra parameters (`prog.extras`: `fs` reads the module's
    `FS`, a list of functions), never differentiated."""
    return tuple(fn.__globals__[name.upper()] for name in getattr(prog, "extras", ()))


def check_program(prog, seed, counts, hessians=False):
    """Runs every check on one program; raises Disagreement, returns a skip reason or None."""
    f = load(prog.text, "f")
    f_vec = load(prog.vector_text, "f_vec")
    extras, vec_extras = passed(f, prog), passed(f_vec, prog)
    args = make_args(seed, prog.float32) + extras
    vargs = args[:5] + vec_extras
    loose = dict(rtol=2e-2, atol=2e-3) if prog.float32 else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with np.errstate(all="raise"):
                value = f(*args)
                vec = f_vec(*vargs)
        except Exception as e:  # noqa: BLE001
            return "program raises " + type(e).__name__
    if not np.all(np.isfinite(value)) or not np.all(np.isfinite(vec)):
        return "not finite"
    try:
        near = margin(prog.twin_text, to64(args)) < 1e-4
    except Exception as e:  # noqa: BLE001
        return "twin raises " + type(e).__name__
    if near:
        return "close to a kink"
    before = [np.copy(a) for a in args[:5]]
    wrt = tuple(range(5))

    def unchanged(what):
        for name, a, b in zip(ARG_NAMES, args, before):
            if not np.array_equal(a, b):
                raise Disagreement("argument-changed", f"{name} changed by {what}")

    counts["checks"] += 1
    vg = srcgrad.value_and_grad(f, wrt=wrt)
    v, grads = vg(*args)
    unchanged("value_and_grad")
    if type(v) is not type(value) or np.shape(v) != np.shape(value) or np.asarray(v).dtype != np.asarray(value).dtype:
        raise Disagreement("value-type", f"{type(v).__name__} {np.asarray(v).dtype} for {type(value).__name__} "
                                         f"{np.asarray(value).dtype}")
    close(v, value, "value", rtol=1e-6 if prog.float32 else 1e-12, atol=1e-6 if prog.float32 else 1e-12)
    counts["checks"] += 1
    for name, arg, g in zip(ARG_NAMES, args, grads):
        same_type(g, arg, "grad-" + name)
        counts["checks"] += 1
    for i, (name, g) in enumerate(zip(ARG_NAMES, grads)):
        close(g, numeric_grad(f, args, i), "grad-" + name, **loose)
        counts["checks"] += 1
    again = vg(*args)[1]
    for name, g, h in zip(ARG_NAMES, grads, again):
        if not np.array_equal(g, h):
            raise Disagreement("second-call", f"gradient of {name} differs on the second call")
    counts["checks"] += 1
    by_keyword = vg(**dict(zip(ARG_NAMES + tuple(getattr(prog, "extras", ())), args)))[1]
    for name, g, h in zip(ARG_NAMES, grads, by_keyword):
        close(h, g, "keyword-call-" + name, **(dict(rtol=1e-5, atol=1e-6) if prog.float32 else dict(rtol=1e-9, atol=1e-12)))
    counts["checks"] += 1
    other = make_args(seed + 1, prog.float32) + extras
    if margin(prog.twin_text, to64(other)) > 1e-4:
        with np.errstate(all="ignore"):
            ok = np.all(np.isfinite(f(*other)))
        if ok:
            for i, (name, g) in enumerate(zip(ARG_NAMES, vg(*other)[1])):
                close(g, numeric_grad(f, other, i), "other-point-grad-" + name, **loose)
            counts["checks"] += 1
    rng = np.random.default_rng(seed)
    tangents = tuple(float(rng.normal()) if isinstance(a, float) else rng.normal(size=a.shape).astype(a.dtype)
                     for a in args[:5]) + (None,) * len(extras)
    out, out_dot = srcgrad.jvp(f, args, tangents)
    unchanged("jvp")
    close(out, value, "jvp-value", rtol=1e-6 if prog.float32 else 1e-10, atol=1e-6 if prog.float32 else 1e-12)
    dot = sum(float(np.sum(np.asarray(g, dtype=np.float64) * t)) for g, t in zip(grads, tangents[:5]))
    close(out_dot, dot, "jvp-dot-product", rtol=1e-4 if prog.float32 else 1e-8, atol=1e-5 if prog.float32 else 1e-10)
    counts["checks"] += 1
    vout, vdot = srcgrad.jvp(f_vec, vargs, tangents)
    if np.asarray(vout).dtype != np.asarray(vec).dtype or np.shape(vout) != np.shape(vec):
        raise Disagreement("jvp-vector-type", f"{np.asarray(vout).dtype}{np.shape(vout)} for {vec.dtype}{vec.shape}")
    if np.shape(vdot) != np.shape(vec):
        raise Disagreement("jvp-tangent-shape", f"{np.shape(vdot)} for {vec.shape}")
    counts["checks"] += 1
    for mode in ("forward", "reverse"):
        jac = srcgrad.jacobian(f_vec, wrt=(0, 2, 3), mode=mode)(*vargs)
        unchanged("jacobian " + mode)
        for j, i in enumerate((0, 2, 3)):
            close(jac[j], numeric_grad(f_vec, vargs, i), f"jacobian-{mode}-{ARG_NAMES[i]}", **loose)
        counts["checks"] += 1
    if prog.jaxable and jax is not None and not prog.float32:
        check_jax(prog, args, grads, counts)
    if hessians and not prog.float32:
        for i in (0, 2):
            h = np.asarray(srcgrad.hessian(f, wrt=i)(*args), dtype=np.float64)
            unchanged("hessian")
            n = int(np.size(args[i]))
            flat = h.reshape(n, n)
            close(flat, flat.T, "hessian-symmetry-" + ARG_NAMES[i], rtol=1e-6, atol=1e-8)
            gi = srcgrad.grad(f, wrt=i)
            close(h, numeric_grad(lambda *a: gi(*a), args, i), "hessian-" + ARG_NAMES[i], rtol=1e-4, atol=1e-5)
            counts["checks"] += 2
    return None


def check_jax(prog, args, grads, counts):
    text = prog.text.replace("np.", "jnp.")
    try:
        fj = load(text, "f", {"jnp": jnp})
        jgrads = jax.grad(fj, argnums=tuple(range(5)))(*(a if isinstance(a, float) else jnp.asarray(a) for a in args))
    except Exception as e:  # noqa: BLE001
        counts["jax-could-not-run " + type(e).__name__] += 1
        return
    for name, g, jg in zip(ARG_NAMES, grads, jgrads):
        close(g, np.asarray(jg), "jax-grad-" + name, rtol=1e-9, atol=1e-10)
    counts["checks"] += 1
    counts["jax-compared"] += 1


def refusal_kind(e):
    text = str(e).split("\n")[0]
    text = re.sub(r"`[^`]*`", "`_`", text)
    text = re.sub(r"<[^>]*>|\b\d+\b", "_", text)
    return type(e).__name__ + ": " + text[:110]


def run_one(prog, seed, counts, hessians):
    """None when the program passes or is skipped, else (kind, detail)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            skip = check_program(prog, seed, counts, hessians)
    except Disagreement as d:
        return ("disagree " + re.sub(r"-[a-zA-Z]$", "", d.kind), d.detail)
    except (srcgrad.SrcGradError, srcgrad.NotDifferentiableError) as e:
        counts["refused"] += 1
        counts["refusal " + refusal_kind(e)] += 1
        return None
    except Exception as e:  # noqa: BLE001
        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"{fr.filename.split('/')[-1]}:{fr.lineno}" for fr in reversed(tb) if "srcgrad" in fr.filename),
                     "?")
        return ("crash " + type(e).__name__ + " at " + where, str(e)[:300])
    if skip:
        counts["skipped " + skip] += 1
    else:
        counts["passed"] += 1
    return None


class Minimized:
    """A program whose body lines can be dropped; keeps the failure kind."""

    def __init__(self, prog):
        self.prog = prog

    def variants(self, lines):
        start = next(i for i, line in enumerate(lines) if line.startswith(("def f(", "def f_vec(")))
        body_start = start + 1
        for i in range(len(lines) - 1, body_start - 1, -1):
            line = lines[i]
            if not line.strip() or line.strip().startswith("return"):
                continue
            indent = len(line) - len(line.lstrip())
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
                j += 1
            yield lines[:i] + lines[j:]


def minimize(prog, seed, kind, hessians):
    texts = [prog.text.split("\n"), prog.vector_text.split("\n"), prog.twin_text.split("\n")]
    changed = True
    while changed:
        changed = False
        cands = [list(Minimized(prog).variants(t)) for t in texts]
        for a, b, c in zip(*cands):
            try:
                compile("\n".join(a), "m", "exec")
            except SyntaxError:
                continue
            trial = type("P", (), {})()
            trial.text, trial.vector_text, trial.twin_text = "\n".join(a), "\n".join(b), "\n".join(c)
            trial.float32, trial.jaxable, trial.extras = prog.float32, prog.jaxable, getattr(prog, "extras", ())
            got = run_one(trial, seed, collections.Counter(), hessians)
            if got and got[0] == kind:
                texts, changed = [a, b, c], True
                break
    return "\n".join(texts[0])


def main():
    positional = [a for a in sys.argv[1:] if not a.startswith("--")]
    count = int(positional[0]) if positional else 100
    first = int(positional[1]) if len(positional) > 1 else 0
    counts = collections.Counter()
    found = {}
    if "--session" in sys.argv:
        fuzz_grammar.SESSION_WEIGHT = 25
    signal.signal(signal.SIGTERM, _stop)
    try:
        _loop(first, count, counts, found)
    except KeyboardInterrupt:
        print("==== stopped early", flush=True)
    _report(counts, found)


def _stop(signum, frame):
    raise KeyboardInterrupt


def _loop(first, count, counts, found):
    for seed in range(first, first + count):
        prog = Program(seed)
        prog.twin_text = Program(seed, twin=True).text
        counts["programs"] += 1
        counts["float32" if prog.float32 else "float64"] += 1
        counts["with fuzz_session statements"] += bool(getattr(prog, "sessions", 0))
        hessians = seed % 4 == 0
        got = run_one(prog, seed, counts, hessians)
        if got:
            kind, detail = got
            counts[kind] += 1
            counts["disagreements" if kind.startswith("disagree") else "crashes"] += 1
            if "--verbose" in sys.argv:
                print(f"seed {seed}: {kind}: {detail}", flush=True)
            if kind not in found or "--all" in sys.argv:
                small = minimize(prog, seed, kind, hessians) if "--no-minimize" not in sys.argv else prog.text
                if kind not in found or len(small) < len(found[kind][1]):
                    found[kind] = (seed, small, detail)
        if counts["programs"] % 50 == 0:
            print(f"  {counts['programs']} programs, {counts['passed']} passed, {counts['refused']} refused, "
                  f"{counts['disagreements']} disagreements, {counts['crashes']} crashes", file=sys.stderr, flush=True)


def _report(counts, found):
    for kind, (seed, text, detail) in sorted(found.items()):
        print(f"==== {kind} (seed {seed}; float32={Program(seed).float32}) {detail}")
        print(text[text.index("def f("):])
    print("==== counts")
    for key, n in sorted(counts.items()):
        print(f"{n:6d}  {key}")


if __name__ == "__main__":
    main()
