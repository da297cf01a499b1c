"""Binary ops of Tensors and numbers: operands as PyTorch reads them, its type promotion.

`operand(x)` turns what a binary op may meet into a Tensor or a Python number (a NumPy
scalar becomes the number PyTorch reads it as; arrays and lists constant tensors).
`binary(primitive, a, b, name)` computes in the dtype PyTorch promotes the operands to,
and records the op as one node through the doorway (ops.py); `binary_same` is its
common case (a float tensor with a Python number or a tensor of its own dtype) with less
overhead; `compare` gives an untracked bool tensor.

Invariants: a Python number never widens a tensor's dtype kind, and an int meets an
integer tensor as PyTorch's wrapped number (an out-of-range exponent is refused); a
tracked result has the node `name` with one edge per operand (a number's is empty).

`Tensor` is bound by `tensor.py` when it is imported (the class needs this module).
"""

import numbers
import operator

import numpy as np

from . import dtypes
from .complex_refusals import refuse_complex
from .errstate import loud, quiet
from .grad_mode import _mode
from .meta_arrays import MetaArray, as_meta, check_devices
from .operand_checks import _raise_broadcast_error, refuse_bool_subtraction
from .ops import NO_EDGE, NO_KWARGS, apply, leaf, node_output
from .rule_nodes import KINDS, kind_of
from .saved_hooks import HOOKS, pack_saved
from .tangents import TANGENTS, pushed

Tensor = None  # bound by srcgrad.tensor.tensor

_ndarray = np.ndarray


_CONSTANTS = (np.ndarray, list, tuple)  # what `operand` makes a constant tensor of


def is_operand(x):
    """Whether a binary op takes `x` (`operand(x)` is no NotImplemented), without
    converting it."""
    return isinstance(x, (Tensor, np.generic, numbers.Number, *_CONSTANTS))


def operand(x):
    """A Tensor or Python number for a binary op: NumPy scalars become the Python numbers
    PyTorch reads them as (dtypes.python_number), arrays and lists become constant tensors."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.generic):
        return dtypes.python_number(x)
    if isinstance(x, numbers.Number):
        return x
    if isinstance(x, _CONSTANTS):
        from .creation import tensor

        return tensor(x)
    return NotImplemented


def value_of(x):
    return x._data if isinstance(x, Tensor) else x


def binary(primitive, a, b, name=None, saves=True, floating=False):
    """A tracked binary op with PyTorch's promotion; `floating` maps integral results to
    the default float dtype (true division)."""
    # The common cases first: a float tensor with a tensor of its own dtype, or with a
    # Python number (neither widens it); NumPy then computes in that dtype already.
    if isinstance(a, Tensor):
        da = a._data
        if isinstance(b, Tensor):
            db = b._data
            if da.dtype is db.dtype and da.dtype.kind == "f":
                return binary_same(primitive, a, b, da, db, name, saves, a._requires_grad or b._requires_grad)
        elif type(b) in _NUMBERS and da.dtype.kind == "f":
            return binary_same(primitive, a, b, da, b, name, saves, a._requires_grad)
    elif isinstance(b, Tensor) and type(a) in _NUMBERS:
        db = b._data
        if db.dtype.kind == "f":
            return binary_same(primitive, a, b, a, db, name, saves, b._requires_grad)
    a, b = operand(a), operand(b)
    if a is NotImplemented or b is NotImplemented:
        return NotImplemented
    if primitive is operator.sub:
        refuse_bool_subtraction(value_of(a), value_of(b))
    dt = dtypes.result_type(value_of(a), value_of(b))
    if floating and dt.kind not in "fc":
        dt = dtypes.DEFAULT_FLOAT.numpy
    elif dt.kind in "iu":  # an int exponent out of range is refused, as in PyTorch
        a, b = dtypes.integer_operand(a, dt), dtypes.integer_operand(b, dt, wraps=primitive is not operator.pow)
    if primitive is operator.pow and dt.kind in "iu" and np.any(value_of(b) < 0):
        return _integer_power(value_of(a), b, dt)
    if primitive is operator.pow and dt.kind == "b" and isinstance(b, Tensor):  # a bool number exponent is computed
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    try:
        return apply(primitive, a, b, name=name, saves=saves, dtype=dt, out_dtype=dt)
    except ValueError:
        _raise_broadcast_error(primitive, value_of(a), value_of(b))
        raise


_NUMBERS = (float, int)


def _integer_power(x, b, dt):
    """An integer `x ** b` with negative exponents (never tracked), as PyTorch does it: a
    Python number exponent is refused; a tensor one gives 1 ** e = 1, (-1) ** e = +-1
    and 0 for any other base (the truncated reciprocal)."""
    if not isinstance(b, Tensor):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    x, e = np.broadcast_arrays(np.asarray(x, dtype=dt), b._data.astype(dt))
    with np.errstate(all="ignore"):
        positive = np.power(x, np.abs(e))
    odd = np.where(e % 2 == 0, 1, -1)
    negative = np.where(x == 1, 1, np.where(x == -1, odd, 0))
    return leaf(np.asarray(np.where(e >= 0, positive, negative), dtype=dt))


def binary_same(primitive, a, b, x, y, name, saves, requires_grad, compute=None):
    """`primitive(x, y)` for the arrays (or Python numbers) `x`, `y` of `a`, `b`, whose
    result dtype is the float dtype of the tensor operand(s): what `apply` does then.
    `requires_grad`: whether a tensor operand requires grad (recorded if grad mode is on).
    `compute(x, y)`, when given, is the value PyTorch computes where it rounds otherwise
    than `primitive` (`x ** 3` as x * x * x); the node still runs `primitive`'s rule."""
    if not dtypes.WEAK_NUMBERS:  # NumPy 1 widens a 0-d float32 array with a Python float
        if type(y) in _NUMBERS:
            y = dtypes.as_weak_number(y, x)
        elif type(x) in _NUMBERS:
            x = dtypes.as_weak_number(x, y)
    token = quiet()
    try:
        ans = (compute or primitive)(x, y)
    except ValueError:
        _raise_broadcast_error(primitive, x, y)
        raise
    finally:
        loud(token)
    if type(x) is MetaArray or type(y) is MetaArray:
        check_devices([t for t in (a, b) if isinstance(t, Tensor)])
        ans = as_meta(ans)
    elif type(ans) is not _ndarray:
        ans = np.asanyarray(ans)
    if requires_grad and _mode.enabled:
        out = _tracked_pair(ans, primitive, name, saves, a, b, x, y)
    else:
        out = leaf(ans)
    if TANGENTS:
        pushed(out, primitive, name, (a, b), (x, y))
    return out


def _tracked_pair(ans, primitive, name, saves, a, b, x, y):
    """`_tracked` for the operands `a`, `b` (arrays or numbers `x`, `y`); one of them is
    a Tensor."""
    versions = ()
    a_tensor, b_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    kind = KINDS.get((primitive, name)) or kind_of(primitive, name)
    if saves:
        read_a, read_b = kind[5][2 * (a_tensor and a._requires_grad) + (b_tensor and b._requires_grad)]
    if a_tensor:
        dtype_a = x.dtype
        edge_a = (a._grad_fn or a._accumulator or a._accumulate_grad(), 0) if a._requires_grad else NO_EDGE
        if saves and read_a:  # versions.saved_version, inlined
            counter = a._counter
            if counter is None:
                counter = a._counter = [0]
            versions = (counter, counter[0], 0)
    else:
        dtype_a, edge_a = None, NO_EDGE
    if b_tensor:
        dtype_b = y.dtype
        edge_b = (b._grad_fn or b._accumulator or b._accumulate_grad(), 0) if b._requires_grad else NO_EDGE
        if saves and read_b:
            counter = b._counter
            if counter is None:
                counter = b._counter = [0]
            # PyTorch checks saved operands in the order of their names: mm's mat2 before
            # self, mul's other before self; mv's self before vec, dot's before tensor
            if name in _FIRST_OPERAND_FIRST:
                versions += (counter, counter[0], 1)
            else:
                versions = (counter, counter[0], 1) + versions
    else:
        dtype_b, edge_b = None, NO_EDGE
    out = node_output(ans, kind, (edge_a, edge_b), (x, y), NO_KWARGS, (dtype_a, dtype_b), saves, versions)
    if HOOKS and saves:
        pack_saved(out._grad_fn, (a, b), out)
    return out


_FIRST_OPERAND_FIRST = frozenset(("MvBackward0", "DotBackward0"))


_ORDERINGS = {np.less: "lt", np.less_equal: "le", np.greater: "gt", np.greater_equal: "ge"}  # none for complex


def compare(primitive, a, b):
    """An elementwise comparison: a bool tensor, never tracked."""
    a, b = operand(a), operand(b)
    if a is NotImplemented or b is NotImplemented:
        return NotImplemented
    if primitive in _ORDERINGS:
        refuse_complex(_ORDERINGS[primitive], a, b)
    x, y = value_of(a), value_of(b)
    # a number meets the tensor's dtype as PyTorch's wrapped number: an int wrapped into an
    # integer dtype; under NumPy 1 converted where its value-based casting would widen
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        y = dtypes.as_weak_number(dtypes.integer_operand(y, x.dtype), x)
    elif isinstance(b, Tensor) and not isinstance(a, Tensor):
        x = dtypes.as_weak_number(dtypes.integer_operand(x, y.dtype), y)
    if type(x) is MetaArray or type(y) is MetaArray:
        check_devices([t for t in (a, b) if isinstance(t, Tensor)])
    return Tensor._make(np.asanyarray(primitive(x, y)))
