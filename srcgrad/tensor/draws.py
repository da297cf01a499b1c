"""Random draws with PyTorch's signatures: `randperm`, `normal`, `bernoulli`,
`multinomial`, `poisson`, and the in-place `bernoulli_`, `exponential_`, `random_`.

Draws come from srcgrad's own generator (creation.py; `manual_seed` seeds it), so they are
reproducible but are not PyTorch's numbers. Shapes, dtypes and errors are PyTorch's. A
draw whose parameters require grad is recorded as PyTorch records it: a node with zero
gradients (NormalBackward1/2/3, BernoulliBackward0, PoissonBackward0); multinomial's
integer result requires none.
"""

import builtins

import numpy as np

from . import devices, dtypes, ops
from .tangents import TANGENTS, push_zero
from .grad_mode import _mode
from .graph import node_class
from .rule_nodes import ConstantGradNode, NoDerivativeNode
from .versions import bump

__all__ = ["randperm", "normal", "bernoulli", "multinomial", "poisson", "DrawMethods"]


def _creation():
    """creation.py, imported when first needed: it imports tensor.py, whose class takes
    DrawMethods from here."""
    from . import creation

    return creation


def _rng():
    return _creation()._rng()


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
    devices.allocated_on(device, "randperm")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return _leaf(_rng().permutation(int(n)).astype(_creation()._dtype(dtype, dtypes.int64)), requires_grad)


def _floating(t, op):
    if t._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"{op}" not implemented for \'{dtypes.of(t._data.dtype).kind_name}\'')


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None, requires_grad=False):
    """Normal draws of mean `mean` and standard deviation `std`: either may be a Tensor (the
    result has their broadcast shape and the dtype of `mean`, else of `std`), or both
    numbers with `size`."""
    devices.allocated_on(device, "normal")
    if not _is_tensor(mean) and not _is_tensor(std):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), but "
                            "expected a Tensor mean or std, or a size")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_number(std)}")
        creation = _creation()
        shape = creation.size_argument((size,), "normal")
        return _leaf(_rng().normal(mean, std, shape).astype(creation._dtype(dtype)), requires_grad)
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
    data = (loc + scale * _rng().standard_normal(shape)).astype(dt)
    name = "NormalBackward3" if len(tensors) == 2 else ("NormalBackward1" if _is_tensor(mean) else "NormalBackward2")
    return _recorded(data, tensors, name)


def _probabilities(p, op):
    if not (0 <= p <= 1):
        raise RuntimeError(f"{op} expects p to be in [0, 1], but got p={_number(p)}")


def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability `input` (or the number `p`) for each element, else 0, in
    input's dtype."""
    _floating(input, "bernoulli_tensor_cpu_p_" if p is None else "bernoulli_scalar_cpu_")
    if p is None:
        probs = input._data
        if np.any((probs < 0) | (probs > 1)) or np.any(np.isnan(probs)):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
    else:
        _probabilities(p, "bernoulli_")
        probs = p
    data = (_rng().random(input._data.shape) < probs).astype(input._data.dtype)
    if p is None:
        return _recorded(data, [input], "BernoulliBackward0")
    return ops.without_derivative(data, (input,), node_class("NotImplemented", NoDerivativeNode), "bernoulli")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """`num_samples` indices drawn from the categories of each row of `input` (weights,
    not necessarily summing to 1), without replacement unless `replacement`: int64."""
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
        data = np.array([_rng().choice(w.size, size=num_samples, p=w / total) for w, total in zip(weights, totals)])
    else:  # the largest keys w / Exp(1) (categories of weight 0 come last, as in PyTorch)
        keys = weights / _rng().exponential(size=weights.shape)
        data = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    data = data.astype(np.int64)
    return _leaf(data if input.dim() == 2 else data[0], False)


def poisson(input, generator=None):
    """Poisson draws of rate `input` for each element, in input's dtype."""
    _floating(input, "poisson_cpu")
    if np.any(input._data < 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _recorded(_rng().poisson(input._data).astype(input._data.dtype), [input], "PoissonBackward0")


class DrawMethods:
    """The Tensor methods that draw: `bernoulli`, `multinomial` and the in-place
    `bernoulli_`, `exponential_`, `random_` (each of those fills the tensor, refused as
    `normal_` is where the tensor is part of a graph)."""

    __slots__ = ()

    def bernoulli(self, p=None, *, generator=None):
        return bernoulli(self, p)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return multinomial(self, num_samples, replacement)

    def _fill_drawn(self, values):
        self._refuse_if_recorded()
        self._store(values)
        bump(self)
        return self

    def bernoulli_(self, p=0.5, *, generator=None):
        if _is_tensor(p):
            probs = np.broadcast_to(p._data, self._data.shape)
        else:
            _probabilities(p, "bernoulli_")
            probs = p
        return self._fill_drawn(_rng().random(self._data.shape) < probs)

    def exponential_(self, lambd=1.0, *, generator=None):
        if self._data.dtype.kind not in "fc":
            raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                               f"floating point but you specified {dtypes.of(self._data.dtype).kind_name}")
        if lambd <= 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_number(lambd)}")
        return self._fill_drawn(_rng().exponential(1.0 / lambd, self._data.shape))

    def random_(self, from_=0, to=None, *, generator=None):
        """Integers in [from_, to) (`random_(to)`: [0, to)), stored in the tensor's dtype."""
        if to is None:
            from_, to = 0, from_
            if to == 0:
                to = 2 ** (24 if self._data.dtype == np.float32 else 53 if self._data.dtype.kind == "f" else 63)
        if from_ >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
        return self._fill_drawn(_rng().integers(builtins.int(from_), builtins.int(to), self._data.shape))
