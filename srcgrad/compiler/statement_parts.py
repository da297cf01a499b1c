"""The expressions of a statement outside its blocks, as the passes that compute parts of
a statement before it (sorted_loops.py, vectorized_calls.py) walk and replace them.

`expressions(s)` yields each node of the statement `s` (its target, value, test,
iterable; not the statements of its blocks, nor those of a nested function) with
whether it may run later, more than once or not at all (inside a lambda, a
comprehension, a conditional expression, `and`/`or`, or a `while` loop's test): outer
nodes before the nodes inside them, siblings in source order. `replace(s, {id: node})`
puts the new nodes in place of the old ones.
"""

import gast

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)
DEFERRED = (gast.Lambda, gast.IfExp, gast.BoolOp) + _COMPREHENSIONS
_BLOCKS = ("body", "orelse", "finalbody", "handlers")


def expressions(s):
    """(node, whether it may run later, more than once or not at all), as above."""
    repeated = {"test"} if isinstance(s, gast.While) else set()
    todo = [(getattr(s, f), f in repeated) for f in reversed(s._fields) if f not in _BLOCKS]
    while todo:
        node, deferred = todo.pop()
        if isinstance(node, list):
            todo += [(n, deferred) for n in reversed(node)]
            continue
        if not isinstance(node, gast.AST) or isinstance(node, gast.stmt):
            continue
        yield node, deferred
        inner = deferred or isinstance(node, DEFERRED)
        todo += [(getattr(node, f), inner) for f in reversed(node._fields)]


def replace(s, replacements):
    """Replace, in the fields of the statement `s` outside its blocks, each node whose id
    is a key of `replacements` by its value."""
    def replaced(value):
        if isinstance(value, list):
            return [replaced(v) for v in value]
        if not isinstance(value, gast.AST) or isinstance(value, gast.stmt):
            return value
        if id(value) in replacements:
            return replacements[id(value)]
        for field in value._fields:
            setattr(value, field, replaced(getattr(value, field)))
        return value

    for field in s._fields:
        if field not in _BLOCKS:
            setattr(s, field, replaced(getattr(s, field)))
