"""In-place operations of `Tensor` (`+=`, `*=`, `zero_()`, `fill_()`, `copy_()`, ...).

Invariants: with grad mode on, an in-place op on a leaf that requires grad raises;
on a tensor in a graph it is recorded (the tensor becomes the output of a new node
and keeps its storage, so aliases see the new values; a view's base becomes the output
of a CopySlices node, views.py); otherwise it writes into the array directly and
records nothing but a version: every untracked write adds 1 to the tensor's version
counter, if it has one (versions.py), so a node that saved the old values refuses to
run backward. Either way the views of the written elements get new nodes. The result
dtype must be castable to the tensor's own dtype, as in PyTorch.
"""

import operator

import numpy as np

from . import binary_ops, dtypes, errstate, fill_values, ops
from ..rules.scatter import index_put
from .grad_mode import _mode
from .meta_arrays import NO_DATA, MetaArray
from .overlap import refuse_partial_overlap
from .rule_nodes import RuleNode, keeps_result
from .dual_writes import rewritten
from .tangents import TANGENTS, any_dual
from .versions import bump, counter_of, rebased
from .views import rebase, refresh_after_write, retarget_result, view_of, write_through

__all__ = ["InPlaceOps", "E11"]

_UFUNCS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply, operator.truediv: np.true_divide}
_NUMBERS = (float, int)
_KEEP_NOTHING = (operator.add, operator.sub)

E11 = "a leaf Variable that requires grad is being used in an in-place operation."
E_KEPT = (
    "an in-place operation on the output of a node that reads it back in its backward (a "
    "compiled node) is not supported by the shim: backward would read the "
    "changed values; write it out of place (y = y + 1 instead of y += 1)"
)


def _method(primitive, name, floating=False):
    """The method `self op= other`: `_inplace`, with its commonest case inlined.

    That case is untracked, into a float tensor, from a Python number or a tensor of
    the same dtype and shape: no cast to check, and the ufunc writes straight into
    place.
    """
    ufunc = _UFUNCS[primitive]
    quiet, loud = errstate.quiet, errstate.loud

    def method(self, other):
        data = self._data
        if data.dtype.kind == "f" and not (self._requires_grad and _mode.enabled):
            kind = type(other)
            if kind is float or kind is int:
                value = other if dtypes.WEAK_NUMBERS else dtypes.as_weak_number(other, data)
            elif isinstance(other, InPlaceOps) and not (other._requires_grad and _mode.enabled):
                value = other._data
                if value.dtype is not data.dtype or value.shape != data.shape:
                    return self._inplace(primitive, other, name, floating)
                if value.base is not None or data.base is not None:
                    refuse_partial_overlap(data, value)
            else:
                return self._inplace(primitive, other, name, floating)
            token = quiet()
            try:
                ufunc(data, value, data)
            except ValueError:  # read-only (an expanded tensor): the general path says so
                return self._inplace(primitive, other, name, floating)
            finally:
                loud(token)
            counter = self._counter  # bump(self), inlined
            if counter is None:
                self._counter = [1]
            else:
                counter[0] += 1
                if len(counter) > 1 and counter[1]:  # views of the written elements
                    counter[1].refresh()
            return self
        return self._inplace(primitive, other, name, floating)

    method.__name__ = f"__i{primitive.__name__}__"
    return method


def _refuse_expanded(data):
    """PyTorch's error for arithmetic in place into an expanded tensor (a dim of stride 0:
    several elements over one memory location); a meta tensor's writes change nothing."""
    if not data.flags.writeable and data.size > 1 and 0 in data.strides and type(data) is not MetaArray:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation."
        )


class InPlaceOps:
    """The in-place methods; `Tensor` inherits them."""

    __slots__ = ()

    def _inplace(self, primitive, other, name, floating=False, saves=None):
        """`self op= other` in place. Tracked when grad mode is on and either side
        requires grad; then self becomes the output of a node named `name`."""
        other = binary_ops.operand(other)
        if other is NotImplemented:
            return NotImplemented
        if _mode.enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError(E11)  # before the operands are checked, as PyTorch
        if primitive is operator.sub:
            ops.refuse_bool_subtraction(self._data, binary_ops.value_of(other))
        if _mode.enabled and (self._requires_grad or (isinstance(other, ops.Tensor) and other._requires_grad)):

            def compute(source):
                self._check_operand(other)
                self._check_cast(other, floating)
                # add and sub keep no tensor (a second backward runs), as out of place
                keeps = primitive not in _KEEP_NOTHING if saves is None else saves
                return binary_ops.binary(primitive, source, other, name, keeps, floating)

            return self._become(compute)
        self._check_operand(other)
        self._check_cast(other, floating)
        mine = self._data  # a number as PyTorch's wrapped number: an int wraps into an integer dtype
        data = other._data if isinstance(other, ops.Tensor) else dtypes.as_weak_number(
            dtypes.integer_operand(other, mine.dtype), mine)
        token = errstate.quiet()
        try:
            self._store(primitive(mine, data))
        finally:
            errstate.loud(token)
        bump(self)
        return self

    def _check_operand(self, other):
        """PyTorch's errors for an in-place write into self from the tensor `other`, in its
        order, before anything is written: self expanded (several elements over one memory
        location), `other` partly overlapping self (overlap.py), shapes that do not
        broadcast, a broadcast shape other than self's. A recorded write checks them after
        the graph's errors (E11, a view of a leaf): in the function computing its node."""
        if not isinstance(other, InPlaceOps):
            return  # a number (`_store` refuses an expanded self), or not an operand: the op's own error
        data = self._data
        _refuse_expanded(data)
        value = other._data
        refuse_partial_overlap(data, value)
        if value.shape != data.shape:
            ops.check_broadcast(data, value)
            shape = np.broadcast_shapes(data.shape, value.shape)
            if shape != data.shape:
                raise RuntimeError(
                    f"output with shape {list(data.shape)} doesn't match the broadcast shape {list(shape)}"
                )

    def _store(self, values):
        """Write `values` into self's elements; an expanded tensor refuses
        (`_refuse_expanded`) before anything is written."""
        data = self._data
        _refuse_expanded(data)
        data[...] = values

    def _refuse_if_kept(self):
        """Raise before a recorded in-place write that would change the output of a node
        that reads it back without a version record of it (a compiled node): it would
        give a wrong gradient. A write into values a rule node saved
        goes ahead, as in PyTorch: the version it bumps makes that node's backward
        raise."""
        fn = self._grad_fn
        if fn is not None and not isinstance(fn, RuleNode) and keeps_result(fn):
            raise RuntimeError(E_KEPT)

    def _check_cast(self, other, floating):
        result = dtypes.result_type(self._data, other._data if isinstance(other, ops.Tensor) else other)
        if floating and result.kind not in "fc":
            result = dtypes.DEFAULT_FLOAT.numpy
        self._check_result(result)

    def _check_result(self, result):
        """PyTorch's error when an in-place op's result dtype cannot be stored in self."""
        mine = self._data.dtype
        if (result.kind in "fc" and mine.kind not in "fc") or (result.kind == "c" and mine.kind != "c") or (
            mine.kind == "b" and result.kind != "b"
        ):
            raise RuntimeError(
                f"result type {dtypes.of(result).kind_name} can't be cast to the desired output "
                f"type {self.dtype.kind_name}"
            )

    __iadd__ = _method(operator.add, "AddBackward0")
    __isub__ = _method(operator.sub, "SubBackward0")
    __imul__ = _method(operator.mul, "MulBackward0")
    __itruediv__ = _method(operator.truediv, "DivBackward0", floating=True)

    def add_(self, other, alpha=1):
        return self._inplace_scaled(operator.add, other, alpha, "AddBackward0")

    def sub_(self, other, alpha=1):
        return self._inplace_scaled(operator.sub, other, alpha, "SubBackward0")

    def _inplace_scaled(self, primitive, other, alpha, name):
        """`self op= alpha * other`; recorded as one node (arithmetic.scaled_sum)."""
        if alpha == 1:
            return self._inplace(primitive, other, name)
        if _mode.enabled and isinstance(other, ops.Tensor) and (self._requires_grad or other._requires_grad):
            from .arithmetic import scaled_sum

            def compute(source):
                self._check_operand(other)
                self._check_cast(other, False)
                return scaled_sum(source, other, alpha, primitive)

            return self._become(compute)
        self._check_operand(other)
        return self._inplace(primitive, other * alpha, name)

    mul_, div_ = __imul__, __itruediv__

    def neg_(self):
        """`self = -self` in place (NegBackward0)."""
        return self._rewrite(lambda source: -source)

    def masked_fill_(self, mask, value):
        """`value` written where the bool `mask`, which broadcasts to self's shape, is True
        (MaskedFillBackward0, as `masked_fill`: the filled entries get no gradient)."""
        from .selections import masked_fill  # noqa: PLC0415 - selections imports the Tensor ops

        m = mask._data if isinstance(mask, ops.Tensor) else np.asarray(mask)
        shape = self._data.shape
        if m.dtype == np.bool_ and m.shape != shape:
            for i in range(1, min(m.ndim, len(shape)) + 1):
                if m.shape[-i] not in (1, shape[-i]):
                    raise RuntimeError(
                        f"The size of tensor a ({shape[-i]}) must match the size of tensor b ({m.shape[-i]}) at "
                        f"non-singleton dimension {len(shape) - i}")
            if m.ndim > len(shape):
                wide = np.broadcast_shapes(m.shape, shape)
                raise RuntimeError(f"output with shape [{', '.join(map(str, shape))}] doesn't match the broadcast "
                                   f"shape [{', '.join(map(str, wide))}]")
        return self._rewrite(lambda source: masked_fill(source, m, value, "masked_fill_"), value)  # a value tensor may require grad

    def _rewrite(self, compute, *others):
        """Write `compute(self)`, an out-of-place op, into self (`clamp_`). Tracked as
        `_inplace` is when grad mode is on and self or a Tensor among `others` (the op's
        other operands) requires grad: self becomes the output of the op's node. Where
        self or an operand is dual, self gets the tangent of `compute(self)`."""
        if TANGENTS and (any_dual((self,)) or any_dual(others)):
            return rewritten(self, compute, lambda: self._rewrite_values(compute, others))
        return self._rewrite_values(compute, others)

    def _rewrite_values(self, compute, others):
        def checked(source):
            out = compute(source)
            self._check_result(out._data.dtype)
            return out

        tracked = self._requires_grad or any(isinstance(o, ops.Tensor) and o._requires_grad for o in others)
        if _mode.enabled and tracked:
            return self._become(checked)
        self._store(checked(self)._data)
        bump(self)
        return self

    def _become(self, compute):
        """A recorded in-place op: self (E11 if a leaf that requires grad; refused while
        a compiled node keeps its values) becomes the output of `compute(source)`, the
        node's input `source` holding self's old values and grad_fn. A view's base
        becomes the output of a CopySlices node instead (views.write_through)."""
        if self._requires_grad and self._grad_fn is None:
            raise RuntimeError(E11)
        if view_of(self) is not None:
            return write_through(self, compute, type(self))
        self._refuse_if_kept()
        source = type(self)._make(self._data.copy(), self._requires_grad)
        source._grad_fn = self._grad_fn
        out = compute(source)
        self._store(out._data)
        counter = counter_of(self)
        counter[0] += 1  # counted from here on, as PyTorch counts every write
        retarget_result(out._grad_fn, out, counter)
        rebase(self, out._grad_fn)
        rebased(self, out._grad_fn)
        self._requires_grad = True
        refresh_after_write(counter)
        return self

    def zero_(self):
        """Zeros in place (ZeroBackward0 when recorded: the old values get zero gradient)."""
        if self._requires_grad and _mode.enabled:
            return self._become(lambda source: ops.piecewise_constant(np.zeros_like, source, "ZeroBackward0"))
        try:
            self._data.fill(0)
        except ValueError:  # read-only: an expanded tensor's error, or NumPy's
            self._store(0)
        bump(self)
        return self

    def fill_(self, value):
        """Every element set to `value`, a number (FillBackward2 when recorded) or a
        one-element tensor (FillBackward3: it gets the sum of the gradient)."""
        if isinstance(value, ops.Tensor):
            if value._data.ndim:
                raise RuntimeError(
                    "fill_ only supports 0-dimension value tensor but got tensor with "
                    f"{value._data.ndim} dimensions."
                )
            return self._overwrite(value, "FillBackward3")
        number = fill_values.read_number(value, ops.Tensor)
        if number is None:
            fill_values.refuse_fill_value(value, "fill_", ())
        value = fill_values.checked_number(number, self._data.dtype)
        if _mode.enabled and self._requires_grad:
            def filled(source):
                out = ops.piecewise_constant(np.zeros_like, source, "FillBackward2")
                out._data[...] = value
                return out

            return self._become(filled)
        self._store(value)
        bump(self)
        return self

    def copy_(self, src):
        """`src`'s values (broadcast to self's shape, cast to its dtype) written into self
        (CopyBackwards when recorded: self's old values get zero gradient, src the
        gradient summed to its shape). Refused where `src` partly overlaps self, or is a meta
        tensor (no values) and self is not."""
        if isinstance(src, ops.Tensor) and type(src._data) is MetaArray and type(self._data) is not MetaArray:
            raise NotImplementedError(NO_DATA)
        return self._overwrite(src, "CopyBackwards", self._check_operand)

    def _overwrite(self, src, name, check=None):
        """Write the tensor or number `src` into every element of self; recorded (the
        node `name`, index_put's rule over the whole tensor: it saves no tensor, as
        PyTorch's CopyBackwards and FillBackward3 save none) when grad mode is on and
        either requires grad. `check(src)`, when given, raises the write's own errors (after
        the graph's)."""
        tracked = self._requires_grad or (isinstance(src, ops.Tensor) and src._requires_grad)
        # PyTorch records fill_ with a tensor that requires grad into any dtype (an int
        # tensor then requires grad), a copy into a float tensor only
        if _mode.enabled and tracked and (self._data.dtype.kind in "fc" or name == "FillBackward3"):
            def compute(source):
                if check is not None:
                    check(src)
                return ops.apply(index_put, source, Ellipsis, src, name=name, saves=False,
                                 out_dtype=source._data.dtype, edge_args=(0, 2))

            return self._become(compute)
        if _mode.enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError(E11)
        if check is not None:
            check(src)
        self._store(src._data if isinstance(src, ops.Tensor) else src)
        bump(self)
        return self
