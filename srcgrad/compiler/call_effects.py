"""What a call does besides computing its result, which its derivative rule knows nothing
of: a change in place (`ws.sort()`, `np.exp(x, out=y)`, `np.median(x,
overwrite_input=True)`), refused in both modes where it may reach a differentiated value,
and a result rounded to the dtype it names (`np.sum(x, dtype=int)`), whose adjoint or
tangent is zeroed (`runtime.unless_integral`). Reverse mode (reverse.py, contributions.py)
and forward mode (forward.py) ask the same questions here.
"""

import gast
import numpy as np

from ..errors import NotDifferentiableError
from ..rules.registry import bind_arguments
from . import printing, syntax
from .calls import from_numpy


def changes_in_place(call, callee, varied, rules):
    """Whether the call statement `call` (its result dropped) may change a value that depends
    on the input: its arguments or receiver are `varied`, and it is not a pure function with
    a rule or one with no gradient (`print`). `np.add.at(y, i, x)`, `out=`, `y.sort()`."""
    if callee is None or not any(isinstance(n, gast.Name) and n.id in varied for n in gast.walk(call)):
        return False
    if any(k.arg == "out" for k in call.keywords) or callee.kind == "method":
        return True
    if callee.kind != "function":
        return False
    rule = rules.lookup(callee.obj)
    if rule is not None:
        return writes_out(call, callee, rules) or overwrites_input(call, callee, rules)
    return not rules.is_nondifferentiable(callee.obj)


def writes_out(call, callee, rules):
    """Whether a call of a function with a rule may write into an `out` array: `out=y`, or
    `out` by position (`np.exp(x, y)`, `np.cumsum(x, 0, None, y)`, `x.cumsum(0, None, y)`):
    a ufunc's arguments past its inputs, the rule's `out` parameter, or arguments its
    signature cannot place (NumPy's functions only). Its rule knows nothing of that write."""
    if callee is None or callee.kind not in ("function", "method"):
        return False
    if any(k.arg == "out" and not (isinstance(k.value, gast.Constant) and k.value.value is None) for k in call.keywords):
        return True
    rule = rules.lookup(callee.obj) if callee.obj is not None else None
    if rule is None or not from_numpy(callee.obj) or (callee.kind == "method" and callee.packs_varargs):
        return False
    if any(isinstance(a, gast.Starred) for a in call.args):
        return True
    args = list(call.args) if callee.kind == "function" else [None] + list(call.args)  # the receiver first
    if isinstance(callee.obj, np.ufunc):
        return len(args) > callee.obj.nin
    try:
        bound = bind_arguments(rule.signature, args, {k.arg: k.value for k in call.keywords if k.arg is not None})
    except TypeError:
        # more arguments than the rule's signature places (a positional `out`); an unknown
        # keyword (`np.std(x, where=m)`) is left to `bind`, which says so
        positional = [q for q in rule.signature.parameters.values() if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]
        return callee.kind == "function" and len(args) > len(positional)
    out = bound.get("out")
    return "out" in bound and not (isinstance(out, gast.Constant) and out.value is None)


def overwrites_input(call, callee, rules):
    """Whether a call of a function with a rule may let NumPy reorder its input in place:
    `np.median(x, overwrite_input=True)` (np.percentile and np.quantile too), after which
    x holds other values than its rule and the code after it read."""
    if callee is None or callee.kind != "function":
        return False
    rule = rules.lookup(callee.obj)
    if rule is None or "overwrite_input" not in rule.params:
        return False
    try:
        bound = bind_arguments(rule.signature, call.args, {k.arg: k.value for k in call.keywords if k.arg is not None})
    except TypeError:
        return False
    flag = bound.get("overwrite_input")
    return flag is not None and not (isinstance(flag, gast.Constant) and flag.value is False)


def refuse_in_place(program, stmt, callee, varied, rules):
    """Refuse the dropped-result call `stmt` where it may change a differentiated value in
    place (`changes_in_place`), in either mode."""
    if changes_in_place(stmt.value, callee, varied, rules):
        raise program.error(
            stmt, f"`{_spelled(program, stmt)}` may change a differentiated value in place, which srcgrad cannot "
            f"differentiate (in `{program.name}`); build a new value instead (`y = y + ...`, `y[i] = ...`, a "
            "function's result)", NotDifferentiableError,
        )


def refuse_out(program, stmt, callee, varied, rules):
    """Refuse `y = f(...)` where the call writes into an `out` array (`writes_out`) and
    reads a differentiated value, in either mode: its rule knows nothing of that write."""
    call = stmt.value
    if callee is None or not varied.intersection(syntax.add_loads(call, set())):
        return
    if overwrites_input(call, callee, rules):
        raise program.error(
            stmt, f"`{_spelled(program, stmt)}` lets NumPy reorder its input in place (`overwrite_input`), which "
            f"srcgrad cannot differentiate (in `{program.name}`); leave `overwrite_input` False", NotDifferentiableError,
        )
    if not writes_out(call, callee, rules):
        return
    raise program.error(
        stmt, f"`{_spelled(program, stmt)}` writes into its `out` array, which srcgrad cannot differentiate (in "
        f"`{program.name}`); use the call's result instead (`y = np.exp(x)`)", NotDifferentiableError,
    )


def _spelled(program, stmt):
    """The user's text of `stmt`, or the statement printed where it has none (generated code)."""
    return program.text(stmt).strip() or printing.unparse(stmt).strip()


def casts_result(rule, args):
    """Whether the call whose bound arguments are `args` names its result's dtype
    (`np.sum(x, dtype=int)`, `np.einsum(..., dtype=int, casting="unsafe")`): cast to integers
    or booleans, its result rounds, and its derivative is zero (`runtime.unless_integral`).
    The rules of the casts themselves (`astype`, `np.array`, `np.asarray`) see to that."""
    node = args.get("dtype")
    extra = args.get("kwargs")
    if node is None and isinstance(extra, gast.Dict):
        node = next((v for k, v in zip(extra.keys, extra.values) if syntax.is_const(k) and k.value == "dtype"), None)
    if node is None or (isinstance(node, gast.Constant) and node.value is None):
        return False
    return rule.primal not in _CASTS


_CASTS = {np.ndarray.astype, np.array, np.asarray, np.asanyarray}
