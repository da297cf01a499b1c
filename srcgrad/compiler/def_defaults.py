"""Default values of nested functions evaluated where their `def` runs, as Python does.

Before:                                    After:
    def g(v, k=k):                             g_k_default = k
        return v * k                           def g(v, k=g_k_default):
    k = 3.0                                        return v * k
    y = g(x)                                   k = 3.0
                                               y = g(x)

closures.py inlines a nested function at its calls, where a default written as an
expression would be evaluated again, reading the enclosing variables as they are then
(and making a new `[]` each call). Each default that reads a variable of the function or
builds an object (a display, a comprehension, a call) is assigned, just before its
`def` (or `name = lambda ...`), to a fresh name that nothing else assigns, and the
default reads that name: later rebinding of `k` does not change it, and a mutable
default is one object every call shares. The names are recorded in
`program.default_names`; closures.py accepts them as defaults. Only the defs of the
function's body and its blocks are rewritten (not those inside nested functions).
Returns a new tree where it rewrites anything, the same tree otherwise.
"""

import gast

from . import block_defs, syntax, traversal

_BUILDS = (gast.List, gast.Dict, gast.Set, gast.ListComp, gast.DictComp, gast.SetComp, gast.GeneratorExp, gast.Call)


def run(program):
    """`program.tree` with its nested functions' defaults evaluated at their defs (module doc)."""
    tree = program.tree
    blocks = [tree.body] + block_defs.inner_blocks(tree)
    if not any(_defines(s) for block in blocks for s in block):
        return tree
    outer = _outer(tree)
    if not any(_held(s, outer)[0] is not None for block in blocks for s in block):
        return tree
    tree = syntax.copy(tree)
    outer = _outer(tree)
    namer = program.helper_namer()
    namer.taken |= outer
    made = set(program.default_names)
    for block in [tree.body] + block_defs.inner_blocks(tree):
        for s in list(block):
            args, name = _held(s, outer)
            if args is None:
                continue
            positional = args.args[len(args.args) - len(args.defaults):]
            pairs = [(p, i, args.defaults) for i, p in enumerate(positional)]
            pairs += [(p, i, args.kw_defaults) for i, p in enumerate(args.kwonlyargs)]
            at = block.index(s)
            for param, i, defaults in pairs:
                if _evaluated(defaults[i], outer):
                    held = namer.fresh(f"{name}_{param.id}_default")
                    block.insert(at, syntax.located(syntax.assign(held, defaults[i]), s))
                    at += 1
                    defaults[i] = syntax.located(syntax.name(held), defaults[i])
                    made.add(held)
    program.default_names = frozenset(made)
    return tree


def _outer(tree):
    """The names of the function's own variables: its parameters and what it assigns."""
    args = tree.args
    params = {a.id for a in args.args + args.kwonlyargs + list(getattr(args, "posonlyargs", None) or ())}
    params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    return params | set(traversal.names_stored(tree))


def _defines(stmt):
    """Whether `stmt` is a `def` or `name = lambda ...` (what `_held` may answer for)."""
    return type(stmt) is gast.FunctionDef or (type(stmt) is gast.Assign and type(stmt.value) is gast.Lambda)


def _held(stmt, outer):
    """(the arguments node, the function's name) of a `def` or `name = lambda ...`
    statement with a default to evaluate at its def; (None, None) for any other."""
    if type(stmt) is gast.FunctionDef:
        args, name = stmt.args, stmt.name
    elif (type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name
          and type(stmt.value) is gast.Lambda):
        args, name = stmt.value.args, stmt.targets[0].id
    else:
        return None, None
    if any(d is not None and _evaluated(d, outer) for d in args.defaults + args.kw_defaults):
        return args, name
    return None, None


def _evaluated(default, outer):
    """Whether a default means something else evaluated at a call than at its def: it
    reads a variable of the function, or builds an object."""
    return not syntax.is_const(default) and any(
        isinstance(n, _BUILDS) or (isinstance(n, gast.Name) and n.id in outer) for n in gast.walk(default))
