"""Functions of 1-D sequences and sampled data: diff, ediff1d, gradient, trapezoid,
unwrap, convolve, correlate, polyval, vander, interp.

All are linear in their data (and, for polyval, vander, trapezoid and interp, smooth in
their sample points), so reverse rules are transposes: the transpose of a difference is
a negated difference of the zero-padded cotangent, of a convolution a correlation
against the full-length cotangent. `interp` differentiates in `x` (the slope of the
piece each point falls on, 0 beyond the ends) and in `fp` (in `xp`, `left` and `right`
in `fills.py`, with the edges of diff and ediff1d); `period=` is not supported.
np.gradient differentiates its array only: its spacings (scalars or coordinate arrays)
are constants, and one that depends on the differentiated input is refused (no rule).
np.unwrap adds multiples of the period, which are piecewise constant: its derivative
is the identity (at a jump of exactly `discont` it takes the side NumPy computes).
"""

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .reductions import _float_dtype
from .registry import defjvp, defvjp, numpy2, supports
from .shapes import _along
from .structure import _like


# --- differences and integrals ------------------------------------------------------


def _pad_axis(a, axis, before, after):
    widths = [(0, 0)] * np.ndim(a)
    widths[axis] = (before, after)
    return np.pad(a, widths)


def _diff_transpose(g, axis):
    """The transpose of one `np.diff` along `axis`."""
    return -np.diff(_pad_axis(g, axis, 1, 1), axis=axis)


def _edge_length(edge, axis):
    return 0 if edge is None else (1 if np.ndim(edge) == 0 else np.shape(edge)[axis])


def _diff_full(g, n, axis):
    """The transpose of `n` differences: the cotangent of the joined (prepend, x, append)."""
    for _ in range(n):
        g = _diff_transpose(g, axis)
    return g


def _diff_vjp(g, x, n, axis, prepend, append):
    start = _edge_length(prepend, axis)
    return unbroadcast(np.take(_diff_full(g, n, axis), range(start, start + np.shape(x)[axis]), axis=axis), x)


def _diff_jvp(t, n, axis, prepend, append):
    """np.diff of the tangent; constant edges get zero tangents of the edges' own dtype,
    so the result promotes the way the primal does."""
    edges = {}
    if prepend is not None:
        edges["prepend"] = np.zeros_like(np.asarray(prepend))
    if append is not None:
        edges["append"] = np.zeros_like(np.asarray(append))
    return np.diff(t, n=n, axis=axis, **edges)


@defvjp(np.diff, "x")
def diff_vjp(g, ans, x, n=1, axis=-1, prepend=None, append=None):
    return _diff_vjp(g, x, n, axis, prepend, append)


@defjvp(np.diff, "x")
def diff_jvp(t, ans, x, n=1, axis=-1, prepend=None, append=None):
    return _diff_jvp(t, n, axis, prepend, append)


def _ediff1d_vjp(g, ary, to_end, to_begin):
    start = np.size(to_begin) if to_begin is not None else 0
    middle = g[start : start + np.size(ary) - 1]
    return unbroadcast(np.reshape(_diff_transpose(middle, 0), np.shape(ary)), ary)


def _ediff1d_jvp(t, to_end, to_begin):
    end, begin = (None if e is None else np.zeros(np.size(e), np.result_type(t)) for e in (to_end, to_begin))
    return np.ediff1d(t, to_end=end, to_begin=begin)


@defvjp(np.ediff1d, "ary")
def ediff1d_vjp(g, ans, ary, to_end=None, to_begin=None):
    return _ediff1d_vjp(g, ary, to_end, to_begin)


@defjvp(np.ediff1d, "ary")
def ediff1d_jvp(t, ans, ary, to_end=None, to_begin=None):
    return _ediff1d_jvp(t, to_end, to_begin)


def _gradient_axes(f, axis):
    """The axes np.gradient differentiates along, non-negative, in its output's order."""
    ndim = np.ndim(f)
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))


def _gradient_spacings(varargs, count):
    """One spacing (a scalar or a coordinate array) per differentiated axis, as np.gradient reads them."""
    if not varargs:
        return (1.0,) * count
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return tuple(varargs) * count
    return tuple(varargs)


def _gradient_stencil(n, spacing, edge_order):
    """np.gradient's coefficients along an axis of length n, in float64: (first, interior,
    last). Row 0 reads f[:w] with weights `first`, row n-1 reads f[n-w:] with `last` (w =
    min(n, 3)), and row i of 1..n-2 reads f[i-1:i+2] with interior[:, i-1]. Each row reads
    w neighbouring entries of distinct residues mod w, so np.gradient of the indicator of
    one residue class gives, in each row, the weight on that row's entry of that class."""
    w = min(n, 3)
    probes = (np.arange(n) % w == np.arange(w)[:, None]).astype(np.float64)
    rows = np.stack([np.gradient(p, spacing, edge_order=edge_order) for p in probes])
    first = rows[:, 0]
    last = rows[(n - w + np.arange(w)) % w, n - 1]
    inner = np.arange(1, n - 1)
    interior = np.stack([rows[(inner - 1 + k) % w, inner] for k in range(3)]) if n > 2 else np.zeros((3, 0))
    return first, interior, last


def _gradient_transpose(g, axis, spacing, edge_order):
    """The transpose of np.gradient along one axis, applied to that output's cotangent."""
    n, ndim = np.shape(g)[axis], np.ndim(g)
    w = min(n, 3)
    first, interior, last = (np.asarray(c, dtype=_float_dtype(g)) for c in _gradient_stencil(n, spacing, edge_order))
    out = _pad_axis(_along(first, axis, ndim) * np.take(g, [0], axis=axis), axis, 0, n - w)
    out = out + _pad_axis(_along(last, axis, ndim) * np.take(g, [n - 1], axis=axis), axis, n - w, 0)
    middle = np.take(g, range(1, n - 1), axis=axis)
    for k in range(3):
        out = out + _pad_axis(_along(interior[k], axis, ndim) * middle, axis, k, 2 - k)
    return out


def _gradient_vjp(g, f, varargs, axis, edge_order):
    """np.gradient's cotangent (one array, or one entry per axis, None: no gradient) back
    to f: the sum of each axis's transpose."""
    axes = _gradient_axes(f, axis)
    cotangents = (g,) if len(axes) == 1 else g
    out = zeros_like_grad(f)
    for ax, spacing, cotangent in zip(axes, _gradient_spacings(varargs, len(axes)), cotangents):
        if cotangent is not None:
            out = out + _gradient_transpose(cotangent, ax, spacing, edge_order)
    return out


@defvjp(np.gradient, "f")
def gradient_vjp(g, ans, f, *varargs, axis=None, edge_order=1):
    return _gradient_vjp(g, f, varargs, axis, edge_order)


@defjvp(np.gradient, "f")
def gradient_jvp(t, ans, f, *varargs, axis=None, edge_order=1):
    return np.gradient(t, *varargs, axis=axis, edge_order=edge_order)


@defvjp(np.unwrap, "p")
def unwrap_vjp(g, ans, p, discont=None, axis=-1, *, period=2 * np.pi):
    return unbroadcast(g, p)


@defjvp(np.unwrap, "p")
def unwrap_jvp(t, ans, p, discont=None, axis=-1, *, period=2 * np.pi):
    return t


def _trapezoid_weights(y, x, dx, axis):
    """d trapezoid / dy: half of each neighbouring spacing, broadcastable against y."""
    ndim = np.ndim(y)
    if x is None:
        spacing = _along(np.full(max(np.shape(y)[axis] - 1, 0), dx), axis, ndim)
    elif np.ndim(x) == 1:
        spacing = _along(np.diff(x), axis, ndim)
    else:
        spacing = np.diff(x, axis=axis)
    return 0.5 * (_pad_axis(spacing, axis, 1, 0) + _pad_axis(spacing, axis, 0, 1))


def _trapezoid_x_derivative(y, axis):
    """d trapezoid / dx at each sample: mean of the interval before minus the one after."""
    n = np.shape(y)[axis]
    mids = 0.5 * (np.take(y, range(1, n), axis=axis) + np.take(y, range(n - 1), axis=axis))
    return _diff_transpose(mids, axis)


def _trapezoid_vjp_x(g, y, x, axis):
    grad = np.expand_dims(g, axis) * _trapezoid_x_derivative(y, axis)
    if np.ndim(x) == 1 and np.ndim(y) != 1:
        grad = np.sum(grad, axis=tuple(a for a in range(np.ndim(y)) if a != axis % np.ndim(y)))
    return unbroadcast(grad, x)


def _trapezoid_jvp_x(t, y, x, axis):
    t = _along(t, axis, np.ndim(y)) if np.ndim(x) == 1 else t
    return np.sum(t * _trapezoid_x_derivative(y, axis), axis=axis)


trapezoid = numpy2("trapezoid")
# the old name: NumPy 1.26's only one, a deprecated wrapper of trapezoid in NumPy 2.0 to 2.3, then gone
_TRAPZ = np.__dict__.get("trapz")
trapezoid = trapezoid or _TRAPZ


def _trapezoid_unit(y, x, axis):
    """d trapezoid / d dx: the integral with unit spacing, or 0 when x is given."""
    return trapezoid(y, axis=axis) if x is None else np.zeros_like(trapezoid(y, axis=axis))


@defvjp(numpy2("trapezoid"), "y")
@defvjp(_TRAPZ, "y")
def trapezoid_vjp_y(g, ans, y, x=None, dx=1.0, axis=-1):
    return unbroadcast(np.expand_dims(g, axis) * _trapezoid_weights(y, x, dx, axis), y)


@defvjp(numpy2("trapezoid"), "x")
@defvjp(_TRAPZ, "x")
def trapezoid_vjp_x(g, ans, y, x=None, dx=1.0, axis=-1):
    return _trapezoid_vjp_x(g, y, x, axis)


@defvjp(numpy2("trapezoid"), "dx")
@defvjp(_TRAPZ, "dx")
def trapezoid_vjp_dx(g, ans, y, x=None, dx=1.0, axis=-1):
    return unbroadcast(g * _trapezoid_unit(y, x, axis), dx)


@defjvp(numpy2("trapezoid"), "y")
@defjvp(_TRAPZ, "y")
def trapezoid_jvp_y(t, ans, y, x=None, dx=1.0, axis=-1):
    return trapezoid(t, x=x, dx=dx, axis=axis)


@defjvp(numpy2("trapezoid"), "x")
@defjvp(_TRAPZ, "x")
def trapezoid_jvp_x(t, ans, y, x=None, dx=1.0, axis=-1):
    return _trapezoid_jvp_x(t, y, x, axis)


@defjvp(numpy2("trapezoid"), "dx")
@defjvp(_TRAPZ, "dx")
def trapezoid_jvp_dx(t, ans, y, x=None, dx=1.0, axis=-1):
    return t * _trapezoid_unit(y, x, axis)


# --- 1-D convolutions, polynomials, interpolation -----------------------------------


def _full_offset(correlate, mode, n, m):
    """Where the `mode` output of np.convolve/np.correlate starts inside the full one."""
    if mode == "full":
        return 0
    if mode == "valid":
        return min(n, m) - 1
    if correlate:
        return (m - 1) // 2 if n >= m else n // 2
    return (min(n, m) - 1) // 2


def _full_cotangent(g, correlate, mode, x, v):
    """g placed in a zero array as long as the full convolution."""
    n, m = np.size(x), np.size(v)
    full = np.zeros(n + m - 1, dtype=np.result_type(g))
    start = _full_offset(correlate, mode, n, m)
    full[start : start + np.size(g)] = g
    return full


@defvjp(np.convolve, "x")
def convolve_vjp_x(g, ans, x, v, mode="full"):
    return unbroadcast(np.correlate(_full_cotangent(g, False, mode, x, v), v, "valid"), x)


@defvjp(np.convolve, "v")
def convolve_vjp_v(g, ans, x, v, mode="full"):
    return unbroadcast(np.correlate(_full_cotangent(g, False, mode, x, v), x, "valid"), v)


@defjvp(np.convolve, "x")
def convolve_jvp_x(t, ans, x, v, mode="full"):
    return np.convolve(t, v, mode)


@defjvp(np.convolve, "v")
def convolve_jvp_v(t, ans, x, v, mode="full"):
    return np.convolve(x, t, mode)


@defvjp(np.correlate, "x")
def correlate_vjp_x(g, ans, x, v, mode="valid"):
    return unbroadcast(np.correlate(_full_cotangent(g, True, mode, x, v), np.flip(v), "valid"), x)


@defvjp(np.correlate, "v")
def correlate_vjp_v(g, ans, x, v, mode="valid"):
    return unbroadcast(np.flip(np.correlate(_full_cotangent(g, True, mode, x, v), x, "valid")), v)


@defjvp(np.correlate, "x")
def correlate_jvp_x(t, ans, x, v, mode="valid"):
    return np.correlate(t, v, mode)


@defjvp(np.correlate, "v")
def correlate_jvp_v(t, ans, x, v, mode="valid"):
    return np.correlate(x, t, mode)


def _polyder(p):
    """Coefficients of the derivative polynomial, in p's dtype."""
    p = np.asarray(p)
    return (p[:-1] * np.arange(len(p) - 1, 0, -1)).astype(p.dtype, copy=False)


def _polyval_vjp_p(g, p, x):
    """d polyval / d p[i] = x ** (degree - i); a list of floats for a list of floats."""
    degree = np.size(p) - 1
    grads = [np.sum(g * x ** (degree - i)) for i in range(degree + 1)]
    if isinstance(p, (list, tuple)):
        return _like([unbroadcast(d, item) for d, item in zip(grads, p)], p)
    return unbroadcast(np.array(grads), p)


def _polyval_jvp_p(t, p, x):
    if isinstance(p, (list, tuple)):
        t = [0.0 if item is None else item for item in t]
    return np.polyval(t, x)


@defvjp(np.polyval, "p")
def polyval_vjp_p(g, ans, p, x):
    return _polyval_vjp_p(g, p, x)


@defvjp(np.polyval, "x")
def polyval_vjp_x(g, ans, p, x):
    return unbroadcast(g * np.polyval(_polyder(p), x), x)


@defjvp(np.polyval, "p")
def polyval_jvp_p(t, ans, p, x):
    return _polyval_jvp_p(t, p, x)


@defjvp(np.polyval, "x")
def polyval_jvp_x(t, ans, p, x):
    return t * np.polyval(_polyder(p), x)


def _vander_slopes(x, N, increasing):
    """d vander(x)[i, j] / d x[i] = p_j * x[i] ** (p_j - 1) for the column's power p_j; the
    constant column (p_j = 0) has slope 0, also at x = 0."""
    x = np.asarray(x)
    powers = np.arange(len(x) if N is None else N, dtype=_float_dtype(x))
    powers = powers if increasing else powers[::-1]
    return powers * x[:, None] ** (powers - (powers != 0))


@defvjp(np.vander, "x")
def vander_vjp(g, ans, x, N=None, increasing=False):
    return unbroadcast(np.sum(g * _vander_slopes(x, N, increasing), axis=1), x)


@defjvp(np.vander, "x")
def vander_jvp(t, ans, x, N=None, increasing=False):
    return (np.reshape(t, (-1, 1)) * _vander_slopes(x, N, increasing)).astype(np.result_type(ans), copy=False)


_PERIOD = ("wrap x into one period yourself and pass xp and fp over that period "
           "(`np.interp(np.mod(x - xp[0], period) + xp[0], xp, fp)`, with the period's end appended to xp and fp)")


def _check_period(period):
    if period is not None:
        raise NotImplementedError(f"srcgrad differentiates np.interp without period= only; {_PERIOD}")


def _interp_slope(x, xp, fp, period):
    """The slope of the piece each x falls on, 0 outside [xp[0], xp[-1]]; in float64
    like np.interp's result."""
    _check_period(period)
    slopes = np.diff(fp) / np.diff(xp)
    piece = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    inside = (x >= xp[0]) & (x <= xp[-1])
    return np.where(inside, slopes[piece], 0.0).astype(np.float64)


def _interp_vjp_fp(g, x, xp, fp, left, right, period):
    """Each x reads two neighbouring fp values with weights 1 - s and s; beyond the ends
    it reads the end value, unless `left` / `right` replace it with a constant."""
    _check_period(period)
    x = np.asarray(x)
    n = len(xp)
    piece = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)
    s = np.clip((x - xp[piece]) / (xp[piece + 1] - xp[piece]), 0.0, 1.0)
    weight = np.broadcast_to(g, x.shape)
    weight = np.where((x < xp[0]) & (left is not None), 0.0, weight)
    weight = np.where((x > xp[-1]) & (right is not None), 0.0, weight)
    grad = np.zeros(n, dtype=np.result_type(weight))
    np.add.at(grad, piece, weight * (1.0 - s))
    np.add.at(grad, piece + 1, weight * s)
    return unbroadcast(grad, fp)


def _interp_jvp_fp(t, x, xp, left, right, period):
    """np.interp is linear in fp; constant `left` / `right` values get zero tangents."""
    _check_period(period)
    return np.interp(x, xp, t, left=None if left is None else 0.0, right=None if right is None else 0.0)


@defvjp(np.interp, "x")
def interp_vjp_x(g, ans, x, xp, fp, left=None, right=None, period=None):
    return unbroadcast(g * _interp_slope(x, xp, fp, period), x)


@defvjp(np.interp, "fp")
def interp_vjp_fp(g, ans, x, xp, fp, left=None, right=None, period=None):
    return _interp_vjp_fp(g, x, xp, fp, left, right, period)


@defjvp(np.interp, "x")
def interp_jvp_x(t, ans, x, xp, fp, left=None, right=None, period=None):
    return t * _interp_slope(x, xp, fp, period)


@defjvp(np.interp, "fp")
def interp_jvp_fp(t, ans, x, xp, fp, left=None, right=None, period=None):
    return _interp_jvp_fp(t, x, xp, left, right, period)


supports(np.interp, "period", (None,), _PERIOD)


# --- least-squares polynomial fits ----------------------------------------------------
# p = polyfit(x, y, deg, w=w) solves min |A p - b| with A = diag(w) V, V = vander(x, deg + 1)
# and b = w * y: p = pinv(A) (w * y), linear in y. In x, with r = b - A p and
# u = (A^T A)^-1 g, the cotangent g of p pulls back through dA = diag(w dx) V' (V' the
# slopes of V's columns) as sum_j V'_ij (r u^T - A u p^T)_ij w_i (columns of a 2-D y add).
# Exact where A has full column rank (the rank NumPy's default `rcond` keeps).


def _fit_matrix(x, deg, w):
    a = np.vander(np.asarray(x, dtype=np.float64), int(deg) + 1)
    return a if w is None else a * np.asarray(w, dtype=np.float64)[:, None]


def _fit_solver(x, deg, w):
    """P with polyfit(x, y, deg, w=w) == P @ y (columns of a 2-D y alike)."""
    solver = np.linalg.pinv(_fit_matrix(x, deg, w))
    return solver if w is None else solver * np.asarray(w, dtype=np.float64)


def _fit_vjp_x(g, p, x, y, deg, w):
    a = _fit_matrix(x, deg, w)
    weights = np.ones(len(a)) if w is None else np.asarray(w, dtype=np.float64)
    b = (weights * np.asarray(y, dtype=np.float64).T).T
    p, g = np.asarray(p, dtype=np.float64), np.asarray(g, dtype=np.float64)
    p2, g2, b2 = (v.reshape(len(v), -1) for v in (p, g, b))
    u = np.linalg.solve(a.T @ a, g2)
    m = (b2 - a @ p2) @ u.T - (a @ u) @ p2.T
    slopes = _vander_slopes(np.asarray(x, dtype=np.float64), int(deg) + 1, False)
    return unbroadcast(weights * np.sum(slopes * m, axis=1), x)


def _fit_jvp_x(t, p, x, y, deg, w):
    a = _fit_matrix(x, deg, w)
    weights = np.ones(len(a)) if w is None else np.asarray(w, dtype=np.float64)
    b = (weights * np.asarray(y, dtype=np.float64).T).T
    da = (weights * np.asarray(t, dtype=np.float64))[:, None] * _vander_slopes(np.asarray(x, dtype=np.float64),
                                                                                 int(deg) + 1, False)
    p = np.asarray(p, dtype=np.float64)
    tangent = np.linalg.solve(a.T @ a, da.T @ (b - a @ p) - a.T @ (da @ p))
    return tangent.astype(_float_dtype(p), copy=False)


@defvjp(np.polyfit, "y")
def polyfit_vjp_y(g, ans, x, y, deg, rcond=None, full=False, w=None, cov=False):
    return unbroadcast(_fit_solver(x, deg, w).T @ g, y)


@defvjp(np.polyfit, "x")
def polyfit_vjp_x(g, ans, x, y, deg, rcond=None, full=False, w=None, cov=False):
    return _fit_vjp_x(g, ans, x, y, deg, w)


@defjvp(np.polyfit, "y")
def polyfit_jvp_y(t, ans, x, y, deg, rcond=None, full=False, w=None, cov=False):
    return (_fit_solver(x, deg, w) @ t).astype(ans.dtype, copy=False)


@defjvp(np.polyfit, "x")
def polyfit_jvp_x(t, ans, x, y, deg, rcond=None, full=False, w=None, cov=False):
    return _fit_jvp_x(t, ans, x, y, deg, w).astype(ans.dtype, copy=False)


_FIT_ONLY = "np.polyfit's rules give the coefficients alone: call it without full= and cov= (default False)"
supports(np.polyfit, "full", (False,), _FIT_ONLY)
supports(np.polyfit, "cov", (False,), _FIT_ONLY)
