"""The only module that knows the order of the stages.

source -> parse (frontend) -> check (fence) -> jumps -> ANF -> versions -> resolve ->
activity -> reverse -> optimize -> emit -> load -> cache. With `verbose`, the code after
each stage is printed.
"""

from dataclasses import dataclass

import gast

from . import activity, anf, cache, emit, fence, frontend, jumps, load, optimize, resolve, reverse, syntax, versions
from .naming import Namer

MODES = ("grad", "value_and_grad", "vjp", "pullback")
_BUILDING = set()  # (function, key) pairs being derived right now (recursive calls)


@dataclass(frozen=True)
class Derivative:
    """A generated derivative: the live function and its source text."""

    function: object
    source: str
    name: str


def derive(fn, mode="grad", wrt=(0,), verbose=False, source=None):
    """The derivative of `fn` in `mode` with respect to the parameter positions `wrt`.

    `wrt` is an int (one gradient) or a tuple of ints (a tuple of gradients).
    """
    key = (mode, wrt)
    found = cache.get(fn, key)
    if found is not None:
        return found
    _BUILDING.add((fn, key))
    try:
        return _derive(fn, mode, wrt, verbose, source, key)
    finally:
        _BUILDING.discard((fn, key))


def pullback_of(fn, positions):
    """The pullback of the user function `fn` for its parameters `positions`.

    A function that is being derived right now (recursion) gets a stand-in that finds
    the finished pullback at its first call.
    """
    if (fn, ("pullback", positions)) in _BUILDING:
        return _Pending(fn, positions)
    return derive(fn, "pullback", positions).function


class _Pending:
    """Calls the pullback of a function whose derivation had not finished when it was bound."""

    def __init__(self, fn, positions):
        self.fn, self.positions = fn, positions
        self.__name__ = f"{fn.__name__}_pullback"

    def __call__(self, *args, **kwargs):
        return derive(self.fn, "pullback", self.positions).function(*args, **kwargs)


def _derive(fn, mode, wrt, verbose, source, key):
    program = frontend.load(fn, source=source)
    fence.check(program, _transform_name(mode))
    tree = syntax.copy(program.tree)
    scope = lambda name: resolve.lookup_path([name], program)  # noqa: E731
    namer = Namer.for_tree(tree, scope)
    try:
        tree = jumps.run(tree, namer)
        params = [a.id for a in tree.args.args]
        local_names = set(params) | set(syntax.names_stored(tree))
        tree = anf.run(tree, namer, local_names)
        _show(verbose, "ANF", tree)
        tree = versions.run(tree, namer)
        local_names |= set(syntax.names_stored(tree))
        calls = resolve.run(tree, program, local_names)
        positions = wrt if isinstance(wrt, tuple) else (wrt,)
        names = params if mode == "vjp" else [params[i] for i in positions]  # pullback: wrt only
        ret = tree.body[-1].value
        output = ret.id if isinstance(ret, gast.Name) else None
        active = activity.run(tree, names, output, calls)
        tree = reverse.run(tree, program, active, calls, namer, wrt, mode, pullback_of)
        tree = optimize.run(tree, namer)
    except NotImplementedError as exc:
        node = getattr(exc, "node", None)
        raise program.error(node, f"{exc} is not supported by {_transform_name(mode)} (in `{program.name}`)") from None
    text = emit.source(tree)
    if verbose:
        print(text)
    function = load.function(text, tree.name, program, namer.helpers, mode)
    function.__defaults__ = getattr(program.fn, "__defaults__", None)
    function.__srcgrad_source__ = text
    return cache.put(fn, key, Derivative(function, text, tree.name))


def _transform_name(mode):
    return f"srcgrad.{mode}"


def _show(verbose, stage, tree):
    if verbose == "stages":
        print(f"--- after {stage} ---")
        print(syntax.unparse(tree))
