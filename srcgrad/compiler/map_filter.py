"""`map` and `filter` as the list comprehensions they stand for, and `zip` and
`enumerate` read whole into a list, tuple or dict as comprehensions too.

Before:                                        After:
    ys = list(map(lambda v: v * w, xs))            ys = list([v * w for v in xs])
    s = sum(map(f, xs, zs))                        s = sum([f(item, item_1) for item, item_1 in zip(xs, zs)])
    for p in filter(lambda v: v > 0, xs):          for p in [v for v in xs if v > 0]:
    d = dict(zip(names, vals))                     d = {item: item_1 for item, item_1 in zip(names, vals)}
    ps = list(enumerate(xs))                       ps = list([(item, item_1) for item, item_1 in enumerate(xs)])

A `map` or `filter` call is rewritten where its iterator is read once, whole, right
there: as an argument of a builtin that reads an iterable through (`list`, `sum`,
`sorted`, ...; not NumPy's, which take no iterator), as the iterable of a `for` loop or a
comprehension, or unpacked (`a, b = map(float, xs)`). Elsewhere the iterator could be
read in part or twice, and the call stays (no rule: refused where it is differentiated).
The function is a `lambda` of plain parameters, one per iterable (its body becomes the
element; its parameters the comprehension's targets, which are local to it as they were
to the lambda), or a name (`f`, `np.exp`, a nested function), which means the same object
at each element. `map` and `filter` must mean the builtins. `zip` (`strict=` kept on
the comprehension's `zip`) and `enumerate` are rewritten only as the one argument of `list`, `tuple` or `dict`: a
`for` loop and a comprehension read them as they are. Returns a new tree; the parse
stays as it was.
"""

import builtins
import itertools
import math

import gast
import numpy as np

from . import syntax, traversal
from .scope import dotted_parts, lookup_path

# functions that read an iterable argument through, once, and keep no iterator (not NumPy's:
# `np.array(map(...))` is a 0-d object array holding the iterator, and `np.stack` of one a TypeError)
_READ_THROUGH = (
    builtins.list, builtins.tuple, builtins.sum, builtins.sorted, builtins.min, builtins.max, builtins.any,
    builtins.all, builtins.enumerate, builtins.zip, math.fsum, math.prod,
)


def run(program):
    """`program.tree` with the calls described above rewritten (the same tree when there are none)."""
    tree = program.tree
    if not any(word in line for line in program.source_lines for word in _WORDS):
        return tree  # most functions: no walk
    if not any(_may_rewrite(n) for n in traversal.nodes(tree)):
        return tree
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(traversal.names_stored(tree))
    builtin = {name for name in _ITERATORS
               if name not in local and lookup_path([name], program) is getattr(builtins, name)}
    if not builtin:
        return tree
    tree = syntax.copy(tree)
    taken = {n.id for n in traversal.nodes(tree) if isinstance(n, gast.Name)}
    rewriter = _Rewriter(program, builtin, local, taken, traversal.guarded_loops(tree.body))
    if "map" in builtin or "filter" in builtin:
        for n in list(traversal.nodes(tree)):
            rewriter.visit(n)
    if "zip" in builtin or "enumerate" in builtin:
        tree = traversal.rewrite(tree, {gast.Call: rewriter.whole})
    return tree


def _may_rewrite(node):
    """Whether `node` is spelled as a call this pass rewrites (`map(...)`, `list(zip(...))`)."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)):
        return False
    if node.func.id in ("map", "filter"):
        return True
    inner = node.args[0] if len(node.args) == 1 else None
    return (node.func.id in _COLLECTORS and isinstance(inner, gast.Call)
            and isinstance(inner.func, gast.Name) and inner.func.id in _READ_WHOLE)


_READ_WHOLE = ("zip", "enumerate")  # rewritten only where read whole into one of:
_COLLECTORS = {"list": builtins.list, "tuple": builtins.tuple, "dict": builtins.dict}
_ITERATORS = ("map", "filter") + _READ_WHOLE
_WORDS = tuple(f"{name}(" for name in _ITERATORS)


class _Rewriter:
    def __init__(self, program, builtin, local, taken, guarded):
        self.program, self.builtin, self.local, self.taken = program, builtin, local, taken
        # `for` loops in a `try` body: a list made before the loop would raise before the
        # loop used the items before the one raising (attempts.py refuses the call)
        self.guarded = guarded

    def visit(self, node):
        """Rewrite the `map`/`filter` calls that `node` reads once, whole (changed in place)."""
        if isinstance(node, gast.For) and id(node) in self.guarded:
            return
        if isinstance(node, (gast.For, gast.comprehension)):
            node.iter = self.rewritten(node.iter)
        elif isinstance(node, gast.Assign) and isinstance(node.targets[0], (gast.Tuple, gast.List)):
            node.value = self.rewritten(node.value)
        elif isinstance(node, gast.Call) and self.reads_through(node.func):
            node.args = [self.rewritten(a) for a in node.args]

    def reads_through(self, func):
        parts = dotted_parts(func)
        if parts is None or (parts[0] in self.local and parts[0] not in self.program.bound):
            return False
        found = lookup_path(parts, self.program)
        return any(found is f for f in _READ_THROUGH)

    def rewritten(self, node):
        """The comprehension `node` stands for, or `node` itself."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in self.builtin
                and node.func.id != "zip" and not node.keywords and len(node.args) >= 2
                and not any(isinstance(a, gast.Starred) for a in node.args)):
            return node
        function, iterables = node.args[0], node.args[1:]
        if node.func.id == "filter" and len(iterables) != 1:
            return node
        if len(iterables) > 1 and "zip" not in self.builtin:
            return node
        if isinstance(function, gast.Lambda):
            args = function.args
            if (args.vararg or args.kwarg or args.kwonlyargs or args.defaults or getattr(args, "posonlyargs", None)
                    or len(args.args) != len(iterables)):
                return node
            names, body = [a.id for a in args.args], function.body
        elif dotted_parts(function) is not None or (node.func.id == "filter" and syntax.is_const(function)
                                                    and function.value is None):
            names = self.fresh(len(iterables))
            body = (syntax.name(names[0]) if isinstance(function, gast.Constant)
                    else syntax.call(syntax.copy(function), [syntax.name(n) for n in names]))
        else:
            return node
        target = (syntax.name(names[0], store=True) if len(names) == 1
                  else syntax.tuple_([syntax.name(n, store=True) for n in names], store=True))
        iterable = iterables[0] if len(iterables) == 1 else syntax.call(syntax.name("zip"), iterables)
        element = body if node.func.id == "map" else syntax.name(names[0])
        ifs = [body] if node.func.id == "filter" else []
        made = syntax.located(syntax.list_comprehension(element, target, iterable, ifs), node)
        self.visit(made.generators[0])  # `map(f, map(g, xs))`
        return made

    def whole(self, node):
        """`dict(zip(a, b))` as a dict comprehension, `list(zip(a, b))` (and `tuple`, and of
        `enumerate(a)`) of a list comprehension, or `node` itself."""
        if not (_may_rewrite(node) and node.func.id not in ("map", "filter") and not node.keywords):
            return node
        inner = node.args[0]
        strict = inner.func.id == "zip" and [k.arg for k in inner.keywords] == ["strict"]  # kept on the loop's zip
        if not (inner.func.id in self.builtin and (strict or not inner.keywords) and inner.args
                and not any(isinstance(a, gast.Starred) for a in inner.args)):
            return node
        collector = self.collector(node.func)
        count = len(inner.args) if inner.func.id == "zip" else 2
        if collector is None or (count != 2 and collector is builtins.dict):
            return node  # not the builtin; or a dict, which is made of pairs
        names = self.fresh(count)
        target = syntax.tuple_([syntax.name(n, store=True) for n in names], store=True)
        if collector is builtins.dict:
            made = syntax.dict_comprehension(syntax.name(names[0]), syntax.name(names[1]), target, inner)
            return syntax.located(made, node)
        element = syntax.tuple_([syntax.name(n) for n in names])
        node.args = [syntax.located(syntax.list_comprehension(element, target, inner), inner)]
        return node

    def collector(self, func):
        """The builtin `list`, `tuple` or `dict` that the name `func` means, else None."""
        if func.id in self.local and func.id not in self.program.bound:
            return None
        builtin = _COLLECTORS[func.id]
        return builtin if lookup_path([func.id], self.program) is builtin else None

    def fresh(self, count):
        """`count` names the function does not use, for the elements (`item`, `item_1`, ...):
        each comprehension's own, as its targets are local to it."""
        names = (f"item_{k}" if k else "item" for k in itertools.count())
        return list(itertools.islice((name for name in names if name not in self.taken), count))
