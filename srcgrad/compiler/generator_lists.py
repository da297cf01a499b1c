"""A generator function of the user's as the function returning the list of what it yields.

Before:                                  After (`pairs` listed):
    def pairs(v):                            def pairs(v):
        for i in range(len(v) - 1):              yielded = []
            yield v[i], v[i + 1]                 for i in range(len(v) - 1):
                                                     yielded.append((v[i], v[i + 1]))
                                                 return yielded

`yield v` appends `v`, `yield from it` extends by `it`, `return` returns the list.
Where a call is read whole right where it is made (generator_calls.py decides that), the
list is what the consumer iterates over, so the rest of the pipeline sees ordinary
list-building code. That is only the same computation when running the generator ahead of
its consumer cannot be seen, so `listed` refuses (at the generator's line) a body that:
- uses `yield` as a value (`x = yield v`: what `send` passes in);
- yields inside `try` or `with` (their `finally` and exit would run before the consumer);
- has a `while` loop other than `while i < n:` (`<=`, `>`, `>=`) of a counter its body
  steps by a constant in its own block, toward `n`, which the loop does not assign (it may
  not end where a consumer stops reading);
- changes anything outside itself: `global`, `nonlocal`, an item or attribute of a
  parameter or of a variable it does not make, a mutating method of one (its consumer
  could see the change between items).

`listing(gen)` is the listed function (interned per generator and code): compiled from
the listed tree under the user's file name and lines, with the generator's globals,
closure cells and defaults, so a call of it computes what the tree says. frontend.load
gives its program as the generator's, with the listed tree (`generator_of`).
"""

import ast
import inspect
import types
import weakref

import gast

from ..errors import SrcGradError
from . import printing, syntax, traversal

_LISTINGS = weakref.WeakKeyDictionary()  # generator -> (its code, its listing)

# methods that change the object they are called on (lists, dicts, sets, arrays)
MUTATING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault",
                       "add", "discard", "popitem", "fill", "resize", "put", "itemset", "setflags", "partition"})


def is_generator_function(obj):
    """Whether `obj` is a plain Python generator function (not async)."""
    return isinstance(obj, types.FunctionType) and bool(obj.__code__.co_flags & inspect.CO_GENERATOR)


def generator_of(fn):
    """(the generator function `fn` lists, the name of its list) where `fn` is a listing; else None."""
    found = getattr(fn, "__srcgrad_listed__", None)
    if found is None or getattr(fn, "__code__", None) is not found[0]:
        return None
    gen = found[1]()
    return None if gen is None else (gen, found[2])


def listing(gen, program):
    """The listed function of the generator function `gen` (its `program`, frontend.Program)."""
    made = _LISTINGS.get(gen)
    if made is not None and made[0] is gen.__code__:
        return made[1]
    tree, list_name = listed(program)
    code = _compiled(tree, program, gen)
    fn = types.FunctionType(code, gen.__globals__, gen.__name__, gen.__defaults__, gen.__closure__)
    fn.__kwdefaults__ = gen.__kwdefaults__
    fn.__qualname__, fn.__doc__, fn.__module__ = gen.__qualname__, gen.__doc__, gen.__module__
    fn.__srcgrad_listed__ = (code, weakref.ref(gen), list_name)
    _LISTINGS[gen] = (gen.__code__, fn)
    return fn


def listed(program, definition=None):
    """(the generator `definition` (default `program.tree`, a `def` in it otherwise) as a
    function returning the list of what it yields, the name of that list); the parse stays
    as it was. Raises the refusals above at `program`'s lines."""
    tree = syntax.copy(definition or program.tree)
    program = _Where(program, tree.name)
    taken = {n.id for n in traversal.walk(tree) if isinstance(n, gast.Name)} | {a.id for a in tree.args.args + tree.args.kwonlyargs}
    list_name = next(n for n in ("yielded", *(f"yielded_{k}" for k in range(1, 100))) if n not in taken)
    _refuse_effects(tree, program)
    body = tree.body
    docstring = body[:1] if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) \
        and isinstance(body[0].value.value, str) else []
    rest = _block(body[len(docstring):], list_name, program, guarded="top")
    start = syntax.located(syntax.assign(list_name, syntax.list_([])), tree.body[0] if tree.body else tree)
    end = syntax.located(syntax.return_(syntax.name(list_name)), tree.body[-1] if tree.body else tree)
    tree.body = docstring + [start] + rest + ([] if rest and isinstance(rest[-1], gast.Return) else [end])
    return tree, list_name


def _block(stmts, list_name, program, guarded):
    """`stmts` with each `yield` statement appending and each `return` returning the list;
    `guarded` is the `try`/`with` statement they are in, if any, "top" for the function's own block."""
    out = []
    for s in stmts:
        if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
            out.append(s)  # its yields are its own
            continue
        value = s.value if isinstance(s, gast.Expr) else None
        if isinstance(value, (gast.Yield, gast.YieldFrom)):
            if guarded not in (None, "top"):
                raise _refusal(program, s, f"`yield` inside `{'with' if isinstance(guarded, gast.With) else 'try'}`",
                               "its exit or `finally` would run before the consumer reads the items; yield after the block")
            method = "append" if isinstance(value, gast.Yield) else "extend"
            item = value.value if value.value is not None else syntax.const(None)
            s = syntax.located(syntax.expr(syntax.call(syntax.attr(syntax.name(list_name), method), [item])), s)
            _refuse_yield_values(s, program)
            out.append(s)
            continue
        if isinstance(s, gast.Return):
            if s.value is not None and not (syntax.is_const(s.value) or isinstance(s.value, gast.Name)):
                raise _refusal(program, s, "`return` of a value", "a consumer never sees it; write `return`")
            # returned early: a copy, so that no second name holds the list the loop goes on appending to
            value = syntax.name(list_name) if guarded == "top" else syntax.call(syntax.name("list"), [syntax.name(list_name)])
            out.append(syntax.located(syntax.return_(value), s))
            continue
        if isinstance(s, gast.While):
            _refuse_unbounded(s, program)
        _refuse_yield_values(s, program, own_blocks=True)
        inner = s if isinstance(s, (gast.Try, gast.With)) else None if guarded == "top" else guarded
        for block in traversal.blocks_in(s):
            block[:] = _block(block, list_name, program, inner)
        out.append(s)
    return out


def _refuse_yield_values(stmt, program, own_blocks=False):
    """Refuse a `yield` used as a value in `stmt` (with `own_blocks`, in its own fields
    only: the statements of its blocks are rewritten one by one)."""
    blocks = {id(b) for b in traversal.blocks_in(stmt)} if own_blocks else set()
    todo = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.Yield, gast.YieldFrom)):
            raise _refusal(program, node, "`yield` used as a value", "srcgrad runs the generator ahead of its consumer, "
                           "so nothing is sent in; yield as a statement")
        if node is not stmt and isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        for field in traversal.child_fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                if id(value) not in blocks:
                    todo += [v for v in value if isinstance(v, gast.AST)]
            elif isinstance(value, gast.AST):
                todo.append(value)


def _refuse_unbounded(loop, program):
    """Refuse a `while` loop other than `while i < n:` whose own block steps `i` by a
    constant toward `n` (the loop assigning neither otherwise, nor `continue`-ing past it)."""
    test, why = loop.test, None
    ops = {gast.Lt: 1, gast.LtE: 1, gast.Gt: -1, gast.GtE: -1}
    if not (isinstance(test, gast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in ops):
        why = "`while True`" if syntax.is_const(test) and test.value is True else "a `while` loop"
    else:
        counter, bound, direction = test.left, test.comparators[0], ops[type(test.ops[0])]
        if not isinstance(counter, gast.Name):
            counter, bound, direction = bound, counter, -direction
        steps = [s for s in loop.body if isinstance(s, gast.AugAssign) and syntax.is_name(s.target, getattr(counter, "id", None))
                 and type(s.op) in (gast.Add, gast.Sub) and isinstance(s.value, gast.Constant)
                 and type(s.value.value) in (int, float) and s.value.value > 0]
        stored = [n for s in loop.body for n in traversal.walk(s) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)]
        step_up = steps and (1 if isinstance(steps[0].op, gast.Add) else -1) == direction
        if not (isinstance(counter, gast.Name) and len(steps) == 1 and step_up
                and sum(1 for n in stored if n.id == counter.id) == 1
                and not {n.id for n in stored} & set(traversal.names_read(bound))
                and not any(isinstance(n, gast.Continue) for s in loop.body for n in traversal.walk(s))):
            why = "a `while` loop"
    if why is not None:
        raise _refusal(program, loop, why, "it may go on past the items its consumer reads, which Python would not run; "
                       "loop over `range(...)`, or step a counter toward a bound: `while i < n: ... i += 1`")


def _refuse_effects(tree, program):
    """Refuse a generator that changes what is outside it (see the module docstring)."""
    made = {n.id for n in traversal.walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    made -= {a.id for a in tree.args.args + tree.args.kwonlyargs}
    for node in traversal.walk(tree):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            raise _refusal(program, node, f"`{type(node).__name__.lower()}`",
                           "the generator would change a variable outside it before its consumer reads the items")
        targets = node.targets if isinstance(node, gast.Assign) else [node.target] if isinstance(node, gast.AugAssign) else []
        changed = [root(t) for t in targets if isinstance(t, (gast.Subscript, gast.Attribute))]
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr in MUTATING:
            changed.append(root(node.func.value))
        outside = next((r for r in changed if r is not None and r not in made), None)
        if outside is not None:
            raise _refusal(program, node, f"a change of `{outside}`",
                           "the generator would change it before its consumer reads the items; change a copy it makes")


def root(node):
    """The name an attribute or item chain starts at, or None."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


class _Where:
    """A program's lines, for the refusals of one generator `def` in it named `name`."""

    def __init__(self, program, name):
        self.program, self.name = program, name


def _refusal(where, node, construct, why):
    return where.program.error(
        node, f"{construct} in the generator `{where.name}` is not supported: srcgrad computes a generator that "
        f"a differentiated function reads whole as the list of what it yields, and {why}",
    )


def _compiled(tree, program, gen):
    """The code object of the listed `tree`, at the user's lines, with `gen`'s free variables."""
    free = gen.__code__.co_freevars
    inner = syntax.copy(tree)
    inner.name = next(n for n in (f"_listed_{k}" for k in range(100)) if n not in free)  # its own name stays a global
    outer = syntax.function_def("_listing", [], [syntax.assign(name, syntax.const(None)) for name in free] + [inner])
    module = syntax.parse("")
    module.body = [outer]
    python = printing.to_python_ast(module)
    ast.fix_missing_locations(python)
    ast.increment_lineno(python, program.first_line - 1)
    made = compile(python, program.filename, "exec", dont_inherit=True)
    outer_code = next(c for c in made.co_consts if isinstance(c, types.CodeType))
    code = next(c for c in outer_code.co_consts if isinstance(c, types.CodeType) and c.co_name == inner.name)
    code = code.replace(co_name=gen.__code__.co_name, **({"co_qualname": gen.__code__.co_qualname}
                                                         if hasattr(code, "co_qualname") else {}))
    if code.co_freevars != free:
        raise SrcGradError(f"the generator `{gen.__name__}` could not be listed: its free variables changed "
                           f"({code.co_freevars} for {free})")
    return code
