"""What a call does besides computing its result, which its derivative rule knows nothing
of: a change in place (`ws.sort()`, `np.exp(x, out=y)`, `np.median(x,
overwrite_input=True)`), refused in both modes where it may reach a differentiated value,
and a result rounded to the dtype it names (`np.sum(x, dtype=int)`), whose adjoint or
tangent is zeroed (`runtime.unless_integral`). Reverse mode (reverse.py, contributions.py)
and forward mode (forward.py) ask the same questions here.
"""

import bisect
import heapq
import operator
import random
import types

import gast
import numpy as np

from ..errors import NotDifferentiableError
from ..rules.registry import bind_arguments
from . import printing, syntax, traversal
from .calls import from_numpy, site

# methods that change their receiver (a list, dict, set or NumPy array)
RECEIVER_CHANGING = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault", "popitem",
    "add", "discard", "fill", "resize", "put", "partition", "setfield", "setflags", "itemset", "byteswap",
    "__setitem__", "__delitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
})
# functions writing into their first argument
WRITING_FUNCTIONS = frozenset(
    {getattr(np, f) for f in ("copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis") if hasattr(np, f)}
    | {operator.setitem, operator.delitem, heapq.heappush, heapq.heappop, heapq.heapify, heapq.heapreplace,
       heapq.heappushpop, bisect.insort, bisect.insort_left, bisect.insort_right, random.shuffle, np.random.shuffle}
)
_DESCRIPTORS = (types.MethodDescriptorType, types.WrapperDescriptorType)  # `list.append`, `np.ndarray.sort`


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


def changes_container(call, callee, name, kept, rules):
    """Whether the call `call` may change the list, dict or array `name` in place, for a
    loop that reads `name` as it was when it started (position_loops.py, iteration.py):
    a method of `name` that changes its receiver (`d.pop(k)`, `x.sort()`; not `d.get(k)`),
    a write into an `out` array, and, where `name` is an argument, a call standing as a
    statement of its own (`kept` False) that `changes_in_place` does not clear, or a kept
    call of a function with no rule (its own code may change it) but a builtin that reads
    its arguments (`str(d)`)."""
    if callee is None or not changes_in_place(call, callee, {name}, rules):
        return False
    if callee.kind == "method" and callee.receiver == name:
        return callee.path in RECEIVER_CHANGING or writes_out(call, callee, rules)
    return not kept or writes_out(call, callee, rules) or (
        callee.kind == "function" and rules.lookup(callee.obj) is None and not _reads_only(callee.obj))


def _reads_only(fn):
    """Whether `fn` is a builtin that changes none of its arguments (`str`, `repr`, `id`)."""
    return getattr(fn, "__module__", None) == "builtins" and getattr(fn, "__name__", None) not in _BUILTINS_CHANGING


_BUILTINS_CHANGING = {"setattr", "delattr", "next", "exec", "eval", "__import__"}


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


def refuse_in_place(program, stmt, callee, varied, rules, helpers=()):
    """Refuse the dropped-result call `stmt` where it may change a differentiated value in
    place (`changes_in_place`), in either mode; and a call of a callable srcgrad does not
    follow (a parameter holding `np.ndarray.sort`, a local `functools.partial(np.copyto, y)`)
    given a differentiated value, with the reason `calls.site` gives: its code may change
    the value unseen. `helpers`: the names of srcgrad's own helpers, called so too."""
    call = stmt.value
    if (callee is not None and callee.kind == "unresolved" and callee.path.split(".")[0] not in helpers
            and varied.intersection(traversal.add_loads(call, set()))):
        site(program, stmt, call, callee, None)  # raises
    if changes_in_place(call, callee, varied, rules):
        raise program.error(
            stmt, f"`{_spelled(program, stmt)}` may change a differentiated value in place, which srcgrad cannot "
            f"differentiate (in `{program.name}`); build a new value instead (`y = y + ...`, `y[i] = ...`, a "
            "function's result)", NotDifferentiableError,
        )


def refuse_out(program, stmt, callee, varied, rules):
    """Refuse `y = f(...)` where the call writes into an `out` array (`writes_out`) and
    reads a differentiated value, in either mode: its rule knows nothing of that write."""
    call = stmt.value
    if callee is None or not varied.intersection(traversal.add_loads(call, set())):
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


def refuse_kept_changes(program, tree, activity, calls):
    """Refuse, in both modes, a call that changes a value in place and whose result is
    kept, where the changed value reaches the output and the call reads a differentiated
    value: `r = ys.append(v)`, `print(np.copyto(y, v))`, `ys.append(a) if c else ...`,
    `[ys.append(v) for v in xs]`, `map(ys.append, xs)`, a lambda returning `ys.append(v)`
    (ANF spells each as an assignment). Only a call standing as a statement of its own is
    differentiated (reverse.py `visit_Expr`, mutation.py) or refused (`refuse_in_place`);
    an assignment's derivative is its value's, which misses the change. A changing method
    taken as a value (`add = ys.append`) is refused where its receiver reaches the output:
    its calls change the receiver out of sight. (`v = ys.pop(i)` is mutation.py's; a
    result that carries the derivative itself is refused by the call's own missing rule,
    calls.py, which says more about a method of a user's object.)"""
    if program.generated:
        return
    for node in traversal.statements(tree):
        if type(node) is not gast.Assign:
            continue
        value = node.value
        if (type(value) is gast.Attribute and type(value.value) is gast.Name and value.attr in RECEIVER_CHANGING
                and value.value.id in activity.useful):
            raise program.error(
                node, f"`{_spelled(program, node)}` takes the method `.{value.attr}` of `{value.value.id}` as a value "
                f"(in `{program.name}`), so srcgrad cannot see the changes its calls make to `{value.value.id}`: "
                f"{_direct(value.value.id, value.attr)}", NotDifferentiableError,
            )
        named = _method_named(value, calls)
        if named is not None and named[0] in activity.useful:
            raise program.error(
                node, f"`{_spelled(program, node)}` takes the method `.{named[1]}` of `{named[0]}` as a value (in "
                f"`{program.name}`), so srcgrad cannot see the changes its calls make to `{named[0]}`: "
                f"{_direct(*named)}", NotDifferentiableError,
            )
        changed, what = _changed_by(value, calls.get(value)) if type(value) is gast.Call else (None, "")
        if changed is None or changed not in activity.useful or any(map(activity.is_active, traversal.names_stored(node))):
            continue
        skip = changed if what == ".setdefault()" else None  # `d.setdefault(k, [])` of a dict of lists
        reads = [n.id for n in gast.walk(value) if type(n) is gast.Name and n.id != skip]
        if any(n in activity.varied for n in reads):
            raise program.error(
                node, f"`{_spelled(program, node)}` keeps the result of `{what}`, which changes `{changed}` in place "
                f"(in `{program.name}`); srcgrad follows such a change only in a call standing as a statement of its "
                "own: write the call on a line of its own (a loop instead of a comprehension, `map` or a lambda)",
                NotDifferentiableError,
            )


def _direct(name, method):
    """What to write instead of calling `name.method` through another name."""
    if method == "__setitem__":
        return f"write the entry directly (`{name}[i] = v`)"
    return f"call `{name}.{method}(...)` directly, as a statement of its own"


def _method_named(value, calls):
    """(receiver, name) where `value` is `getattr(y, "sort")` of Python's getattr, a local
    `y` and the name of a method that changes its receiver; None otherwise."""
    if not (type(value) is gast.Call and len(value.args) >= 2 and type(value.args[0]) is gast.Name
            and type(value.args[1]) is gast.Constant and value.args[1].value in RECEIVER_CHANGING):
        return None
    callee = calls.get(value)
    if callee is None or callee.kind != "function" or callee.obj is not getattr:
        return None
    return value.args[0].id, value.args[1].value


def _changed_by(call, callee):
    """(the name the call changes in place, how the call is spelled), or (None, "")."""
    if callee is None:
        return None, ""
    if callee.kind == "method":
        if callee.path in RECEIVER_CHANGING - {"pop"} or callee.path == "shuffle" and call.args:
            changed = callee.receiver if callee.path != "shuffle" else call.args[0]
            return (changed if isinstance(changed, str) else getattr(changed, "id", None)), f".{callee.path}()"
        return None, ""
    obj = callee.obj
    writes = (obj in WRITING_FUNCTIONS if _hashable(obj) else False) or (
        getattr(obj, "__name__", None) == "at" and isinstance(getattr(obj, "__self__", None), np.ufunc)) or (
        isinstance(obj, _DESCRIPTORS) and obj.__name__ in RECEIVER_CHANGING - {"pop"})
    if callee.kind != "function" or not writes or not call.args or type(call.args[0]) is not gast.Name:
        return None, ""
    return call.args[0].id, f"{printing.unparse(call.func).strip()}(...)"


def _hashable(obj):
    try:
        hash(obj)
    except TypeError:
        return False
    return True


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


_GENERATOR_TYPES = (np.random.Generator, np.random.RandomState, random.Random)
_STATE_METHODS = frozenset({"seed", "get_state", "set_state", "getstate", "setstate", "spawn"})


def draws_anew(callee):
    """Whether the call resolved to `callee` draws from a random state that outlives the
    call: NumPy's global one (`np.random.normal`), Python's (`random.gauss`), or a
    generator object that exists before the call (`rs.randn`, `rng.normal`); a second run
    of it draws other numbers. A generator the function makes itself
    (`np.random.default_rng(0)`) and seeding are no such draws."""
    if callee is None or callee.kind != "function":
        return False
    fn = callee.obj
    return (isinstance(getattr(fn, "__self__", None), _GENERATOR_TYPES)
            and getattr(fn, "__name__", None) not in _STATE_METHODS)


def refuse_redrawn(program, tree, calls):
    """Refuse, in the pullback of a function another one calls (whose caller ran it once
    already, and whose pullback runs it again), a draw from a random state that outlives
    the call: the pullback would draw other numbers than the caller's run did, and give
    the derivative at a draw that the value never saw."""
    for node in traversal.statements(tree):
        value = getattr(node, "value", None)
        for call in (n for n in gast.walk(value) if type(n) is gast.Call) if value is not None else ():
            if draws_anew(calls.get(call)):
                raise program.error(
                    node, f"`{_spelled(program, node)}` draws random numbers in `{program.name}`, which a "
                    f"differentiated function calls through its pullback: the pullback runs `{program.name}` again, "
                    "and would draw other numbers than the call did. Draw them in the calling function and pass "
                    f"them to `{program.name}` as an argument, or make `{program.name}` a module-level function "
                    "that reads no closure cell (srcgrad then differentiates its statements in the caller's)",
                )
