"""Elementwise functions: NumPy ufuncs, the `math` module and the `abs` builtin.

Each rule is the local derivative `d(ans, x)`; `elementwise` builds the reverse rule
`g * d` and the forward rule `t * d` from it. `math` rules use `math` so that a Python
float in gives a Python float out.
"""

import builtins
import math

import numpy as np

from ..runtime import unbroadcast
from .registry import defjvp, defvjp, elementwise

# --- unary NumPy ufuncs -------------------------------------------------------------


@elementwise(np.sin)
def sin_d(ans, x):
    return np.cos(x)


@elementwise(np.cos)
def cos_d(ans, x):
    return -np.sin(x)


@elementwise(np.tan)
def tan_d(ans, x):
    return 1.0 + ans * ans


@elementwise(np.arcsin, name="Asin")
def arcsin_d(ans, x):
    return 1.0 / np.sqrt(1.0 - x * x)


@elementwise(np.arccos, name="Acos")
def arccos_d(ans, x):
    return -1.0 / np.sqrt(1.0 - x * x)


@elementwise(np.arctan, name="Atan")
def arctan_d(ans, x):
    return 1.0 / (1.0 + x * x)


@elementwise(np.sinh)
def sinh_d(ans, x):
    return np.cosh(x)


@elementwise(np.cosh)
def cosh_d(ans, x):
    return np.sinh(x)


@elementwise(np.tanh)
def tanh_d(ans, x):
    return 1.0 - ans * ans


@elementwise(np.arcsinh, name="Asinh")
def arcsinh_d(ans, x):
    return 1.0 / np.sqrt(x * x + 1.0)


@elementwise(np.arccosh, name="Acosh")
def arccosh_d(ans, x):
    return 1.0 / np.sqrt(x * x - 1.0)


@elementwise(np.arctanh, name="Atanh")
def arctanh_d(ans, x):
    return 1.0 / (1.0 - x * x)


@elementwise(np.exp)
def exp_d(ans, x):
    return ans


@elementwise(np.exp2)
def exp2_d(ans, x):
    return ans * np.log(2.0)


@elementwise(np.expm1)
def expm1_d(ans, x):
    return ans + 1.0


@elementwise(np.log)
def log_d(ans, x):
    return 1.0 / x


@elementwise(np.log2)
def log2_d(ans, x):
    return 1.0 / (x * np.log(2.0))


@elementwise(np.log10)
def log10_d(ans, x):
    return 1.0 / (x * np.log(10.0))


@elementwise(np.log1p)
def log1p_d(ans, x):
    return 1.0 / (1.0 + x)


@elementwise(np.sqrt)
def sqrt_d(ans, x):
    return 0.5 / ans


@elementwise(np.cbrt)
def cbrt_d(ans, x):
    return 1.0 / (3.0 * ans * ans)


@elementwise(np.square)
def square_d(ans, x):
    return 2.0 * x


@elementwise(np.absolute, name="Abs")
@elementwise(np.fabs, name="Abs")
def abs_d(ans, x):
    return np.sign(x)


@elementwise(np.reciprocal)
def reciprocal_d(ans, x):
    return -ans * ans


@elementwise(np.deg2rad)
@elementwise(np.radians)
def deg2rad_d(ans, x):
    return np.pi / 180.0


@elementwise(np.rad2deg)
@elementwise(np.degrees)
def rad2deg_d(ans, x):
    return 180.0 / np.pi


# --- binary NumPy ufuncs ------------------------------------------------------------


@elementwise(np.maximum, "x")
def maximum_dx(ans, x, y):
    return (x > y) + 0.5 * (x == y)


@elementwise(np.maximum, "y")
def maximum_dy(ans, x, y):
    return (y > x) + 0.5 * (x == y)


@elementwise(np.minimum, "x")
def minimum_dx(ans, x, y):
    return (x < y) + 0.5 * (x == y)


@elementwise(np.minimum, "y")
def minimum_dy(ans, x, y):
    return (y < x) + 0.5 * (x == y)


@elementwise(np.arctan2, "x", name="Atan2")
def arctan2_dx(ans, x, y):
    return y / (x * x + y * y)


@elementwise(np.arctan2, "y")
def arctan2_dy(ans, x, y):
    return -x / (x * x + y * y)


@elementwise(np.hypot, "x")
def hypot_dx(ans, x, y):
    return x / ans


@elementwise(np.hypot, "y")
def hypot_dy(ans, x, y):
    return y / ans


@elementwise(np.logaddexp, "x")
def logaddexp_dx(ans, x, y):
    return np.exp(x - ans)


@elementwise(np.logaddexp, "y")
def logaddexp_dy(ans, x, y):
    return np.exp(y - ans)


@defvjp(np.where, "x")
def where_vjp_x(g, ans, condition, x, y):
    return unbroadcast(np.where(condition, g, 0.0), x)


@defvjp(np.where, "y")
def where_vjp_y(g, ans, condition, x, y):
    return unbroadcast(np.where(condition, 0.0, g), y)


@defjvp(np.where, "x")
def where_jvp_x(t, ans, condition, x, y):
    return np.where(condition, t, 0.0)


@defjvp(np.where, "y")
def where_jvp_y(t, ans, condition, x, y):
    return np.where(condition, 0.0, t)


# --- the math module and builtins: floats in, floats out ---------------------------


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
    return 1.0 / math.sqrt(1.0 - x * x)


@elementwise(math.acos)
def math_acos_d(ans, x):
    return -1.0 / math.sqrt(1.0 - x * x)


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


@elementwise(math.exp)
def math_exp_d(ans, x):
    return ans


@elementwise(math.expm1)
def math_expm1_d(ans, x):
    return ans + 1.0


@elementwise(math.log, "x")
def math_log_d(ans, x, base=math.e):
    return 1.0 / (x * math.log(base))


@elementwise(math.log, "base")
def math_log_dbase(ans, x, base=math.e):
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
    return 0.5 / ans


@elementwise(math.pow, "x")
def math_pow_dx(ans, x, y):
    return y * math.pow(x, y - 1.0)


@elementwise(math.pow, "y")
def math_pow_dy(ans, x, y):
    return ans * math.log(x) if x > 0 else 0.0


@elementwise(math.atan2, "y")
def math_atan2_dy(ans, y, x):
    return x / (x * x + y * y)


@elementwise(math.atan2, "x")
def math_atan2_dx(ans, y, x):
    return -y / (x * x + y * y)


@elementwise(math.hypot, "x")
def math_hypot_dx(ans, x, y):
    return x / ans


@elementwise(math.hypot, "y")
def math_hypot_dy(ans, x, y):
    return y / ans


@elementwise(math.fabs)
def math_fabs_d(ans, x):
    return math.copysign(1.0, x) if x else 0.0


@elementwise(math.erf)
def math_erf_d(ans, x):
    return 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@elementwise(math.degrees)
def math_degrees_d(ans, x):
    return 180.0 / math.pi


@elementwise(math.radians)
def math_radians_d(ans, x):
    return math.pi / 180.0


@elementwise(builtins.abs)
def builtin_abs_d(ans, x):
    return np.sign(x)


@defvjp(builtins.float, "x")
def float_vjp(g, ans, x):
    return g


@defjvp(builtins.float, "x")
def float_jvp(t, ans, x):
    return float(t)
