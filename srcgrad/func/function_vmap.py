"""`func.vmap(SomeFunction.apply)` of a custom Function that has its own `vmap`
staticmethod: the rule is called once, as PyTorch calls it, with
`(info, in_dims, *args)` (`info.batch_size`, `info.randomness`; one in_dim per
argument, None where it is not mapped) on the whole batched arguments, and returns
`(output, out_dims)`; each output is then moved so that its mapped dimension is where
vmap's `out_dims` asks.

Invariant: used only where the mapped function is the Function's `apply` itself, with
Tensor or plain arguments (no nested containers) and no keyword arguments; anywhere
else the Function runs once per index, which gives the same values for a rule that is
right (function_transforms.py checks that a rule exists).
"""

from collections import namedtuple

from ..autograd import Function
from ..autograd.function_transforms import check, has_own_vmap, running
from ..tensor.tensor import Tensor
from .trees import flatten, leaves_under, unflatten

__all__ = ["VmapInfo", "own_rule", "call_rule"]

VmapInfo = namedtuple("VmapInfo", ["batch_size", "randomness"])
VmapInfo.__doc__ = "What a Function's vmap staticmethod gets first: the batch size and vmap's randomness."

_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def own_rule(func, args, kwargs):
    """The Function class whose own vmap rule maps `func(*args, **kwargs)`, or None."""
    cls = getattr(func, "__self__", None)
    if not (isinstance(cls, type) and issubclass(cls, Function) and getattr(func, "__name__", "") == "apply"):
        return None
    if kwargs or not has_own_vmap(cls) or any(isinstance(a, (list, tuple, dict)) for a in args):
        return None
    with running("vmap"):
        check(cls)  # PyTorch's errors: no setup_context; both a rule and generate_vmap_rule
    return cls


def call_rule(cls, args, dims, size, randomness, out_dims, name):
    """`cls.vmap`'s result for `args` mapped over `dims` (one per argument), its outputs
    moved to `out_dims`; PyTorch's errors where the rule returns no `(output, out_dims)`."""
    found = cls.vmap(VmapInfo(size, randomness), tuple(dims), *args)
    if not (isinstance(found, tuple) and len(found) == 2):
        raise RuntimeError("Expected the vmap staticmethod to have two returns, an output and out_dims with pytree "
                           f"structure compatible with the output. Got a {type(found)} instead")
    output, rule_dims = found
    values, spec = flatten(output)

    def incompatible(dims_spec):
        return (f"The autograd.Function's vmap staticmethod returned an incompatible (output, out_dims) tuple. "
                f"Expected out_dims={rule_dims} to be compatible with the structure of `output`. out_dims has "
                f"structure {dims_spec} but output has structure {spec}. {_DOCS}")

    def mismatch(dims_spec):
        return (f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure "
                f"of `outputs`. out_dims has structure {dims_spec} but outputs has structure {spec}.")

    try:
        rule_leaves = leaves_under(rule_dims, spec, incompatible)
    except ValueError as error:  # PyTorch raises this one as a RuntimeError
        raise RuntimeError(str(error)) from None
    moved = []
    for value, have, want in zip(values, rule_leaves, leaves_under(out_dims, spec, mismatch)):
        if not isinstance(value, Tensor) or (have is None and want is None):
            moved.append(value)
        elif have is None:  # not mapped: the same for every index
            moved.append(value.unsqueeze(want).expand(*value.shape[:want], size, *value.shape[want:]))
        elif want is None:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        else:
            moved.append(value.movedim(have, want))
    return unflatten(spec, moved)
