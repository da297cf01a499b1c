"""srcgrad: source-transformation automatic differentiation for Python and NumPy.

Public names only (see API.md); the logic lives in the submodules.
"""

from .api import grad, source, value_and_grad, vjp
from .custom import custom_jvp, custom_vjp, defjvp, defvjp, stop_gradient
from .errors import NotDifferentiableError, SrcGradError
from .jacobians import hessian, jacobian, jvp
from . import derivative_calls  # noqa: F401  (rules of gradients called inside differentiated code)

__all__ = [
    "grad",
    "value_and_grad",
    "vjp",
    "jvp",
    "jacobian",
    "hessian",
    "source",
    "stop_gradient",
    "custom_vjp",
    "custom_jvp",
    "defvjp",
    "defjvp",
    "SrcGradError",
    "NotDifferentiableError",
]
__version__ = "0.1.0"

# Tensor shim: PyTorch-style eager autograd (`import srcgrad as torch`), in srcgrad/tensor/
# `float`, `int`, `bool`, `sum`, `max`, `min`, `abs`, `pow`, `all`, `any`, `round` and `compile` below shadow the builtins
# in this module: code placed after this block must use `builtins.float` and so on.
from . import autograd, cuda, nn, optim, utils  # noqa: E402
from .tensor import (  # noqa: E402
    Size, Tensor, abs, add, all, amax, amin, any, arange, argmax, argmin, as_tensor, cat, clamp, clamp_max,
    clamp_min, clip, clone, complex64, complex128, concat, concatenate, cos, cumprod, cumsum, div, dot, double,
    device, dtype, empty, enable_grad, exp, expm1, eye, flatten, float16, float32, float64, from_numpy, full, full_like,
    get_default_dtype, half, initial_seed, int8, int16, int32, int64, is_floating_point, is_grad_enabled,
    is_tensor, linspace, log, log1p, log_softmax, logsumexp, long, manual_seed, matmul, max, maximum, mean, min,
    minimum, mm, mul, mv, neg, no_grad, norm, numel, ones, ones_like, pow, prod, rand, rand_like, randint, randn,
    randn_like, relu, reshape, seed, set_grad_enabled, set_printoptions, short, sigmoid, sin, softmax, sqrt, squeeze, stack, std,
    sub, sum, t, tanh, tensor, transpose, uint8, unsqueeze, var, where, zeros, zeros_like,
    addmm, allclose, argsort, atan2, bmm, ceil, chunk, floor, gather, index_select, inference_mode, isclose, lerp,
    masked_fill, outer, round, sign, sort, split, topk, trace, tril, triu, trunc, unbind,
    reciprocal, rsqrt, log2, log10, exp2, asin, acos, atan, arcsin, arccos, arctan, sinh, cosh, tan, asinh, acosh, atanh, arcsinh, arccosh, arctanh, erf, erfc, square, isnan, isfinite, isinf, floor_divide, remainder, true_divide, median, std_mean, var_mean, select, narrow, roll, flip, view_as,
    frac, count_nonzero, unique, diagonal, diag,
)
from .tensor.compiled import compile  # noqa: E402
from .serialization import load, save  # noqa: E402
from . import testing  # noqa: E402  (check_grad; assert_close as torch.testing's)
from . import distributions  # noqa: E402
from .tensor import bernoulli, finfo, iinfo, multinomial, normal, poisson, randperm, set_default_dtype  # noqa: E402
from .tensor import get_default_device, set_default_device  # noqa: E402
from .tensor import Generator, default_generator, get_rng_state, randint_like, set_rng_state  # noqa: E402
from . import random  # noqa: E402  (torch.random: seeds, states, fork_rng)
from .tensor import IN_PLACE as _IN_PLACE, functions as _functions  # noqa: E402

globals().update({_name: getattr(_functions, _name) for _name in _IN_PLACE})  # srcgrad.sin_(t), ...
globals().update({_name: getattr(_functions, _name) for _name in _functions.MORE_FUNCTIONS})  # srcgrad.logaddexp, ...
from .tensor import function_aliases as _function_aliases  # noqa: E402
globals().update({_name: getattr(_function_aliases, _name) for _name in _function_aliases.__all__})  # divide, rsub, ...
from .tensor.tensor_facts import layout, positive, ravel, strided  # noqa: E402
from .nn import top_level as _top_level  # noqa: E402
globals().update({_name: getattr(_top_level, _name) for _name in _top_level.__all__})  # conv2d, dropout, ...
from . import linalg  # noqa: E402
from . import func  # noqa: E402  (torch.func: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call)
from .func import vmap  # noqa: E402
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402
from . import amp, backends, jit  # noqa: E402  (torch.amp, torch.backends' switches, torch.jit)
from .amp import autocast, is_autocast_enabled  # noqa: E402
from .tensor.settings import (  # noqa: E402
    are_deterministic_algorithms_enabled, get_float32_matmul_precision, get_num_interop_threads, get_num_threads,
    is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision, set_num_interop_threads,
    set_num_threads, use_deterministic_algorithms,
)
from . import special  # noqa: E402
from .tensor.decompositions import qr_old as qr, svd_old as svd  # noqa: E402
from .tensor.matrix_functions import matrix_exp, matrix_power  # noqa: E402
from .tensor.solves import cholesky_inverse, cholesky_solve, pinverse, triangular_solve  # noqa: E402
from .tensor import bool_ as bool  # noqa: E402
from .tensor import float32 as float  # noqa: E402
from .tensor import int32 as int  # noqa: E402

__all__ += [
    "Tensor", "tensor", "ones", "zeros", "randn", "from_numpy", "matmul", "no_grad",
    "is_grad_enabled", "Size", "device", "get_default_device", "set_default_device", "nn", "optim", "autograd", "cuda", "linalg", "func", "vmap", "special", "qr", "svd", "matrix_exp", "matrix_power", "cholesky_inverse", "cholesky_solve", "pinverse", "triangular_solve", "float32", "float64", "double", "int64", "long",
]
from .tensor.bitwise import (  # noqa: E402
    bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor,
)
from .tensor.float_parts import fmax, fmin, frexp, gcd, lcm, ldexp, positive  # noqa: E402
from .tensor.creation import logspace  # noqa: E402
from .tensor.functions import ravel  # noqa: E402
from .tensor.view_scatters import as_strided_scatter, diagonal_scatter, select_scatter, slice_scatter  # noqa: E402
from .tensor.windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window  # noqa: E402
