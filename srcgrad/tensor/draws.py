"""Random draws with PyTorch's signatures: `randperm`, `normal`, `bernoulli`,
`multinomial`, `poisson`, and the in-place `uniform_`, `normal_`, `bernoulli_`,
`exponential_`, `random_`, `cauchy_`, `log_normal_`, `geometric_`.

Each takes its numbers from its `generator=` or else the default generator
(generators.py; `manual_seed` seeds it), so they are reproducible but are not PyTorch's
numbers. Shapes, dtypes and errors are PyTorch's (checked in its order: the arguments'
types, then the parameters, then the dtype). A
draw whose parameters require grad is recorded as PyTorch records it: a node with zero
gradients (NormalBackward1/2/3, BernoulliBackward0, PoissonBackward0); multinomial's
integer result requires none.
"""

import builtins
import warnings

import numpy as np

from . import devices, dtypes, meta, ops
from .generators import stream
from .tangents import TANGENTS, push_zero
from .grad_mode import _mode
from .graph import node_class
from .rule_nodes import ConstantGradNode, NoDerivativeNode
from .shaping import _expanded_shape
from .versions import bump

__all__ = ["randperm", "normal", "bernoulli", "multinomial", "poisson", "DrawMethods"]

# the C++ type names PyTorch's cauchy_ and random_ bounds messages give
_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
              "float16": "c10::Half", "float32": "float", "float64": "double"}
_HALF = 0.5  # bernoulli_'s default p (told apart from a p given, for PyTorch's argument errors)


def _creation():
    """creation.py, imported when first needed: it imports tensor.py, whose class takes
    DrawMethods from here."""
    from . import creation

    return creation


def _leaf(data, requires_grad):
    return _creation()._leaf(data, requires_grad)


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


def _number(v):
    """A number as PyTorch's messages print it (`-1`, `0.5`, `1e-05`)."""
    return f"{float(v):g}"


def _recorded(data, inputs, name):
    """A Tensor over `data`, recorded as node `name` with zero gradients where one of the
    Tensor `inputs` requires grad (grad mode on)."""
    out = _leaf(data, False)
    if TANGENTS:  # forward AD: a zero tangent, as the zero gradients
        push_zero(out, [t for t in inputs if _is_tensor(t)])
    needing = [t for t in inputs if _is_tensor(t) and t._requires_grad]
    if not (needing and _mode.enabled):
        return out
    tensors = [t for t in inputs if _is_tensor(t)]
    edges = tuple(((t._grad_fn or t._accumulate_grad()), 0) if t._requires_grad else (None, 0) for t in tensors)
    out._grad_fn = node_class(name, ConstantGradNode)(edges, [t._data.shape for t in tensors],
                                                      [t._data.dtype for t in tensors])
    out._requires_grad = True
    return out


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, **unused):
    """A random permutation of 0 .. n-1 (int64 unless `dtype` says otherwise)."""
    rng = stream(generator, "randperm", (n,))
    if devices.allocated_on(device, "randperm"):
        return meta.placed(randperm(n, generator=generator, dtype=dtype, device="cpu", requires_grad=requires_grad))
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return _leaf(rng.permutation(int(n)).astype(_creation()._dtype(dtype, dtypes.int64)), requires_grad)


def _floating(t, op):
    if t._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"{op}" not implemented for \'{dtypes.of(t._data.dtype).kind_name}\'')


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None, requires_grad=False):
    """Normal draws of mean `mean` and standard deviation `std`: either may be a Tensor (the
    result has their broadcast shape and the dtype of `mean`, else of `std`), or both
    numbers with `size`."""
    rng = stream(generator, "normal", (mean, std) + (() if size is None else (size,)))
    if devices.allocated_on(device, "normal"):
        return meta.placed(normal(mean, std, size, generator=generator, out=out, dtype=dtype, device="cpu",
                                  requires_grad=requires_grad))
    if not _is_tensor(mean) and not _is_tensor(std):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), but "
                            "expected a Tensor mean or std, or a size")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_number(std)}")
        creation = _creation()
        shape = creation.size_argument((size,), "normal")
        return _leaf(rng.normal(mean, std, shape).astype(creation._dtype(dtype)), requires_grad)
    tensors = [t for t in (mean, std) if _is_tensor(t)]
    for t in tensors:
        _floating(t, "normal_kernel_cpu")
    if _is_tensor(std):
        if np.any(std._data < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_number(std)}")
    loc = mean._data if _is_tensor(mean) else mean
    scale = std._data if _is_tensor(std) else std
    ops.check_broadcast(loc, scale)
    shape = np.broadcast_shapes(np.shape(loc), np.shape(scale))
    dt = tensors[0]._data.dtype
    data = (loc + scale * rng.standard_normal(shape)).astype(dt)
    name = "NormalBackward3" if len(tensors) == 2 else ("NormalBackward1" if _is_tensor(mean) else "NormalBackward2")
    return _recorded(data, tensors, name)


def _probabilities(p, op):
    if not (0 <= p <= 1):
        raise RuntimeError(f"{op} expects p to be in [0, 1], but got p={_number(p)}")


def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability `input` (or the number `p`) for each element, else 0, in
    input's dtype."""
    rng = stream(generator, "bernoulli", (input,) + (() if p is None else (p,)))
    _floating(input, "bernoulli_tensor_cpu_p_" if p is None else "bernoulli_scalar_cpu_")
    if p is None:
        probs = input._data
        if np.any((probs < 0) | (probs > 1)) or np.any(np.isnan(probs)):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
    else:
        _probabilities(p, "bernoulli_")
        probs = p
    data = (rng.random(input._data.shape) < probs).astype(input._data.dtype)
    if p is None:
        return _recorded(data, [input], "BernoulliBackward0")
    return ops.without_derivative(data, (input,), node_class("NotImplemented", NoDerivativeNode), "bernoulli")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """`num_samples` indices drawn from the categories of each row of `input` (weights,
    not necessarily summing to 1), without replacement unless `replacement`: int64."""
    rng = stream(generator, "multinomial")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{dtypes.of(input._data.dtype).kind_name}")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    weights = np.atleast_2d(input._data).astype(np.float64)
    if not replacement and num_samples > weights.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = weights.sum(axis=-1)
    if np.any(totals <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if replacement:
        data = np.array([rng.choice(w.size, size=num_samples, p=w / total) for w, total in zip(weights, totals)])
    else:  # the largest keys w / Exp(1) (categories of weight 0 come last, as in PyTorch)
        keys = weights / rng.exponential(size=weights.shape)
        data = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    data = data.astype(np.int64)
    return _leaf(data if input.dim() == 2 else data[0], False)


def poisson(input, generator=None):
    """Poisson draws of rate `input` for each element, in input's dtype."""
    rng = stream(generator, "poisson")
    _floating(input, "poisson_cpu")
    if np.any(input._data < 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _recorded(rng.poisson(input._data).astype(input._data.dtype), [input], "PoissonBackward0")


def _cpp_name(dt):
    return _CPP_NAMES.get(dt.name, dtypes.of(dt).kind_name)


def _positive(value, op, name):
    if value <= 0:
        raise RuntimeError(f"{op} expects {name} > 0.0, but found {name}={_number(value)}")


def _integers_below(dt):
    """The exclusive upper end of `random_()`'s range for dtype `dt`: every integer the
    dtype holds exactly from 0 (floats: up to 2**mantissa inclusive)."""
    if dt == np.bool_:
        return 2
    if dt.kind == "f":
        return 2 ** (np.finfo(dt).nmant + 1) + 1
    return builtins.int(np.iinfo(dt).max) + 1


def _representable(dt):
    """The lowest and highest value of dtype `dt` (exact Python numbers)."""
    if dt == np.bool_:
        return 0, 1
    if dt.kind == "f":
        return builtins.float(np.finfo(dt).min), builtins.float(np.finfo(dt).max)
    return builtins.int(np.iinfo(dt).min), builtins.int(np.iinfo(dt).max)


def _check_random_bounds(dt, from_, to):
    if dt.kind == "c":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    low, high = _representable(dt)
    for name, bound in (("from", from_), ("to - 1", to - 1)):
        if not low <= bound <= high:
            raise RuntimeError(f"{name} is out of bounds for {_cpp_name(dt)}")
    if dt.kind == "f":  # beyond 2**digits a float no longer holds every integer
        digits = np.finfo(dt).nmant + 1
        for name, bound in (("from", from_), ("to - 1", to - 1)):
            if abs(bound) > 2**digits:
                warnings.warn(f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{_cpp_name(dt)} can support discrete uniform distribution only within this range. This "
                              "warning will become an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=4)


class DrawMethods:
    """The Tensor methods that draw: `bernoulli`, `multinomial` and the in-place draws
    (each of those fills the tensor; in a graph, as a node that gives the old values zero
    gradient), all with `generator=`."""

    __slots__ = ()

    def bernoulli(self, p=None, *, generator=None):
        stream(generator, "Tensor.bernoulli", () if p is None else (p,))
        return bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return multinomial(self, num_samples, replacement, generator=generator)

    def _fill_drawn(self, values, name, probabilities=None):
        """The tensor filled with `values`; where it requires grad (grad mode on), recorded
        as PyTorch records the draw: node `name`, which gives its old values (and a
        Tensor `probabilities`) zero gradient."""
        if self._requires_grad and _mode.enabled:
            values = np.asarray(values).astype(self._data.dtype)
            inputs = [] if probabilities is None else [probabilities]
            return self._become(lambda source: _recorded(values, [source, *inputs], name))
        self._store(values)
        bump(self)
        return self

    def _continuous(self, kernel):
        if self._data.dtype.kind not in "fc":
            raise NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.of(self._data.dtype).kind_name}\'')

    def _real_floating(self, kernel):
        if self._data.dtype.kind != "f":
            raise NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.of(self._data.dtype).kind_name}\'')

    def _continuous_distribution(self, distribution, type_name):
        if self._data.dtype.kind != "f":
            raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. dtype must be a "
                               f"floating point but you specified {type_name}")

    def _shape_of_parts(self):
        """The shape to draw: complex tensors take their real and imaginary parts apart."""
        return self._data.shape + ((2,) if self._data.dtype.kind == "c" else ())

    def _fill_parts(self, values, name):
        if self._data.dtype.kind == "c":
            values = values[..., 0] + 1j * values[..., 1]
        return self._fill_drawn(values, name)

    def uniform_(self, from_=0.0, to=1.0, *, generator=None):
        """Uniform draws from [from_, to) (a complex tensor: its real and imaginary parts each)."""
        rng = stream(generator, "uniform_")
        self._continuous("check_uniform_bounds")
        if from_ > to:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_number(from_)} > "
                               f"to={_number(to)}")
        return self._fill_parts(rng.uniform(from_, to, self._shape_of_parts()), "UniformBackward0")

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Normal draws (a complex tensor: real and imaginary parts each of std / sqrt(2), as PyTorch)."""
        rng = stream(generator, "normal_")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_number(std)}")
        self._continuous("normal_kernel_cpu")
        if self._data.dtype.kind == "c":
            std = std / np.sqrt(2.0)
        return self._fill_parts(rng.normal(mean, std, self._shape_of_parts()), "NormalBackward0")

    def bernoulli_(self, p=_HALF, *, generator=None):
        rng = stream(generator, "bernoulli_", () if p is _HALF else (p,))
        if _is_tensor(p):
            if self._data.dtype.kind == "c":
                raise NotImplementedError(f'"bernoulli_tensor_cpu_self_" not implemented for '
                                          f"'{dtypes.of(self._data.dtype).kind_name}'")
            probs = np.broadcast_to(p._data, _expanded_shape(p, self._data.shape))
        else:
            _probabilities(p, "bernoulli_")
            if self._data.dtype.kind == "c":
                raise NotImplementedError(f'"bernoulli_scalar_cpu_" not implemented for '
                                          f"'{dtypes.of(self._data.dtype).kind_name}'")
            probs = p
        if _is_tensor(p):
            return self._fill_drawn(rng.random(self._data.shape) < probs, "BernoulliBackward1", p)
        return self._fill_drawn(rng.random(self._data.shape) < probs, "BernoulliBackward2")

    def exponential_(self, lambd=1.0, *, generator=None):
        rng = stream(generator, "exponential_")
        _positive(lambd, "exponential_", "lambda")
        self._continuous_distribution("Exponential", dtypes.of(self._data.dtype).kind_name)
        return self._fill_drawn(rng.exponential(1.0 / lambd, self._data.shape), "ExponentialBackward0")

    def random_(self, from_=None, to=None, *, generator=None):
        """Integers in [from_, to) (`random_(to)`: [0, to); `random_()`: every integer from 0
        the dtype holds exactly), stored in the tensor's dtype."""
        given = [v for v in (from_, to) if v is not None]
        rng = stream(generator, "random_", given)
        dt = self._data.dtype
        if not given:
            if dt.kind == "c":
                raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{dtypes.of(dt).kind_name}'")
            from_, to = 0, _integers_below(dt)
        else:
            if to is None:
                from_, to = 0, from_
            _check_random_bounds(dt, from_, to)
        return self._fill_drawn(rng.integers(builtins.int(from_), builtins.int(to), self._data.shape),
                                f"RandomBackward{2 - len(given)}")

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Cauchy draws: median + sigma * tan(pi * (U - 1/2))."""
        rng = stream(generator, "cauchy_")
        _positive(sigma, "cauchy_", "sigma")
        self._continuous_distribution("Cauchy", _cpp_name(self._data.dtype))
        return self._fill_drawn(median + sigma * rng.standard_cauchy(self._data.shape), "CauchyBackward0")

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """exp of Normal(mean, std) draws."""
        rng = stream(generator, "log_normal_")
        _positive(std, "log_normal_", "std")
        self._real_floating("log_normal_cpu")
        return self._fill_drawn(rng.lognormal(mean, std, self._data.shape), "LogNormalBackward0")

    def geometric_(self, p=None, *, generator=None):
        """The number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
        if p is None:
            raise TypeError('geometric_() missing 1 required positional arguments: "p"')
        rng = stream(generator, "geometric_")
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_number(p)}")
        if self._data.dtype.kind not in "fiu":
            raise NotImplementedError(f"\"geometric_cpu\" not implemented for '{dtypes.of(self._data.dtype).kind_name}'")
        return self._fill_drawn(rng.geometric(p, self._data.shape), "GeometricBackward0")
