"""Calls that once ran and gave a wrong derivative without a word, found by a sweep of
NumPy's keyword arguments through the compiler; each now has the right derivative or a
clear refusal.

- `dtype=int` (or bool) rounds a result: `np.sum(x, dtype=int)`, `np.cumsum`,
  `np.trace`, `np.full`, `np.concatenate(..., casting="unsafe")`, `np.einsum`, and the
  casts a dtype implies (`np.full_like` of an integer array, `np.insert` into one, a
  forward-mode `y[i] = v` into one) have a zero derivative there, in both modes.
- `np.reshape(x, shape, order="A")` reads a Fortran-contiguous x in Fortran order: its
  gradient and tangent are reshaped in that order, not in the order of their own layout.
- `overwrite_input=True` (np.median, np.percentile, np.quantile) lets NumPy reorder the
  input in place behind the derivative: refused, in both modes.
- A masked array or a np.matrix to differentiate is refused: masked entries and `*` as
  a matrix product are not what the rules describe.
- A method named like a NumPy method of no gradient (`p.round(2)`, `p.argmax()`) of an
  object made in the function by a call srcgrad has no rule for (`p = Poly(x)`) is not
  taken for NumPy's: the object is refused where it is made, as any such object is.
- A differentiated number formatted as text that the result is computed from
  (`float(f"{x}")`, `float("%.17g" % x)`) had a zero derivative (and `%` a bare
  TypeError from the generated code): refused at its line, in both modes; text that
  only prints or names things is fine. `x.astype(str).astype(float)` (a bare
  DTypePromotionError from the generated code) is refused when the derivative runs.

Each program is checked against the analytic gradient, against central differences,
in forward mode (the dot-product test) and through its Hessian.
"""

import copy
import re

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

X = np.array([0.35, 1.2, 2.5, 0.7])  # x * 3 stays away from integers: differences see the rounding flat


# name -> (function, expected gradient at X); `* x` makes each program's value depend on x
# through a differentiable path too
# fmt: off
ROUNDED = {
    "sum_dtype_int": (lambda x: np.sum(x * 3, dtype=int) * x[0], [13.0, 0, 0, 0]),
    "sum_dtype_bool": (lambda x: np.sum(x, dtype=bool) * x[0], [1.0, 0, 0, 0]),
    "sum_method_dtype_int": (lambda x: (x * 3).sum(dtype=int) * x[0], [13.0, 0, 0, 0]),
    "sum_dtype_int_initial": (lambda x: np.sum(x * 3, dtype=int, initial=x[1] * 2) * x[0], [15.0, 0, 0, 0]),
    "add_reduce_dtype_int": (lambda x: np.add.reduce(x * 3, dtype=int) * x[0], [13.0, 0, 0, 0]),
    "mean_dtype_int": (lambda x: np.mean(x * 3, dtype=int) * x[0], [3.0, 0, 0, 0]),
    "nansum_dtype_int": (lambda x: np.nansum(x * 3, dtype=int) * x[0], [13.0, 0, 0, 0]),
    "prod_dtype_int": (lambda x: np.prod(x * 3 + 1, dtype=int) * x[0], [192.0, 0, 0, 0]),
    "nanprod_dtype_int": (lambda x: np.nanprod(x * 3 + 1, dtype=int) * x[0], [192.0, 0, 0, 0]),
    "var_dtype_int": (lambda x: np.var(x * 3, dtype=int) * x[0], [float(np.var(X * 3, dtype=int)), 0, 0, 0]),
    "std_dtype_int": (lambda x: np.std(x * 3, dtype=int) * x[0], [float(np.std(X * 3, dtype=int)), 0, 0, 0]),
    "cumsum_dtype_int": (lambda x: np.sum(np.cumsum(x * 3, dtype=int) * x), [1.0, 4.0, 11.0, 13.0]),
    "cumsum_method_dtype_int": (lambda x: np.sum((x * 3).cumsum(dtype=int) * x), [1.0, 4.0, 11.0, 13.0]),
    "nancumsum_dtype_int": (lambda x: np.sum(np.nancumsum(x * 3, dtype=int) * x), [1.0, 4.0, 11.0, 13.0]),
    "cumprod_dtype_int": (lambda x: np.sum(np.cumprod(x * 3 + 1, dtype=int) * x), [2.0, 8.0, 64.0, 192.0]),
    "nancumprod_dtype_int": (lambda x: np.sum(np.nancumprod(x * 3 + 1, dtype=int) * x), [2.0, 8.0, 64.0, 192.0]),
    "add_accumulate_dtype_int": (lambda x: np.sum(np.add.accumulate(x * 3, dtype=int) * x), [1.0, 4.0, 11.0, 13.0]),
    "maximum_accumulate_dtype_int": (lambda x: np.sum(np.maximum.accumulate(x * 3, dtype=int) * x), [1.0, 3.0, 7.0, 7.0]),
    "trace_dtype_int": (lambda x: np.trace(np.outer(x, x) * 3, dtype=int) * x[0], [float(np.trace(np.outer(X, X) * 3, dtype=int)), 0, 0, 0]),
    "full_dtype_int": (lambda x: np.sum(np.full(4, x[0] * 3, dtype=int) * x), [1.0, 1.0, 1.0, 1.0]),
    "full_like_dtype_int": (lambda x: np.sum(np.full_like(x, x[0] * 3, dtype=int) * x), [1.0, 1.0, 1.0, 1.0]),
    "full_like_of_integers": (lambda x: np.sum(np.full_like(np.arange(4), x[0] * 3) * x), [1.0, 1.0, 1.0, 1.0]),
    "ascontiguousarray_dtype_int": (lambda x: np.sum(np.ascontiguousarray(x * 3, dtype=int) * x), [1.0, 3.0, 7.0, 2.0]),
    "asfortranarray_dtype_int": (lambda x: np.sum(np.asfortranarray(x * 3, dtype=int) * x), [1.0, 3.0, 7.0, 2.0]),
    "concatenate_unsafe_int": (lambda x: np.sum(np.concatenate([x * 3, x], dtype=int, casting="unsafe") * 1.5) * x[0],
                               [float(np.sum(np.concatenate([X * 3, X], dtype=int, casting="unsafe"))) * 1.5, 0, 0, 0]),
    "stack_unsafe_int": (lambda x: np.sum(np.stack([x * 3, x], dtype=int, casting="unsafe")) * x[0], [16.0, 0, 0, 0]),
    "hstack_unsafe_int": (lambda x: np.sum(np.hstack([x * 3, x], dtype=int, casting="unsafe")) * x[0], [16.0, 0, 0, 0]),
    "vstack_unsafe_int": (lambda x: np.sum(np.vstack([x * 3, x], dtype=int, casting="unsafe")) * x[0], [16.0, 0, 0, 0]),
    "einsum_unsafe_int": (lambda x: np.einsum("i,i->", x * 3, x, dtype=int, casting="unsafe") * x[0],
                          [float(np.einsum("i,i->", X * 3, X, dtype=int, casting="unsafe")), 0, 0, 0]),
    "insert_into_integers": (lambda x: np.sum(np.insert(np.array([1, 2, 3]), 1, x[0] * 3) * x), [1.0, 1.0, 2.0, 3.0]),
}
# fmt: on


def _set_into_integers(x):
    y = np.zeros(4, dtype=int)
    y[1] = x[0] * 3
    y[2:] = x[2:] * 5
    return np.sum(y * x)


ROUNDED["setitem_into_integers"] = (_set_into_integers, [0.0, 1.0, 12.0, 3.0])


@pytest.mark.parametrize("name", sorted(ROUNDED))
def test_a_result_rounded_to_integers_has_no_derivative(name):
    fn, expected = ROUNDED[name]
    check(fn, X.copy(), expected=[np.asarray(expected, dtype=np.float64)])


@pytest.mark.parametrize("name", ["sum_dtype_int", "cumsum_dtype_int", "full_like_of_integers", "setitem_into_integers"])
def test_a_result_rounded_to_integers_has_no_second_derivative(name):
    check_hessian(ROUNDED[name][0], [X.copy()], 0)


FLOAT = np.float64


def test_a_float_dtype_keeps_the_derivative():
    check(lambda x: np.sum(np.cumsum(x, dtype=FLOAT) ** 2) + np.sum(x, dtype=np.float64) ** 2, X.copy(),
          expected=[2 * np.cumsum(np.cumsum(X)[::-1])[::-1] + 2 * np.sum(X)])


W6 = np.arange(1.0, 7.0)


def _reshape_read_as_numpy(x):
    return np.sum(np.reshape(x, 6, order="A") * W6)


def _reshape_method(x):
    return np.sum(x.reshape(3, 2, order="A") * W6.reshape(3, 2))


def _reshape_of_transpose(x):
    return np.sum(np.reshape(x.T, (2, 3), order="A") ** 2)


def _reshape_cubed(x):
    return np.sum(np.reshape(x, 6, order="A") ** 3)


def _differences(fn, a, eps=1e-6):
    """Central differences of `fn` at `a`, each shifted copy laid out in memory like `a`."""
    out = np.zeros(a.shape)
    for k in np.ndindex(a.shape):
        plus, minus = a.copy(order="K"), a.copy(order="K")
        plus[k] += eps
        minus[k] -= eps
        out[k] = (fn(plus) - fn(minus)) / (2 * eps)
    return out


@pytest.mark.parametrize("layout", ["C", "F"])
@pytest.mark.parametrize("fn", [_reshape_read_as_numpy, _reshape_method, _reshape_of_transpose, _reshape_cubed])
def test_reshape_in_order_a_reads_x_as_numpy_does(layout, fn):
    a = np.asarray(np.array([[0.3, 1.2, 2.5], [0.7, -0.9, 1.4]]), order=layout)
    g = srcgrad.grad(fn)(a)
    np.testing.assert_allclose(g, _differences(fn, a), rtol=1e-6, atol=1e-7)
    t = np.asarray(np.cos(np.arange(6.0)).reshape(2, 3), order=layout)
    np.testing.assert_allclose(srcgrad.jvp(fn, (a,), (t,))[1], np.sum(g * t), rtol=1e-9)
    if fn is _reshape_read_as_numpy:
        np.testing.assert_array_equal(g, W6.reshape(2, 3, order=layout))
    if fn is _reshape_cubed:
        h = srcgrad.hessian(fn)(a)
        np.testing.assert_allclose(np.reshape(h, (6, 6)), np.diag(6 * np.ravel(a)), rtol=1e-12)


def _median_overwriting(x):
    y = x * 1.0
    m = np.median(y, overwrite_input=True)  # NumPy may reorder y here
    return m + np.sum(y * np.arange(4.0))


def _percentile_overwriting(x):
    y = x * 1.0
    np.percentile(y, 40.0, overwrite_input=True)
    return np.sum(y * np.arange(4.0))


def _quantile_overwriting_by_position(x):
    y = x * 1.0
    q = np.quantile(y, 0.4, None, None, True)
    return q + np.sum(y * np.arange(4.0))


@pytest.mark.parametrize("fn", [_median_overwriting, _percentile_overwriting, _quantile_overwriting_by_position])
def test_overwrite_input_is_refused_in_both_modes(fn):
    with pytest.raises(srcgrad.NotDifferentiableError, match="overwrite_input"):
        srcgrad.grad(fn)(X.copy())
    with pytest.raises(srcgrad.NotDifferentiableError, match="overwrite_input"):
        srcgrad.jvp(fn, (X.copy(),), (np.ones(4),))


def _sin_where(x):
    return np.sum(np.sin(x, where=x > 0.5))


def test_a_keyword_no_rule_knows_is_named_in_the_refusal():
    with pytest.raises(srcgrad.NotDifferentiableError, match="unexpected keyword argument 'where'"):
        srcgrad.grad(_sin_where)(X.copy())


def _mean_times_3(x):
    return np.mean(x * 3.0)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("make", [
    lambda: np.ma.masked_array([0.5, -1.0, 2.0], mask=[False, True, False]),  # its mean skips x[1]: d/dx0 is 1.5
    lambda: np.matrix([[0.5, -1.0, 2.0]]),
], ids=["masked_array", "matrix"])
def test_a_masked_array_or_matrix_to_differentiate_is_refused(make):
    value = make()
    for derivative in (srcgrad.grad(_mean_times_3), srcgrad.jacobian(_mean_times_3), srcgrad.hessian(_mean_times_3)):
        with pytest.raises(TypeError, match=type(value).__name__):
            derivative(value)
    with pytest.raises(TypeError, match=type(value).__name__):
        srcgrad.jvp(_mean_times_3, (value,), (np.ones(value.shape),))
    with pytest.raises(TypeError, match=type(value).__name__):
        srcgrad.grad(lambda xs: _mean_times_3(xs[0]))([value])


class _Scaled:
    """Not an array: its `round`, `argmax` and `any` are methods of its own."""

    def __init__(self, c):
        self.c = c

    def round(self, digits):
        return self.c * 10.0

    def argmax(self):
        return self.c[0] * 2.0


def _round_of_an_object(x):
    p = _Scaled(x)
    return np.sum(p.round(2))


def _argmax_of_an_object(x):
    p = _Scaled(x)
    return p.argmax() + x[1]


@pytest.mark.parametrize("fn", [_round_of_an_object, _argmax_of_an_object])
def test_a_method_named_like_numpys_of_an_object_made_here_is_not_taken_for_numpys(fn):
    """`p.round(2)` of an array has no gradient; of an object made in the function from
    differentiated values it was taken for it, and the gradient was silently zero."""
    with pytest.raises(srcgrad.NotDifferentiableError, match="_Scaled"):
        srcgrad.grad(fn)(X.copy())
    with pytest.raises(srcgrad.NotDifferentiableError, match="_Scaled"):
        srcgrad.jvp(fn, (X.copy(),), (np.ones(4),))


def _round_of_an_array(x):
    y = np.sin(x)
    return np.sum(y.round(1) * x) + y.argmax() * x[0]


def test_the_same_methods_of_an_array_still_have_no_gradient():
    r = np.sin(X).round(1)
    check(_round_of_an_array, X.copy(), expected=[r + np.array([np.argmax(np.sin(X)), 0, 0, 0])])


# --- values of other types entering the differentiated computation --------------------------
# A parameter not differentiated that an operator, a call with a rule or a method with one
# computes with (`x * m`, `A @ x`, `A.dot(x)`) must be of a type the rules describe. A
# masked array gave the gradient of `x * m` as m's full data ([1, 1, 3], not [1, 0, 3]); an
# object of a user's class with a `dot` method of its own got ndarray.dot's rule ([20, 60,
# 20], not [40, 120, 40]); a scipy sparse matrix raised a bare IndexError or ValueError.


class _Operator:
    """A user's linear operator: `dot` doubles the product, which ndarray.dot's rule misses."""

    def __init__(self, M):
        self.M = M

    def dot(self, v):
        return self.M @ v * 2.0

    def __array__(self, dtype=None, copy=None):
        return self.M


class _Config:
    def __init__(self, scale):
        self.scale = scale


def masked_weights(x, m):
    return np.sum(x * m)


def own_dot(x, A):
    return np.sum(A.dot(x) ** 2)


def matrix_product(x, A):
    return np.sum((A @ x) ** 2)


def scaled_by_config(x, cfg):
    return np.sum(x * cfg.scale)


_M = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])


@pytest.mark.parametrize("f,other", [
    (masked_weights, np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])),
    (own_dot, _Operator(_M)),
], ids=["masked_array", "user_class_dot"])
def test_an_argument_of_another_type_in_the_differentiated_computation_is_refused(f, other):
    x = np.array([1.0, 2.0, 3.0])
    line = f.__code__.co_firstlineno + 1
    for transform in (lambda: srcgrad.grad(f)(x, other), lambda: srcgrad.value_and_grad(f)(x, other),
                      lambda: srcgrad.vjp(f, x, other), lambda: srcgrad.jvp(f, (x, other), (np.ones(3), None)),
                      lambda: srcgrad.jacobian(f, mode="forward")(x, other)):
        with pytest.raises(srcgrad.NotDifferentiableError, match=f"is of type `{type(other).__name__}`.*line {line}"):
            transform()


def test_jvp_of_a_function_called_before_with_plain_arrays_checks_the_next_arguments_again():
    """jvp's path for a plain function keeps the argument types its checks passed for; a
    value of another type, or a list (whose entries its type does not tell), is checked."""
    x, m = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    for _ in range(3):
        assert srcgrad.jvp(masked_weights, (x, m), (np.ones(3), None)) == (10.0, 4.0)
    for other in (masked, [masked], [m, masked]):
        with pytest.raises(srcgrad.NotDifferentiableError, match="is of type"):
            srcgrad.jvp(masked_weights, (x, other), (np.ones(3), None))
    assert srcgrad.jvp(masked_weights, (x, m), (np.ones(3), None)) == (10.0, 4.0)


def test_a_sparse_matrix_is_refused_with_what_to_pass():
    sparse = pytest.importorskip("scipy.sparse")
    A = sparse.csr_matrix(_M)
    for f in (own_dot, matrix_product):
        with pytest.raises(srcgrad.NotDifferentiableError, match="is of type `csr_matrix`.*toarray"):
            srcgrad.grad(f)(np.array([1.0, 2.0, 3.0]), A)
    np.testing.assert_allclose(srcgrad.grad(matrix_product)(np.array([1.0, 2.0, 3.0]), A.toarray()),
                               2 * _M.T @ (_M @ np.array([1.0, 2.0, 3.0])), rtol=1e-15)


def test_plain_arrays_lists_and_attribute_reads_of_other_objects_still_differentiate():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(srcgrad.grad(masked_weights)(x, np.array([1.0, 0.0, 3.0])), [1.0, 0.0, 3.0])
    np.testing.assert_array_equal(srcgrad.grad(masked_weights)(x, [1.0, 0.0, 3.0]), [1.0, 0.0, 3.0])
    np.testing.assert_array_equal(srcgrad.grad(masked_weights)(x, np.float32(2.0)), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(srcgrad.grad(scaled_by_config)(x, _Config(np.array([1.0, 0.5, 2.0]))), [1.0, 0.5, 2.0])


def _f_string_read_back(x):
    s = f"{x[0]}"
    return float(s) * x[1]


def _percent_read_back(x):
    s = "%.17g" % x[0]
    return float(s) * x[1]


def _format_read_back(x):
    # was refused as "cannot find the function called"
    s = "{}".format(x[0])
    return float(s) * x[1]


@pytest.mark.parametrize("fn, text", [(_f_string_read_back, 's = f"{x[0]}"'), (_percent_read_back, 's = "%.17g" % x[0]'),
                                      (_format_read_back, 's = "{}".format(x[0])')])
def test_a_differentiated_value_read_back_from_text_is_refused(fn, text):
    x = np.array([0.3, -0.7, 1.1])
    assert (fn(x + [1e-6, 0, 0]) - fn(x - [1e-6, 0, 0])) / 2e-6 == pytest.approx(x[1], rel=1e-6)  # the derivative is x1
    pattern = f"`{re.escape(text)}` formats a differentiated value as text.*test_silent_gradients.py, line"
    with pytest.raises(srcgrad.NotDifferentiableError, match=pattern):
        srcgrad.grad(fn)(x)
    with pytest.raises(srcgrad.NotDifferentiableError, match="formats a differentiated value as text"):
        srcgrad.jvp(fn, (x,), (np.ones(3),))


def _text_that_names_and_prints(x):
    label = f"{x[0]:.3f}"
    print(label, "%.2f" % x[1], "{:.1f}".format(x[2]), end="")
    d = {f"k{int(x[2] > 0)}": x[0] * 2}
    return d["k1"] * x[1] + len("%d" % 3)


def test_text_that_only_prints_or_names_still_differentiates(capsys):
    x = np.array([0.3, -0.7, 1.1])
    check(_text_that_names_and_prints, x, expected=[[2 * x[1], 2 * x[0], 0.0]])


def _read_back_from_a_text_array(x):
    return np.sum(x.astype(str).astype(float) * x)


def test_a_cast_to_text_and_back_is_refused_in_both_modes():
    # was a bare DTypePromotionError from the generated code; the derivative is 2x
    x = np.array([0.3, -0.7, 1.1])
    assert (_read_back_from_a_text_array(x + [1e-6, 0, 0]) - _read_back_from_a_text_array(x - [1e-6, 0, 0])) / 2e-6 \
        == pytest.approx(0.6, rel=1e-6)
    with pytest.raises(NotImplementedError, match=r"`x.astype\(\)` between numbers only"):
        srcgrad.grad(_read_back_from_a_text_array)(x)
    with pytest.raises(NotImplementedError, match=r"`x.astype\(\)` between numbers only"):
        srcgrad.jvp(_read_back_from_a_text_array, (x,), (np.ones(3),))


def _copied(x):
    v = x * 2.0
    w = copy.copy(v)
    return np.sum(w * w)


def _deep_copied(x):
    v = [x[0], x[1]]
    w = copy.deepcopy(v)
    return w[0] * w[1]


@pytest.mark.parametrize("fn, text", [(_copied, "copy.copy"), (_deep_copied, "copy.deepcopy")])
def test_copy_module_copies_of_differentiated_values_are_refused(fn, text):
    # was "`*rv` unpacks a value of a length srcgrad cannot see" (inside the copy module)
    x = np.array([0.3, -0.7, 1.1])
    line = fn.__code__.co_firstlineno + 2
    for transform in (lambda: srcgrad.grad(fn)(x), lambda: srcgrad.jvp(fn, (x,), (np.ones(3),))):
        with pytest.raises(srcgrad.NotDifferentiableError, match=f"`{re.escape(text)}` of a differentiated value is not "
                           r"supported by srcgrad.*`np.copy\(v\)` or `v.copy\(\)` for an array, `list\(v\)` for a list") as info:
            transform()
        assert info.value.lineno == line and info.value.filename.endswith("test_silent_gradients.py")
