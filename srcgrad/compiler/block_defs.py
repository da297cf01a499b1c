"""A `def` inside a block of the function (a branch of an `if`, a loop's body, a `try` or
`with` block) moved to the top of the function, where closures.py inlines it at its
calls; where a name has several, each call calls the one that ran last.

Before:                                    After:
    if mode == "tanh":                         def act(t):
        def act(t):                                return np.tanh(t)
            return np.tanh(t)                  def act_1(t):
    else:                                          return t * t
        def act(t):                            if mode == "tanh":
            return t * t                           act_chosen = 0
    y = act(x)                                 else:
                                                   act_chosen = 1
                                               y = act(x) if act_chosen == 0 else act_1(x)

    for i in range(3):                         def f(t):
        def f(t):                                  return t * i
            return t * i                       for i in range(3):
        s = s + f(x)                               s = s + f(x)

The code of a `def` is the same each time it runs; what changes is the enclosing
function's variables, which a Python closure reads when it is called (late binding),
as the body inlined at the call does: `f(x)` above reads the `i` of its iteration. So
moving the `def` changes nothing but which of several defs of one name a call means,
which the flag set where each one stood tells (the test of function_choices.py).

Only where every binding of the name is such a `def` (no assignment, parameter, loop
target or import of it, none in a nested function), and, for several defs, the name is
read only as the function of a call and no def calls it. A `def` inside a nested
function, or one that breaks these, stays where it is, for fence.py to refuse. A
`name = lambda ...` in a block is the `def` it means (`as_function`), and moves as one. Returns
a new tree where it moves anything, the same tree otherwise.
"""

import gast

from . import syntax, traversal
from .function_choices import chosen_call, read_other_than_called, store_counts

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)


def run(program):
    """`program.tree` with the defs inside its blocks moved to its top (module doc)."""
    tree = program.tree
    if not any(type(s) is gast.FunctionDef or as_function(s) is not None for block in inner_blocks(tree) for s in block):
        return tree
    tree = syntax.copy(tree)
    blocks = inner_blocks(tree)
    for block in blocks:  # `f = lambda v: ...` in a block: the def it means
        block[:] = [as_function(s) or s for s in block]
    defs = {}  # name -> [(block, def)], in the order of the source
    for block in [tree.body] + blocks:
        for s in block:
            if type(s) is gast.FunctionDef:
                defs.setdefault(s.name, []).append((block, s))
    inner = {id(s) for block in blocks for s in block}
    counts, params = store_counts(tree), {a.id for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
    read = read_other_than_called(tree)
    namer = program.helper_namer()
    namer.taken |= set(traversal.names_stored(tree)) | params
    moved, chosen = [], {}
    for name, found in defs.items():
        if not any(id(d) in inner for _, d in found) or name in params or counts.get(name) != len(found):
            continue
        if len(found) == 1:
            block, d = found[0]
            block.remove(d)
            moved.append(d)
            continue
        if name in read or any(syntax.is_name(n.func, name) for _, d in found for n in traversal.walk(d)
                               if type(n) is gast.Call):
            continue
        flag, leaves = namer.fresh(f"{name}_chosen"), []
        for number, (block, d) in enumerate(found):
            block[block.index(d)] = syntax.located(syntax.assign(flag, syntax.const(number)), d)
            d.name = name if number == 0 else namer.fresh(name)
            leaves.append(syntax.name(d.name))
            moved.append(d)
        chosen[name] = (flag, leaves)
    if not moved:
        return program.tree
    for block in blocks:
        if not block:
            block.append(syntax.pass_())
    tree.body = moved + [s for s in tree.body if s not in moved] or [syntax.pass_()]
    return traversal.rewrite(tree, {gast.Call: lambda call: chosen_call(call, chosen)}) if chosen else tree


def as_function(stmt):
    """The `def` that `name = lambda ...: e` (the statement `stmt`) means, `def name(...):
    return e` at its line; None for any other statement."""
    if (type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name
            and type(stmt.value) is gast.Lambda):
        lam = stmt.value
        fn = gast.FunctionDef(name=stmt.targets[0].id, args=lam.args, body=[syntax.return_(lam.body)],
                              decorator_list=[], returns=None, type_comment=None, type_params=[])
        return syntax.located(fn, stmt)
    return None


def inner_blocks(function):
    """The statement lists inside the function (its body itself excluded), outside nested
    functions and classes."""
    return [block for s in function.body for block in _blocks_of(s)]


def _blocks_of(stmt):
    if isinstance(stmt, _SCOPES):
        return
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
            yield block
            for s in block:
                yield from _blocks_of(s)
    for holder in list(getattr(stmt, "handlers", None) or ()) + list(getattr(stmt, "cases", None) or ()):
        yield holder.body
        for s in holder.body:
            yield from _blocks_of(s)
