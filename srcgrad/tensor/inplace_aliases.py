"""PyTorch's in-place forms of existing Tensor ops that the shim lacked: the comparisons
(`eq_`, `lt_`, ... and their long names `greater_`, `not_equal_`, ...), `cumsum_`,
`cumprod_`, `tril_`, `triu_`, `lerp_`, `remainder_`, `atan2_`, `addmm_`, `floor_divide_`,
`pow_`, `heaviside_`, the binary bitwise ops (`bitwise_and_`, ..., `bitwise_left_shift_`)
and the long names of the arithmetic ones (`subtract_`, `multiply_`, `divide_`,
`true_divide_`); the augmented assignments of the operators among them (`//=`, `%=`,
`**=`, `&=`, `|=`, `^=`, `<<=`, `>>=`).

Invariants: each writes the out-of-place op's result into self through `_rewrite`
(inplace.py), so the graph errors (a leaf that requires grad), the cast check and the
version bump are the existing ones, and the node is the op's own. A comparison in place
stores 1 or 0 in self's dtype; recorded, self becomes the output of PyTorch's
`EqBackward1` (a tensor operand) or `EqBackward0` (a number): a zero gradient.
"""

from . import binary_ops, dtypes, ops
from .bitwise import bitwise_and, bitwise_left_shift, bitwise_or, bitwise_right_shift, bitwise_xor
from .graph import node_class
from .logical import eq, ge, gt, le, lt, ne
from .pointwise import _div_method, atan2, floor_divided, in_place_method, lerp, remainder, true_divide
from .pointwise_more import _require_tensors, stepped
from .products import addmm, tril, triu
from .reductions import cumprod, cumsum
from .rule_nodes import ConstantGradNode

__all__ = ["InPlaceAliases"]


def _comparison_in_place(name, compare, node):
    """The method `self.<name>(other)`: `compare(self, other)` written into self."""

    def method(self, other):
        def compute(source):
            self._check_operand(other)
            ans = compare(source, other)._data
            kind = f"{node}Backward1" if isinstance(other, ops.Tensor) else f"{node}Backward0"
            return ops.without_derivative(ans, (source, other), node_class(kind, ConstantGradNode))

        return self._rewrite(compute, other)

    method.__name__ = name
    method.__doc__ = f"`{compare.__name__}(self, other)` in place (1 or 0 in self's dtype); returns self."
    return method


def _refuse_dtype(self, dtype, name):
    """PyTorch's error for `cumsum_(dim, dtype=...)` with a dtype other than self's."""
    if dtype is not None and dtypes.as_dtype(dtype).numpy != self._data.dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {dtypes.c_name(self._data.dtype)} and output tensor dtype "
            f"{dtypes.c_name(dtypes.as_dtype(dtype).numpy)} should match"
        )


def _cumulative_in_place(name, function):
    def method(self, dim, *, dtype=None):
        _refuse_dtype(self, dtype, name)
        return self._rewrite(lambda t: function(t, dim))

    method.__name__ = name
    method.__doc__ = f"`{function.__name__}` along `dim` in place; returns self."
    return method


def _binary_in_place(name, function, cast_first=False):
    """The method `self.<name>(other, ...)`: `function(self, other, ...)` written into
    self, after PyTorch's checks of a write from `other` (expanded self, overlap, shape);
    `cast_first`: then the cast of the promoted dtype into self's, before `function`
    refuses a dtype (the bitwise ops: `int_tensor &= 2.5` is refused for the cast)."""

    def method(self, other, *args, **kwargs):
        def compute(source):
            self._check_operand(other)
            if cast_first:
                self._check_cast(binary_ops.operand(other), False)
            return function(source, other, *args, **kwargs)

        return self._rewrite(compute, other, *args)

    method.__name__ = name
    method.__doc__ = f"`{name[:-1]}` in place; returns self."
    return method


def _atan2_in_place(name):
    def atan2_of_tensor(input, other):
        if not isinstance(other, ops.Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        return atan2(input, other)

    return _binary_in_place(name, atan2_of_tensor)


def _subtract(input, other, *, alpha=1):
    return input.sub(other, alpha=alpha)


def _power(input, exponent):
    return input ** exponent


def _floor_divide_in_place(input, other):
    return floor_divided(input, other, "floor_divide_")


def _heaviside_in_place(input, values):
    _require_tensors("heaviside_", values=values)
    return stepped(input, values, "heaviside_")


def _augmented(name, method):
    """The operator `name` (`self op= other`) of the in-place method `method`: NotImplemented for
    an operand no binary op takes, so that Python raises its TypeError (`unsupported
    operand type(s) for //=`), as for PyTorch's tensors."""

    def operator_method(self, other):
        return method(self, other) if binary_ops.is_operand(other) else NotImplemented

    operator_method.__name__ = name
    operator_method.__doc__ = f"`self.{method.__name__}(other)`, the augmented assignment; returns self."
    return operator_method


class InPlaceAliases:
    """The Tensor methods of this module."""

    __slots__ = ()
    eq_ = _comparison_in_place("eq_", eq, "Eq")
    ne_ = not_equal_ = _comparison_in_place("ne_", ne, "Ne")
    lt_ = less_ = _comparison_in_place("lt_", lt, "Lt")
    le_ = less_equal_ = _comparison_in_place("le_", le, "Le")
    gt_ = greater_ = _comparison_in_place("gt_", gt, "Gt")
    ge_ = greater_equal_ = _comparison_in_place("ge_", ge, "Ge")
    cumsum_ = _cumulative_in_place("cumsum_", cumsum)
    cumprod_ = _cumulative_in_place("cumprod_", cumprod)
    tril_ = in_place_method("tril_", tril)
    triu_ = in_place_method("triu_", triu)
    lerp_ = _binary_in_place("lerp_", lerp)
    remainder_ = _binary_in_place("remainder_", remainder)
    atan2_, arctan2_ = _atan2_in_place("atan2_"), _atan2_in_place("arctan2_")
    addmm_ = in_place_method("addmm_", addmm)
    floor_divide_ = _binary_in_place("floor_divide_", _floor_divide_in_place)
    pow_ = _binary_in_place("pow_", _power)
    heaviside_ = _binary_in_place("heaviside_", _heaviside_in_place)
    bitwise_and_, bitwise_or_, bitwise_xor_ = (_binary_in_place(n + "_", f, cast_first=True) for n, f in (
        ("bitwise_and", bitwise_and), ("bitwise_or", bitwise_or), ("bitwise_xor", bitwise_xor)))
    bitwise_left_shift_, bitwise_right_shift_ = (_binary_in_place(n + "_", f, cast_first=True) for n, f in (
        ("bitwise_left_shift", bitwise_left_shift), ("bitwise_right_shift", bitwise_right_shift)))
    # Python's `t //= x` and kin: in place, as PyTorch's (without them Python rebinds t to `t // x`)
    __ifloordiv__ = _augmented("__ifloordiv__", floor_divide_)
    __imod__, __ipow__ = _augmented("__imod__", remainder_), _augmented("__ipow__", pow_)
    __iand__, __ior__ = _augmented("__iand__", bitwise_and_), _augmented("__ior__", bitwise_or_)
    __ixor__ = _augmented("__ixor__", bitwise_xor_)
    __ilshift__ = _augmented("__ilshift__", bitwise_left_shift_)
    __irshift__ = _augmented("__irshift__", bitwise_right_shift_)
    true_divide_ = _binary_in_place("true_divide_", true_divide)
    divide_ = _binary_in_place("divide_", _div_method)
    subtract_ = _binary_in_place("subtract_", _subtract)
    multiply_ = _binary_in_place("multiply_", lambda t, other: t * other)
