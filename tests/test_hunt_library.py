"""Library code as programs: NumPy's and SciPy's functions written in Python (np.gradient,
np.linalg.norm, np.cov, scipy.spatial.distance's metrics, scipy's windows and
integrators, ...), their source differentiated as a user's own, in both modes, against
float64 central differences. The programs below are those functions cut down to the
construct that once went wrong; each test says what it was.
"""

import warnings

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check_hessian

# --- a keyword-only parameter that a loop later rebinds ---------------------------------


def rescaled(x, *rest, k=None):
    """np.gradient's `def gradient(f, *varargs, axis=None, edge_order=1)` reads `axis`,
    then loops `for axis, ax_dx in zip(axes, dx)`: the parameter is also a loop target."""
    if k is None:
        y = x * 2.0
    else:
        y = x * 3.0
    for k, w in zip(range(2), [1.0, 2.0]):
        y = y * w + x[k]
    return np.sum(y * y)


def centered_differences(f, *varargs, axis=None, edge_order=1):
    """np.gradient's loop over the axes, kept whole: `axis` a keyword-only parameter the
    loop rebinds, `slice1` a list of slices written in the loop and reset after each axis,
    the result `outvals[0]` for one axis and a tuple for several."""
    f = np.asanyarray(f)
    N = f.ndim
    if axis is None:
        axes = tuple(range(N))
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
    outvals = []
    slice1 = [slice(None)] * N
    slice2 = [slice(None)] * N
    slice3 = [slice(None)] * N
    for axis, ax_dx in zip(axes, [0.5] * len(axes)):
        out = np.empty_like(f)
        slice1[axis] = slice(1, -1)
        slice2[axis] = slice(None, -2)
        slice3[axis] = slice(2, None)
        out[tuple(slice1)] = (f[tuple(slice3)] - f[tuple(slice2)]) / (2.0 * ax_dx)
        slice1[axis] = 0
        slice2[axis] = 0
        slice3[axis] = 1
        out[tuple(slice1)] = (f[tuple(slice3)] - f[tuple(slice2)]) / ax_dx
        slice1[axis] = -1
        slice2[axis] = -2
        slice3[axis] = -1
        out[tuple(slice1)] = (f[tuple(slice3)] - f[tuple(slice2)]) / ax_dx
        outvals.append(out)
        slice1[axis] = slice(None)
        slice2[axis] = slice(None)
        slice3[axis] = slice(None)
    if len(axes) == 1:
        return np.sum(np.sin(outvals[0]) * f)
    return np.sum(outvals[0] * outvals[1])


def along_columns(a):
    return centered_differences(a, axis=1)


def along_rows(a):
    return centered_differences(a, axis=0)


X35 = np.array([[0.3, -1.2, 0.7, 1.1, -0.4],
                [0.9, 0.2, -0.5, 0.8, 1.6],
                [-0.7, 0.4, 1.3, -1.0, 0.1]])


def test_keyword_only_parameter_rebound_by_a_loop_keeps_the_callers_value():
    """The backward pass started the keyword-only `k` as None (as a local a loop may leave
    unset), so `if k is None` took the other branch: grad(rescaled)(x, k=1) was
    [208, 168, 128], the gradient of `y = x * 2.0`; it is [312, 288, 264]."""
    x = np.array([1.0, 2.0, 3.0])
    expected = np.array([312.0, 288.0, 264.0])
    g = srcgrad.grad(rescaled)(x, k=1)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(lambda v: rescaled(v, k=1), (x,), 0), rtol=1e-7)
    value, g2 = srcgrad.value_and_grad(rescaled)(x, k=1)
    assert value == rescaled(x, k=1) == 840.0
    np.testing.assert_allclose(g2, expected, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(rescaled)(x), numerical_grad(rescaled, (x,), 0), rtol=1e-7)


@pytest.mark.parametrize("axis", [1, 0, None])
def test_np_gradient_along_one_axis_of_a_matrix(axis):
    """Was an IndexError inside the generated gradient (`axis` reset to None made the
    axes (0, 1), and the gradient of `outvals[0]` was split into rows)."""
    g = srcgrad.grad(centered_differences)(X35, axis=axis)
    assert g.shape == X35.shape and g.dtype == np.float64
    np.testing.assert_allclose(g, numerical_grad(lambda a: centered_differences(a, axis=axis), (X35,), 0),
                               rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("fn", [along_columns, along_rows])
def test_np_gradient_along_one_axis_called_from_another_function(fn):
    g = srcgrad.grad(fn)(X35)
    np.testing.assert_allclose(g, numerical_grad(fn, (X35,), 0), rtol=1e-7, atol=1e-9)
    t = np.cos(np.arange(15.0)).reshape(3, 5)
    value, dot = srcgrad.jvp(fn, (X35,), (t,))
    assert value == fn(X35)
    np.testing.assert_allclose(dot, np.sum(g * t), rtol=1e-10)


def test_np_gradient_along_one_axis_hessian():
    check_hessian(along_columns, (X35[:2, :4].copy(),), 0)


# --- np.linalg.norm's keepdims shape and np.sinc's `where(x, x, eps)` -------------------

BOTH_AXES = (0, 1)  # a default that is no literal: the call stays a call, with its own pullback


def norm_keepdims(x, axis=BOTH_AXES, keepdims=True):
    """np.linalg.norm's keepdims: the result reshaped to a shape written entry by entry."""
    ret = np.sqrt(np.sum(x * x, axis=axis))
    if keepdims:
        ret_shape = list(x.shape)
        ret_shape[axis[0]] = 1
        ret_shape[axis[1]] = 1
        ret = ret.reshape(ret_shape)
    return ret


def cubed_norm(x):
    return np.sum(norm_keepdims(x) ** 3)


def sinc(x):
    """NumPy's np.sinc: the condition of `where` is the differentiated `x` itself."""
    x = np.asanyarray(x)
    x = np.pi * x
    eps = np.finfo(x.dtype).eps if x.dtype.kind == "f" else 1e-20
    y = np.where(x, x, eps)
    return np.sin(y) / y


def sinc_energy(x):
    return np.sum(sinc(x) ** 2)


X22 = np.array([[0.3, -1.2], [0.7, 1.1]])


def test_hessian_through_a_shape_written_entry_by_entry():
    """The Hessian was refused: in the gradient code the pullback puts `ret_shape`'s
    entries back from its tape (`ret_shape[i] = tape.pop()`), so forward mode took the
    shape as differentiated ("no forward derivative rule for `.reshape()` with respect to
    its argument `shape`"). A shape is integers: in derivatives of generated code
    np.reshape's `shape` gets no derivative."""
    n = np.sqrt(np.sum(X22 ** 2))
    x = X22.ravel()
    expected = 3 * (n * np.eye(4) + np.outer(x, x) / n)
    h = srcgrad.hessian(cubed_norm)(X22)
    np.testing.assert_allclose(h.reshape(4, 4), expected, rtol=1e-12)
    check_hessian(cubed_norm, (X22,), 0)


def test_np_sinc_where_condition_is_the_differentiated_value():
    """Was refused in both modes: "no derivative rule for `np.where` with respect to its
    argument `condition`". A condition is read as booleans, piecewise constant: np.where's
    `condition` is discrete, as np.extract's."""
    x = np.array([0.3, -1.2, 0.7, 1.1, 2.5])
    g = srcgrad.grad(sinc_energy)(x)
    px = np.pi * x
    dsinc = (px * np.cos(px) - np.sin(px)) / (px * x)
    np.testing.assert_allclose(g, 2 * np.sinc(x) * dsinc, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(sinc_energy, (x,), 0), rtol=1e-7)
    t = np.cos(np.arange(5.0))
    value, dot = srcgrad.jvp(sinc, (x,), (t,))
    np.testing.assert_allclose(value, np.sinc(x), rtol=1e-15)
    np.testing.assert_allclose(dot, dsinc * t, rtol=1e-12)
    check_hessian(sinc_energy, (x,), 0)


# --- np.diff's `op = not_equal if a.dtype == np.bool else subtract` ----------------------


def differences(a, n=1, axis=-1, prepend=None):
    """np.diff: the function chosen by a test of `a`, which the function has assigned."""
    a = np.asanyarray(a)
    if prepend is not None:
        a = np.concatenate([np.broadcast_to(prepend, a.shape[:-1] + (1,)), a], axis)
    nd = a.ndim
    slice1 = [slice(None)] * nd
    slice2 = [slice(None)] * nd
    slice1[axis] = slice(1, None)
    slice2[axis] = slice(None, -1)
    slice1 = tuple(slice1)
    slice2 = tuple(slice2)
    op = np.not_equal if a.dtype == np.bool_ else np.subtract
    for _ in range(n):
        a = op(a[slice1], a[slice2])
    return a


def trapezoid(y, x):
    """np.trapezoid with sample points: d = diff(x)."""
    d = differences(x)
    return np.sum(d * (y[1:] + y[:-1]) / 2.0)


def second_differences(a):
    return np.sum(np.sin(differences(a, n=2, prepend=0.5)))


def test_np_diff_function_chosen_by_a_test_of_an_assigned_variable():
    """Was refused ("calls its local variable `op`"): the choice's test read `a`, which
    the function assigns. The test is taken where the name is bound, so it is the choice
    Python makes; np.diff, np.trapezoid with `x`, np.unwrap's first line all read so."""
    x = np.array([0.1, 0.4, 0.8, 1.5, 1.7, 2.6])
    y = np.array([0.3, -1.2, 0.7, 1.1, 2.5, -0.4])
    gy, gx = srcgrad.grad(trapezoid, wrt=(0, 1))(y, x)
    np.testing.assert_allclose(gy, numerical_grad(trapezoid, (y, x), 0), rtol=1e-7)
    np.testing.assert_allclose(gx, numerical_grad(trapezoid, (y, x), 1), rtol=1e-7)
    library = np.trapezoid if hasattr(np, "trapezoid") else np.trapz  # NumPy 1.26 has only trapz
    np.testing.assert_allclose(gy, srcgrad.grad(library)(y, x), rtol=1e-12)
    g = srcgrad.grad(second_differences)(y)
    np.testing.assert_allclose(g, numerical_grad(second_differences, (y,), 0), rtol=1e-7)
    t = np.cos(np.arange(6.0))
    value, dot = srcgrad.jvp(second_differences, (y,), (t,))
    assert value == second_differences(y)
    np.testing.assert_allclose(dot, np.sum(g * t), rtol=1e-12)
    check_hessian(second_differences, (y,), 0)


def test_a_choice_whose_test_calls_a_function_is_still_refused():
    def pick(x):
        op = np.sin if np.all(x > 0) else np.cos
        return np.sum(op(x))

    with pytest.raises(srcgrad.NotDifferentiableError, match=r"calls its local variable `op`.*whose test calls a function"):
        srcgrad.grad(pick)(np.array([0.5, 1.0]))


def shifted_differences(a):
    return np.sum(differences(a, prepend=-1.5) ** 2)


def test_a_literal_argument_tested_with_is_not_none_compiles_without_warning():
    """A spliced callee's parameter read by `prepend is not None` was replaced by the
    literal argument: the generated code said `0.5 is not None`, and Python compiled it
    with a SyntaxWarning (an error under -W error). Such a parameter is assigned."""
    y = np.array([0.3, -1.2, 0.7, 1.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = srcgrad.grad(shifted_differences)(y)
        _, dot = srcgrad.jvp(shifted_differences, (y,), (np.ones(4),))
    np.testing.assert_allclose(g, numerical_grad(shifted_differences, (y,), 0), rtol=1e-7)
    np.testing.assert_allclose(dot, np.sum(g), rtol=1e-12)
    text = srcgrad.source(srcgrad.grad(shifted_differences))
    assert "prepend = -1.5" in text and "1.5 is not None" not in text


# --- numpy.polynomial's `c = np.moveaxis(c, iaxis, 0)` then `c *= scl` ---------------------


def scaled_along(c, scl=2.0, axis=0):
    """np.polynomial.polynomial.polyder's prologue: a fresh copy moved, scaled in place,
    moved back."""
    c = np.array(c, ndmin=1, copy=True)
    iaxis = axis % c.ndim
    c = np.moveaxis(c, iaxis, 0)
    c *= scl
    c = np.moveaxis(c, 0, iaxis)
    return np.sum(np.sin(c))


def test_a_view_made_by_moveaxis_shares_no_memory_with_the_axes():
    """Was refused: "`c *= scl` changes `c` in place, and it may share memory with `iaxis`
    (line: `c = np.moveaxis(c, iaxis, 0)`), which is read afterwards". np.moveaxis,
    np.reshape, np.transpose, ... return a view of their first argument only."""
    g = srcgrad.grad(scaled_along)(X22)
    np.testing.assert_allclose(g, 2.0 * np.cos(2.0 * X22), rtol=1e-14)
    t = np.array([[1.0, -0.5], [0.25, 2.0]])
    _, dot = srcgrad.jvp(scaled_along, (X22,), (t,))
    np.testing.assert_allclose(dot, np.sum(g * t), rtol=1e-14)
    check_hessian(scaled_along, (X22,), 0)


def scaled_twice(c, scl=2.0):
    """The view `d` still reads the memory `c *= scl` changes: refused, as before."""
    c = np.array(c, copy=True)
    d = np.moveaxis(c, 0, 1)
    c *= scl
    return np.sum(d * c)


def test_a_view_read_after_its_base_changes_is_still_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`c \*= scl`.*may share memory with `d`"):
        srcgrad.grad(scaled_twice)(X22.copy())


# --- np.average: keywords passed on only when given (`**keepdims_kw`), `dtype.type(...)` --


def weighted_average(a, axis=None, weights=None, keepdims=np._NoValue):
    """np.average, cut down: the keywords dict holds `keepdims` only when the caller gave
    it, and the unweighted branch makes its scale with `avg_as_array.dtype.type(...)`."""
    a = np.asanyarray(a)
    if keepdims is np._NoValue:
        keepdims_kw = {}
    else:
        keepdims_kw = {'keepdims': keepdims}
    if weights is None:
        avg = a.mean(axis, **keepdims_kw)
        avg_as_array = np.asanyarray(avg)
        scl = avg_as_array.dtype.type(a.size / avg_as_array.size)
    else:
        wgt = np.broadcast_to(weights, a.shape)
        scl = wgt.sum(axis=axis, **keepdims_kw)
        avg = avg_as_array = np.multiply(a, wgt).sum(axis, **keepdims_kw) / scl
    return avg, scl


def mean_of(a, axis=None, keepdims=np._NoValue, where=np._NoValue):
    """np.mean's wrapper: `kwargs = {}`, entries set only for the keywords given."""
    kwargs = {}
    if keepdims is not np._NoValue:
        kwargs['keepdims'] = keepdims
    if where is not np._NoValue:
        kwargs['where'] = where
    return np.mean(a, axis=axis, **kwargs)


def spread(a, w):
    avg, scl = weighted_average(a, axis=1, weights=w)
    plain, n = weighted_average(a, axis=0, keepdims=True)
    return np.sum(avg ** 2) * scl[0] + np.sum(np.sin(plain)) * n + np.sum(mean_of(a, axis=1, keepdims=True) ** 3)


def test_keywords_passed_on_only_when_given():
    """Was refused: "`**keepdims_kw` unpacks a dict whose keys srcgrad cannot see" (np.average,
    so np.cov and np.corrcoef; np.mean, np.std, np.var's wrappers). A dict bound only to
    displays of string keys and written only at string keys, read only by `**d`, is
    spelled out as the call for each set of keys it may hold, chosen when the call runs."""
    a = X35[:, :4].copy()
    w = np.array([0.5, 1.5, 1.0, 2.0])
    ga, gw = srcgrad.grad(spread, wrt=(0, 1))(a, w)
    np.testing.assert_allclose(ga, numerical_grad(spread, (a, w), 0), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(gw, numerical_grad(spread, (a, w), 1), rtol=1e-7, atol=1e-9)
    ta, tw = np.cos(np.arange(12.0)).reshape(3, 4), np.sin(np.arange(4.0))
    value, dot = srcgrad.jvp(spread, (a, w), (ta, tw))
    assert value == spread(a, w)
    np.testing.assert_allclose(dot, np.sum(ga * ta) + np.sum(gw * tw), rtol=1e-12)
    check_hessian(spread, (a, w), 1)
    # the keys a call gets are those the dict holds when it runs
    mean_grad = srcgrad.grad(lambda v: np.sum(mean_of(v, axis=0) ** 2))
    np.testing.assert_allclose(mean_grad(a), 2 * np.mean(a, axis=0) / 3 * np.ones_like(a), rtol=1e-14)
    where = np.array([[True, False, True, True]] * 3)
    masked = srcgrad.grad(lambda v: np.sum(mean_of(v, axis=1, where=where)))
    np.testing.assert_allclose(masked(a), where / 3.0, rtol=1e-14)


def test_a_dict_that_may_hold_a_key_also_passed_by_name_is_still_refused():
    def twice(v, keepdims=False):
        kw = {}
        if keepdims:
            kw['keepdims'] = True
        return np.sum(np.mean(v, keepdims=keepdims, **kw))

    with pytest.raises(srcgrad.SrcGradError, match=r"`\*\*kw` unpacks a dict whose keys srcgrad cannot see"):
        srcgrad.grad(twice)(np.ones(3))


def test_a_method_without_a_rule_on_values_without_gradients():
    """np.average's `scl = avg_as_array.dtype.type(a.size / avg_as_array.size)` in the
    branch not taken, where `scl` is differentiated by the other branch: reverse mode
    refused it ("no derivative rule for the method `.type()`"); forward mode pushed
    nothing. It contributes nothing to the gradient in either mode."""
    a = np.array([[0.3, -1.2, 0.7], [0.9, 0.2, -0.5]])
    w = np.array([1.0, 2.0, 3.0])
    for fn in (lambda a, w: weighted_average(a, axis=1, weights=w)[0],
               lambda a, w: weighted_average(a, axis=1, weights=w)[1][:, None] * a):
        g = srcgrad.grad(lambda a, w: np.sum(fn(a, w) ** 2), wrt=(0, 1))(a, w)
        for i in (0, 1):
            np.testing.assert_allclose(g[i], numerical_grad(lambda a, w: np.sum(fn(a, w) ** 2), (a, w), i), rtol=1e-7, atol=1e-9)


# --- np.linalg.norm's `ret = add.reduce(absx, axis=axis); ret **= 1 / ord` ----------------


def p_norm(x, ord=0.5, axis=0, keepdims=True):
    """np.linalg.norm along an axis for an ord of no closed form: a ufunc method's result,
    raised in place."""
    absx = np.abs(x)
    absx **= ord
    ret = np.add.reduce(absx, axis=axis, keepdims=keepdims)
    ret **= np.reciprocal(ord, dtype=ret.dtype)
    return ret


def test_a_ufunc_methods_result_is_a_new_array():
    """Was refused: "`ret **= reciprocal(ord, ...)` changes `ret` in place, and it may share
    memory with a value that `norm` does not make (`ret = add.reduce(absx, ...)`)". A
    ufunc's reduce, accumulate, outer and reduceat make a new array (without `out=`)."""
    x = np.array([[0.5, 1.2, 2.0, 0.7], [1.5, 0.3, 0.9, 1.1], [0.8, 1.7, 0.4, 1.3]])
    seed = np.array([[0.5, -1.0, 2.0, 0.25]])
    out, pullback = srcgrad.vjp(p_norm, x)
    np.testing.assert_array_equal(out, np.linalg.norm(x, ord=0.5, axis=0, keepdims=True))
    (g,) = pullback(seed)
    np.testing.assert_allclose(g, numerical_grad(lambda v: np.sum(seed * p_norm(v)), (x,), 0), rtol=1e-7)
    np.testing.assert_allclose(g, srcgrad.vjp(lambda v: np.linalg.norm(v, 0.5, 0, True), x)[1](seed)[0], rtol=1e-12)
    t = np.cos(np.arange(12.0)).reshape(3, 4)
    _, dot = srcgrad.jvp(p_norm, (x,), (t,))
    np.testing.assert_allclose(np.sum(seed * dot), np.sum(g * t), rtol=1e-12)


def kron_outer(a, b):
    """np.kron's product: `multiply(a, b, subok=..., order=...)` of broadcast views."""
    result = np.multiply(a[:, None, :, None], b[None, :, None, :], subok=True, order="C", casting="same_kind")
    return result.reshape(a.shape[0] * b.shape[0], a.shape[1] * b.shape[1])


def test_a_ufuncs_subok_order_and_casting_keywords():
    """Was refused: "cannot differentiate this call of `_nx.multiply`: got an unexpected
    keyword argument 'subok'". They choose the result's class, layout and the casts
    allowed, not its values."""
    a, b = np.array([[0.3, -1.2, 0.7], [0.9, 0.2, -0.5]]), np.array([[1.5, -0.4], [0.6, 2.0]])
    seed = np.sin(np.arange(24.0)).reshape(4, 6)
    out, pullback = srcgrad.vjp(kron_outer, a, b)
    np.testing.assert_array_equal(out, np.kron(a, b))
    ga, gb = pullback(seed)
    np.testing.assert_allclose(ga, numerical_grad(lambda u, v: np.sum(seed * kron_outer(u, v)), (a, b), 0), rtol=1e-7)
    np.testing.assert_allclose(gb, numerical_grad(lambda u, v: np.sum(seed * kron_outer(u, v)), (a, b), 1), rtol=1e-7)
    _, dot = srcgrad.jvp(kron_outer, (a, b), (np.ones_like(a), np.ones_like(b)))
    np.testing.assert_allclose(np.sum(seed * dot), np.sum(ga) + np.sum(gb), rtol=1e-12)


SHAPE3 = (3,)  # a default that is no literal: the call keeps its own pullback


def through_a_module(x, xp, shape=SHAPE3):
    """SciPy's array-API style: NumPy passed in as `xp`. `xp.reshape(x, shape)` reads as
    the method `.reshape` of `xp` with `x` as the shape; it must stay refused (a shape
    argument skipped as an integer would make the gradient 0)."""
    y = xp.reshape(x, shape)
    return np.sum(y * y)


def calls_through_a_module(x):
    return through_a_module(x, np) * 2.0


def test_a_module_passed_in_and_called_through_stays_refused():
    x = np.array([[0.3, 0.7, 1.1]])
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`\.reshape\(\)` with respect to its argument `shape`"):
        srcgrad.grad(calls_through_a_module)(x)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`\.reshape\(\)` with respect to its argument `shape`"):
        srcgrad.jvp(calls_through_a_module, (x,), (np.ones_like(x),))
