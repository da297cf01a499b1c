"""Call sites as both transforms read them: which primal a call differentiates like, its
argument nodes bound to the rule's parameters, and the errors when that is not possible.

`site(...)` turns `y = np.sum(x, axis=0)` or `y = x.sum(0)` into a `Site` whose `primal`
is `np.sum` and whose `args` are `[x, 0]`; `bind(...)` maps them onto the rule's
parameters (`{"a": x, "axis": 0, ...}`, defaults as literal nodes). Reverse mode
(contributions.py) and forward mode (forward.py) share it, so a call means the same in
both. Nothing here builds derivative code.
"""

import builtins
import functools
import math
import operator
import re
import types
from dataclasses import dataclass

import gast
import numpy as np

from ..errors import NotDifferentiableError
from ..rules import methods
from ..rules.registry import has_custom_rule, limits
from ..rules.record_replace import replace_fields
from ..rules.structure import make_record
from .. import runtime
from ..runtime.records import is_dataclass_kind, is_record_class, refusal as record_refusal
from . import printing, record_calls, stand_in, syntax, traversal
from .passed_callables import Passed
from .record_methods import is_method_name
from .scope import MISSING, dotted_parts, lookup_path
from .stand_in import is_user_function


@dataclass
class Site:
    """A resolved call: the primal it differentiates like, its arguments, a display label."""

    callee: object  # resolve.Callee
    primal: object
    args: list
    keywords: dict
    label: str


_BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul, gast.Div: operator.truediv,
    gast.Pow: operator.pow, gast.MatMult: operator.matmul, gast.Mod: operator.mod,
    gast.BitOr: operator.or_,  # merges dicts (bitwise on numbers: a zero derivative)
}
_UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos}


def is_operator(primal):
    """Whether `primal` is the function of a Python operator (`operator.mul` for `*`)."""
    return primal in _OPERATORS


_OPERATORS = frozenset(_BINOPS.values()) | frozenset(_UNARY.values())


def operation(value):
    """`(primal, {parameter: operand}, label)` of an operator expression (`a * b` is
    `operator.mul` of x=a, y=b), or None for operators without a derivative."""
    if isinstance(value, gast.BinOp):
        op = _BINOPS.get(type(value.op))
        return None if op is None else (op, {"x": value.left, "y": value.right}, f"`{op.__name__}`")
    op = _UNARY.get(type(value.op))
    return None if op is None else (op, {"x": value.operand}, f"`{op.__name__}`")


def site(program, stmt, value, callee, register):
    """The `Site` of the call `value` in `stmt`. `register` names the function a user
    would call to add a missing rule (`srcgrad.defvjp` or `srcgrad.defjvp`)."""
    if callee is None or callee.kind == "unresolved":
        called = callee.path.split(".")[0] if callee is not None else ""
        params = {a.id for a in program.tree.args.posonlyargs + program.tree.args.args + program.tree.args.kwonlyargs}
        stored = set(traversal.names_stored(program.tree))
        if called in params and called in stored:
            raise program.error(
                stmt, f"`{program.name}` calls its parameter `{called}`, which it also assigns: srcgrad follows "
                "a function given to a parameter only where the function never assigns that parameter (the "
                f"call would differentiate the function passed, not the one assigned); bind the other function "
                f"to a new name (`{called}_other = ...`) and call each by its own name", NotDifferentiableError,
            )
        if called in params and isinstance(program.bound.get(called), Passed):
            raise program.error(
                stmt, f"`{program.name}` calls `{callee.path}` through its parameter `{called}`, which holds "
                f"{stand_in.spelling(program.bound[called])} passed as an argument: srcgrad follows a partial, bound "
                "method or callable object passed as an argument through its function's own code, the values it "
                "holds read when the derivative runs, and follows no method called through it there; compute with "
                f"its attributes (`{called}.a * y`) or call a function of yours with them (`helper({called}.a, y)`)",
                NotDifferentiableError,
            )
        if called in params:
            raise program.error(
                stmt, f"`{program.name}` calls its parameter `{called}`, which holds no function srcgrad can "
                "follow here: it follows a function given to the differentiated function's parameter (a Python "
                "function or lambda, a NumPy, `math` or builtin function, a functools.partial or bound method of a "
                "Python function, an object whose class defines `__call__`, also as the parameter's default), and "
                f"one passed by its name to a function called inside (`{program.name}(np.tanh, ...)`), not a "
                "function chosen or computed in the differentiated code; pass the function itself",
                NotDifferentiableError,
            )
        direct = ("srcgrad differentiates a call written with the called function's own name (a global or "
                  "imported function, a nested `def`, `name = lambda ...`) or with a name bound once to one of "
                  "those, at the top level of the function before its uses (`act = np.tanh`)")
        loop = _loop_over(program.tree, called, getattr(stmt, "lineno", None))
        if loop is not None:
            raise program.error(
                stmt, f"`{program.name}` calls its loop variable `{called}`: srcgrad unrolls such a loop only "
                "over a list, tuple or dict of functions passed as an argument, over a list or tuple it reads "
                "from a global, a closure variable or an attribute (`for layer in self.layers`, also through "
                "`enumerate`, `reversed` or `zip`), whole, or over a tuple written in the loop of such names, "
                "constants and variables the body does not assign (`for act in (np.sin, np.cos)`); "
                f"`{printing.unparse(loop.iter).strip()}` is not one: make it a parameter and pass the list",
                NotDifferentiableError,
            )
        if called in stored:
            raise program.error(
                stmt, f"`{program.name}` calls its local variable `{called}`: {direct}, not one through a variable "
                f"bound in a branch or a loop, more than once or to an expression's result (`{called} = fs[k]`, "
                f"`{called} = functools.partial(g, ...)`), nor a choice `{called} = np.sin if k else np.cos` whose "
                f"test calls a function, or whose name is read other than by calls; call the function directly", NotDifferentiableError,
            )
        if called and not re.search(rf"\b{re.escape(called)}\b", program.text(stmt)):  # an ANF temporary
            raise program.error(  # worded as a missing function: the build waits for the first call (api.py)
                stmt, f"cannot find the function called in `{program.name}`: {direct}, not the result of an "
                "expression (`functools.partial(g, ...)(x)`, `fs[0](x)`); call the function directly",
                NotDifferentiableError,
            )
        raise program.error(
            stmt, f"cannot find the function `{printing.unparse(value.func)}` called in `{program.name}`; "
            "define it before differentiating", NotDifferentiableError,
        )
    args, keywords = list(value.args), {k.arg: k.value for k in value.keywords}
    replaced = record_calls.replacement(program, stmt, value, callee)
    if replaced is not None:  # `dataclasses.replace(p, pos=v)` is replace_fields(p, ("pos",), (v,))
        record, names = replaced
        changes = [syntax.tuple_([syntax.const(n) for n in names]), syntax.tuple_([keywords[n] for n in names])]
        return Site(callee, replace_fields, [record] + changes, {}, "`dataclasses.replace`")
    if callee.kind == "method":
        if callee.obj is None:
            advice = f"register one with {register}"
            if callee.receiver in ("self", "cls") and program.tree.args.args and program.tree.args.args[0].id == callee.receiver:
                advice = (f"if `{callee.receiver}` is an object whose class defines `{callee.path}`, differentiate "
                          f"a bound method (`srcgrad.grad(model.{program.name})`): srcgrad then knows the instance "
                          f"and follows calls of its methods; or {advice}")
            elif callee.receiver and callee.receiver.isidentifier():
                method = callee.path.split(".")[-1]
                named = "" if is_method_name(method) else (
                    f" and names it as no method of arrays, lists, dicts, tuples, sets or strings (`{method}` is one)")
                advice = (f"if `{callee.receiver}` is an object of your class, srcgrad follows a method of a "
                          "value only where it is a parameter holding a dataclass instance, a namedtuple or an object "
                          f"of a class of your own code, whose class defines the method with a plain `def`{named}, and "
                          "the function never assigns the parameter: pass the object as an argument, or write the "
                          f"method as a function of yours taking the object (`{callee.path.split('.')[-1]}"
                          f"({callee.receiver})`), which reads its fields; or {advice}")
            raise program.error(
                stmt, f"no derivative rule for the method `.{callee.path}()` called at {program.where(stmt)} "
                f"(in `{program.name}`); {advice}", NotDifferentiableError,
            )
        if callee.packs_varargs and len(args) > 1:
            args = [syntax.tuple_(args)]
        return Site(callee, callee.obj, [syntax.name(callee.receiver)] + args, keywords, f"`.{callee.path}()`")
    if callee.obj in (builtins.max, builtins.min) and len(args) > 2 and not keywords:
        args = [syntax.list_(args)]  # max(a, b, c) is max([a, b, c])
    method = _copy_of_a_global(callee.obj, value)
    if method is not None:  # `M.copy()` of a global or closure array: the method's rule, the array first
        return Site(callee, method, [syntax.copy(value.func.value)] + args, keywords, f"`.{value.func.attr}()`")
    attribute = _array_attribute(callee.obj, args, keywords)
    if attribute is not None:  # `getattr(x, "T")` reads like `x.T`
        return Site(callee, methods.ATTRIBUTES[attribute], args[:1], {}, f"`.{attribute}`")
    if is_record_class(callee.obj):  # `P(W=a, b=c)` is make_record(P, (a, c))
        fields = record_calls.fields_in_order(program, stmt, callee, args, keywords)
        return Site(callee, make_record, [syntax.copy(value.func), syntax.tuple_(fields)], {}, f"`{callee.path}`")
    return Site(callee, callee.obj, args, keywords, f"`{callee.path}`")


COPY_METHODS = frozenset({"copy", "astype", "flatten"})  # array methods making a new array (`astype` unless copy=False)


def _copy_of_a_global(obj, value):
    """The NumPy primal of `M.copy()` (a method of COPY_METHODS) called on an array `M` that
    is a global or closure variable (or its attribute: `self.M`, `M.T`), which resolves to
    the bound method itself; else None.
    Such a copy is a new array the function may change in place (mutation.py)."""
    if not (isinstance(getattr(obj, "__self__", None), np.ndarray) and isinstance(value.func, gast.Attribute)
            and dotted_parts(value.func.value) is not None and value.func.attr in COPY_METHODS):
        return None
    return methods.METHODS.get(value.func.attr, (None, False))[0]


def _array_attribute(obj, args, keywords):
    """The attribute `getattr(x, "T")` reads when it names one of an array's differentiable
    attributes (`rules.methods.ATTRIBUTES`), as `x.T` does; else None."""
    if obj is not builtins.getattr or len(args) != 2 or keywords or not isinstance(args[1], gast.Constant):
        return None
    return args[1].value if isinstance(args[1].value, str) and args[1].value in methods.ATTRIBUTES else None


def _loop_over(tree, name, line):
    """The innermost `for` loop of `tree` whose target binds `name` and whose lines hold
    `line`, or None."""
    found = None
    for s in traversal.statements(tree):
        if (isinstance(s, gast.For) and name in traversal.names_stored(s.target)
                and line is not None and s.lineno <= line <= (getattr(s, "end_lineno", None) or s.lineno)):
            found = s
    return found


def missing_rule(program, stmt, call, register):
    """The error for a call on the differentiated path whose primal has no rule."""
    advice = f"register one with {register}"
    if isinstance(call.primal, np.vectorize):
        advice = (f"np.vectorize calls its function once per element, which srcgrad does not follow: call the "
                  f"function on the arrays themselves, or {advice}")
    elif call.primal is builtins.map or call.primal is builtins.filter:
        advice = (f"srcgrad reads `{call.primal.__name__}(f, xs)` as a list comprehension where its iterator is read "
                  f"once, whole, right there (`list({call.primal.__name__}(...))`, `sum(...)`, `np.array(list(...))`, the "
                  "iterable of a `for` loop), with `f` a lambda or a function's name: write it so, or write the "
                  "comprehension (`[f(v) for v in xs]`)")
    elif call.primal is builtins.zip or call.primal is builtins.enumerate:
        advice = (f"srcgrad reads `{call.primal.__name__}(...)` as the iterable of a `for` loop or a comprehension, "
                  "or read whole right there by `list`, `tuple` or `dict`: write it so")
    elif call.primal is builtins.reversed:
        advice = ("srcgrad reads `reversed(...)` as the iterable of a `for` loop or a comprehension: write it so "
                  "(`sum(v for v in reversed(xs))`), or reverse by slicing (`xs[::-1]`, `list(xs)[::-1]`)")
    elif call.primal is functools.reduce:
        advice = ("srcgrad writes `functools.reduce(f, items[, initial])` out as its loop where `f` is a lambda of two "
                  "parameters or a (dotted) name, given by position, and nothing before the call in its statement calls "
                  "a function: assign the result to a name first (`r = reduce(f, items)`)")
    elif call.primal is functools.partial:
        advice = ("srcgrad does not follow a differentiated value into a partial made in the differentiated "
                  "function: call the function itself with all its arguments")
    elif isinstance(call.primal, type) and call.primal.__module__ not in ("builtins", "numpy"):
        advice = ("srcgrad does not follow a differentiated value into an object made in the differentiated "
                  "function, but for a namedtuple (`collections.namedtuple`, `typing.NamedTuple`, without a `__new__` "
                  "or `__init__` of its own) or a dataclass whose `__init__` dataclasses generated (no `__post_init__`, "
                  "`field(init=False)` or `InitVar`)")
        if is_dataclass_kind(call.primal):
            advice += f"; `{call.callee.path}` is a dataclass, but {record_refusal(call.primal)}"
        advice += (": compute with the arrays themselves, make the object such a record, or pass the values to the "
                   "object's methods as arguments")
    elif getattr(call.primal, "srcgrad_transposed", None):
        function, param = call.primal.srcgrad_transposed
        advice = (f"`{function}` has only a forward rule (`defjvp`) for `{param}`, which reverse mode transposes "
                  "into this gradient, and that transposition has no derivative of its own: to differentiate the "
                  f"gradient again (hessian, grad of grad, jvp or jacobian of a gradient) give `{function}` a reverse "
                  f"rule too (`@{function}.defvjp`, or `srcgrad.defvjp`)")
    elif getattr(call.primal, "srcgrad_gradient_called", None):
        advice = (f"it is the rule srcgrad gives `{call.primal.srcgrad_gradient_called}`, a gradient made by srcgrad "
                  "and called in the differentiated function (derivative_calls.py), and it has no derivative of its "
                  "own: differentiate a function that calls a gradient once (grad, jvp, vjp, jacobian), not twice "
                  "(hessian, grad of its gradient)")
    elif getattr(call.primal, "srcgrad_called_rule", None):
        function, rule, kind, readable = call.primal.srcgrad_called_rule
        advice = (f"it runs your {kind} rule `{rule}` of `{function}`, which srcgrad calls rather than reads, so it "
                  "has no derivative of its own: ")
        if readable:
            advice += (f"to differentiate the gradient again (hessian, grad of grad, jvp or jacobian of a gradient) "
                       f"write the rule as a `def` taking ({'g' if kind == 'vjp' else 't'}, ans, and each parameter "
                       f"of `{function}`), not a lambda, and give `{function}` plain positional parameters (no "
                       "`*args`, `**kwargs` or keyword-only ones)")
        else:
            advice += (f"srcgrad does not differentiate a forward rule of several tangents again, so derivatives "
                       f"of `{function}` stop at the order its rules give")
    elif (getattr(call.primal, "__module__", None) or "").startswith("scipy."):
        advice = ("srcgrad has rules for the functions of scipy.special and scipy.linalg that docs/rules.md lists, "
                  f"not for this one: write it with those or with NumPy's, or {advice}")
    elif call.primal is next or call.primal is iter:
        advice = ("srcgrad differentiates iteration written as a loop, not through an iterator: take the first value "
                  "with a loop (`for v in xs:` / `if ...:` / `first = v` / `break`) or by index (`xs[0]`)")
    elif isinstance(call.primal, functools.partial):
        advice = (f"srcgrad follows a functools.partial only of a Python function without `*args` or `**kwargs` "
                  f"parameters: call the function itself with the partial's arguments, or {advice}")
    return program.error(
        stmt, f"no derivative rule for {_display(call.primal, call.callee.path)} called at {program.where(stmt)} "
        f"(in `{program.name}`); {advice}", NotDifferentiableError,
    )


_UFUNC_FORM = ("dtype", "subok", "order", "casting")

# Arguments that are integers, which gradient code may put back from its tape
# (`ret_shape[i] = tape.pop()` after np.linalg.norm's `ret.reshape(ret_shape)`), where
# activity takes them as differentiated: skipped in derivatives of generated code only.
# (In a user's code `xp.reshape(x, shape)` with `xp` a module passed in reads as the method
# `.reshape` of `xp`, with `x` as the shape: that stays refused.)
_TAPE_SHAPES = {(np.reshape, "shape")}


def is_discrete(program, rule, param):
    """Whether `rule`'s parameter `param` takes no derivative in `program`: an index or
    a key (`rule.discrete`), or a shape the tape puts back in generated code."""
    return param in rule.discrete or (program.generated and (rule.primal, param) in _TAPE_SHAPES)


def bind(program, stmt, rule, call):
    """{rule parameter: argument node} for the call (defaults and literals as constants).
    A ufunc's `dtype=` (`np.exp(x, dtype=np.float64)`) is left out: it names the precision
    the ufunc computes in, and the rules compute the derivative at the same values in the
    precision of their operands. So are `subok=`, `order=` and `casting=` (np.kron's
    `multiply(a, b, subok=...)`): the class, the memory layout and the casts allowed,
    not the values (the primal call itself raises for a cast refused)."""
    keywords = call.keywords
    if isinstance(rule.primal, np.ufunc) and any(k in _UFUNC_FORM and k not in rule.params for k in keywords):
        keywords = {k: v for k, v in keywords.items() if k not in _UFUNC_FORM or k in rule.params}
    try:
        bound = rule.bind(*call.args, **keywords)
    except TypeError as exc:
        raise program.error(
            stmt, f"cannot differentiate this call of {call.label}: {exc}; srcgrad's rule for it takes"
            f" `{rule.signature}` (in `{program.name}`)", NotDifferentiableError,
        ) from None
    return {k: _node(v) for k, v in bound.items()}


def check_supported(program, stmt, rule, args, label, mode):
    """Refuse a call whose argument is a literal its rules do not handle (`registry.supports`:
    `np.interp(..., period=2.0)`, `np.quantile(..., method="nearest")`), or an attribute of a
    module (`x.view(np.int64)`), at its line."""
    for param, values, advice, modes in limits(rule.primal):
        node = args.get(param)
        if mode not in modes or node is None:
            continue
        if not syntax.is_const(node):
            value = _module_attribute(program, node)
            if value is MISSING or any(value is v for v in values):
                continue
            shown = printing.unparse(node).strip()
        else:
            value = node.value if type(node) is gast.Constant else -node.operand.value if type(node.op) is gast.USub else (
                node.operand.value)
            if value in values:
                continue
            shown = repr(value)
        allowed = " or ".join(repr(v) for v in values)
        raise program.error(
            stmt, f"srcgrad differentiates {label} with `{param}={allowed}` only, not `{param}={shown}` (at "
            f"{program.where(stmt)}, in `{program.name}`); {advice}", NotDifferentiableError,
        )


def _module_attribute(program, node):
    """What the attribute `node` of a module means (`np.int64`), or MISSING for any other node."""
    parts = dotted_parts(node) if type(node) is gast.Attribute else None
    if parts is None or not isinstance(lookup_path(parts[:1], program), types.ModuleType):
        return MISSING
    return lookup_path(parts, program)


def _node(value):
    """A bound argument as a node: literals become constants and a `**kwargs` dict a dict
    display; a `*args` tuple stays a tuple of nodes (see `check_varargs`)."""
    if isinstance(value, gast.AST):
        return value
    if syntax.is_literal(value):
        return syntax.const(value)
    if isinstance(value, dict):
        return gast.Dict(keys=[syntax.const(k) for k in value], values=[_node(v) for v in value.values()])
    if isinstance(value, tuple):  # a `*args` parameter: the tuple of its arguments
        return syntax.tuple_([_node(v) for v in value])
    return value


def check_varargs(program, stmt, rule, call, bound, activity, derivatives, inlinable):
    """A differentiated value passed through a rule's `*args` parameter (np.einsum's
    operands) reaches its rule only when the rule is inlined (a called rule would get the
    tuple as one argument): otherwise a clear error."""
    for param, p in rule.signature.parameters.items():
        if p.kind is not p.VAR_POSITIONAL or not active_names(bound.get(param), activity):
            continue
        derivative = derivatives.get(param)
        if derivative is not None and not inlinable(derivative.fn):
            raise program.error(
                stmt, f"differentiating {call.label} through its `*{param}` arguments is not supported "
                f"(in `{program.name}`); write the operation with np.dot/np.matmul/np.sum instead",
                NotDifferentiableError,
            )


_SEQUENCE_PARAMS = {"iterable", "seq", "arrays", "tup", "arys", "operands", "object", "xs", "choicelist", "choices",
                    "c_and_lower", "lu_and_piv"}  # the last two: scipy.linalg's cho_solve and lu_solve take a factorization's tuple


def takes_sequence(rule, param):
    """Whether the rule's parameter `param` may hold a list or tuple whose gradient is one
    entry per element (`sum(xs)`, `max(xs)`, `np.stack(arrays)`): its adjoint then adds
    entry by entry."""
    return param in _SEQUENCE_PARAMS or (rule.primal in (builtins.max, builtins.min) and param == "a") or (
        rule.primal is math.dist
    )


def reads_as_array(rule, param):
    """Whether a NumPy function reads its parameter `param` as one array (`np.prod([a, b])`,
    not `np.stack([a, b])` or the `*args` of np.broadcast_arrays)."""
    kind = rule.signature.parameters[param].kind
    return from_numpy(rule.primal) and kind is not kind.VAR_POSITIONAL and not takes_sequence(rule, param)


def reads_each_as_array(rule, param):
    """Whether a NumPy function reads each argument that its `*param` collects as one
    array (np.einsum's operands, np.broadcast_arrays' arrays)."""
    kind = rule.signature.parameters[param].kind
    return kind is kind.VAR_POSITIONAL and from_numpy(rule.primal)


def array_operands(rule, args, derivatives, containers):
    """The parameters of `rule` (bound to the nodes `args`) whose argument NumPy reads as
    one array (`reads_as_array`) but which is a list or tuple: a display (`[a, 0.1]`) or
    a name in `containers`, bound to a parameter with a rule in `derivatives` (a value, not
    a shape or an index). Rules compute with arrays (`x - y`, `x * x`, `g @ y.T`), so both
    transforms hand them `np.asarray` of it; its gradient still goes back entry by entry."""
    return [
        param for param, node in args.items()
        if (type(node) in (gast.List, gast.Tuple) or (type(node) is gast.Name and node.id in containers))
        and param in derivatives and reads_as_array(rule, param)
    ]


def as_arrays(rule, args, derivatives, containers, namer, asarray, out):
    """`args` with each parameter of `array_operands` replaced by a name that a statement
    appended to `out` assigns `np.asarray` of it (`x_array = np.asarray([a, 0.1])`);
    `asarray()` gives the callee's node, asked for only when there is one."""
    params = array_operands(rule, args, derivatives, containers)
    if not params:
        return args
    arrays = dict(args)
    for param in params:
        temp = namer.fresh(f"{param}_array")
        out.append(syntax.assign(temp, syntax.call(asarray(), [syntax.copy(args[param])])))
        arrays[param] = syntax.name(temp)
    return arrays


def from_numpy(obj):
    """Whether `obj` is NumPy's: a ufunc, a ufunc's method (`np.add.reduce`), a function."""
    return (isinstance(obj, np.ufunc) or isinstance(getattr(obj, "__self__", None), np.ufunc)
            or (getattr(obj, "__module__", None) or "").startswith("numpy"))


def containers(tree, calls=None):
    """Names some assignment may make a list, tuple or dict (a display or `list(...)` and
    the like, a slice or an alias of one, an entry of a container of containers, a loop
    variable over one): their adjoints add entry by entry, and `+`/`*` on them join or
    repeat. Flow-insensitive: a name counts if any assignment may make it one. `calls`
    (resolve.py's table) shows `l = in_place(l + [v], l)` (`l += [v]`) as `l = l + [v]`."""
    stores = []  # (name, its value's depth given the depths so far)
    for n in traversal.statements(tree):
        if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name):
            value = n.value
            if type(value) is gast.Call and calls and getattr(calls.get(value), "obj", None) is runtime.in_place:
                value = value.args[0]
            stores.append((n.targets[0].id, functools.partial(_depth, value)))
        elif isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript):
            target = n.targets[0]
            if isinstance(target.slice, gast.Slice) and isinstance(target.value, gast.Name):  # `L[1:3] = [a, b]`
                stores.append((target.value.id, functools.partial(_depth, n.value)))
            else:
                stores.append(_entry_store(target.value, n.value))  # `d[k] = v`
        elif isinstance(n, gast.For) and isinstance(n.target, gast.Name):
            stores.append((n.target.id, functools.partial(_entry_depth, n.iter)))
        elif isinstance(n, gast.Expr) and isinstance(n.value, gast.Call) and isinstance(n.value.func, gast.Attribute):
            method, args = n.value.func.attr, n.value.args
            if method in ("append", "insert") and args:
                stores.append(_entry_store(n.value.func.value, args[-1]))  # `L.append(v)`, `L.insert(i, v)`
            elif method == "extend" and args and isinstance(n.value.func.value, gast.Name):
                stores.append((n.value.func.value.id, functools.partial(_depth, args[0])))
    depths = {}
    grown = True
    while grown:  # to a fixpoint: an alias assigned before its source, a list filled in a loop
        grown = False
        for name, depth in stores:
            if name is None:
                continue
            found = min(depth(depths), _DEEP)
            if found > depths.get(name, 0):
                depths[name], grown = found, True
    return {name for name, depth in depths.items() if depth}


_DEEP = 8  # nesting depth taken as unknown (keeps the fixpoint finite)
_MAKERS = ("list", "tuple", "sorted")  # calls whose result holds the entries of their argument


def _entry_store(base, value):
    """`base[k] = value` / `base.append(value)`: base holds value as an entry. (Only a
    container stored tells something: base is a container, or not, by its own assignment.)"""
    name = base.id if isinstance(base, gast.Name) else None

    def depth(depths):
        entry = _depth(value, depths)
        return 1 + entry if entry else 0

    return name, depth


def _depth(value, depths):
    """How deep `value` may nest containers: 0 for a non-container, 1 for a list of
    non-containers, 2 for a list of lists, ...; `depths` those of the names."""
    if isinstance(value, gast.Name):
        return depths.get(value.id, 0)
    if isinstance(value, (gast.List, gast.Tuple)):
        return 1 + max((_depth(e, depths) for e in value.elts), default=0)
    if isinstance(value, gast.Dict):
        return 1 + max((_depth(v, depths) for v in value.values), default=0)
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult)):
        # `a + b` of two lists joins them (a list and an array add as arrays); `a * 2` repeats
        left, right = _depth(value.left, depths), _depth(value.right, depths)
        return max(left, right) if isinstance(value.op, gast.Mult) or (left and right) else 0
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        base = depths.get(value.value.id, 0)
        return base if isinstance(value.slice, gast.Slice) else max(base - 1, 0)  # `L[1:]` / `L[0]`
    if (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "pop"
            and isinstance(value.func.value, gast.Name)):
        return max(depths.get(value.func.value.id, 0) - 1, 0)  # `L.pop(i)`: an entry, as `L[i]`
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        if value.func.id in _MAKERS:
            return max(1, _entry_depth(value.args[0], depths) + 1) if value.args else 1
        if value.func.id == "dict":
            return 1 + max((_depth(k.value, depths) for k in value.keywords), default=0)
    return 0


def _entry_depth(iterable, depths):
    """How deep an entry of `iterable` (what a `for` over it binds) may nest containers."""
    if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name):
        if iterable.func.id in ("zip", "enumerate"):  # tuples of the entries
            return 1 + max((_entry_depth(a, depths) for a in iterable.args), default=0)
        if iterable.func.id in _MAKERS + ("reversed",) and iterable.args:
            return _entry_depth(iterable.args[0], depths)
        return 0
    return max(_depth(iterable, depths) - 1, 0)


def joins_sequences(value, container_names):
    """Whether `a + b` / `a * n` may join or repeat lists or tuples (not arithmetic)."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult))):
        return False
    return _may_be_sequence(value.left, container_names) or _may_be_sequence(value.right, container_names)


def _may_be_sequence(operand, container_names):
    return isinstance(operand, (gast.List, gast.Tuple)) or (isinstance(operand, gast.Name) and operand.id in container_names)


_SEVERAL_RESULTS = {
    operator.or_,  # `d | e` of dicts: dict tangents
    np.average, np.divmod, builtins.divmod, np.gradient, np.linspace, np.linalg.slogdet, np.linalg.eigh, np.linalg.qr, np.linalg.svd, np.linalg.lstsq,
}


def several_results(primal):
    """Whether `primal` may return a tuple (`np.average(..., returned=True)`, `slogdet`):
    tangents of its parameters are then tuples, added entry by entry. Every helper of
    srcgrad's own rules counts (a Hessian differentiates them): one that returns the
    gradients of several operands would otherwise have its tangents joined end to end.
    A helper marked `one_result = True` returns one array. A function given rules by a
    user (custom_vjp, custom_jvp, defjvp, a gradient made by srcgrad and called) may
    return a tuple, a list or a dict too."""
    try:
        if primal in _SEVERAL_RESULTS:
            return True
    except TypeError:
        return False
    if getattr(primal, "one_result", False):
        return False
    return (getattr(primal, "__module__", None) or "").startswith("srcgrad.") or has_custom_rule(primal)


def of_constants(call, activity):
    """Whether `call` calls a function that is not the user's (whose body may read
    differentiated values through its closure) on arguments without derivatives:
    `y = np.arange(4.0)`, differentiated only by a later write into `y`, has nothing to
    pull back or push forward, rule or none."""
    return (call.callee.kind == "function" and not is_user_function(call.primal)
            and not active_names(list(call.args) + list(call.keywords.values()), activity))


def active_names(node, activity):
    """The active names an argument node reads (a `*args` parameter binds a tuple of nodes,
    a `**kwargs` one a dict)."""
    cls = type(node)
    if cls is gast.Name and getattr(node, "annotation", None) is None:  # most arguments: no walk
        return [node.id] if activity.is_active(node.id) else []
    if cls is gast.Constant:
        return []
    if isinstance(node, (tuple, list)):
        return [n for part in node for n in active_names(part, activity)]
    if isinstance(node, dict):
        return [n for part in node.values() for n in active_names(part, activity)]
    if not isinstance(node, gast.AST):
        return []
    return [n.id for n in traversal.walk(node) if isinstance(n, gast.Name) and activity.is_active(n.id)]


def _display(primal, path):
    """How an error names the called object `primal`, spelled `path` at the call: a
    wrapper by the name the user wrote and what it wraps."""
    for kind, wrapper, attribute in ((functools.partial, "functools.partial", "func"), (np.vectorize, "numpy.vectorize", "pyfunc")):
        if isinstance(primal, kind):
            wrapped = getattr(primal, attribute)
            inner = f"`{wrapped.__name__}`" if is_user_function(wrapped) else _display(wrapped, path)
            return f"`{path}` (a {wrapper} of {inner})"
    mod = getattr(primal, "__module__", None)
    name = getattr(primal, "__name__", path)
    if mod in (None, "numpy") and hasattr(primal, "nin"):  # a ufunc: NumPy's, or another library's (scipy.special)
        if getattr(np, name, None) is not primal:
            return f"`{path}`"
        mod = "numpy"
    elif mod is None and type(getattr(primal, "__self__", None)).__module__ == "numpy.random.mtrand":
        mod = "numpy.random"  # NumPy 1's np.random.normal: a method of the global RandomState
    return f"{mod}.{name}" if mod and mod != "builtins" else f"`{name}`"
