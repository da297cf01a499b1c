"""Unroll each `for` loop that calls its loop variable over a list known at build time.

A call through a loop variable cannot be resolved while the variable varies. When the
loop runs over a list or tuple that the function reads from an object, a closure or its
module (`self.layers`, `LAYERS`; not a local value), each element is bound to a name of
its own and the body is repeated once per element with the loop variable replaced. A
loop over a tuple or list display (`for act in (np.sin, np.cos)`, `for W, act in ((W1,
np.tanh), (W2, relu))`) unrolls the same way, each copy reading its element as written:

Before:                                   After (`self.layers` holds two objects):
    for layer in self.layers:                 h = layer_0(h)
        h = layer(h)                          h = layer_1(h)

`layer_0` is `self.layers[0]` as it was when the derivative was built: the list and its
elements are logged (`scope.note_sequence`), so a derivative built before
`model.layers.append(...)` is built again at its next call. `enumerate(...)` (the index
becomes a constant) and `reversed(...)` of such a list unroll the same way, and so does
a tuple target over elements that are tuples (`for W, act in self.spec`). In `zip(...)`
with such a list, the other arguments are read by index: a variable the body does not
assign as it is, a display the copies cannot read as written or a computed value
(`2.0 * w`, `ws[1:]`, `np.cos(x)`) from a name assigned before the loop; where one's length
is known only at run time, each copy runs under `if turns > k:` (`turns = min(len(w),
...)`), so zip stops at the shorter. Loops whose body calls no loop variable are left as
they are.

Post-condition: no `for` loop whose body calls one of its targets runs over such a list;
a loop variable read after the loop is assigned the last element there.
"""

import builtins
import types

import gast
import numpy as np

from ..errors import NotDifferentiableError
from . import printing, syntax, traversal
from .scope import MISSING, dotted_parts, lookup_path, note_sequence, sequence_at
from .stand_in import is_instance

MAX_ELEMENTS = 64  # a longer list is refused: its unrolled copies would not be readable code


def run(tree, program, namer, only=None, spelled=None):
    """`tree` with the loops described above unrolled (changed in place); with `only`
    (ids of `for` statements), those loops alone and their copies' loops
    (passed_containers.py unrolls the loops over a container passed as an argument so),
    `spelled` giving the iterable as the user wrote it, for the refusals."""
    if not any(isinstance(s, gast.For) for s in traversal.statements(tree)):
        return tree
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(traversal.names_stored(tree))
    _Unroll(tree, program, namer, local, only, spelled or {}).block(tree.body)
    return tree


class _Unroll:
    def __init__(self, tree, program, namer, local, only=None, spelled=None):
        self.tree, self.program, self.namer, self.local, self.only = tree, program, namer, local, only
        self.spelled = spelled or {}  # id of a loop -> its iterable as written

    def block(self, stmts):
        """Unroll the loops in the statement list `stmts` (changed in place) and under it."""
        out = []
        for s in stmts:
            unrolled = self.loop(s) if isinstance(s, gast.For) else None
            if unrolled is None:
                for inner in _blocks(s):
                    self.block(inner)
                out.append(s)
            else:
                out += self.block(unrolled)  # a loop over an element's own list unrolls in turn
        stmts[:] = out
        return stmts

    def loop(self, s):
        """The statements that replace the loop `s`, or None to keep it."""
        if self.only is not None and id(s) not in self.only:
            return None
        inner, wrappers = s.iter, []
        while isinstance(inner, gast.Call) and len(inner.args) == 1 and not inner.keywords:
            wrapper = _WRAPPERS.get(_lookup(inner.func, self.program))
            if wrapper is None or wrapper in wrappers or (wrapper == "enumerate" and wrappers):
                return None  # enumerate(reversed(...)) unrolls; reversed(enumerate(...)) fails in Python itself
            wrappers.append(wrapper)
            inner = inner.args[0]
        zipped = (isinstance(inner, gast.Call) and inner.args and not inner.keywords and "reversed" not in wrappers
                  and _lookup(inner.func, self.program) is builtins.zip)
        written = zipped or isinstance(inner, (gast.Tuple, gast.List))
        parts = None if written else dotted_parts(inner)
        if not written and (parts is None or (parts[0] in self.local and parts[0] not in self.program.bound)):
            return None
        index, target = (None, s.target)
        if "enumerate" in wrappers:
            if not (isinstance(s.target, gast.Tuple) and len(s.target.elts) == 2 and isinstance(s.target.elts[0], gast.Name)):
                return None
            index, target = s.target.elts
        names = _target_names(target)
        if names is None:
            return None
        called, methods = _calls(s.body, set(names))
        if not called and not methods:
            return None
        known = []  # (namespace, dotted parts, the list) of each list read from a namespace
        hoisted = []  # zip's arguments computed before the loop, as Python computes them
        found_columns = ([], [])  # zip's columns as `zipped` read them, and the arguments they are read from
        if zipped:
            found = self.zipped(inner, s.body, known, hoisted, found_columns)
        else:
            found = sequence_at(parts, self.program) if not written else self.display(inner, s.body)
        if written and found is not MISSING:
            found = (None, found)  # no namespace holds it
        elif found is not MISSING:
            known.append((found[0], parts, found[1]))
        forced = self.only is not None  # a container's elements, whose methods record_methods.py follows
        if found is MISSING or (not called and not forced and not _all_instances(found[1], target, methods)):
            return None  # `for W in WEIGHTS: W.dot(h)`: array methods differentiate without unrolling
        sequence = found[1]
        for namespace, read, read_sequence in known:
            note_sequence(namespace, read[-1], read_sequence)
        self.check(s, names + ([index.id] if index is not None else []), len(sequence))
        for _, read, _ in known:
            self.check_unchanged(s, read)
        order = list(range(len(sequence)))
        if "reversed" in wrappers:
            order.reverse()
        out, last = [syntax.located(h, s) for h in hoisted], {}
        runtime = zipped and self.runtime_count(inner, found_columns, out, s)
        for position, k in enumerate(order):
            # a called loop variable is replaced by its element's name; the others are
            # assigned it, as the loop would (`W.dot(h)` stays a method of a local array)
            values, assigned = {}, []
            for name, part in self.parts(s, target, sequence[k], f"{printing.unparse(inner).strip()}[{k}]").items():
                node = self.bound(f"{name}_{k}", part)
                if name in called or (name in methods and (forced or is_instance(_meaning(part)))):
                    values[name] = node
                else:
                    assigned.append(syntax.located(syntax.assign(name, node), s))
            if index is not None:
                values[index.id] = syntax.const(position)
            last = values
            body = syntax.copy(s.body, lambda n, values=values: _replaced(n, values))
            if self.only is not None:  # the copies of a loop to unroll are unrolled too
                self.only |= {id(c) for o, c in zip(_nodes(s.body), _nodes(body)) if isinstance(o, gast.For) and id(o) in self.only}
            if runtime:  # the copy runs where every argument read by index has its element
                kept = [syntax.located(syntax.assign(n, syntax.copy(v)), s) for n, v in sorted(values.items())
                        if n in self.read_outside(s)]
                test = syntax.compare(syntax.name(runtime), gast.Gt(), syntax.const(k))
                out.append(syntax.located(syntax.if_(test, assigned + body + kept), s))
            else:
                out += assigned + body
        read_after = self.read_outside(s)
        if not runtime:
            out += [syntax.located(syntax.assign(n, syntax.copy(v)), s) for n, v in sorted(last.items()) if n in read_after]
        return out

    def runtime_count(self, call, columns, out, s):
        """Where zip's arguments `call.args` (with `columns`, as `zipped` read them) include
        one read by index whose length is known only at run time, the name assigned (by a
        statement added to `out`) how many turns zip makes: `min(len(w), ...)`; else None."""
        sized = [arg for arg, column in zip(columns[1], columns[0]) if column is None]
        if not sized:
            return None
        count = self.namer.fresh("turns")
        lengths = [syntax.call(syntax.name("len"), [syntax.copy(arg)]) for arg in sized]
        value = lengths[0] if len(lengths) == 1 else syntax.call(syntax.name("min"), lengths)
        out.append(syntax.located(syntax.assign(count, value), s))
        return count

    def parts(self, s, target, element, spelled):
        """{loop variable: its part of `element`} for one copy."""
        if isinstance(target, gast.Name):
            return {target.id: element}
        if type(element) not in (tuple, list) or len(element) != len(target.elts):
            raise self.program.error(
                s, f"`{spelled}` does not unpack into `{printing.unparse(target).strip()}`: srcgrad unrolls "
                f"this loop over its elements (it calls a loop variable) and needs each to be a tuple of "
                f"{len(target.elts)}", NotDifferentiableError,
            )
        return {t.id: part for t, part in zip(target.elts, element)}

    def display(self, node, body):
        """The elements of the tuple or list display `node` (`(np.sin, np.cos)`, `((W1,
        np.tanh), (W2, relu))`): constants, tuples of elements, and names, each a `_Written`
        that every copy reads as written: one of a module, a closure or a global, with what it
        means, or a variable of the function that the loop's `body` does not assign. MISSING
        for anything else."""
        if isinstance(node, (gast.Tuple, gast.List)):
            elements = tuple(self.display(e, body) for e in node.elts)
            return MISSING if any(e is MISSING for e in elements) else elements
        if isinstance(node, gast.Constant):
            return node.value
        parts = dotted_parts(node)
        if parts is not None and (parts[0] not in self.local or parts[0] in self.program.bound):
            found = lookup_path(parts, self.program)
            return MISSING if found is MISSING else _Written(node, found)
        if not isinstance(node, gast.Name) or node.id in traversal.names_stored(body):
            return MISSING
        return _Written(node)

    def zipped(self, call, body, known, hoisted, read):
        """The elements of `zip(...)`, the call `call`, as tuples, where one of its
        arguments at least is a list known at build time (a display, or a list read from
        a module, a closure or an attribute: added to `known`): it gives the count, and
        each copy reads the others' elements by index (`weights[1]`, a variable `body`
        does not assign, or a parameter); MISSING for anything else. A display whose
        elements the copies cannot read as written (`[np.sin(a), b]` with `b` assigned in
        the body) and an arithmetic, a slice or a NumPy call (`x * 2.0`, `ws[1:]`,
        `np.sin(x)`) are assigned to a name of their own before the loop (`hoisted`; the
        latter through `list(...)`, as zip iterates it), and read by index from it."""
        columns, args = [], []
        for arg in call.args:
            if isinstance(arg, (gast.Tuple, gast.List)):
                column = self.display(arg, body)
                if column is MISSING and not any(isinstance(e, gast.Starred) for e in arg.elts):
                    column = len(arg.elts)  # read by index from the display assigned before the loop
                    arg = self.hoist(arg, hoisted, listed=False)
            elif self.computed(arg):
                column = None
                arg = self.hoist(arg, hoisted, listed=True)
            else:
                parts = dotted_parts(arg)
                found = MISSING if parts is None or (parts[0] in self.local and parts[0] not in self.program.bound) else (
                    sequence_at(parts, self.program))
                if found is not MISSING:
                    known.append((found[0], parts, found[1]))
                    column = found[1]
                elif type(arg) is gast.Name and arg.id not in traversal.names_stored(body) and arg.id in self.local:
                    column = None  # read by index
                else:
                    return MISSING
            if column is MISSING:
                return MISSING
            columns.append(column)
            args.append(arg)
        read[0][:], read[1][:] = columns, args
        counts = [c if type(c) is int else len(c) for c in columns if c is not None]
        if not counts or all(c is None or type(c) is int for c in columns):
            return MISSING  # no list known at build time: the loop is left as it is
        return tuple(
            tuple(_Written(syntax.subscript(syntax.copy(arg), syntax.const(k))) if column is None or type(column) is int
                  else column[k] for arg, column in zip(args, columns))
            for k in range(min(counts)))

    def hoist(self, arg, hoisted, listed):
        """A name assigned `arg` (`list(arg)` where `listed`) by a statement added to `hoisted`."""
        name = self.namer.fresh("zipped")
        value = syntax.call(syntax.name("list"), [syntax.copy(arg)]) if listed else syntax.copy(arg)
        hoisted.append(syntax.assign(name, value))
        return syntax.name(name)

    def computed(self, arg):
        """Whether `arg` is a value zip may read whole before the loop: arithmetic, a slice
        or an index of such a value, `.T`, a call of a NumPy function, of `list`, `tuple`, `range` or `sorted`, or of an
        array's, list's or dict's method making a new value (`v.ravel()`, `d.values()`): no
        iterator that a list would drain otherwise than zip does."""
        if isinstance(arg, (gast.BinOp, gast.UnaryOp)):
            return True
        if isinstance(arg, gast.Subscript):  # a slice, or any index of a computed array (not a dict's key)
            sliced = [arg.slice] + (list(arg.slice.elts) if isinstance(arg.slice, gast.Tuple) else [])
            return any(isinstance(k, gast.Slice) for k in sliced) or self.computed(arg.value)
        if isinstance(arg, gast.Attribute):
            return arg.attr == "T"
        if isinstance(arg, gast.Call):
            meaning = _lookup(arg.func, self.program)
            if isinstance(arg.func, gast.Attribute) and arg.func.attr in _NEW_VALUE_METHODS and meaning in (None, MISSING):
                return True  # a method of a value of the function (`np.mean` is a NumPy function, below)
            return ((getattr(meaning, "__module__", None) or "").split(".")[0] == "numpy" or isinstance(meaning, np.ufunc)
                    or any(meaning is f for f in (list, tuple, range, sorted)))
        return False

    def bound(self, preferred, obj):
        """A node for `obj` in the unrolled code: a literal, or a name bound to it."""
        if type(obj) is _Written:
            return syntax.copy(obj.node)
        if obj is None or type(obj) in (bool, int, float, str):
            return syntax.const(obj)
        if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)) and obj.__name__.isidentifier():
            preferred = obj.__name__  # `tanh(h)` reads better than `act_0(h)`
        helper = self.namer.helper(preferred, obj)
        self.program.bound[helper] = obj
        return syntax.name(helper)

    def check(self, s, names, count):
        """Refuse what unrolling `s` would change the meaning of."""
        spelled = self.spelled.get(id(s)) or printing.unparse(s.iter).strip()
        why = f"srcgrad unrolls `for ... in {spelled}` because its body calls a loop variable, and "
        if s.orelse:
            raise self.program.error(s, why + "so it cannot have an `else:` block; move that block after the loop",
                                     NotDifferentiableError)
        jump = _jump(s.body)
        if jump is not None:
            raise self.program.error(jump, why + f"so its body cannot `{type(jump).__name__.lower()}`; "
                                     "test inside the called function instead", NotDifferentiableError)
        assigned = set(names) & set(traversal.names_stored(s.body))
        if assigned:
            raise self.program.error(s, why + f"so the body cannot assign the loop variable `{min(assigned)}`",
                                     NotDifferentiableError)
        if count > MAX_ELEMENTS:
            raise self.program.error(
                s, why + f"`{spelled}` has {count} elements (at most {MAX_ELEMENTS} are unrolled); call the "
                "elements from a loop over a list of plain functions' results, or split the list",
                NotDifferentiableError,
            )

    def check_unchanged(self, s, parts):
        """Refuse a function that changes the list it unrolls a loop over (`self.layers.append(...)`,
        `self.layers[0] = ...`): the unrolled copies hold the elements it had before the call."""
        for n in traversal.nodes(self.tree):
            changed = None
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _CHANGING:
                changed = n.func.value
            elif isinstance(n, (gast.Subscript, gast.Attribute, gast.Name)) and isinstance(n.ctx, (gast.Store, gast.Del)):
                changed = n.value if isinstance(n, gast.Subscript) else n
            if changed is not None and dotted_parts(changed) == parts:
                raise self.program.error(
                    n, f"`{'.'.join(parts)}` is changed in `{self.program.name}`, which unrolls the loop over it "
                    f"at line {self.program.line(s)} (the loop calls its loop variable): srcgrad unrolls over the "
                    "elements it holds when the derivative is built; change the list outside the function",
                    NotDifferentiableError,
                )

    def read_outside(self, s):
        """The names loaded in the function outside the loop `s`."""
        counts = traversal.load_counts(self.tree)
        for name, n in traversal.load_counts(s).items():
            counts[name] -= n
        return {name for name, n in counts.items() if n > 0}


class _Written:
    """An element of a loop's tuple or list display (`W1` and `np.tanh` in `for W, act in
    ((W1, np.tanh), ...)`): each unrolled copy reads it as written. `obj` is what a name
    of a module, a closure or a global means (MISSING for a value of the function)."""

    def __init__(self, node, obj=MISSING):
        self.node, self.obj = node, obj


def _meaning(element):
    """What a loop variable means when it takes `element`: a display's name's object."""
    return element.obj if type(element) is _Written else element


_NEW_VALUE_METHODS = frozenset({"ravel", "flatten", "sum", "mean", "prod", "cumsum", "cumprod", "tolist", "copy",
                                "reshape", "transpose", "squeeze", "clip", "round", "take", "repeat", "dot", "max",
                                "min", "astype", "values", "keys", "items"})
_CHANGING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "__setitem__", "__delitem__"})
_WRAPPERS = {builtins.enumerate: "enumerate", builtins.reversed: "reversed"}


def _lookup(func, program):
    parts = dotted_parts(func)
    return None if parts is None else lookup_path(parts, program)


def _target_names(target):
    """The names a loop target binds (a name or a flat tuple of names), or None."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, gast.Tuple) and all(isinstance(e, gast.Name) for e in target.elts):
        return [e.id for e in target.elts]
    return None


def _calls(body, names):
    """The `names` that a call in `body` calls (`layer(h)`), and those it calls a method of
    (`layer.step(h)`)."""
    called, methods = set(), set()
    for s in body:
        for n in traversal.nodes(s):
            if isinstance(n, gast.Call):
                parts = dotted_parts(n.func)
                if parts is not None and parts[0] in names:
                    (called if len(parts) == 1 else methods).add(parts[0])
    return called, methods


def _all_instances(sequence, target, names):
    """Whether each part of the elements of `sequence` that a loop variable of `names` takes
    is an instance of a Python class (whose methods srcgrad follows once it is known)."""
    if isinstance(target, gast.Name):
        return all(is_instance(_meaning(element)) for element in sequence)
    places = [k for k, t in enumerate(target.elts) if t.id in names]
    return all(type(e) in (tuple, list) and len(e) == len(target.elts) and all(is_instance(_meaning(e[k])) for k in places)
               for e in sequence)


def _nodes(stmts):
    """Every node under the statements `stmts`, in `traversal.nodes`' order."""
    return [n for s in stmts for n in traversal.nodes(s)]


def _jump(body):
    """The first `break` or `continue` of the loop whose body is `body` (not of inner loops)."""
    for s in body:
        if isinstance(s, (gast.Break, gast.Continue)):
            return s
        if isinstance(s, (gast.For, gast.While)):
            continue
        for inner in _blocks(s):
            found = _jump(inner)
            if found is not None:
                return found
    return None


def _blocks(s):
    """The statement lists directly inside the statement `s` (its body, `else`, `finally`,
    and each handler's body)."""
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(s, field, None)
        if isinstance(inner, list):
            yield inner
    for handler in getattr(s, "handlers", None) or ():
        yield handler.body


def _replaced(node, values):
    """`node` (a Name) as the unrolled copy reads it."""
    if node.id in values and isinstance(node.ctx, gast.Load):
        return syntax.located(syntax.copy(values[node.id]), node)
    return syntax.copy(node)
