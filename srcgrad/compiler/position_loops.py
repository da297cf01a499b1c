"""Loops over `itertools.combinations(x, r)` (combinations_with_replacement,
permutations, product) and `np.ndenumerate(x)` of differentiated sequences, for
iteration.py: a loop over the tuples of positions the same call makes
(`runtime.index_tuples`), each entry read by index.

Before:  for a, b in itertools.combinations(x, 2):      After:  positions = index_tuples('combinations', 2, x)
             s = s + a * b                                      for i in range(len(positions)):
                                                                    at = positions[i]
                                                                    a = x[at[0]]; b = x[at[1]]
                                                                    s = s + a * b

The iterator holds the entries the sequence had when the loop started, so a body that
may change the sequence in place is refused (np.ndenumerate reads an array as the body
changes it, a list as a copy: it reads `np.asarray(x)` made before the loop).
"""

import itertools

import gast
import numpy as np

from .. import runtime
from ..rules import registry
from . import call_effects, printing, syntax, traversal
from .resolve import Callee

_LEN = Callee("function", len, "len")
_RANGE = Callee("function", range, "range")
_ASARRAY = Callee("function", np.asarray, "np.asarray")
_INDEX_TUPLES = Callee("function", runtime.index_tuples, "index_tuples")
_INDEX_ITERATORS = (  # (the maker of an iterator of tuples of entries, its runtime.index_tuples name)
    (itertools.combinations, "combinations"), (itertools.combinations_with_replacement, "combinations_with_replacement"),
    (itertools.permutations, "permutations"), (itertools.product, "product"), (np.ndenumerate, "ndenumerate"),
)


def rewritten(walker, s, pre):
    """The loop `s` over `itertools.combinations(x, r)` (combinations_with_replacement,
    permutations, product, `np.ndenumerate(x)`) as a loop over the tuples of positions
    the same call makes (`runtime.index_tuples`), each entry read by index: `item =
    (x[t[0]], x[t[1]])`, `(t, x[t])` for ndenumerate. None for any other loop."""
    it = s.iter
    callee = walker.calls.get(it) if isinstance(it, gast.Call) else None
    fn = callee.obj if callee is not None and callee.kind == "function" else None
    how = next((name for maker, name in _INDEX_ITERATORS if fn is maker), None)
    if how is None:
        return None
    args, keywords = list(it.args), {k.arg: k.value for k in it.keywords}
    r = None
    if how in ("combinations", "combinations_with_replacement", "permutations"):
        r = args.pop(1) if len(args) > 1 else keywords.pop("r", None)
        if not (isinstance(r, gast.Constant) and type(r.value) is int and r.value >= 0):
            raise walker.program.error(
                s, f"iterating over `{printing.unparse(it)}` (in `{walker.program.name}`) needs the length of its "
                f"tuples written as a number (`{how}(x, 2)`), which srcgrad reads to name their entries",
            )
    if keywords or not args or (how != "product" and len(args) != 1):
        raise walker.program.error(
            s, f"iterating over `{printing.unparse(it)}` is not supported (in `{walker.program.name}`); pass "
            f"the sequences by position{', without `repeat=`' if how == 'product' else ''}",
        )
    stored = set(traversal.names_stored(s.body)) | {s.target.id}
    sequences = []
    for seq in walker.atoms(s, args, pre):
        _refuse_changed_pool(walker, s, seq.id, how)
        if seq.id in stored:  # the body rebinds it: the loop reads the object it had at the start
            bound = walker.namer.fresh(f"{seq.id}_sequence")
            pre.append(syntax.located(syntax.assign(bound, syntax.name(seq.id)), s))
            seq = syntax.name(bound)
        sequences.append(seq)
    if how == "ndenumerate":  # NumPy reads `np.asarray(x)`: a list's entries as they were at the start
        sequences = [_as_array(walker, s, sequences[0], pre)]
    helper = walker.namer.helper("index_tuples", runtime.index_tuples)
    made = syntax.call(helper, [syntax.const(how), syntax.const(r.value if r is not None else None)]
                       + [syntax.copy(q) for q in sequences])
    walker.calls[made] = _INDEX_TUPLES
    tuples = walker.namer.fresh("positions")
    pre.append(syntax.located(syntax.assign(tuples, made), s))
    index, at = walker.namer.fresh("i" if s.target.id != "i" else "index"), walker.namer.fresh("at")
    head = [syntax.assign(at, syntax.subscript(syntax.name(tuples), syntax.name(index)))]
    if how == "ndenumerate":
        entry = walker.namer.fresh(f"{sequences[0].id}_at")
        head.append(syntax.assign(entry, syntax.subscript(syntax.copy(sequences[0]), syntax.name(at))))
        items = [syntax.name(at), syntax.name(entry)]
    else:
        items = []
        for k in range(r.value if r is not None else len(sequences)):
            seq = sequences[0] if r is not None else sequences[k]
            position, entry = walker.namer.fresh("j"), walker.namer.fresh(f"{seq.id}_j")
            head.append(syntax.assign(position, syntax.subscript(syntax.name(at), syntax.const(k))))
            head.append(syntax.assign(entry, syntax.subscript(syntax.copy(seq), syntax.name(position))))
            items.append(syntax.name(entry))
    body = [syntax.located(h, s) for h in head] + walker.unpacked(s, s.target.id, items)
    count = walker.call(len, _LEN, [syntax.name(tuples)])
    walker.changed = True
    loop = syntax.located(syntax.for_(index, walker.call(range, _RANGE, [count]), body), s)
    return [syntax.located(p, s) for p in pre] + [loop]

def _as_array(walker, s, seq, pre):
    """A name for `np.asarray(seq)` made before the loop `s` over `np.ndenumerate(seq)`,
    which reads that: the array itself (read as the body changes it, as NumPy does), or
    for a list (of lists) a new array of the entries it had when the loop started."""
    array = walker.namer.fresh(f"{seq.id}_array")
    made = syntax.call(syntax.attr(syntax.name(walker.namer.helper("np", np)), "asarray"), [syntax.copy(seq)])
    walker.calls[made] = _ASARRAY
    pre.append(syntax.located(syntax.assign(array, made), s))
    return syntax.name(array)

def _refuse_changed_pool(walker, s, name, how):
    """Refuse the loop `s` over `itertools.<how>(..., name, ...)` where its body may change
    `name` in place: the iterator holds the entries `name` had when the loop started
    (numbers of a vector, rows of a matrix as views), the loop rewritten by index would
    read each one as it is when the body reaches it."""
    for st in traversal.statements(gast.Module(body=list(s.body), type_ignores=[])):
        target = st.targets[0] if isinstance(st, gast.Assign) else None
        while how == "ndenumerate" and type(target) is gast.Subscript and type(target.value) is gast.Subscript:
            target = target.value  # `L[0][0] = ...` changes the list of lists `L`
        changed = type(target) is gast.Subscript and syntax.is_name(target.value, name)
        call = st.value if isinstance(st, (gast.Assign, gast.Expr)) and isinstance(st.value, gast.Call) else None
        if call is not None:
            changed = changed or call_effects.changes_container(
                call, walker.calls.get(call), name, isinstance(st, gast.Assign), registry)
        if changed and how == "ndenumerate":
            raise walker.program.error(
                st, f"`{walker.program.text(st).strip()}` changes `{name}` in place inside the loop "
                f"`{walker.program.text(s).strip()}` (in `{walker.program.name}`): np.ndenumerate reads a list as "
                f"a new array of the entries it had when the loop started, an array as the body changes it, "
                f"which srcgrad does not tell apart; loop over `np.ndenumerate(np.array({name}))` to read "
                f"a copy made when the loop starts",
            )
        if changed:
            raise walker.program.error(
                st, f"`{walker.program.text(st).strip()}` changes `{name}` in place inside the loop "
                f"`{walker.program.text(s).strip()}` (in `{walker.program.name}`), whose tuples hold the entries it had "
                f"when the loop started; srcgrad reads them by index as the body reaches them: loop over "
                f"`{how}(...)` of `{name}.copy()` (of a list: `list({name})`) to read the entries of the start",
            )
