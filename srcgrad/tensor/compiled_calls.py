"""The unrolled call path of a `@srcgrad.compile` function (compiled.py): for a call by
position with only Tensor arguments, in grad mode, of a kind of call whose generated
code is known and current, it records the one node without the general path's loop over
the arguments; it makes exactly the node the general path makes (same kind key, edges,
saved values and version records), and hands every other call to the general path (also every call while a tensor has a
forward-AD tangent, which the general path refuses).
"""

import builtins

import numpy as np

from .errstate import loud, quiet
from .grad_mode import _mode
from .graph import next_creation_order
from .tangents import TANGENTS
from .tensor import Tensor
from .versions import saved_versions

_ndarray = np.ndarray
_NO_EDGE = (None, 0)
_new = object.__new__


def arity(fn):
    """The number of positional parameters of `fn` when it takes exactly those, else None."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_flags & 0x0C or code.co_kwonlyargcount:  # *args, **kwargs
        return None
    return code.co_argcount


_MAX_UNROLLED = 16


def fast_call(arity, slow, kinds, cls, fn, called, saved_tensors, changed_outputs, counter_of):
    """The compiled function: for `arity` Tensor arguments given by position in grad
    mode, of a kind with one output whose generated code is known, it does what `slow`
    and `tracked` do (same kind key, same node) with the loop over the arguments
    unrolled, while the kind's derivative is current for `called`; every other call
    goes to `slow(args, kwargs)`. (An edge is found with
    `or`: graph nodes define neither `__bool__` nor `__len__`, so they are always true.)"""
    if not arity or arity > _MAX_UNROLLED:
        return lambda *args, **kwargs: slow(args, kwargs)
    a = [f"a{i}" for i in range(arity)]
    d = [f"d{i}" for i in range(arity)]
    r = [f"r{i}" for i in range(arity)]
    e = [f"e{i}" for i in range(arity)]
    c = [f"c{i}" for i in range(arity)]
    lines = [
        "def run(*args, **kwargs):",
        f"    if kwargs or len(args) != {arity} or not mode.enabled or TANGENTS:",
        "        return slow(args, kwargs)",
        f"    {', '.join(a)}, = args",
        f"    if {' and '.join(f'type({x}) is Tensor' for x in a)}:",
        *(f"        {di} = {ai}._data" for ai, di in zip(a, d)),
        *(f"        {ri} = {ai}._requires_grad" for ai, ri in zip(a, r)),
        f"        kind = kinds.get(({''.join(f'{di}.shape, {di}.dtype, {ri}, ' for di, ri in zip(d, r))}))",
        "        if (kind is not None and kind.generated is not None and kind.outputs is None",
        "                and kind.derivative.current(called)):",
        *(
            f"            {ei} = ({ai}._grad_fn or {ai}._accumulator or {ai}._accumulate_grad(), 0)"
            f" if {ri} else NO_EDGE"
            for ai, ri, ei in zip(a, r, e)
        ),
        *(f"            {ci} = {ai}._counter or counter_of({ai})" for ai, ci in zip(a, c)),
        "            token = quiet()",
        "            try:",
        f"                value, saved = kind.generated({', '.join(d)})",
        "            finally:",
        "                loud(token)",
        "            if type(value) is not ndarray:",
        "                if type(value) is tuple:",
        "                    raise changed(fn, None, value)",
        "                value = asarray(value)",
        "            node = new(cls)",
        f"            node.next_functions = ({', '.join(e)},)",
        "            node._hooks = None",
        "            node.creation_order = next_creation_order()",
        "            node.kind = kind",
        "            node.saved = saved",
        "            node.freed = False",
        f"            node.arrays = ({''.join(di + ', ' for di in d)})",
        f"            node.arg_versions = ({''.join(f'{ci}, {ci}[0], {i}, ' for i, ci in enumerate(c))})",
        "            out = new(Tensor)  # Tensor._make(value, True), inlined",
        "            out._data = value",
        "            out._requires_grad = True",
        "            out._grad = out._accumulator = out._counter = None",
        "            out._retains_grad = False",
        "            out._view = None",
        "            out._grad_fn = node",
        "            if kind.how == 'grads':",
        "                node.versions = ()",
        "            else:  # a pullback may read the arguments and the output",
        "                node.versions = versions(args) + output_versions((out,))",
        "            return out",
        "    return slow(args, kwargs)",
    ]
    scope = {
        "mode": _mode, "slow": slow, "kinds": kinds, "cls": cls, "Tensor": Tensor, "NO_EDGE": _NO_EDGE,
        "quiet": quiet, "loud": loud, "ndarray": _ndarray, "asarray": np.asarray, "new": _new,
        "versions": saved_tensors, "changed": changed_outputs, "fn": fn, "called": called,
        "output_versions": saved_versions, "counter_of": counter_of, "next_creation_order": next_creation_order,
        "TANGENTS": TANGENTS,
    }
    exec(builtins.compile("\n".join(lines) + "\n", "<srcgrad compiled call>", "exec"), scope)  # noqa: S102 - fixed text
    return scope["run"]

