"""The `math` module and scalar builtins (`abs`, `pow`, `float`, `sum`): Python floats in,
Python floats out.

Rules use `math`, not NumPy, so that a gradient for a float stays a float. Where the
primal is finite but its derivative is not (`math.sqrt(0.0)`, `math.asin(1.0)`,
`math.pow(0.0, 0.5)`, `math.atan2(0.0, 0.0)`), a rule gives what the same formula gives
in np.float64 (inf or nan, as a float, its own derivatives infinite too) where Python's
float arithmetic would raise ZeroDivisionError or ValueError in the generated code;
`math.hypot` and `math.dist` have derivative 0 at the origin, as `np.linalg.norm` of a
zero vector. `math.ldexp(x, i)` differentiates x (its integer exponent is discrete);
`math.cbrt` and `math.exp2` (Python 3.11) have rules where they exist. The gamma
function family is in `gamma.py`. `sum`, `math.prod` and
`math.fsum` take one parameter holding a sequence; their reverse rule returns a list
with one gradient per element, and their forward rule takes a list of tangents (an
entry may be None: that element is a constant).
"""

import builtins
import math

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .registry import defjvp, defvjp, discrete, elementwise


@elementwise(math.sin)
def math_sin_d(ans, x):
    return math.cos(x)


@elementwise(math.cos)
def math_cos_d(ans, x):
    return -math.sin(x)


@elementwise(math.tan)
def math_tan_d(ans, x):
    return 1.0 + ans * ans


@elementwise(math.asin)
def math_asin_d(ans, x):
    return 1.0 / math.sqrt(1.0 - x * x) if x * x != 1.0 else float(1.0 / np.sqrt(np.float64(1.0 - x * x)))


@elementwise(math.acos)
def math_acos_d(ans, x):
    return -1.0 / math.sqrt(1.0 - x * x) if x * x != 1.0 else float(-1.0 / np.sqrt(np.float64(1.0 - x * x)))


@elementwise(math.atan)
def math_atan_d(ans, x):
    return 1.0 / (1.0 + x * x)


@elementwise(math.sinh)
def math_sinh_d(ans, x):
    return math.cosh(x)


@elementwise(math.cosh)
def math_cosh_d(ans, x):
    return math.sinh(x)


@elementwise(math.tanh)
def math_tanh_d(ans, x):
    return 1.0 - ans * ans


@elementwise(math.asinh)
def math_asinh_d(ans, x):
    return 1.0 / math.sqrt(x * x + 1.0)


@elementwise(math.acosh)
def math_acosh_d(ans, x):
    return 1.0 / math.sqrt(x * x - 1.0) if x * x != 1.0 else float(1.0 / np.sqrt(np.float64(x * x - 1.0)))


@elementwise(math.atanh)
def math_atanh_d(ans, x):
    return 1.0 / (1.0 - x * x)


@elementwise(math.exp)
def math_exp_d(ans, x):
    return ans


@elementwise(math.expm1)
def math_expm1_d(ans, x):
    return ans + 1.0


@elementwise(math.log, "x")
def math_log_d(ans, x, base=None):
    return 1.0 / x if base is None else 1.0 / (x * math.log(base))


@elementwise(math.log, "base")
def math_log_dbase(ans, x, base=None):
    return -ans / (base * math.log(base))


@elementwise(math.log1p)
def math_log1p_d(ans, x):
    return 1.0 / (1.0 + x)


@elementwise(math.log2)
def math_log2_d(ans, x):
    return 1.0 / (x * math.log(2.0))


@elementwise(math.log10)
def math_log10_d(ans, x):
    return 1.0 / (x * math.log(10.0))


@elementwise(math.sqrt)
def math_sqrt_d(ans, x):
    return 0.5 / ans if ans else float(0.5 / np.float64(ans))


@elementwise(math.pow, "x")
def math_pow_dx(ans, x, y):
    """As `operators.pow_dx`: 0 where y == 0, also at x == 0."""
    return y * math.pow(x, y - (y != 0)) if x or not 0.0 < y < 1.0 else float(y * np.float64(x) ** (y - 1.0))


@elementwise(math.pow, "y")
def math_pow_dy(ans, x, y):
    return ans * math.log(x) if x > 0 else 0.0


@elementwise(math.atan2, "y")
def math_atan2_dy(ans, y, x):
    return x / (x * x + y * y) if x * x + y * y else float(x / np.float64(x * x + y * y))


@elementwise(math.atan2, "x")
def math_atan2_dx(ans, y, x):
    return -y / (x * x + y * y) if x * x + y * y else float(-y / np.float64(x * x + y * y))


@elementwise(math.hypot, "x")
def math_hypot_dx(ans, x, y):
    return x / ans if ans else 0.0


@elementwise(math.hypot, "y")
def math_hypot_dy(ans, x, y):
    return y / ans if ans else 0.0


@elementwise(math.fabs)
def math_fabs_d(ans, x):
    return math.copysign(1.0, x) if x else 0.0


@elementwise(math.copysign, "x")
def math_copysign_dx(ans, x, y):
    return math.copysign(1.0, x) * math.copysign(1.0, ans) if x else 0.0


@elementwise(math.copysign, "y")
def math_copysign_dy(ans, x, y):
    return 0.0


@elementwise(math.fmod, "x")
def math_fmod_dx(ans, x, y):
    return 1.0


@elementwise(math.fmod, "y")
def math_fmod_dy(ans, x, y):
    return -math.trunc(x / y)


@elementwise(math.remainder, "x")
def math_remainder_dx(ans, x, y):
    return 1.0


@elementwise(math.remainder, "y")
def math_remainder_dy(ans, x, y):
    return (ans - x) / y


@elementwise(math.ldexp, "x")
def math_ldexp_dx(ans, x, i):
    return math.ldexp(1.0, i)


discrete(math.ldexp, "i")  # the exponent is an integer


def math_cbrt_d(ans, x):
    """1 / (3 cbrt(x)**2): inf at 0, as in np.float64."""
    return 1.0 / (3.0 * ans * ans) if ans else float(1.0 / np.float64(0.0))


def math_exp2_d(ans, x):
    return ans * math.log(2.0)


if hasattr(math, "cbrt"):  # Python 3.11
    elementwise(math.cbrt)(math_cbrt_d)
    elementwise(math.exp2)(math_exp2_d)


@elementwise(math.erf)
def math_erf_d(ans, x):
    return 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@elementwise(math.erfc)
def math_erfc_d(ans, x):
    return -2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@elementwise(math.degrees)
def math_degrees_d(ans, x):
    return 180.0 / math.pi


@elementwise(math.radians)
def math_radians_d(ans, x):
    return math.pi / 180.0


@elementwise(builtins.abs)
def builtin_abs_d(ans, x):
    return np.sign(x)


# builtins.pow(base, exp): `base ** exp`, the rules of `**` (a three-argument pow is
# modular integer arithmetic, which has no derivative)


@elementwise(builtins.pow, "base", name="Pow")
def builtin_pow_dbase(ans, base, exp, mod=None):
    return exp * base ** (exp - (exp != 0))


@elementwise(builtins.pow, "exp")
def builtin_pow_dexp(ans, base, exp, mod=None):
    return ans * np.log(np.where(base == 0, 1.0, base))


@defvjp(builtins.float, "x")
def float_vjp(g, ans, x):
    return g


@defjvp(builtins.float, "x")
def float_jvp(t, ans, x):
    return float(t)


def _spread(g, iterable):
    """The gradient of a sum over `iterable`: `g` for every element (rows of an array)."""
    if isinstance(iterable, np.ndarray):
        return unbroadcast(g, iterable)
    return [unbroadcast(g, item) for item in iterable]


def _sum_tangents(t):
    """Sum a sequence of tangents (rows of an array), skipping constants (None)."""
    return builtins.sum(item for item in t if item is not None)


@defvjp(builtins.sum, "iterable")
def sum_vjp_iterable(g, ans, iterable, start=0):
    return _spread(g, iterable)


@defvjp(builtins.sum, "start")
def sum_vjp_start(g, ans, iterable, start=0):
    return unbroadcast(g, start)


@defjvp(builtins.sum, "iterable")
def sum_jvp_iterable(t, ans, iterable, start=0):
    return _sum_tangents(t)


@defjvp(builtins.sum, "start")
def sum_jvp_start(t, ans, iterable, start=0):
    return t


@defvjp(math.fsum, "seq")
def fsum_vjp(g, ans, seq):
    return _spread(g, seq)


@defjvp(math.fsum, "seq")
def fsum_jvp(t, ans, seq):
    return _sum_tangents(t)


# math.dist(p, q): the Euclidean distance of two points given as sequences (or arrays) of
# coordinates; each coordinate's gradient is (p_i - q_i) / dist, 0 where the points meet
# (as np.linalg.norm of a zero vector). math.prod(iterable, start=...): each entry's
# derivative is the product of the others and `start`, computed without division (exact
# with zeros).


def _dist_grad(g, ans, p, q, sign):
    """The gradient of math.dist(p, q) for p (sign 1) or q (sign -1), in that point's kind."""
    point = p if sign > 0 else q
    share = sign * (np.asarray(p) - np.asarray(q)) / (ans if ans else 1.0)  # p - q is 0 where ans is
    if isinstance(point, np.ndarray):
        return unbroadcast(g * share, point)
    return _in_kind(point, list(g * share))


def _dist_tangent(t, ans, p, q, sign):
    """The tangent of math.dist(p, q) from the tangent `t` of p (sign 1) or q (sign -1),
    whose entries may be None (constant coordinates)."""
    if not ans:
        return 0.0
    return builtins.sum(sign * d * (a - b) / ans for d, a, b in zip(t, p, q) if d is not None)


@defvjp(math.dist, "p")
def dist_vjp_p(g, ans, p, q):
    return _dist_grad(g, ans, p, q, 1.0)


@defvjp(math.dist, "q")
def dist_vjp_q(g, ans, p, q):
    return _dist_grad(g, ans, p, q, -1.0)


@defjvp(math.dist, "p")
def dist_jvp_p(t, ans, p, q):
    return _dist_tangent(t, ans, p, q, 1.0)


@defjvp(math.dist, "q")
def dist_jvp_q(t, ans, p, q):
    return _dist_tangent(t, ans, p, q, -1.0)


def _product_of_others(iterable, start):
    """For each entry of `iterable`, `start` times the product of all other entries."""
    items = list(iterable)
    return [math.prod(items[:k] + items[k + 1 :], start=start) for k in range(len(items))]


@defvjp(math.prod, "iterable")
def prod_vjp_iterable(g, ans, iterable, *, start=1):
    return _each_times(g, iterable, _product_of_others(iterable, start))


@defvjp(math.prod, "start")
def prod_vjp_start(g, ans, iterable, *, start=1):
    return unbroadcast(g * math.prod(iterable), start)


def _prod_tangent(t, iterable, start):
    """The tangent of math.prod from the tangents `t` of its entries (None: a constant)."""
    return builtins.sum(d * other for d, other in zip(t, _product_of_others(iterable, start)) if d is not None)


@defjvp(math.prod, "iterable")
def prod_jvp_iterable(t, ans, iterable, *, start=1):
    return _prod_tangent(t, iterable, start)


@defjvp(math.prod, "start")
def prod_jvp_start(t, ans, iterable, *, start=1):
    return t * math.prod(iterable)


def _each_times(g, iterable, factors):
    """The gradient `g * factor` of each entry of `iterable`, in its kind (rows of an array)."""
    if isinstance(iterable, np.ndarray):
        return unbroadcast(g * np.asarray(factors), iterable)
    return _in_kind(iterable, [unbroadcast(g * f, item) for f, item in zip(factors, iterable)])


def _in_kind(sequence, entries):
    """The list `entries` as a list or a tuple, whichever `sequence` is."""
    return entries if isinstance(sequence, list) else tuple(entries)


# builtins max/min: `max(a, b)` of two values, or `max(sequence)`, with `key=` or not (and
# `default=`, returned, gradient and all, for an empty sequence). The
# gradient goes to the value Python returns: the first of equal largest (smallest) values,
# or keys. An entry equal to the one returned has its key, so the first entry equal to
# `ans` is the one returned, and `key` need not be called again.


def _pick(ans, a, b):
    """Whether `a` is the value `max(a, b)`/`min(a, b)` (= ans) returned."""
    return not (b == ans and a != ans)


def _indexable(sequence):
    """`sequence` as the rules index it: a list, tuple or array as it is, a dict's
    `.values()` view as the tuple of its entries (its gradient: a tuple, which
    `values_grad` hands back to the dict key by key)."""
    return sequence if isinstance(sequence, (list, tuple, np.ndarray)) else tuple(sequence)


def _select_grad(g, sequence, ans):
    """The gradient of max/min over `sequence`: `g` at the first entry equal to `ans`
    (nothing for an empty sequence, whose max is the `default=` given)."""
    sequence = _indexable(sequence)
    if len(sequence) == 0:
        return zeros_like_grad(sequence)
    if isinstance(sequence, np.ndarray):
        out = np.zeros(np.shape(sequence), dtype=np.result_type(sequence, np.float64))
        out[np.flatnonzero(np.ravel(sequence) == ans)[0]] = g
        return out
    grads = [None] * len(sequence)
    position = next(k for k, item in enumerate(sequence) if item == ans)
    grads[position] = unbroadcast(g, sequence[position])
    return list(grads) if isinstance(sequence, list) else tuple(grads)


@defvjp(builtins.max, "a")
@defvjp(builtins.min, "a")
def builtin_extreme_vjp_a(g, ans, a, b=None, *, key=None, default=None):
    if b is None:
        return _select_grad(g, a, ans)
    return unbroadcast(g, a) if _pick(ans, a, b) else unbroadcast(0.0 * g, a)


@defvjp(builtins.max, "b")
@defvjp(builtins.min, "b")
def builtin_extreme_vjp_b(g, ans, a, b=None, *, key=None, default=None):
    return unbroadcast(0.0 * g, b) if _pick(ans, a, b) else unbroadcast(g, b)


@defjvp(builtins.max, "a")
@defjvp(builtins.min, "a")
def builtin_extreme_jvp_a(t, ans, a, b=None, *, key=None, default=None):
    if b is None:
        if len(_indexable(a)) == 0:  # `default` was returned
            return 0.0 * ans
        if isinstance(a, np.ndarray):
            return np.ravel(t)[np.flatnonzero(np.ravel(a) == ans)[0]]
        position = next(k for k, item in enumerate(a) if item == ans)
        return 0.0 if t[position] is None else t[position]
    return t if _pick(ans, a, b) else 0.0 * t


@defjvp(builtins.max, "b")
@defjvp(builtins.min, "b")
def builtin_extreme_jvp_b(t, ans, a, b=None, *, key=None, default=None):
    return 0.0 * t if _pick(ans, a, b) else t


def _empty(a, b):
    """Whether max/min returned its `default=`: one argument, an empty sequence."""
    return b is None and len(a) == 0


@defvjp(builtins.max, "default")
@defvjp(builtins.min, "default")
def builtin_extreme_vjp_default(g, ans, a, b=None, *, key=None, default=None):
    return unbroadcast(g * _empty(a, b), default)


@defjvp(builtins.max, "default")
@defjvp(builtins.min, "default")
def builtin_extreme_jvp_default(t, ans, a, b=None, *, key=None, default=None):
    return t * _empty(a, b)


# builtins.sorted: each entry of the result is an entry of `iterable`, the one a stable
# sort puts at that place (with equal keys, the earlier one first, also with
# `reverse=True`); it gets that place's gradient. `key` only orders the entries.


def _sorted_order(iterable, key=None, reverse=False):
    """`order` with `sorted(iterable, key=key, reverse=reverse)[j] is list(iterable)[order[j]]`:
    sorting the positions by the same keys makes the same comparisons, so the same order."""
    if not isinstance(iterable, (list, tuple, np.ndarray, type({}.values()))):
        raise TypeError(f"srcgrad differentiates sorted() of a list, a tuple or an array, not of a {type(iterable).__name__}")
    keys = list(iterable) if key is None else [key(v) for v in iterable]
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)


def _unsorted(g, iterable, order):
    """The gradient of `iterable` from the gradient `g` of its sorted list (None entries:
    no gradient): each place's gradient goes back to the entry sorted there."""
    if g is None:
        return zeros_like_grad(iterable)
    if isinstance(iterable, np.ndarray):
        out = zeros_like_grad(iterable)
        for place, k in enumerate(order):
            if g[place] is not None:
                out[k] = g[place]
        return out
    entries = _indexable(iterable)
    grads = [None] * len(order)
    for place, k in enumerate(order):
        grads[k] = None if g[place] is None else unbroadcast(g[place], entries[k])
    return grads if isinstance(iterable, list) else tuple(grads)


def _sorted_tangent(t, iterable, order):
    """The tangent of `sorted(iterable)` (a list) from the tangent `t` of `iterable`
    (None entries: constants)."""
    entries = _indexable(iterable)
    return [zeros_like_grad(entries[k]) if t[k] is None else t[k] for k in order]


@defvjp(builtins.sorted, "iterable")
def sorted_vjp(g, ans, iterable, *, key=None, reverse=False):
    return _unsorted(g, iterable, _sorted_order(iterable, key, reverse))


@defjvp(builtins.sorted, "iterable")
def sorted_jvp(t, ans, iterable, *, key=None, reverse=False):
    return _sorted_tangent(t, iterable, _sorted_order(iterable, key, reverse))
