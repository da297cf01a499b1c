"""Turn a derivative rule into an expression of the generated code.

A rule whose body is a single `return <expr>` is inlined: its parameters are replaced
by the call's argument expressions, `g`/`t` by the incoming adjoint or tangent and
`ans` by the primal's result. Any other rule becomes a call of the rule function.
The names the expression needs from the rule's module or closure (`np`, `unbroadcast`,
private helpers) are reported to `bind(name, obj) -> name used`, which keeps them hygienic.
A user's rule wrapped in a runtime check (`srcgrad.custom_vjp`) carries
`srcgrad_checked = (rule, check, against)` and becomes `check(<rule inlined>, <against>)`,
`against` being a parameter name or "ans".
"""

import ast
import builtins
import functools
import inspect
import math
import operator
import textwrap

import gast
import numpy as np

from . import printing, syntax, templates, traversal


@functools.lru_cache(maxsize=None)
def _return_expression(fn):
    """The gast expression of `fn`'s single `return`, or None."""
    try:
        tree = syntax.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, TypeError, SyntaxError):
        return None
    if not isinstance(tree, gast.FunctionDef):  # a lambda: called, not inlined
        return None
    body = [s for s in tree.body if not _is_docstring(s)]
    if len(body) == 1 and isinstance(body[0], gast.Return) and body[0].value is not None:
        return body[0].value
    return None


def inlinable(fn):
    """Whether `apply` inlines the rule `fn` (its body is one `return`)."""
    return _return_expression(fn) is not None


@functools.lru_cache(maxsize=None)
def _reads_entries(fn):
    """Whether the user's rule `fn` reads its first parameter entry by entry (indexes,
    unpacks, iterates it or reads an attribute): the cotangent of a tuple, list or dict
    result, which generated code holds with None (a dict without the key) for each entry
    the function did not use, and the rule must see as zeros, as JAX gives them."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
    if not defs or not defs[0].args.args:
        return False
    name = defs[0].args.args[0].arg

    def is_name(node):
        return isinstance(node, ast.Name) and node.id == name

    for node in ast.walk(defs[0]):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and is_name(node.value):
            return True
        if isinstance(node, (ast.For, ast.comprehension)) and is_name(node.iter):
            return True
        if isinstance(node, ast.Starred) and is_name(node.value):
            return True
        if isinstance(node, ast.Assign) and is_name(node.value) and any(
            isinstance(t, (ast.Tuple, ast.List)) for t in node.targets
        ):
            return True
    return False


def _is_docstring(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) and isinstance(stmt.value.value, str)


def _params(fn):
    try:
        found = _PARAMS.get(fn)
    except TypeError:  # unhashable: not cached
        return list(inspect.signature(fn).parameters)
    if found is None:
        found = _PARAMS[fn] = list(inspect.signature(fn).parameters)
    return found


_PARAMS = {}  # rule function -> its parameter names


def _keyword_only(fn):
    """{name: default} of `fn`'s keyword-only parameters (`key` of max and sorted): a call
    passes them by name, where they differ from the default."""
    return {p.name: p.default for p in inspect.signature(fn).parameters.values() if p.kind is p.KEYWORD_ONLY}


def _is_default(node, default):
    return isinstance(node, gast.Constant) and type(node.value) is type(default) and node.value == default


def apply(fn, leading, args, bind):
    """The expression `fn(*leading, **args)` with `fn` inlined when it is one `return`.

    `leading` are the nodes for the rule's leading parameters (g/t and ans, or only ans
    for local derivatives); `args` maps the primal's parameter names to nodes.
    """
    checked = getattr(fn, "srcgrad_checked", None)
    if checked is not None:  # a user's rule: inline it inside its runtime check
        rule, check, against = checked  # the user's parameter names may differ: match by position
        if check.kind == "vjp" and _reads_entries(rule):  # a structured cotangent: its unread entries as zeros
            from ..runtime import structure_like

            filled = syntax.call(syntax.name(bind("structure_like", structure_like)), [leading[0], syntax.copy(leading[1])])
            leading = [filled, *leading[1:]]
        inner = apply(rule, [], dict(zip(_params(rule), [*leading, *args.values()])), bind)
        like = leading[-1] if against == "ans" else args[against]
        return syntax.call(syntax.name(bind(check.__name__, check)), [inner, syntax.copy(like)])
    names = _params(fn)
    values = dict(zip(names, leading))
    values.update(args)
    expr = _return_expression(fn)
    if expr is None:
        helper = bind(fn.__name__.lstrip("_"), fn)
        keywords = _keyword_only(fn)
        return syntax.call(syntax.name(helper), [values[n] for n in names if n not in keywords],
                           [(n, values[n]) for n in names if n in keywords and not _is_default(values[n], keywords[n])])
    return _substitute(expr, values, fn, bind)


def _substitute(expr, values, fn, bind):
    """A copy of the rule's expression `expr` with `values` in place of its parameters and
    the other names bound (`bind`, in the order they occur), then settled (`_settle`)."""
    cells = {n: c.cell_contents for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()) if _filled(c)}
    numpy_names = set()

    def name(node):
        if node.id in values:
            return syntax.copy(values[node.id])
        obj = cells.get(node.id, _UNSET)
        if obj is _UNSET:
            obj = fn.__globals__.get(node.id, _UNSET)
        if obj is _UNSET:
            obj = getattr(builtins, node.id, None)
        if obj is None:
            raise NameError(f"rule {fn.__qualname__} uses unknown name {node.id!r}")
        new = syntax.copy(node)
        new.id = bind(node.id.lstrip("_") or node.id, obj)
        if obj is np:
            numpy_names.add(new.id)
        return new

    new = _copier(fn)(name)  # syntax.copy(expr, name), compiled once per rule
    if _rule_settles(fn) or any(type(v) is not gast.Name and _settles(v) for v in values.values()):
        new = _settle(new, numpy_names)
    if _rule_reduces(fn):
        _drop_default_keywords(new, numpy_names)
    return new


@functools.lru_cache(maxsize=None)
def _copier(fn):
    return templates.copier(_return_expression(fn))


# NumPy reductions whose `axis` defaults to None and `keepdims` to False
_REDUCTIONS = frozenset({
    "sum", "mean", "prod", "max", "min", "amax", "amin", "std", "var", "all", "any",
    "nansum", "nanmean", "nanprod", "nanmax", "nanmin", "nanstd", "nanvar",
})


@functools.lru_cache(maxsize=None)
def _rule_reduces(fn):
    """Whether the rule's expression calls a NumPy reduction (`np.sum(...)`) with an `axis`
    or `keepdims` keyword, which `_drop_default_keywords` may find given its default."""
    expr = _return_expression(fn)
    return any(
        type(n) is gast.Call and type(n.func) is gast.Attribute and n.func.attr in _REDUCTIONS
        and type(n.func.value) is gast.Name and fn.__globals__.get(n.func.value.id) is np
        and any(k.arg in ("axis", "keepdims") for k in n.keywords)
        for n in traversal.nodes(expr)
    )


def _drop_default_keywords(expr, numpy_names):
    """Drop `axis=None` and `keepdims=False` from the calls of NumPy reductions in `expr`
    (through a name in `numpy_names`, bound to numpy): their defaults, so the same call
    (`np.sum(t)` for `np.sum(t, axis=None, keepdims=False)`), read and run faster."""
    for n in traversal.nodes(expr):
        if (type(n) is gast.Call and n.keywords and type(n.func) is gast.Attribute and n.func.attr in _REDUCTIONS
                and type(n.func.value) is gast.Name and n.func.value.id in numpy_names):
            n.keywords = [k for k in n.keywords if not (
                type(k.value) is gast.Constant
                and ((k.arg == "axis" and k.value.value is None) or (k.arg == "keepdims" and k.value.value is False)))]


_UNSET = object()


@functools.lru_cache(maxsize=None)
def _rule_settles(fn):
    return _settles(_return_expression(fn))


def _settles(node):
    """Whether `node` (a node or a list of them) holds a comparison or conditional that
    `_settle` may decide."""
    if type(node) is list:
        return any(_settles(n) for n in node)
    if type(node) is gast.Name or type(node) is gast.Constant or not isinstance(node, gast.AST):
        return False
    return traversal.holds(node, (gast.Compare, gast.IfExp))


def _settle(node, numpy_names):
    """Settle what the substituted constants decide, children first: `0 is None` -> False,
    `"C" != "A"` -> True, `a if False else b` -> b (so generated code has no dead tests on
    literals), and the tie guard `np.where((a == b) & np.isinf(a), 0.0, a - b)` (numpy
    under a name in `numpy_names`) -> `a - b` where `a` or `b` is a finite number: no
    inf - inf to guard."""
    values, name, constant = node.__dict__, gast.Name, gast.Constant
    for field in traversal.child_fields(type(node)):  # names and constants (most nodes) settle nothing
        value = values.get(field)
        kind = type(value)
        if kind is list:
            value[:] = [v if type(v) is constant or (type(v) is name and v.annotation is None) or not isinstance(v, gast.AST)
                        else _settle(v, numpy_names) for v in value]
        elif kind is not constant and not (kind is name and value.annotation is None) and isinstance(value, gast.AST):
            values[field] = _settle(value, numpy_names)
    if type(node) is gast.Call and _unneeded_tie_guard(node, numpy_names):
        return node.args[2]
    if isinstance(node, gast.Compare):
        if (len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot))
                and syntax.is_const(node.left) and syntax.is_const(node.comparators[0])):
            left, right = _literal(node.left), _literal(node.comparators[0])
            same = left is right or (left is not None and right is not None and type(left) is type(right) and left == right)
            return syntax.const(same if isinstance(node.ops[0], gast.Is) else not same)
        if (len(node.ops) == 1 and isinstance(node.ops[0], (gast.Eq, gast.NotEq))
                and type(node.left) is gast.Constant and type(node.comparators[0]) is gast.Constant
                and type(node.left.value) is str and type(node.comparators[0].value) is str):
            same = node.left.value == node.comparators[0].value  # `"C" != "A"`: an order or a mode
            return syntax.const(same if isinstance(node.ops[0], gast.Eq) else not same)
        if (len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)) and type(node.left) is gast.Call
                and type(node.left.func) is gast.Name and node.left.func.id == "type" and len(node.left.args) == 1
                and not node.left.keywords and _is_number(node.left.args[0]) and type(node.comparators[0]) is gast.Name
                and node.comparators[0].id in ("float", "int")):
            same = type(_literal(node.left.args[0])).__name__ == node.comparators[0].id  # `type(0.5) is not float`
            return syntax.const(same if isinstance(node.ops[0], gast.Is) else not same)
        if all(_is_number(v) for v in [node.left, *node.comparators]) and all(type(op) in _ORDERINGS for op in node.ops):
            values = [_literal(v) for v in [node.left, *node.comparators]]  # `0.0 < 2 < 1.0`: an exponent's range
            return syntax.const(all(_ORDERINGS[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:])))
    elif isinstance(node, gast.UnaryOp):
        if type(node.op) is gast.Not and type(node.operand) is gast.Constant and type(node.operand.value) is bool:
            return syntax.const(not node.operand.value)
    elif isinstance(node, gast.IfExp):
        test = node.test
        if type(test) is gast.BoolOp:  # a test `a or True` holds, `a and False` does not; `a or False` is `a`
            deciding = type(test.op) is gast.Or
            if any(type(v) is gast.Constant and v.value is deciding for v in test.values):
                test = node.test = syntax.const(deciding)
            else:
                test.values[:] = [v for v in test.values if not (type(v) is gast.Constant and v.value is (not deciding))]
                if len(test.values) <= 1:
                    test = node.test = test.values[0] if test.values else syntax.const(not deciding)
        if isinstance(test, gast.Constant) and isinstance(test.value, bool):
            return node.body if test.value else node.orelse
    return node


_ORDERINGS = {gast.Lt: operator.lt, gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge}


def _is_number(node):
    """Whether `node` is an int or float literal (`-1` a negated one), not a bool."""
    if type(node) is gast.UnaryOp and type(node.op) is gast.USub:
        node = node.operand
    return type(node) is gast.Constant and type(node.value) in (int, float)


def _unneeded_tie_guard(call, numpy_names):
    """Whether `call` is `np.where((a == b) & np.isinf(a), 0.0, a - b)` (or `b - a`, or
    the test `a == b` alone) with `a` or `b` a finite number literal: `a - b` is then
    never nan where `a == b`, but 0."""
    func = call.func
    if not (type(func) is gast.Attribute and func.attr == "where" and type(func.value) is gast.Name
            and func.value.id in numpy_names and len(call.args) == 3 and not call.keywords):
        return False
    test, zero, difference = call.args
    if type(test) is gast.BinOp and type(test.op) is gast.BitAnd:
        test = test.left  # `(a == b) & np.isinf(a)`: the tie is the left operand
    if not (type(test) is gast.Compare and len(test.ops) == 1 and type(test.ops[0]) is gast.Eq
            and type(zero) is gast.Constant and zero.value == 0 and type(difference) is gast.BinOp
            and type(difference.op) is gast.Sub):
        return False
    a, b = test.left, test.comparators[0]
    pair = (printing.unparse(a), printing.unparse(b))
    if (printing.unparse(difference.left), printing.unparse(difference.right)) not in (pair, pair[::-1]):
        return False
    return any(type(v) is gast.Constant and type(v.value) in (int, float) and math.isfinite(v.value) for v in (a, b))


def _literal(node):
    """The value of a constant node (`-1` is a negated constant). Read directly where it
    can be: `ast.literal_eval` leaves reference cycles behind (its nested helpers)."""
    if type(node) is gast.Constant:
        return node.value
    if type(node) is gast.UnaryOp and type(node.op) is gast.USub and type(node.operand) is gast.Constant:
        return -node.operand.value
    return ast.literal_eval(printing.unparse(node).strip())


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True
