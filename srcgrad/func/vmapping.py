"""`vmap` of `srcgrad.func`, as `torch.func.vmap`: a function mapped over a dimension of
its Tensor inputs, by calling it once per index along that dimension and stacking the
results (`stack`, so the results keep their graph and nest with the other transforms:
`vmap(grad(f))` gives per-sample gradients).

Invariant: the result equals PyTorch's for functions whose slices are independent; a
function that reads a slice's value (`.item()`, Python branches on it) runs anyway,
where PyTorch's batched tensors refuse it. `randomness` 'error' refuses a random draw
inside the function, 'same' gives every index the same draws, 'different' its own.
`vmap(SomeFunction.apply)` of a custom Function with its own `vmap` staticmethod calls
that rule once (function_vmap.py).
"""

import functools

import numpy as np

from ..autograd.function_transforms import running
from ..tensor import generators
from ..tensor.grad_mode import no_grad
from ..tensor.joins import stack
from ..tensor.tensor import Tensor
from . import function_vmap
from .trees import flatten, leaves_under, unflatten

__all__ = ["vmap"]

E_RANDOM = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
            "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`func` mapped over dimension `in_dims` of its inputs (an int for every input, or
    a tuple with an int or None per argument, nested as the arguments are), the
    results stacked along `out_dims` (None: an output that does not vary, returned
    once). Keyword arguments are passed to every call unmapped."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                             "trying to vmap over a function with no inputs. The latter is unsupported.")
        leaves, dims, size = _mapped_inputs(args, in_dims, where)
        spec = flatten(args)[1]
        own_rule = function_vmap.own_rule(func, args, kwargs)
        if own_rule is not None and size:
            return function_vmap.call_rule(own_rule, args, dims, size, randomness, out_dims, name)
        if size == 0:
            return _empty_result(func, args, kwargs, leaves, dims, spec, out_dims, name)
        results = []
        with _randomness(randomness) as before_each, running("vmap"):
            for index in range(size):
                before_each()
                sliced = [v.select(d, index) if d is not None else v for v, d in zip(leaves, dims)]
                results.append(func(*unflatten(spec, sliced), **kwargs))
        return _stacked(results, out_dims, name)

    return wrapped


def _mapped_inputs(args, in_dims, where):
    """The input leaves, the dim each is mapped over (None: not mapped), and the size
    of the mapped dimension; PyTorch's errors for bad `in_dims` and sizes."""
    if not (isinstance(in_dims, int) or isinstance(in_dims, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    leaves, spec = flatten(args)

    def mismatch(dims_spec):
        return (f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                f"{dims_spec} but inputs has structure {spec}.")

    dims = leaves_under(in_dims, spec, mismatch)
    sizes = []
    for k, (v, d) in enumerate(zip(leaves, dims)):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{where}: in_dims must be int or None, got {type(d)}.")
        if not isinstance(v, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type {type(v)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective in_dim")
        n = v._data.ndim
        if not -n <= d < n:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a Tensor of "
                             f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}.")
        dims[k] = d % n
        sizes.append(v._data.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return leaves, dims, sizes[0]


class _randomness:
    """The draws of the calls of one vmap, from any Generator: refused ('error'), the same
    for every call ('same': each Generator a call draws from is put back before the next
    call to the state it had before the first draw) or left to run on ('different').
    `with _randomness(mode) as before_each`, `before_each()` before each call."""

    def __init__(self, mode):
        self.mode = mode
        self.states = {}
        self.watch = generators.watching(self._drawing)

    def _drawing(self, generator):
        if self.mode == "error":
            raise RuntimeError(E_RANDOM)
        if self.mode == "same" and id(generator) not in self.states:
            self.states[id(generator)] = (generator, generator.get_state())

    def __enter__(self):
        self.watch.__enter__()
        return self._rewind

    def _rewind(self):
        for generator, state in self.states.values():
            generator.set_state(state)

    def __exit__(self, *exc):
        return self.watch.__exit__(*exc)


def _stacked(results, out_dims, name):
    """The calls' results, each output stacked along its out_dim."""
    spec = flatten(results[0])[1]
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list))):
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                         "collection of ints representing where in the outputs the vmapped dimension should appear.")

    def mismatch(dims_spec):
        return (f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure "
                f"of `outputs`. out_dims has structure {dims_spec} but outputs has structure {spec}.")

    dims = leaves_under(out_dims, spec, mismatch)
    columns = [flatten(r)[0] for r in results]
    out = []
    for k, d in enumerate(dims):
        values = [column[k] for column in columns]
        if d is None:
            if any(not _same(values[0], v) for v in values[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            out.append(values[0])
            continue
        for v in values:
            if not isinstance(v, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(v)}. Did you "
                                 "mean to set out_dims= to None for output?")
        out.append(stack(values, dim=d))
    return unflatten(spec, out)


def _same(a, b):
    """Whether two results of the calls are one unmapped value."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return a is b or (a._data.shape == b._data.shape and np.array_equal(a._data, b._data, equal_nan=True))
    return a is b or a == b


def _empty_result(func, args, kwargs, leaves, dims, spec, out_dims, name):
    """vmap over a dimension of size 0: `func` called once, without grad, on zeros in
    the shape of one slice, for the shapes and dtypes of its outputs; each mapped
    output is then empty along its out_dim."""
    probes = [Tensor._make(np.zeros(np.delete(v._data.shape, d), v._data.dtype)) if d is not None else v
              for v, d in zip(leaves, dims)]
    with no_grad(), running("vmap"):
        probe = func(*unflatten(spec, probes), **kwargs)
    _stacked([probe], out_dims, name)  # its errors
    values, out_spec = flatten(probe)
    empty = []
    for value, d in zip(values, leaves_under(out_dims, out_spec, str)):
        if d is None:
            empty.append(value)
            continue
        shape = list(value._data.shape)
        shape.insert(d % (len(shape) + 1), 0)
        empty.append(Tensor._make(np.zeros(shape, value._data.dtype)))
    return unflatten(out_spec, empty)
