"""Reject what srcgrad cannot differentiate, before any transformation.

Every error is a `SrcGradError` at the construct's real file and line, naming the
construct and what to do instead. Passing the fence means later passes may assume
the tree holds only: assignments (plain, augmented, annotated), expressions,
`return`, `if`, `for`, `while`, `break`, `continue`, `pass`, `raise`, `assert`,
`import`s (of named modules and names: `imports` resolves them now), `try` statements,
which attempts.py checks and lowers next, and `with` blocks, which contexts.py checks and
lowers after them.
"""

import collections
import importlib

import gast

from ..errors import NotDifferentiableError
from . import declarations, folds, printing, sharing, traversal

_ADVICE = {
    gast.AsyncWith: ("`async with`", "differentiate a synchronous function"),
    gast.AsyncFor: ("`async for`", "differentiate a synchronous function"),
    gast.AsyncFunctionDef: ("`async def`", "differentiate a synchronous function"),
    gast.Await: ("`await`", "differentiate a synchronous function"),
    gast.Yield: ("`yield`", "return a value instead of yielding it"),
    gast.YieldFrom: ("`yield from`", "return a value instead of yielding it"),
    gast.Global: ("`global`", "pass the value in as an argument and return the new value"),
    gast.Nonlocal: ("`nonlocal`", "pass the value in as an argument and return the new value"),
    gast.ClassDef: ("a class definition", "define the class outside the differentiated function"),
    gast.Lambda: ("a `lambda` that is not assigned to a name (nor the function of `map` or `filter` read whole, "
                  "`np.vectorize` or `np.piecewise`)",
                  "write `name = lambda ...` or a `def` at the top of the function"),
    gast.Delete: ("`del` of an attribute", "leave the object as it is, or build a new one"),  # `del name`: idioms.py
    gast.SetComp: ("a set comprehension", "write it as a `for` loop"),
}
if hasattr(gast, "Match"):
    _ADVICE[gast.Match] = ("`match`", "use `if`/`elif`")
if hasattr(gast, "TryStar"):
    _ADVICE[gast.TryStar] = ("`try`", "move it outside the differentiated function")

def _nested_owner(tree, statement):
    """The name of the function nested in `tree` whose body holds `statement`, else None."""
    for node in traversal.nodes(tree):
        if (isinstance(node, gast.FunctionDef) and node is not tree and node is not statement
                and any(n is statement for n in traversal.nodes(node))):
            return node.name
    return None


_OPEN_ENDED_CALLS = {"exec": "`exec`", "eval": "`eval`", "globals": "`globals()`", "locals": "`locals()`"}


def check(program, transform="srcgrad.grad"):
    """Raise `SrcGradError` at the first unsupported construct of `program`."""
    tree = program.tree
    args = tree.args
    if args.vararg is not None or args.kwarg is not None:
        star = args.vararg or args.kwarg
        raise program.error(
            star if hasattr(star, "lineno") else tree,
            f"`*args`/`**kwargs` parameters are not written out here for a call's arguments (in `{tree.name}`, "
            f"differentiated by {transform}): srcgrad.grad and the other transforms write them out at each call, "
            "as do calls showing their arguments inside a differentiated function, but not srcgrad.compile; "
            "list the parameters explicitly",
        )
    _check_walruses(program, tree, transform)
    _check_loops_resizing_their_list(program, tree, transform)
    for stmt in tree.body:
        for node in _checked_nodes(stmt):
            cls = type(node)
            if cls is gast.Starred:
                continue  # `first, *rest = xs` (ANF spells it out); `f(*args)`: idioms.py
            entry = next((t for t in node.targets if isinstance(t, gast.Subscript)), None) if cls is gast.Delete else None
            if entry is not None:
                held = printing.unparse(entry.value)
                raise program.error(
                    node, f"`del` of an entry (`{printing.unparse(entry)}`) is not supported by {transform} "
                    f"(in `{tree.name}`); remove a list's entry with `{held}.pop(i)` (`i` an integer literal), "
                    "or build a new value without it",
                )
            written = ([t for t in (node.targets if cls is gast.Assign else [node.target]) if type(t) is gast.Attribute]
                       if cls is gast.Assign or cls is gast.AugAssign else None)
            if written:
                raise program.error(
                    node, f"{'augmented ' if cls is gast.AugAssign else ''}assignment to an attribute is not supported "
                    f"by {transform} (in `{tree.name}`), here of `{printing.unparse(written[0]).strip()}`: srcgrad reads "
                    "attributes but does not follow a change of an object; keep the value in a local variable "
                    "(return it too if the caller needs it), and for a dataclass or a namedtuple make a new one "
                    "from the old one's fields, as in `p = D(pos=v, vel=p.vel)`",
                )
            if cls is gast.keyword and node.arg == "key" and isinstance(node.value, gast.Lambda):
                raise program.error(  # sorted/min/max's have been compiled by key_lambdas.py
                    node.value, f"a `lambda` as `key=` is supported by {transform} for `sorted`, `min` and `max` only "
                    f"(in `{tree.name}`); pass a function defined at module level or a builtin (`key=abs`, `key=my_key`)",
                )
            if cls is gast.Nonlocal and _nested_owner(tree, node) is not None:
                names = ", ".join(f"`{n}`" for n in node.names)
                inner, first = _nested_owner(tree, node), node.names[0]
                raise program.error(
                    node, f"`nonlocal {', '.join(node.names)}` in the nested function `{inner}` is not supported by "
                    f"{transform} (in `{tree.name}`): srcgrad does not follow a nested function's writes to "
                    f"{names} of `{tree.name}`; pass the value in and return the new one "
                    f"(`def {inner}({first}, ...): return {first} + ...`, called as `{first} = {inner}({first}, ...)`)",
                )
            if cls is gast.Call and node.args and type(node.args[0]) is gast.Lambda and folds.names_reduce(node.func, program):
                raise program.error(  # folds.py has written out each reduce a statement runs unconditionally
                    node, f"`functools.reduce` of a `lambda` inside a conditional expression, `and`/`or`, a comparison, "
                    f"a comprehension or a keyword argument is not supported by {transform} "
                    f"(in `{tree.name}`); compute it in a statement of its own first (`folded = reduce(lambda ...)`)",
                )
            if cls in (gast.Global, gast.Nonlocal):
                stored = declarations.assigned(tree)
                name = next((n for n in node.names if n in stored), None)  # declarations.py dropped the others
                if name is not None:
                    word, where = "global" if cls is gast.Global else "nonlocal", stored[name]
                    kind = "a global" if cls is gast.Global else f"a variable of the function around `{tree.name}`"
                    raise program.error(
                        node, f"`{word} {', '.join(node.names)}` is not supported by {transform} (in `{tree.name}`): "
                        f"`{tree.name}` assigns `{name}`, {kind} (line {program.line(where)}: `{program.text(where)}`), "
                        "and srcgrad differentiates a function that reads such names, not one that changes them; "
                        "pass the value in as an argument and return the new value",
                    )
            if cls is gast.FunctionDef:
                raise _def_error(program, tree, node, transform)
            if cls in _ADVICE:
                construct, advice = _ADVICE[cls]
                raise program.error(
                    node, f"{construct} is not supported by {transform} (in `{tree.name}`); {advice}"
                )
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in _OPEN_ENDED_CALLS:
                raise program.error(
                    node,
                    f"{_OPEN_ENDED_CALLS[node.func.id]} is not supported by {transform} (in `{tree.name}`); "
                    "write the code out in the function",
                )
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "super":
                raise program.error(
                    node, f"`super()` is not supported by {transform} (in `{tree.name}`); call the base class's "
                    "method by its name (`Base.method(self, ...)`), which srcgrad follows",
                )
            if isinstance(node, gast.keyword) and node.arg is None:
                raise program.error(
                    node.value, f"`**{printing.unparse(node.value).strip()}` unpacks a dict whose keys srcgrad cannot "
                    f"see in a call, which {transform} does not support (in `{tree.name}`); pass keywords one by one, or "
                    "unpack a dict written out in the function and not changed after (`opts = {'k': k}`, or a "
                    "`**kwargs` parameter, then `f(**opts)`)",
                )


def _check_walruses(program, tree, transform):
    """Refuse each walrus `y := e` that anf.py cannot turn into an assignment where Python
    evaluates it: one in a `lambda` (it binds in the lambda's own scope), an f-string, an
    `assert` or a `raise` (kept as written), or a second walrus assigning the same name
    in one statement (its value read later in the statement could be either)."""
    if not traversal.holds(tree, gast.NamedExpr):
        return
    where = f"{transform} (in `{tree.name}`)"
    for stmt in traversal.walk(tree):
        if isinstance(stmt, gast.Lambda) or isinstance(stmt, (gast.JoinedStr, gast.Assert, gast.Raise)):
            inner = next((n for n in traversal.walk(stmt) if isinstance(n, gast.NamedExpr)), None)
            if inner is not None:
                construct, advice = _WALRUS_PLACES[type(stmt)]
                raise program.error(inner, f"the walrus operator `:=` {construct} is not supported by {where}; {advice}")
        if not isinstance(stmt, gast.stmt) or isinstance(stmt, gast.FunctionDef):
            continue
        roots = [stmt.test] if isinstance(stmt, (gast.If, gast.While)) else [stmt.iter] if isinstance(stmt, gast.For) else [stmt]
        seen = set()
        for node in (n for root in roots for n in traversal.walk(root)):
            if isinstance(node, gast.NamedExpr):
                if node.target.id in seen:
                    raise program.error(
                        node, f"two walruses `{node.target.id} := ...` in one statement are not supported by {where}; "
                        "assign in separate statements",
                    )
                seen.add(node.target.id)


_RESIZING = frozenset({"append", "extend", "insert", "pop", "remove", "clear"})


def _check_loops_resizing_their_list(program, tree, transform):
    """Refuse a `for` loop whose body makes its list longer or shorter (`for v in lst:
    lst.append(...)`): Python's loop then visits a different number of entries than the
    list had when it started, and srcgrad counts a loop's trips from that length."""
    if not any(f".{method}(" in line for line in program.source_lines for method in _RESIZING):
        return  # most functions: no walk
    for loop in traversal.walk(tree):
        if not isinstance(loop, gast.For):
            continue
        iterated = {n.id for n in ([loop.iter] + (list(loop.iter.args) if isinstance(loop.iter, gast.Call) else []))
                    if isinstance(n, gast.Name)}
        for node in (n for s in loop.body for n in traversal.walk(s)):
            if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr in _RESIZING
                    and isinstance(node.func.value, gast.Name) and node.func.value.id in iterated):
                name = node.func.value.id
                raise program.error(
                    node, f"`{name}.{node.func.attr}(...)` in a loop over `{name}` is not supported by {transform} (in "
                    f"`{tree.name}`): the loop would visit a different number of entries than `{name}` had when it "
                    f"started; loop with an index instead (`i = 0`, `while i < len({name}):`, ..., `i += 1`)",
                )


_BEFORE = "assign the value in a statement of its own before it"
_WALRUS_PLACES = {
    gast.Lambda: ("inside a `lambda`", "write the lambda as a nested `def` that assigns in a statement"),
    gast.JoinedStr: ("inside an f-string", _BEFORE), gast.Assert: ("in an `assert`", _BEFORE),
    gast.Raise: ("in a `raise`", _BEFORE),
}


def imports(program, transform="srcgrad.grad"):
    """{local name: object} of the `import` statements in `program` (`import numpy as
    np`, `from math import sin`), imported now: a name an import binds means the same
    object on every path, so calls through it resolve like calls of globals
    (`Program.bound`). An import that fails is an error at its line (Python refuses
    `import *` in a function before srcgrad sees it)."""
    found = {}
    if not traversal.holds(program.tree, (gast.Import, gast.ImportFrom)):
        return found
    for node in traversal.walk(program.tree):
        if not isinstance(node, (gast.Import, gast.ImportFrom)):
            continue
        try:
            for alias in node.names:
                if isinstance(node, gast.Import):
                    module = importlib.import_module(alias.name)
                    if alias.asname:
                        found[alias.asname] = module
                    else:
                        found[alias.name.split(".")[0]] = importlib.import_module(alias.name.split(".")[0])
                    continue
                package = program.globals.get("__package__") if node.level else None
                module = importlib.import_module("." * node.level + (node.module or ""), package)
                value = getattr(module, alias.name, None)
                if value is None:
                    value = importlib.import_module(f"{module.__name__}.{alias.name}")
                found[alias.asname or alias.name] = value
        except ImportError as exc:
            raise program.error(node, f"cannot import in `{program.name}`: {exc}") from None
    return found


_VIEW_METHODS = {"reshape", "ravel", "transpose", "swapaxes", "squeeze", "view", "T"}


def _shares_memory(value):
    """The local name whose memory the expression `value` may share (`a`, `a[1:]`, `a.T`,
    `a.reshape(...)`), or None."""
    if isinstance(value, gast.Name):
        return value.id
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        return value.value.id if any(isinstance(p, gast.Slice) for p in parts) else None
    if isinstance(value, gast.Attribute) and value.attr == "T" and isinstance(value.value, gast.Name):
        return value.value.id
    if (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr in _VIEW_METHODS and isinstance(value.func.value, gast.Name)):
        return value.func.value.id
    return None


def shared_augmented(program):
    """`b = a; b += 1` changes `a` too when they are arrays (not when they are floats);
    srcgrad computes `b = b + 1`. Returns {(line, column) of such an augmented assignment:
    [(other name, the located error a failed check raises)]} for each name that may share memory with its target and is
    read afterwards, and for each argument it may still be; the generated code checks at
    run time that they do not. Every other augmented assignment that may change memory
    still in use is refused here (sharing.py)."""
    tree = program.tree
    if not traversal.holds(tree, gast.AugAssign):
        return {}
    found, guards = _alias_checks(program, tree)
    for key, checks in sharing.check(program, tree, guards).items():
        found.setdefault(key, []).extend(checks)
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(traversal.names_stored(tree))
    for nested in tree.body:
        if isinstance(nested, gast.FunctionDef) and traversal.holds(nested, gast.AugAssign):
            sharing.check(program, nested, {}, local)  # refuses or accepts: no check guards a nested def
    return found


def _alias_checks(program, tree):
    """The run-time checks for `b op= ...` after `b = <view of a>` (or `a = <view of b>`)
    when the other name is read afterwards: ({(line, column): [(other, located error)]},
    {(line, column): [(other, the assignment)]} for the checks that guard the statement
    because its target is the view)."""
    found, guards = {}, {}
    pairs = []
    for node in _assignments(tree):
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            other = _shares_memory(node.value)
            if other is not None and other != node.targets[0].id:
                pairs.append((node.targets[0].id, other, node))
    if not pairs:
        return found, guards
    loops = [n for n in traversal.walk(tree) if isinstance(n, (gast.For, gast.While))]
    for node in traversal.walk(tree):
        if not (isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name)):
            continue
        name = node.target.id
        for a, b, made in pairs:
            if name not in (a, b) or _position(made) > _position(node):
                continue  # `made` after the change (a later `try` block's value too): no alias yet, and `other` unbound
            other = b if name == a else a
            later = [n for n in traversal.walk(tree) if isinstance(n, gast.Name) and n.id == other
                     and isinstance(n.ctx, gast.Load) and n.lineno > node.lineno]
            around = [n for loop in loops if node in list(traversal.walk(loop)) for n in traversal.walk(loop)
                      if isinstance(n, gast.Name) and n.id == other and isinstance(n.ctx, gast.Load)]
            if later or around:
                message = (
                    f"`{program.text(node)}` ({program.filename}, line {program.line(node)}) changes the array "
                    f"`{name}` in place, and `{name}` shares memory with `{other}` (line {program.line(made)}: "
                    f"`{program.text(made)}`), which is read afterwards (in `{tree.name}`): NumPy changes both, "
                    f"which srcgrad cannot differentiate. Write `{name} = {name} "
                    f"{printing.operator_text(node.op)} ...` for a new array, or copy first (`.copy()`)"
                )
                found.setdefault((node.lineno, node.col_offset), []).append(
                    (other, program.error(node, message, NotDifferentiableError)))
                if name == a:  # `name = <view of other>`: the check guards the statement
                    guards.setdefault((node.lineno, node.col_offset), []).append((other, made))
    return found, guards


def _position(node):
    """Where `node` starts in the source: (line, column); (0, 0) where it has no location."""
    return getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0


def _assignments(tree):
    """The `Assign` statements under `tree`, in `traversal.walk`'s (breadth-first) order:
    statements lie in statement lists only, so the walk goes through those alone."""
    found, todo = [], collections.deque([tree])
    pop, extend, assign, holders = todo.popleft, todo.extend, gast.Assign, _HOLDERS
    while todo:
        n = pop()
        if isinstance(n, assign):
            found.append(n)
            continue  # an assignment holds no statements
        values = n.__dict__
        for field in type(n)._fields:
            value = values.get(field)
            if type(value) is list:
                extend([v for v in value if isinstance(v, holders)])
    return found


# the nodes that statements lie under
_HOLDERS = (gast.stmt, gast.excepthandler) + ((gast.match_case,) if hasattr(gast, "match_case") else ())


def _def_error(program, tree, node, transform):
    """The error for a `def` that block_defs.py left in place: inside a nested function, or
    in a block under a name bound otherwise too (or, defined in several places, used as a
    value or calling itself)."""
    owner = _nested_owner(tree, node)
    if owner is not None:
        return program.error(node, f"a `def` inside the nested function `{owner}` is not supported by {transform} "
                             f"(in `{tree.name}`); define `{node.name}` at the top of `{tree.name}` or at module level, "
                             f"or, where `{owner}` is a factory whose body is this `def` and its `return`, call it only "
                             f"as `f = {owner}(...)` statements at the top level of `{tree.name}` (each name assigned "
                             "once), then call `f`")
    return program.error(
        node, f"a `def` inside a block whose name `{node.name}` is also bound another way (an assignment, a "
        f"parameter, a loop target, an import), or that is defined in several places and used other than called "
        f"(stored, passed, called from its own body), is not supported by {transform} (in `{tree.name}`); give each "
        f"function a name of its own, or choose between them with `if`/`else` around their calls",
    )


def _checked_nodes(stmt):
    """The nodes of a top-level statement to check, in `gast.walk`'s order: those under
    `_checked_roots(stmt)`, but the names and constants and the `ctx` and operator nodes,
    which `check` looks for none of (traversal.inner_nodes)."""
    return [n for root in _checked_roots(stmt) for n in traversal.inner_nodes(root)]


def _checked_roots(stmt):
    """What to check of a top-level statement. A nested `def` or `name = lambda` at the
    top level is allowed (closures.py inlines it): its own body is checked, not itself."""
    if isinstance(stmt, gast.FunctionDef):
        return stmt.body
    if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda):
        return [stmt.value.body]
    return [stmt]


