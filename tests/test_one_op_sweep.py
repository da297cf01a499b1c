"""A sweep of one-op functions through the compiler (issue 4's NumPy coverage).

Each case is a small function applying ONE NumPy function, method or operator to its
inputs, reduced to a scalar as `np.sum(op(...) * w)` with a fixed random weight array
`w` of the op's output shape (so every output element matters). `w` is the last
parameter and is never differentiated. Every case is checked twice, in float64:

* `test_grad`: `srcgrad.grad(f, wrt=<all inputs>)` against central finite differences
  (and the gradient must have its argument's shape);
* `test_jvp`: `srcgrad.jvp` with random tangents against the gradient (dot-product test).

Domains are chosen so each function is smooth at the point: positive for log/sqrt,
|x| < 1 for arcsin, SPD matrices for cholesky/eigh, no ties for max/sort, ...
Known failures are listed in XFAIL (strict), with the observed error.
"""

import zlib

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

_rng = np.random.default_rng(20240604)


def R(*shape):  # standard normal
    return _rng.standard_normal(shape)


def P(*shape):  # positive, away from 0
    return _rng.uniform(0.5, 2.0, shape)


def U(*shape):  # inside (-1, 1), away from the ends
    return _rng.uniform(-0.8, 0.8, shape)


def G(*shape):  # greater than 1 (arccosh)
    return _rng.uniform(1.3, 3.0, shape)


def D(*shape):  # distinct values, pairwise gaps >= 0.2, away from 0 and from integers+0.5
    n = int(np.prod(shape)) if shape else 1
    base = (np.arange(n) - n / 2 + 0.3) * 0.37
    base = base[_rng.permutation(n)] + _rng.uniform(-0.05, 0.05, n)
    base[np.abs(base) < 0.1] += 0.25
    return base.reshape(shape)


def M(n):  # well-conditioned square matrix
    return R(n, n) + 3.0 * np.eye(n)


def SPD(n):  # symmetric positive definite with distinct eigenvalues
    q, _ = np.linalg.qr(R(n, n))
    return (q * np.linspace(1.0, 3.0, n)) @ q.T


def NAN(*shape):
    x = R(*shape)
    x.flat[1] = np.nan
    return x


def ZERO1(*shape):  # one exact zero
    x = P(*shape)
    x.flat[2] = 0.0
    return x


def ZERO2(*shape):  # two exact zeros
    x = P(*shape)
    x.flat[1] = 0.0
    x.flat[4] = 0.0
    return x


MASK = R(3, 4) > 0
IDX = np.array([0, 2, 2, 1, 0])
IDX2 = np.array([1, 1, 3])

# fmt: off
# (id, function, inputs); the function's last parameter is the weight array.
CASES = [
    # ---- elementwise unary ----
    ("sin", lambda x, w: np.sum(np.sin(x) * w), [R(3, 4)]),
    ("cos", lambda x, w: np.sum(np.cos(x) * w), [R(3, 4)]),
    ("tan", lambda x, w: np.sum(np.tan(x) * w), [U(3, 4)]),
    ("arcsin", lambda x, w: np.sum(np.arcsin(x) * w), [U(3, 4)]),
    ("arccos", lambda x, w: np.sum(np.arccos(x) * w), [U(3, 4)]),
    ("arctan", lambda x, w: np.sum(np.arctan(x) * w), [R(3, 4)]),
    ("sinh", lambda x, w: np.sum(np.sinh(x) * w), [R(3, 4)]),
    ("cosh", lambda x, w: np.sum(np.cosh(x) * w), [R(3, 4)]),
    ("tanh", lambda x, w: np.sum(np.tanh(x) * w), [R(3, 4)]),
    ("arcsinh", lambda x, w: np.sum(np.arcsinh(x) * w), [R(3, 4)]),
    ("arccosh", lambda x, w: np.sum(np.arccosh(x) * w), [G(3, 4)]),
    ("arctanh", lambda x, w: np.sum(np.arctanh(x) * w), [U(3, 4)]),
    ("exp", lambda x, w: np.sum(np.exp(x) * w), [R(3, 4)]),
    ("exp2", lambda x, w: np.sum(np.exp2(x) * w), [R(3, 4)]),
    ("expm1", lambda x, w: np.sum(np.expm1(x) * w), [R(3, 4)]),
    ("log", lambda x, w: np.sum(np.log(x) * w), [P(3, 4)]),
    ("log2", lambda x, w: np.sum(np.log2(x) * w), [P(3, 4)]),
    ("log10", lambda x, w: np.sum(np.log10(x) * w), [P(3, 4)]),
    ("log1p", lambda x, w: np.sum(np.log1p(x) * w), [P(3, 4)]),
    ("sqrt", lambda x, w: np.sum(np.sqrt(x) * w), [P(3, 4)]),
    ("cbrt", lambda x, w: np.sum(np.cbrt(x) * w), [D(3, 4)]),
    ("square", lambda x, w: np.sum(np.square(x) * w), [R(3, 4)]),
    ("abs", lambda x, w: np.sum(np.abs(x) * w), [D(3, 4)]),
    ("absolute", lambda x, w: np.sum(np.absolute(x) * w), [D(3, 4)]),
    ("builtin_abs", lambda x, w: np.sum(abs(x) * w), [D(3, 4)]),
    ("fabs", lambda x, w: np.sum(np.fabs(x) * w), [D(3, 4)]),
    ("negative", lambda x, w: np.sum(np.negative(x) * w), [R(3, 4)]),
    ("positive", lambda x, w: np.sum(np.positive(x) * w), [R(3, 4)]),
    ("reciprocal", lambda x, w: np.sum(np.reciprocal(x) * w), [P(3, 4)]),
    ("sign", lambda x, w: np.sum(np.sign(x) * x * w), [D(3, 4)]),
    ("deg2rad", lambda x, w: np.sum(np.deg2rad(x) * w), [R(3, 4)]),
    ("rad2deg", lambda x, w: np.sum(np.rad2deg(x) * w), [R(3, 4)]),
    ("radians", lambda x, w: np.sum(np.radians(x) * w), [R(3, 4)]),
    ("degrees", lambda x, w: np.sum(np.degrees(x) * w), [R(3, 4)]),
    ("sinc", lambda x, w: np.sum(np.sinc(x) * w), [D(3, 4)]),
    ("floor", lambda x, w: np.sum((np.floor(x) + x) * w), [D(3, 4)]),
    ("ceil", lambda x, w: np.sum((np.ceil(x) + x) * w), [D(3, 4)]),
    ("round", lambda x, w: np.sum((np.round(x) + x) * w), [D(3, 4)]),
    ("round_decimals", lambda x, w: np.sum((np.round(x, 1) + x) * w), [D(3, 4) + 0.02]),
    ("around", lambda x, w: np.sum((np.around(x) + x) * w), [D(3, 4)]),
    ("rint", lambda x, w: np.sum((np.rint(x) + x) * w), [D(3, 4)]),
    ("trunc", lambda x, w: np.sum((np.trunc(x) + x) * w), [D(3, 4)]),
    ("fix", lambda x, w: np.sum((np.fix(x) + x) * w), [D(3, 4)]),
    ("conjugate", lambda x, w: np.sum(np.conjugate(x) * w), [R(3, 4)]),
    ("real", lambda x, w: np.sum(np.real(x) * w), [R(3, 4)]),
    ("op_neg", lambda x, w: np.sum(-x * w), [R(3, 4)]),
    ("op_pos", lambda x, w: np.sum(+x * w), [R(3, 4)]),
    ("op_pow2", lambda x, w: np.sum(x ** 2 * w), [R(3, 4)]),
    ("op_pow3", lambda x, w: np.sum(x ** 3 * w), [R(3, 4)]),
    ("op_pow_half", lambda x, w: np.sum(x ** 0.5 * w), [P(3, 4)]),
    ("op_pow_neg", lambda x, w: np.sum(x ** -1.5 * w), [P(3, 4)]),
    ("op_rpow", lambda x, w: np.sum(2.0 ** x * w), [R(3, 4)]),
    ("method_conj", lambda x, w: np.sum(x.conj() * w), [R(3, 4)]),
    ("method_round", lambda x, w: np.sum((x.round() + x) * w), [D(3, 4)]),
    ("nan_to_num", lambda x, w: np.sum(np.nan_to_num(x) * w), [R(3, 4)]),
    ("unary_1d", lambda x, w: np.sum(np.exp(x) * w), [R(5)]),
    ("unary_3d", lambda x, w: np.sum(np.tanh(x) * w), [R(2, 3, 4)]),
    ("unary_0d", lambda x, w: np.sum(np.sin(x) * w), [np.array(0.7)]),
    ("unary_float", lambda x, w: np.sin(x) * w, [0.7]),

    # ---- binary, with broadcasting ----
    ("add_row", lambda x, y, w: np.sum(np.add(x, y) * w), [R(3, 4), R(4)]),
    ("add_outer", lambda x, y, w: np.sum(np.add(x, y) * w), [R(3, 1), R(1, 4)]),
    ("subtract_col", lambda x, y, w: np.sum(np.subtract(x, y) * w), [R(3, 4), R(3, 1)]),
    ("multiply_3d", lambda x, y, w: np.sum(np.multiply(x, y) * w), [R(2, 3, 4), R(3, 1)]),
    ("multiply_0d", lambda x, y, w: np.sum(np.multiply(x, y) * w), [R(3, 4), np.array(1.3)]),
    ("divide_row", lambda x, y, w: np.sum(np.divide(x, y) * w), [R(3, 4), P(4)]),
    ("true_divide", lambda x, y, w: np.sum(np.true_divide(x, y) * w), [R(3, 1), P(1, 4)]),
    ("power_both", lambda x, y, w: np.sum(np.power(x, y) * w), [P(3, 4), R(3, 4)]),
    ("power_bcast", lambda x, y, w: np.sum(np.power(x, y) * w), [P(3, 4), R(4)]),
    ("float_power", lambda x, y, w: np.sum(np.float_power(x, y) * w), [P(3, 4), R(1, 4)]),
    ("maximum", lambda x, y, w: np.sum(np.maximum(x, y) * w), [D(3, 4), D(3, 4) + 0.11]),
    ("maximum_bcast", lambda x, y, w: np.sum(np.maximum(x, y) * w), [D(3, 4), np.array([0.05, -0.5, 0.6, 1.05])]),
    ("minimum", lambda x, y, w: np.sum(np.minimum(x, y) * w), [D(3, 4), D(3, 4) + 0.11]),
    ("maximum_scalar", lambda x, w: np.sum(np.maximum(x, 0.0) * w), [D(3, 4)]),
    ("fmax", lambda x, y, w: np.sum(np.fmax(x, y) * w), [D(3, 4), D(3, 4) + 0.11]),
    ("fmin", lambda x, y, w: np.sum(np.fmin(x, y) * w), [D(3, 4), D(3, 4) + 0.11]),
    ("arctan2", lambda x, y, w: np.sum(np.arctan2(x, y) * w), [R(3, 4), P(4)]),
    ("hypot", lambda x, y, w: np.sum(np.hypot(x, y) * w), [P(3, 4), R(3, 1)]),
    ("logaddexp", lambda x, y, w: np.sum(np.logaddexp(x, y) * w), [R(3, 4), R(4)]),
    ("logaddexp2", lambda x, y, w: np.sum(np.logaddexp2(x, y) * w), [R(3, 4), R(3, 1)]),
    ("mod", lambda x, y, w: np.sum(np.mod(x, y) * w), [np.array([[1.3, 2.7, 0.4], [3.3, 5.1, 0.7]]), np.array([0.9, 1.1, 0.3])]),
    ("fmod", lambda x, y, w: np.sum(np.fmod(x, y) * w), [np.array([[1.3, -2.7, 0.4], [3.3, -5.1, 0.7]]), np.array([0.9, 1.1, 0.3])]),
    ("remainder", lambda x, y, w: np.sum(np.remainder(x, y) * w), [np.array([[1.3, -2.7, 0.4], [3.3, -5.1, 0.7]]), np.array([0.9, 1.1, 0.3])]),
    ("op_mod", lambda x, y, w: np.sum((x % y) * w), [np.array([1.3, 2.7, 0.4]), np.array([0.9, 1.1, 0.3])]),
    ("copysign", lambda x, y, w: np.sum(np.copysign(x, y) * w), [D(3, 4), D(3, 4)]),
    ("where_all3", lambda x, y, w: np.sum(np.where(MASK, x, y) * w), [R(3, 4), R(3, 4)]),
    ("where_bcast", lambda x, y, w: np.sum(np.where(MASK, x, y) * w), [R(4), R(3, 1)]),
    ("where_cond_bcast", lambda x, y, w: np.sum(np.where(MASK[0], x, y) * w), [R(3, 4), R(3, 4)]),
    ("where_scalar", lambda x, w: np.sum(np.where(x > 0, x, 0.0) * w), [D(3, 4)]),
    ("where_cmp_xy", lambda x, y, w: np.sum(np.where(x > y, x, y) * w), [D(3, 4), D(3, 4) + 0.11]),
    ("clip_scalars", lambda x, w: np.sum(np.clip(x, -0.5, 0.5) * w), [D(3, 4)]),
    ("clip_arrays", lambda x, lo, hi, w: np.sum(np.clip(x, lo, hi) * w), [D(3, 4), np.full(4, -0.45), np.full((3, 1), 0.52)]),
    ("clip_none", lambda x, w: np.sum(np.clip(x, None, 0.5) * w), [D(3, 4)]),
    ("clip_kw", lambda x, w: np.sum(np.clip(x, a_min=-0.5, a_max=0.5) * w), [D(3, 4)]),
    ("method_clip", lambda x, w: np.sum(x.clip(0, 1) * w), [D(3, 4)]),
    ("op_add", lambda x, y, w: np.sum((x + y) * w), [R(2, 3, 4), R(4)]),
    ("op_sub", lambda x, y, w: np.sum((x - y) * w), [R(3, 1), R(4)]),
    ("op_mul", lambda x, y, w: np.sum((x * y) * w), [R(3, 4), R(3, 1)]),
    ("op_div", lambda x, y, w: np.sum((x / y) * w), [R(3, 4), P(3, 4)]),
    ("op_pow", lambda x, y, w: np.sum((x ** y) * w), [P(3, 4), R(4)]),
    ("op_scalar_mix", lambda x, w: np.sum((2.0 * x - 1.0 + x / 3.0) * w), [R(3, 4)]),
    ("op_rdiv", lambda x, w: np.sum((1.0 / x) * w), [P(3, 4)]),
    ("op_rsub", lambda x, w: np.sum((1.0 - x) * w), [R(3, 4)]),
    ("binary_0d_0d", lambda x, y, w: np.sum(np.multiply(x, y) * w), [np.array(1.5), np.array(-0.5)]),
    ("binary_float_float", lambda x, y, w: np.hypot(x, y) * w, [0.7, 1.2]),

    # ---- reductions ----
    ("sum_all", lambda x, w: np.sum(x) * w, [R(3, 4)]),
    ("sum_axis0", lambda x, w: np.sum(np.sum(x, axis=0) * w), [R(3, 4)]),
    ("sum_axis_neg", lambda x, w: np.sum(np.sum(x, axis=-1) * w), [R(2, 3, 4)]),
    ("sum_axis_tuple", lambda x, w: np.sum(np.sum(x, axis=(0, 2)) * w), [R(2, 3, 4)]),
    ("sum_keepdims", lambda x, w: np.sum(np.sum(x, axis=1, keepdims=True) * w), [R(2, 3, 4)]),
    ("sum_tuple_keepdims", lambda x, w: np.sum(np.sum(x, axis=(-1, 0), keepdims=True) * w), [R(2, 3, 4)]),
    ("method_sum_axis0", lambda x, w: np.sum(x.sum(axis=0) * w), [R(3, 4)]),
    ("method_sum_pos", lambda x, w: np.sum(x.sum(1) * w), [R(3, 4)]),
    ("builtin_sum", lambda x, w: np.sum(sum(x) * w), [R(3, 4)]),
    ("mean_all", lambda x, w: np.mean(x) * w, [R(3, 4)]),
    ("mean_axis", lambda x, w: np.sum(np.mean(x, axis=1) * w), [R(3, 4)]),
    ("mean_tuple_keepdims", lambda x, w: np.sum(np.mean(x, axis=(0, 1), keepdims=True) * w), [R(2, 3, 4)]),
    ("method_mean", lambda x, w: np.sum(x.mean(axis=-1) * w), [R(2, 3, 4)]),
    ("prod_all", lambda x, w: np.prod(x) * w, [P(3, 4)]),
    ("prod_axis", lambda x, w: np.sum(np.prod(x, axis=0) * w), [R(3, 4)]),
    ("prod_keepdims", lambda x, w: np.sum(np.prod(x, axis=-1, keepdims=True) * w), [R(2, 3, 4)]),
    ("prod_one_zero", lambda x, w: np.prod(x) * w, [ZERO1(2, 3)]),
    ("prod_two_zeros", lambda x, w: np.prod(x) * w, [ZERO2(2, 3)]),
    ("prod_axis_zero", lambda x, w: np.sum(np.prod(x, axis=1) * w), [ZERO1(2, 3)]),
    ("method_prod", lambda x, w: np.sum(x.prod(axis=1) * w), [R(3, 4)]),
    ("max_all", lambda x, w: np.max(x) * w, [D(3, 4)]),
    ("max_axis", lambda x, w: np.sum(np.max(x, axis=0) * w), [D(3, 4)]),
    ("max_tuple_keepdims", lambda x, w: np.sum(np.max(x, axis=(0, 2), keepdims=True) * w), [D(2, 3, 4)]),
    ("min_axis_neg", lambda x, w: np.sum(np.min(x, axis=-1) * w), [D(3, 4)]),
    ("amax", lambda x, w: np.sum(np.amax(x, axis=1) * w), [D(3, 4)]),
    ("amin", lambda x, w: np.sum(np.amin(x, axis=0) * w), [D(3, 4)]),
    ("method_max", lambda x, w: np.sum(x.max(axis=-1) * w), [D(3, 4)]),
    ("method_min_all", lambda x, w: x.min() * w, [D(3, 4)]),
    ("ptp_all", lambda x, w: np.ptp(x) * w, [D(3, 4)]),
    ("ptp_axis", lambda x, w: np.sum(np.ptp(x, axis=1) * w), [D(3, 4)]),
    ("std_all", lambda x, w: np.std(x) * w, [R(3, 4)]),
    ("std_axis_ddof", lambda x, w: np.sum(np.std(x, axis=0, ddof=1) * w), [R(3, 4)]),
    ("var_all", lambda x, w: np.var(x) * w, [R(3, 4)]),
    ("var_axis_keepdims", lambda x, w: np.sum(np.var(x, axis=-1, keepdims=True) * w), [R(3, 4)]),
    ("var_tuple_ddof", lambda x, w: np.sum(np.var(x, axis=(0, 2), ddof=1) * w), [R(2, 3, 4)]),
    ("cov_rows", lambda x, w: np.sum(np.cov(x) * w), [R(3, 6)]),
    ("cov_one_variable", lambda x, w: np.cov(x) * w, [R(6)]),
    ("cov_columns_bias", lambda x, w: np.sum(np.cov(x, rowvar=False, bias=True) * w), [R(6, 3)]),
    ("cov_ddof_two_args", lambda x, y, w: np.sum(np.cov(x, y, ddof=2) * w), [R(2, 6), R(6)]),
    ("corrcoef_rows", lambda x, w: np.sum(np.corrcoef(x) * w), [R(3, 6)]),
    ("corrcoef_two_args_columns", lambda x, y, w: np.sum(np.corrcoef(x, y, rowvar=False) * w), [R(6, 2), R(6, 1)]),
    ("method_std", lambda x, w: np.sum(x.std(axis=1, ddof=1) * w), [R(3, 4)]),
    ("method_var", lambda x, w: x.var() * w, [R(3, 4)]),
    ("cumsum_axis0", lambda x, w: np.sum(np.cumsum(x, axis=0) * w), [R(3, 4)]),
    ("cumsum_none", lambda x, w: np.sum(np.cumsum(x) * w), [R(3, 4)]),
    ("cumsum_neg", lambda x, w: np.sum(np.cumsum(x, axis=-1) * w), [R(2, 3, 4)]),
    ("method_cumsum", lambda x, w: np.sum(x.cumsum(axis=1) * w), [R(3, 4)]),
    ("cumprod_axis1", lambda x, w: np.sum(np.cumprod(x, axis=1) * w), [R(3, 4)]),
    ("cumprod_none", lambda x, w: np.sum(np.cumprod(x) * w), [R(2, 3)]),
    ("cumprod_zero", lambda x, w: np.sum(np.cumprod(x, axis=1) * w), [ZERO1(2, 4)]),
    ("method_cumprod", lambda x, w: np.sum(x.cumprod(axis=0) * w), [R(3, 4)]),
    ("average_plain", lambda x, w: np.average(x) * w, [R(3, 4)]),
    ("average_weights", lambda x, v, w: np.sum(np.average(x, axis=1, weights=v) * w), [R(3, 4), P(4)]),
    ("average_weights_2d", lambda x, v, w: np.average(x, weights=v) * w, [R(3, 4), P(3, 4)]),
    ("norm_vec", lambda x, w: np.linalg.norm(x) * w, [R(5)]),
    ("norm_fro_default", lambda x, w: np.linalg.norm(x) * w, [R(3, 4)]),
    ("norm_vec_ord1", lambda x, w: np.linalg.norm(x, ord=1) * w, [D(5)]),
    ("norm_vec_ord2", lambda x, w: np.linalg.norm(x, 2) * w, [R(5)]),
    ("norm_vec_inf", lambda x, w: np.linalg.norm(x, ord=np.inf) * w, [D(5)]),
    ("norm_vec_ord3", lambda x, w: np.linalg.norm(x, ord=3) * w, [D(5)]),
    ("norm_fro", lambda x, w: np.linalg.norm(x, ord="fro") * w, [R(3, 4)]),
    ("norm_mat_ord2", lambda x, w: np.linalg.norm(x, ord=2) * w, [R(3, 4)]),
    ("norm_mat_nuc", lambda x, w: np.linalg.norm(x, ord="nuc") * w, [R(3, 4)]),
    ("norm_mat_ord1", lambda x, w: np.linalg.norm(x, ord=1) * w, [D(3, 4)]),
    ("norm_mat_inf", lambda x, w: np.linalg.norm(x, ord=np.inf) * w, [D(3, 4)]),
    ("norm_axis1", lambda x, w: np.sum(np.linalg.norm(x, axis=1) * w), [R(3, 4)]),
    ("norm_axis_keepdims", lambda x, w: np.sum(np.linalg.norm(x, axis=-1, keepdims=True) * w), [R(3, 4)]),
    ("norm_ord1_axis0", lambda x, w: np.sum(np.linalg.norm(x, ord=1, axis=0) * w), [D(3, 4)]),
    ("norm_axis_pair", lambda x, w: np.sum(np.linalg.norm(x, axis=(1, 2)) * w), [R(2, 3, 4)]),
    ("logsumexp_comp", lambda x, w: np.sum(np.log(np.sum(np.exp(x), axis=1)) * w), [R(3, 4)]),
    ("nansum", lambda x, w: np.nansum(x) * w, [NAN(3, 4)]),
    ("nansum_axis", lambda x, w: np.sum(np.nansum(x, axis=0) * w), [NAN(3, 4)]),
    ("nanmean", lambda x, w: np.nanmean(x) * w, [NAN(3, 4)]),
    ("nanmean_axis", lambda x, w: np.sum(np.nanmean(x, axis=1) * w), [NAN(3, 4)]),
    ("nanmax", lambda x, w: np.sum(np.nanmax(x, axis=1) * w), [D(3, 4)]),
    ("nanmin", lambda x, w: np.nanmin(x) * w, [D(3, 4)]),
    ("nanprod", lambda x, w: np.nanprod(x) * w, [P(3, 4)]),
    ("nanstd", lambda x, w: np.nanstd(x) * w, [R(3, 4)]),
    ("nanvar", lambda x, w: np.sum(np.nanvar(x, axis=0) * w), [R(3, 4)]),
    ("nancumsum", lambda x, w: np.sum(np.nancumsum(x, axis=1) * w), [R(3, 4)]),
    ("median", lambda x, w: np.sum(np.median(x, axis=1) * w), [D(3, 5)]),
    ("quantile", lambda x, w: np.quantile(x, 0.3) * w, [D(3, 4)]),
    ("percentile", lambda x, w: np.sum(np.percentile(x, 40.0, axis=0) * w), [D(3, 4)]),
    ("diff", lambda x, w: np.sum(np.diff(x, axis=1) * w), [R(3, 4)]),
    ("reduce_0d", lambda x, w: np.sum(x) * w, [np.array(1.7)]),

    # ---- linear algebra ----
    ("dot_vv", lambda x, y, w: np.dot(x, y) * w, [R(4), R(4)]),
    ("dot_mv", lambda x, y, w: np.sum(np.dot(x, y) * w), [R(3, 4), R(4)]),
    ("dot_mm", lambda x, y, w: np.sum(np.dot(x, y) * w), [R(3, 4), R(4, 2)]),
    ("dot_scalar", lambda x, y, w: np.sum(np.dot(x, y) * w), [R(3, 4), np.array(1.5)]),
    ("method_dot", lambda x, y, w: np.sum(x.dot(y) * w), [R(3, 4), R(4, 2)]),
    ("vdot", lambda x, y, w: np.vdot(x, y) * w, [R(3, 4), R(3, 4)]),
    ("inner_vv", lambda x, y, w: np.inner(x, y) * w, [R(4), R(4)]),
    ("inner_mm", lambda x, y, w: np.sum(np.inner(x, y) * w), [R(3, 4), R(2, 4)]),
    ("outer", lambda x, y, w: np.sum(np.outer(x, y) * w), [R(3), R(4)]),
    ("outer_2d", lambda x, y, w: np.sum(np.outer(x, y) * w), [R(2, 2), R(3)]),
    ("matmul", lambda x, y, w: np.sum(np.matmul(x, y) * w), [R(3, 4), R(4, 2)]),
    ("op_matmul_batched", lambda x, y, w: np.sum((x @ y) * w), [R(2, 3, 4), R(4, 5)]),
    ("op_matmul_bcast_batch", lambda x, y, w: np.sum((x @ y) * w), [R(2, 1, 3, 4), R(3, 4, 2)]),
    ("op_matmul_vm", lambda x, y, w: np.sum((x @ y) * w), [R(4), R(4, 3)]),
    ("op_matmul_mv", lambda x, y, w: np.sum((x @ y) * w), [R(3, 4), R(4)]),
    ("op_matmul_vv", lambda x, y, w: (x @ y) * w, [R(4), R(4)]),
    ("op_matmul_batched_v", lambda x, y, w: np.sum((x @ y) * w), [R(2, 3, 4), R(4)]),
    ("op_T_matmul", lambda x, y, w: np.sum((x.T @ y) * w), [R(4, 3), R(4, 2)]),
    ("tensordot_1", lambda x, y, w: np.sum(np.tensordot(x, y, axes=1) * w), [R(2, 3), R(3, 4)]),
    ("tensordot_2", lambda x, y, w: np.sum(np.tensordot(x, y) * w), [R(2, 3, 4), R(3, 4, 2)]),
    ("tensordot_lists", lambda x, y, w: np.sum(np.tensordot(x, y, axes=([1, 0], [0, 2])) * w), [R(2, 3, 4), R(3, 5, 2)]),
    ("tensordot_0", lambda x, y, w: np.sum(np.tensordot(x, y, axes=0) * w), [R(2), R(3)]),
    ("einsum_mm", lambda x, y, w: np.sum(np.einsum("ij,jk->ik", x, y) * w), [R(3, 4), R(4, 2)]),
    ("einsum_trace", lambda x, w: np.einsum("ii->", x) * w, [R(3, 3)]),
    ("einsum_transpose", lambda x, w: np.sum(np.einsum("ij->ji", x) * w), [R(3, 4)]),
    ("einsum_batch", lambda x, y, w: np.sum(np.einsum("bij,bjk->bik", x, y) * w), [R(2, 3, 4), R(2, 4, 2)]),
    ("einsum_rowdot", lambda x, y, w: np.sum(np.einsum("ij,ij->i", x, y) * w), [R(3, 4), R(3, 4)]),
    ("einsum_implicit", lambda x, y, w: np.sum(np.einsum("ij,jk", x, y) * w), [R(3, 4), R(4, 2)]),
    ("einsum_ellipsis", lambda x, y, w: np.sum(np.einsum("...ij,...jk->...ik", x, y) * w), [R(2, 3, 4), R(2, 4, 2)]),
    ("einsum_diag", lambda x, w: np.sum(np.einsum("ii->i", x) * w), [R(3, 3)]),
    ("einsum_three", lambda x, y, z, w: np.einsum("i,ij,j->", x, y, z) * w, [R(3), R(3, 4), R(4)]),
    ("kron", lambda x, y, w: np.sum(np.kron(x, y) * w), [R(2, 3), R(2, 2)]),
    ("trace", lambda x, w: np.trace(x) * w, [R(3, 3)]),
    ("trace_offset", lambda x, w: np.trace(x, offset=1) * w, [R(3, 4)]),
    ("trace_axes", lambda x, w: np.sum(np.trace(x, axis1=0, axis2=2) * w), [R(3, 2, 3)]),
    ("method_trace", lambda x, w: x.trace() * w, [R(3, 3)]),
    ("inv", lambda x, w: np.sum(np.linalg.inv(x) * w), [M(3)]),
    ("inv_batched", lambda x, w: np.sum(np.linalg.inv(x) * w), [np.stack([M(3), M(3)])]),
    ("det", lambda x, w: np.linalg.det(x) * w, [M(3)]),
    ("det_batched", lambda x, w: np.sum(np.linalg.det(x) * w), [np.stack([M(3), M(3)])]),
    ("slogdet_logabs", lambda x, w: np.linalg.slogdet(x)[1] * w, [M(3)]),
    ("slogdet_unpack", lambda x, w: np.linalg.slogdet(x)[0] * np.linalg.slogdet(x)[1] * w, [M(3)]),
    ("solve_mat", lambda a, b, w: np.sum(np.linalg.solve(a, b) * w), [M(3), R(3, 2)]),
    ("solve_vec", lambda a, b, w: np.sum(np.linalg.solve(a, b) * w), [M(3), R(3)]),
    ("cholesky", lambda x, w: np.sum(np.linalg.cholesky(x) * w), [SPD(3)]),
    ("eigh_values", lambda x, w: np.sum(np.linalg.eigh(x)[0] * w), [SPD(3)]),
    ("eigh_vectors", lambda x, w: np.sum((np.linalg.eigh(x)[1] * w) ** 2), [SPD(3)]),
    ("eigvalsh", lambda x, w: np.sum(np.linalg.eigvalsh(x) * w), [SPD(3)]),
    ("qr_q", lambda x, w: np.sum(np.linalg.qr(x)[0] * w), [M(3)]),
    ("qr_r", lambda x, w: np.sum(np.linalg.qr(x)[1] * w), [R(4, 3)]),
    ("svd_s", lambda x, w: np.sum(np.linalg.svd(x)[1] * w), [R(3, 4)]),
    ("svd_u", lambda x, w: np.sum((np.linalg.svd(x, full_matrices=False)[0] * w) ** 2), [R(4, 3)]),
    ("svd_compute_uv_false", lambda x, w: np.sum(np.linalg.svd(x, compute_uv=False) * w), [R(3, 4)]),
    ("pinv", lambda x, w: np.sum(np.linalg.pinv(x) * w), [R(4, 3)]),
    ("matrix_power_3", lambda x, w: np.sum(np.linalg.matrix_power(x, 3) * w), [R(3, 3)]),
    ("matrix_power_neg", lambda x, w: np.sum(np.linalg.matrix_power(x, -2) * w), [M(3)]),
    ("multi_dot", lambda x, y, z, w: np.sum(np.linalg.multi_dot([x, y, z]) * w), [R(2, 3), R(3, 4), R(4, 2)]),
    ("cross", lambda x, y, w: np.sum(np.cross(x, y) * w), [R(4, 3), R(4, 3)]),

    # ---- shape and structure ----
    ("reshape", lambda x, w: np.sum(np.reshape(x, (4, 3)) * w), [R(3, 4)]),
    ("reshape_minus1", lambda x, w: np.sum(np.reshape(x, (2, -1)) * w), [R(3, 4)]),
    ("method_reshape_args", lambda x, w: np.sum(x.reshape(2, 6) * w), [R(3, 4)]),
    ("method_reshape_F", lambda x, w: np.sum(x.reshape((6, 2), order="F") * w), [R(3, 4)]),
    ("ravel", lambda x, w: np.sum(np.ravel(x) * w), [R(3, 4)]),
    ("method_ravel", lambda x, w: np.sum(x.ravel() * w), [R(2, 3, 2)]),
    ("method_flatten", lambda x, w: np.sum(x.flatten() * w), [R(3, 4)]),
    ("transpose", lambda x, w: np.sum(np.transpose(x) * w), [R(3, 4)]),
    ("transpose_axes", lambda x, w: np.sum(np.transpose(x, (1, 2, 0)) * w), [R(2, 3, 4)]),
    ("method_transpose_args", lambda x, w: np.sum(x.transpose(2, 0, 1) * w), [R(2, 3, 4)]),
    ("attr_T", lambda x, w: np.sum(x.T * w), [R(3, 4)]),
    ("swapaxes", lambda x, w: np.sum(np.swapaxes(x, 0, -1) * w), [R(2, 3, 4)]),
    ("method_swapaxes", lambda x, w: np.sum(x.swapaxes(1, 2) * w), [R(2, 3, 4)]),
    ("moveaxis", lambda x, w: np.sum(np.moveaxis(x, 0, -1) * w), [R(2, 3, 4)]),
    ("moveaxis_lists", lambda x, w: np.sum(np.moveaxis(x, [0, 1], [2, 0]) * w), [R(2, 3, 4)]),
    ("expand_dims", lambda x, w: np.sum(np.expand_dims(x, 1) * w), [R(3, 4)]),
    ("expand_dims_tuple", lambda x, w: np.sum(np.expand_dims(x, axis=(0, -1)) * w), [R(3, 4)]),
    ("squeeze", lambda x, w: np.sum(np.squeeze(x) * w), [R(3, 1, 4)]),
    ("squeeze_axis", lambda x, w: np.sum(np.squeeze(x, axis=0) * w), [R(1, 3, 1)]),
    ("method_squeeze", lambda x, w: np.sum(x.squeeze() * w), [R(1, 4)]),
    ("concatenate0", lambda x, y, w: np.sum(np.concatenate([x, y]) * w), [R(2, 4), R(3, 4)]),
    ("concatenate1_tuple", lambda x, y, w: np.sum(np.concatenate((x, y), axis=1) * w), [R(3, 2), R(3, 4)]),
    ("concatenate_neg", lambda x, y, w: np.sum(np.concatenate([x, y, x], axis=-1) * w), [R(3, 2), R(3, 1)]),
    ("concatenate_none", lambda x, y, w: np.sum(np.concatenate([x, y], axis=None) * w), [R(3, 2), R(4)]),
    ("stack", lambda x, y, w: np.sum(np.stack([x, y]) * w), [R(3, 4), R(3, 4)]),
    ("stack_axis", lambda x, y, w: np.sum(np.stack((x, y), axis=-1) * w), [R(3, 4), R(3, 4)]),
    ("hstack", lambda x, y, w: np.sum(np.hstack([x, y]) * w), [R(3, 2), R(3, 4)]),
    ("hstack_1d", lambda x, y, w: np.sum(np.hstack([x, y]) * w), [R(3), R(2)]),
    ("vstack", lambda x, y, w: np.sum(np.vstack([x, y]) * w), [R(2, 4), R(4)]),
    ("dstack", lambda x, y, w: np.sum(np.dstack([x, y]) * w), [R(3, 4), R(3, 4)]),
    ("column_stack", lambda x, y, w: np.sum(np.column_stack([x, y]) * w), [R(3), R(3, 2)]),
    ("split_sections", lambda x, w: np.sum(np.split(x, 2)[1] * w), [R(4, 3)]),
    ("split_indices", lambda x, w: np.sum(np.split(x, [1, 3], axis=1)[2] * w), [R(3, 5)]),
    ("split_unpack", lambda x, w: np.sum(np.split(x, 2)[0] * np.split(x, 2)[1] * w), [R(4, 3)]),
    ("array_split", lambda x, w: np.sum(np.array_split(x, 3)[0] * w), [R(5, 2)]),
    ("hsplit", lambda x, w: np.sum(np.hsplit(x, 2)[1] * w), [R(3, 4)]),
    ("vsplit", lambda x, w: np.sum(np.vsplit(x, 2)[0] * w), [R(4, 3)]),
    ("tile", lambda x, w: np.sum(np.tile(x, 3) * w), [R(2, 3)]),
    ("tile_tuple", lambda x, w: np.sum(np.tile(x, (2, 1, 2)) * w), [R(2, 3)]),
    ("repeat", lambda x, w: np.sum(np.repeat(x, 2) * w), [R(2, 3)]),
    ("repeat_axis", lambda x, w: np.sum(np.repeat(x, 3, axis=1) * w), [R(2, 3)]),
    ("repeat_array", lambda x, w: np.sum(np.repeat(x, [1, 0, 2], axis=0) * w), [R(3, 2)]),
    ("method_repeat", lambda x, w: np.sum(x.repeat(2, axis=0) * w), [R(2, 3)]),
    ("broadcast_to", lambda x, w: np.sum(np.broadcast_to(x, (2, 3, 4)) * w), [R(3, 1)]),
    ("flip", lambda x, w: np.sum(np.flip(x) * w), [R(3, 4)]),
    ("flip_axis", lambda x, w: np.sum(np.flip(x, axis=-1) * w), [R(2, 3, 4)]),
    ("flip_tuple", lambda x, w: np.sum(np.flip(x, axis=(0, 2)) * w), [R(2, 3, 4)]),
    ("fliplr", lambda x, w: np.sum(np.fliplr(x) * w), [R(3, 4)]),
    ("flipud", lambda x, w: np.sum(np.flipud(x) * w), [R(3, 4)]),
    ("roll", lambda x, w: np.sum(np.roll(x, 2) * w), [R(3, 4)]),
    ("roll_axis_neg", lambda x, w: np.sum(np.roll(x, -1, axis=1) * w), [R(3, 4)]),
    ("roll_tuple", lambda x, w: np.sum(np.roll(x, (1, 2), axis=(0, 1)) * w), [R(3, 4)]),
    ("rot90", lambda x, w: np.sum(np.rot90(x) * w), [R(3, 4)]),
    ("rot90_k2", lambda x, w: np.sum(np.rot90(x, 2) * w), [R(3, 4)]),
    ("rot90_kneg_axes", lambda x, w: np.sum(np.rot90(x, k=-1, axes=(1, 2)) * w), [R(2, 3, 4)]),
    ("diag_vec", lambda x, w: np.sum(np.diag(x) * w), [R(3)]),
    ("diag_vec_k", lambda x, w: np.sum(np.diag(x, k=1) * w), [R(3)]),
    ("diag_mat", lambda x, w: np.sum(np.diag(x) * w), [R(3, 4)]),
    ("diag_mat_k", lambda x, w: np.sum(np.diag(x, -1) * w), [R(3, 4)]),
    ("diagflat", lambda x, w: np.sum(np.diagflat(x) * w), [R(2, 2)]),
    ("diagonal", lambda x, w: np.sum(np.diagonal(x) * w), [R(3, 4)]),
    ("diagonal_offset_axes", lambda x, w: np.sum(np.diagonal(x, offset=1, axis1=1, axis2=2) * w), [R(2, 3, 4)]),
    ("method_diagonal", lambda x, w: np.sum(x.diagonal() * w), [R(3, 3)]),
    ("triu", lambda x, w: np.sum(np.triu(x) * w), [R(3, 4)]),
    ("triu_k", lambda x, w: np.sum(np.triu(x, k=1) * w), [R(3, 4)]),
    ("tril", lambda x, w: np.sum(np.tril(x) * w), [R(3, 4)]),
    ("tril_kneg_batched", lambda x, w: np.sum(np.tril(x, -1) * w), [R(2, 3, 3)]),
    ("pad_constant", lambda x, w: np.sum(np.pad(x, 1) * w), [R(3, 4)]),
    ("pad_pairs", lambda x, w: np.sum(np.pad(x, ((1, 0), (0, 2))) * w), [R(3, 4)]),
    ("pad_value", lambda x, w: np.sum(np.pad(x, 2, constant_values=1.5) * w), [R(3)]),
    ("pad_reflect", lambda x, w: np.sum(np.pad(x, 2, mode="reflect") * w), [R(3, 4)]),
    ("pad_edge", lambda x, w: np.sum(np.pad(x, (1, 2), mode="edge") * w), [R(3, 4)]),
    ("pad_wrap", lambda x, w: np.sum(np.pad(x, 1, mode="wrap") * w), [R(3, 4)]),
    ("pad_symmetric", lambda x, w: np.sum(np.pad(x, 2, mode="symmetric") * w), [R(4)]),
    ("take", lambda x, w: np.sum(np.take(x, IDX) * w), [R(3, 4)]),
    ("take_axis", lambda x, w: np.sum(np.take(x, IDX, axis=1) * w), [R(3, 4)]),
    ("take_neg", lambda x, w: np.sum(np.take(x, [-1, 0, -1], axis=0) * w), [R(3, 4)]),
    ("method_take", lambda x, w: np.sum(x.take(IDX2, axis=-1) * w), [R(3, 4)]),
    ("take_along_axis", lambda x, w: np.sum(np.take_along_axis(x, np.argsort(x, axis=1), axis=1) * w), [D(3, 4)]),
    ("take_along_axis_rep", lambda x, w: np.sum(np.take_along_axis(x, np.array([[0, 0], [2, 1], [1, 1]]), axis=1) * w), [R(3, 4)]),
    ("sort", lambda x, w: np.sum(np.sort(x) * w), [D(3, 4)]),
    ("sort_axis0", lambda x, w: np.sum(np.sort(x, axis=0) * w), [D(3, 4)]),
    ("sort_none", lambda x, w: np.sum(np.sort(x, axis=None) * w), [D(3, 4)]),
    ("atleast_1d", lambda x, w: np.sum(np.atleast_1d(x) * w), [np.array(0.4)]),
    ("atleast_2d", lambda x, w: np.sum(np.atleast_2d(x) * w), [R(3)]),
    ("atleast_3d", lambda x, w: np.sum(np.atleast_3d(x) * w), [R(3, 4)]),
    ("array_of_list", lambda x, y, w: np.sum(np.array([x, y]) * w), [R(3), R(3)]),
    ("array_of_scalars", lambda x, w: np.sum(np.array([[x[0], x[1]], [x[2], x[0]]]) * w), [R(3)]),
    ("array_of_floats", lambda a, b, w: np.sum(np.array([a, b, a * b]) * w), [0.3, -1.2]),
    ("asarray", lambda x, w: np.sum(np.asarray(x) * w), [R(3, 4)]),
    ("copy", lambda x, w: np.sum(np.copy(x) * w), [R(3, 4)]),
    ("method_copy", lambda x, w: np.sum(x.copy() * w), [R(3, 4)]),
    ("method_astype_float", lambda x, w: np.sum(x.astype(np.float64) * w), [R(3, 4)]),
    ("append", lambda x, y, w: np.sum(np.append(x, y) * w), [R(3), R(2)]),
    ("insert", lambda x, y, w: np.sum(np.insert(x, 1, y) * w), [R(4), 0.5]),
    ("delete", lambda x, w: np.sum(np.delete(x, 1, axis=0) * w), [R(3, 4)]),
    ("meshgrid", lambda x, y, w: np.sum(np.meshgrid(x, y)[0] * np.meshgrid(x, y)[1] * w), [R(3), R(4)]),
    ("select", lambda x, y, w: np.sum(np.select([MASK, ~MASK], [x, y]) * w), [R(3, 4), R(3, 4)]),

    # ---- indexing ----
    ("idx_int", lambda x, w: np.sum(x[1] * w), [R(3, 4)]),
    ("idx_neg", lambda x, w: np.sum(x[-1] * w), [R(3, 4)]),
    ("idx_scalar", lambda x, w: x[1, 2] * w, [R(3, 4)]),
    ("idx_scalar_neg", lambda x, w: x[-1, -2] * w, [R(3, 4)]),
    ("idx_slice_step", lambda x, w: np.sum(x[1:6:2] * w), [R(7)]),
    ("idx_reverse", lambda x, w: np.sum(x[::-1] * w), [R(3, 4)]),
    ("idx_neg_step_2d", lambda x, w: np.sum(x[:, ::-2] * w), [R(3, 5)]),
    ("idx_slice_neg_bounds", lambda x, w: np.sum(x[-3:-1] * w), [R(5)]),
    ("idx_newaxis", lambda x, w: np.sum(x[:, None] * w), [R(3, 4)]),
    ("idx_np_newaxis", lambda x, w: np.sum(x[np.newaxis, :, np.newaxis] * w), [R(4)]),
    ("idx_ellipsis", lambda x, w: np.sum(x[..., 0] * w), [R(2, 3, 4)]),
    ("idx_ellipsis_newaxis", lambda x, w: np.sum(x[None, ..., None] * w), [R(3, 4)]),
    ("idx_int_slice", lambda x, w: np.sum(x[1, ::2] * w), [R(3, 4)]),
    ("idx_int_array_rep", lambda x, w: np.sum(x[[0, 0, 2]] * w), [R(3, 4)]),
    ("idx_np_array_rep", lambda x, w: np.sum(x[IDX] * w), [R(3, 4)]),
    ("idx_array_2d_index", lambda x, w: np.sum(x[np.array([[0, 1], [1, 1]])] * w), [R(3)]),
    ("idx_col_array_rep", lambda x, w: np.sum(x[:, [1, 1, 0]] * w), [R(3, 4)]),
    ("idx_pair_arrays_rep", lambda x, w: np.sum(x[[0, 2, 0], [1, 3, 1]] * w), [R(3, 4)]),
    ("idx_array_then_slice", lambda x, w: np.sum(x[IDX2, 1:] * w), [R(4, 3)]),
    ("idx_bool_mask", lambda x, w: np.sum(x[MASK] * w), [R(3, 4)]),
    ("idx_bool_cmp", lambda x, w: np.sum(x[x > 0.1] * w), [D(3, 4)]),
    ("idx_bool_rows", lambda x, w: np.sum(x[np.array([True, False, True])] * w), [R(3, 4)]),
    ("idx_ellipsis_array", lambda x, w: np.sum(x[..., [0, 0]] * w), [R(2, 3)]),
    ("idx_0d_of_vector", lambda x, w: x[np.int64(2)] * w, [R(4)]),

    # ---- more argument forms ----
    ("sum_pos_axis", lambda x, w: np.sum(np.sum(x, 0) * w), [R(3, 4)]),
    ("sum_axis_neg2", lambda x, w: np.sum(np.sum(x, axis=-2) * w), [R(2, 3, 4)]),
    ("sum_where", lambda x, w: np.sum(x, where=MASK) * w, [R(3, 4)]),
    ("mean_where", lambda x, w: np.mean(x, where=MASK) * w, [R(3, 4)]),
    ("sum_dtype", lambda x, w: np.sum(x, dtype=np.float64) * w, [R(3, 4)]),
    ("method_sum_keepdims", lambda x, w: np.sum(x.sum(axis=0, keepdims=True) * w), [R(3, 4)]),
    ("method_mean_tuple_pos", lambda x, w: np.sum(x.mean((0, 2)) * w), [R(2, 3, 4)]),
    ("method_max_pos", lambda x, w: np.sum(x.max(0) * w), [D(3, 4)]),
    ("max_initial", lambda x, w: np.sum(np.max(x, axis=1, initial=-10.0) * w), [D(3, 4)]),
    ("std_keepdims", lambda x, w: np.sum(np.std(x, axis=1, keepdims=True) * w), [R(3, 4)]),
    ("var_pos_ddof", lambda x, w: np.var(x, None, None, None, 1) * w, [R(3, 4)]),
    ("average_axis0_weights", lambda x, v, w: np.sum(np.average(x, axis=0, weights=v) * w), [R(3, 4), P(3)]),
    ("average_returned", lambda x, v, w: np.sum(np.average(x, axis=1, weights=v, returned=True)[0] * w), [R(3, 4), P(4)]),
    ("cumprod_two_zeros", lambda x, w: np.sum(np.cumprod(x, axis=1) * w), [ZERO2(2, 4)]),
    ("prod_axis_two_zeros", lambda x, w: np.sum(np.prod(x, axis=1) * w), [np.array([[0.0, 1.3, 0.0], [0.5, 0.0, 2.0]])]),
    ("norm_vec_neg_inf", lambda x, w: np.linalg.norm(x, ord=-np.inf) * w, [D(5)]),
    ("norm_vec_half", lambda x, w: np.linalg.norm(x, ord=0.5) * w, [P(5)]),
    ("norm_mat_neg2", lambda x, w: np.linalg.norm(x, ord=-2) * w, [R(3, 3)]),
    ("norm_inf_axis0", lambda x, w: np.sum(np.linalg.norm(x, ord=np.inf, axis=0) * w), [D(3, 4)]),
    ("diff_n2", lambda x, w: np.sum(np.diff(x, n=2) * w), [R(3, 5)]),
    ("ediff1d", lambda x, w: np.sum(np.ediff1d(x) * w), [R(5)]),
    ("trapezoid", lambda x, w: np.trapezoid(x) * w, [R(5)]),
    ("add_reduce", lambda x, w: np.sum(np.add.reduce(x, axis=0) * w), [R(3, 4)]),
    ("multiply_outer", lambda x, y, w: np.sum(np.multiply.outer(x, y) * w), [R(3), R(4)]),
    ("add_accumulate", lambda x, w: np.sum(np.add.accumulate(x, axis=1) * w), [R(3, 4)]),
    ("maximum_accumulate", lambda x, w: np.sum(np.maximum.accumulate(x) * w), [D(5)]),
    ("power_int_exp", lambda x, w: np.sum(np.power(x, 3) * w), [R(3, 4)]),
    ("pow_zero_exp_at_zero", lambda x, w: np.sum(x ** 0.0 * w), [np.array([0.0, 1.0, 2.0])]),
    ("pow_both_base_zero", lambda x, y, w: np.sum(x ** y * w), [np.array([0.0, 1.0, 2.0]), np.array([2.0, 1.5, 0.5])]),
    ("power_rbase", lambda x, w: np.sum(np.power(2.0, x) * w), [R(3, 4)]),
    ("arctan2_rconst", lambda x, w: np.sum(np.arctan2(1.0, x) * w), [R(3, 4)]),
    ("logaddexp_scalar", lambda x, w: np.sum(np.logaddexp(x, 0.0) * w), [R(3, 4)]),
    ("dot_3d_2d", lambda x, y, w: np.sum(np.dot(x, y) * w), [R(2, 3, 4), R(4, 2)]),
    ("dot_3d_3d", lambda x, y, w: np.sum(np.dot(x, y) * w), [R(2, 3, 4), R(2, 4, 2)]),
    ("inner_3d", lambda x, y, w: np.sum(np.inner(x, y) * w), [R(2, 3, 4), R(2, 4)]),
    ("matmul_batched_vec", lambda x, y, w: np.sum(np.matmul(x, y) * w), [R(4), R(2, 4, 3)]),
    ("tensordot_int_pair", lambda x, y, w: np.sum(np.tensordot(x, y, axes=(1, 0)) * w), [R(2, 3), R(3, 4)]),
    ("einsum_sum_all", lambda x, w: np.einsum("ij->", x) * w, [R(3, 4)]),
    ("einsum_matvec_implicit", lambda x, y, w: np.sum(np.einsum("ij,j", x, y) * w), [R(3, 4), R(4)]),
    ("einsum_outer", lambda x, y, w: np.sum(np.einsum("i,j->ij", x, y) * w), [R(3), R(4)]),
    ("einsum_repeated_operand", lambda x, w: np.einsum("ij,ij->", x, x) * w, [R(3, 4)]),
    ("kron_mixed_ndim", lambda x, y, w: np.sum(np.kron(x, y) * w), [R(3), R(2, 2)]),
    ("trace_batched", lambda x, w: np.sum(np.trace(x) * w), [R(3, 3, 2)]),
    ("matrix_power_0", lambda x, w: np.sum(np.linalg.matrix_power(x, 0) * x * w), [R(3, 3)]),
    ("matrix_power_1", lambda x, w: np.sum(np.linalg.matrix_power(x, 1) * w), [R(3, 3)]),
    ("lstsq", lambda a, b, w: np.sum(np.linalg.lstsq(a, b, rcond=None)[0] * w), [R(5, 3), R(5)]),
    ("solve_batched", lambda a, b, w: np.sum(np.linalg.solve(a, b) * w), [np.stack([M(3), M(3)]), R(2, 3, 2)]),
    ("cholesky_batched", lambda x, w: np.sum(np.linalg.cholesky(x) * w), [np.stack([SPD(3), SPD(3)])]),
    ("eigh_batched", lambda x, w: np.sum(np.linalg.eigh(x)[0] * w), [np.stack([SPD(3), SPD(3)])]),
    ("qr_wide_r", lambda x, w: np.sum(np.linalg.qr(x)[1] * w), [R(3, 4)]),
    ("svd_square_s", lambda x, w: np.sum(np.linalg.svd(x)[1] * w), [R(3, 3)]),
    ("svd_vt", lambda x, w: np.sum((np.linalg.svd(x, full_matrices=False)[2] * w) ** 2), [R(3, 4)]),
    ("det_2x2", lambda x, w: np.linalg.det(x) * w, [R(2, 2)]),
    ("split_axis_neg", lambda x, w: np.sum(np.split(x, 2, axis=-1)[1] * w), [R(3, 4)]),
    ("array_split_indices", lambda x, w: np.sum(np.array_split(x, [1, 4])[1] * w), [R(6)]),
    ("stack_1d_axis1", lambda x, y, w: np.sum(np.stack([x, y], axis=1) * w), [R(3), R(3)]),
    ("concatenate_single", lambda x, w: np.sum(np.concatenate([x]) * w), [R(3)]),
    ("pad_linear_ramp", lambda x, w: np.sum(np.pad(x, 2, mode="linear_ramp") * w), [R(4)]),
    ("pad_maximum", lambda x, w: np.sum(np.pad(x, 1, mode="maximum") * w), [D(4)]),
    ("pad_mean", lambda x, w: np.sum(np.pad(x, 1, mode="mean") * w), [R(4)]),
    ("repeat_0d", lambda x, w: np.sum(np.repeat(x, 3) * w), [np.array(0.8)]),
    ("take_wrap", lambda x, w: np.sum(np.take(x, [5, -7, 1], mode="wrap") * w), [R(4)]),
    ("take_scalar_index", lambda x, w: np.take(x, 2) * w, [R(4)]),
    ("roll_big_shift", lambda x, w: np.sum(np.roll(x, 7) * w), [R(5)]),
    ("sort_desc", lambda x, w: np.sum(np.sort(x)[::-1] * w), [D(5)]),
    ("sort_kind", lambda x, w: np.sum(np.sort(x, axis=1, kind="stable") * w), [D(3, 4)]),
    ("method_sort_copy", lambda x, w: np.sum(np.sort(x.copy(), axis=-1) * w), [D(3, 4)]),
    ("idx_neg_repeated", lambda x, w: np.sum(x[[-1, 2, -1]] * w), [R(4)]),
    ("idx_bool_list", lambda x, w: np.sum(x[[True, False, True]] * w), [R(3, 2)]),
    ("idx_col_mask", lambda x, w: np.sum(x[:, MASK[0]] * w), [R(3, 4)]),
    ("idx_chained", lambda x, w: x[1][2] * w, [R(3, 4)]),
    ("idx_ix", lambda x, w: np.sum(x[np.ix_([0, 2], [1, 1, 3])] * w), [R(3, 4)]),
    ("idx_step_2d", lambda x, w: np.sum(x[::2, 1::2] * w), [R(3, 4)]),
    ("idx_mask_3d_leading", lambda x, w: np.sum(x[MASK] * w), [R(3, 4, 2)]),
    ("idx_arrays_bcast", lambda x, w: np.sum(x[np.array([[0], [2]]), np.array([1, 1, 3])] * w), [R(3, 4)]),
    ("idx_split_adv", lambda x, w: np.sum(x[[0, 1], :, [1, 1]] * w), [R(2, 3, 4)]),
    ("where_single_arg", lambda x, w: np.sum(x[np.where(x > 0)] * w), [D(3, 4)]),
    ("asarray_int_cast", lambda x, w: np.sum(x * np.asarray(x, dtype=int) * w), [D(3, 4)]),
    ("astype_int_method_chain", lambda x, w: np.sum(x * x.astype(np.int32) * w), [D(3, 4)]),
    ("astype_bool", lambda x, w: np.sum(x * x.astype(bool) * w), [D(3, 4)]),
    ("floor_astype", lambda x, w: np.sum(x * np.floor(x).astype(int) * w), [D(3, 4)]),

    # ---- non-differentiable but allowed on the path ----
    ("shape_scale", lambda x, w: np.sum(x * x.shape[0] * w), [R(3, 4)]),
    ("ndim_size", lambda x, w: np.sum(x * (x.ndim + x.size) * w), [R(3, 4)]),
    ("len", lambda x, w: np.sum(x * len(x) * w), [R(3, 4)]),
    ("np_shape", lambda x, w: np.sum(np.reshape(x, np.shape(x)[::-1]) * w), [R(3, 4)]),
    ("argmax_index", lambda x, w: x[np.argmax(x)] * w, [D(5)]),
    ("argmin_axis", lambda x, w: np.sum(np.take_along_axis(x, np.argmin(x, axis=1)[:, None], axis=1) * w), [D(3, 4)]),
    ("argsort_index", lambda x, w: np.sum(x[np.argsort(x)] * w), [D(5)]),
    ("method_argmax", lambda x, w: x[x.argmax()] * w, [D(5)]),
    ("comparison_mask_mul", lambda x, w: np.sum(x * (x > 0) * w), [D(3, 4)]),
    ("comparison_le_astype", lambda x, w: np.sum(x * (x <= 0).astype(np.float64) * w), [D(3, 4)]),
    ("zeros_like", lambda x, w: np.sum((np.zeros_like(x) + x) * w), [R(3, 4)]),
    ("ones_like", lambda x, w: np.sum(np.ones_like(x) * x * w), [R(3, 4)]),
    ("empty_like", lambda x, w: np.sum((x + np.empty_like(x).size) * w), [R(3, 4)]),  # its values are garbage: only its shape may be read
    ("full_like", lambda x, w: np.sum(np.full_like(x, 2.0) * x * w), [R(3, 4)]),
    ("zeros_shape", lambda x, w: np.sum((np.zeros(x.shape) + x) * w), [R(3, 4)]),
    ("astype_int", lambda x, w: np.sum(x * x.astype(int) * w), [D(3, 4)]),
    ("floor_divide", lambda x, w: np.sum(x * np.floor_divide(x, 0.7) * w), [D(3, 4)]),
    ("op_floordiv", lambda x, w: np.sum(x * (x // 0.7) * w), [D(3, 4)]),
    ("isnan", lambda x, w: np.sum(np.where(np.isnan(x), 0.0, x) * w), [NAN(3, 4)]),
    ("isfinite", lambda x, w: np.sum(x * np.isfinite(x) * w), [R(3, 4)]),
    ("count_nonzero", lambda x, w: np.sum(x * np.count_nonzero(x > 0) * w), [D(3, 4)]),
    ("any_all", lambda x, w: np.sum(x * (np.any(x > 0) + np.all(x > -5)) * w), [D(3, 4)]),
    ("nonzero", lambda x, w: np.sum(x[np.nonzero(x > 0)] * w), [D(3, 4)]),
    ("searchsorted", lambda x, w: np.sum(x * np.searchsorted(np.array([-1.0, 0.0, 1.0]), x) * w), [D(3, 4)]),
    ("heaviside", lambda x, w: np.sum(x * np.heaviside(x, 0.5) * w), [D(3, 4)]),
    ("signbit", lambda x, w: np.sum(x * np.signbit(x) * w), [D(3, 4)]),
    ("logical_and", lambda x, w: np.sum(x * np.logical_and(x > -0.5, x < 0.5) * w), [D(3, 4)]),
    ("isclose", lambda x, w: np.sum(x * np.isclose(x, 0.0) * w), [D(3, 4)]),

    # ---- where= / initial= of reductions, and functions added with them ----
    ("sum_where_axis", lambda x, w: np.sum(np.sum(x, axis=1, where=MASK) * w), [R(3, 4)]),
    ("sum_where_row_keepdims", lambda x, w: np.sum(np.sum(x, axis=0, keepdims=True, where=MASK[0]) * w), [R(3, 4)]),
    ("sum_initial", lambda x, y, w: np.sum(np.sum(x, axis=0, initial=y) * w), [R(3, 4), 0.7]),
    ("method_sum_where", lambda x, w: np.sum(x.sum(axis=-1, where=x > 0.0) * w), [D(2, 3, 4)]),
    ("mean_where_axis", lambda x, w: np.sum(np.mean(x, axis=0, where=np.array([[True], [False], [True]])) * w), [R(3, 4)]),
    ("mean_where_tuple", lambda x, w: np.sum(np.mean(x, axis=(0, 2), where=np.array([[True, False, True], [False, True, True], [True, True, False]])[:, :, None], keepdims=True) * w), [R(3, 3, 2)]),
    ("method_mean_where", lambda x, w: x.mean(where=MASK) * w, [R(3, 4)]),
    ("prod_where_initial", lambda x, y, w: np.sum(np.prod(x, axis=1, initial=y, where=MASK) * w), [P(3, 4), 1.3]),
    ("max_initial_wins", lambda x, y, w: np.sum(np.max(x, axis=0, initial=y) * w), [D(3, 4), 0.05]),
    ("min_initial_where", lambda x, y, w: np.sum(np.min(x, axis=1, initial=y, where=MASK) * w), [D(3, 4), 0.3]),
    ("amax_initial_keepdims", lambda x, w: np.sum(np.amax(x, axis=(0, 1), initial=-1.0, keepdims=True) * w), [D(2, 3, 2)]),
    ("amin_initial", lambda x, w: np.amin(x, initial=2.0) * w, [D(4)]),
    ("method_max_initial_where", lambda x, w: np.sum(x.max(axis=1, initial=0.0, where=MASK) * w), [D(3, 4)]),
    ("nanmax_initial", lambda x, w: np.sum(np.nanmax(x, axis=1, initial=-5.0) * w), [D(3, 4)]),
    ("minimum_accumulate_axis1", lambda x, w: np.sum(np.minimum.accumulate(x, axis=1) * w), [D(3, 5)]),
    ("maximum_accumulate_3d", lambda x, w: np.sum(np.maximum.accumulate(x, axis=-1) * w), [D(2, 2, 5)]),
    ("insert_axis1_array", lambda x, y, w: np.sum(np.insert(x, [0, 2, 2], y, axis=1) * w), [R(3, 4), R(3, 1)]),
    ("insert_row_broadcast", lambda x, y, w: np.sum(np.insert(x, 2, y, axis=0) * w), [R(3, 4), R(4)]),
    ("insert_slice", lambda x, y, w: np.sum(np.insert(x, slice(0, 2), y) * w), [R(5), R(2)]),
    ("delete_list_flat", lambda x, w: np.sum(np.delete(x, [0, 5, 7]) * w), [R(3, 4)]),
    ("delete_mask_axis1", lambda x, w: np.sum(np.delete(x, np.array([True, False, True, False]), axis=1) * w), [R(3, 4)]),
    ("select_default", lambda x, y, z, w: np.sum(np.select([MASK, x > 0.5], [y, x], default=z) * w), [D(3, 4), R(3, 4), R(3, 4)]),
    ("select_broadcast", lambda x, y, w: np.sum(np.select([MASK[0], MASK], [x, y], 0.5) * w), [R(4), R(3, 4)]),
    ("lstsq_matrix_rhs", lambda a, b, w: np.sum(np.linalg.lstsq(a, b, rcond=None)[0] * w), [R(6, 3), R(6, 2)]),
    ("lstsq_wide", lambda a, b, w: np.sum(np.linalg.lstsq(a, b, rcond=None)[0] * w), [R(2, 4), R(2)]),
    ("lstsq_residuals", lambda a, b, w: np.sum(np.linalg.lstsq(a, b, rcond=None)[1] * w), [R(5, 2), R(5, 3)]),
    ("lstsq_sv", lambda a, b, w: np.sum(np.linalg.lstsq(a, b, rcond=1e-10)[3] * w), [R(4, 3), R(4)]),
    ("svd_tall_vh", lambda x, w: np.sum((np.linalg.svd(x)[2] * w) ** 2), [R(4, 3)]),
    ("pad_minimum_stat_length", lambda x, w: np.sum(np.pad(x, ((1, 2), (2, 1)), mode="minimum", stat_length=2) * w), [D(3, 4)]),
    ("pad_mean_2d", lambda x, w: np.sum(np.pad(x, ((2, 1), (0, 3)), mode="mean", stat_length=((1, 2), (3, 2))) * w), [R(3, 4)]),
    ("pad_median", lambda x, w: np.sum(np.pad(x, 2, mode="median") * w), [D(3, 5)]),
    ("pad_linear_ramp_ends", lambda x, w: np.sum(np.pad(x, ((1, 3), (2, 2)), mode="linear_ramp", end_values=((1.0, -2.0), (0.5, 3.0))) * w), [R(2, 3)]),
    ("cumprod_neg", lambda x, w: np.sum(np.cumprod(x, axis=-1) * w), [R(2, 3, 4)]),
    ("cumprod_none_two_zeros", lambda x, w: np.sum(np.cumprod(x) * w), [ZERO2(2, 3)]),
    ("method_cumprod_two_zeros_axis0", lambda x, w: np.sum(x.cumprod(axis=0) * w), [ZERO2(4, 3)]),
]
# fmt: on
if not hasattr(np, "trapezoid"):  # NumPy 1.26 has np.trapz only
    CASES = [c for c in CASES if "trapezoid" not in c[0]]

ids = [c[0] for c in CASES]
assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]


class _Probe:
    """A weight that records the shape it is multiplied with."""

    __array_ufunc__ = None

    def __init__(self):
        self.shape = None

    def __rmul__(self, other):
        self.shape = np.shape(other)
        return np.zeros(self.shape)

    __mul__ = __rmul__


def _weights(name, fn, args):
    probe = _Probe()
    fn(*args, probe)
    assert probe.shape is not None, name
    w = np.random.default_rng(zlib.crc32(name.encode())).uniform(0.5, 1.5, probe.shape)
    w *= np.random.default_rng(7).choice([-1.0, 1.0], probe.shape)
    return w if probe.shape else float(w)


_fd = numerical_grad  # central differences in float64 (conftest)


def _setup(case):
    name, fn, args = case
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    w = _weights(name, fn, args)
    wrt = tuple(range(len(args)))
    return name, fn, args, w, wrt


def _grads(fn, args, w, wrt):
    g = srcgrad.grad(fn, wrt=wrt if len(wrt) > 1 else wrt[0])(*args, w)
    return g if len(wrt) > 1 else (g,)


# Observed failures: (case id, "grad" | "jvp") -> reason.
XFAIL = {
}


def _params(mode):
    out = []
    for case in CASES:
        reason = XFAIL.get((case[0], mode))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(case, id=case[0], marks=marks))
    return out


@pytest.mark.parametrize("case", _params("grad"))
def test_grad(case):
    name, fn, args, w, wrt = _setup(case)
    grads = _grads(fn, args, w, wrt)
    for i, g in zip(wrt, grads):
        expected = _fd(lambda *a: fn(*a, w), args, i)
        assert np.shape(g) == np.shape(args[i]), f"{name}: gradient shape {np.shape(g)} != {np.shape(args[i])}"
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64), expected, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("case", _params("jvp"))
def test_jvp(case):
    name, fn, args, w, wrt = _setup(case)
    rng = np.random.default_rng(1)
    tangents = [float(rng.standard_normal()) if isinstance(a, float) else rng.standard_normal(np.shape(a)) for a in args]
    out, out_dot = srcgrad.jvp(fn, (*args, w), (*tangents, None))
    np.testing.assert_allclose(out, fn(*args, w), rtol=1e-12, atol=1e-12, err_msg=f"{name}: jvp primal output")
    grads = _grads(fn, args, w, wrt)
    backward = sum(float(np.sum(np.asarray(g) * t)) for g, t in zip(grads, tangents))
    np.testing.assert_allclose(float(out_dot), backward, rtol=1e-7, atol=1e-9, err_msg=f"{name}: <grad, t> vs jvp")


# ---- dtype and 0-d preservation through the compiler ----
F32_CASES = [c for c in CASES if c[0] in {
    "sin", "log", "sqrt", "tanh", "add_row", "multiply_3d", "sum_axis0", "mean_tuple_keepdims", "prod_axis",
    "max_axis", "std_axis_ddof", "cumprod_axis1", "norm_axis1", "op_matmul_batched", "einsum_mm", "inv",
    "reshape", "concatenate0", "idx_np_array_rep", "idx_bool_mask", "method_clip", "where_bcast", "sort",
    "pad_reflect", "take_axis",
}]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in F32_CASES])
def test_float32_gradients_stay_float32(case):
    name, fn, args, w, wrt = _setup(case)
    args32 = [a.astype(np.float32) for a in args]
    grads32 = _grads(fn, args32, w.astype(np.float32) if isinstance(w, np.ndarray) else w, wrt)
    grads64 = _grads(fn, args, w, wrt)
    for a, g32, g64 in zip(args32, grads32, grads64):
        assert isinstance(g32, np.ndarray) and g32.dtype == np.float32, f"{name}: {type(g32)} {getattr(g32, 'dtype', None)}"
        assert g32.shape == a.shape
        np.testing.assert_allclose(g32, g64, rtol=2e-3, atol=2e-3, err_msg=name)


def test_zero_d_gradient_stays_zero_d():
    g = srcgrad.grad(CASES[ids.index("unary_0d")][1])(np.array(0.7), 1.3)
    assert isinstance(g, np.ndarray) and g.shape == () and g.dtype == np.float64
    g = srcgrad.grad(CASES[ids.index("unary_float")][1])(0.7, 1.3)
    assert isinstance(g, float)


def test_case_count():
    assert len(CASES) >= 250


def _concat_neg_axis(x, y):
    return np.sum(np.concatenate([x, y], axis=-1) ** 2)


def test_generated_code_compiles_without_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        srcgrad.grad(_concat_neg_axis)(np.ones((2, 2)), np.ones((2, 1)))
