"""NumPy calls that write into an array they are given, spelled as writes of the whole
array, for idioms.py to apply:

Before (user code):                     After:
    np.exp(y, out=y)                        y[...] = np.exp(y)
    np.multiply(a, b, y)                    y[...] = np.multiply(a, b)
    z = np.clip(a, 0.0, 1.0, out=y)         y[...] = np.clip(a, 0.0, 1.0)
                                            z = y
    a.sum(axis=0, out=y)                    y[...] = a.sum(axis=0)
    np.copyto(y, v)                         y[...] = v
    y.fill(v)                               y[...] = v
    y.sort(axis=0)                          y[...] = sort(y, axis=0)

Each writes into the same array what NumPy writes there (an `out=` result is computed as
if into a fresh array where operands overlap, then cast to `out`'s dtype, as the
assignment casts), so the change in place is then checked as any other: mutation.py and
argument_writes.py refuse it where `y` is an argument or another name or a view shares it.
Only a statement of its own, or `z = call(...)` with a name `z`; `out` a name (or a tuple
of one name); the call NumPy's own (a ufunc, one of its `reduce` and `accumulate`, or a
function of NumPy's that takes `out`, resolved in the function's scope) or an array
method that takes `out` (`_OUT_METHODS`). `where=` (the array is written only in part),
a ufunc with two outputs, `y.sort` with a list's keywords (`key`, `reverse`) or `order`,
and `*`/`**` arguments stay as written, for later passes to refuse as changes in place.
`sort` is NumPy's, bound as a helper (`y` could be a list, whose `sort` is idioms.py's).
"""

import inspect
import re

import gast
import numpy as np

from ..rules import patterns
from . import syntax, traversal
from .scope import MISSING, dotted_parts, lookup_path

# array methods that take `out=` (their result is what they write)
_OUT_METHODS = frozenset({
    "all", "any", "argmax", "argmin", "clip", "cumprod", "cumsum", "dot", "max", "mean", "min", "prod", "round",
    "std", "sum", "take", "trace", "var",
})
_C_FUNCTIONS_WITH_OUT = (np.dot, np.concatenate, np.einsum)  # no signature to read `out` from


def mentioned(lines):
    """Whether the source `lines` may hold such a call (a cheap test before parsing): a
    keyword `out`, `fill`, `copyto`, `sort`, or a statement that is a call of a dotted
    name, or assigns one to a name (the output given after the inputs)."""
    return any("out=" in line or ".fill(" in line or "copyto(" in line or ".sort(" in line or _BARE_CALL.match(line)
               for line in lines)


_BARE_CALL = re.compile(r"\s*([A-Za-z_]\w*\s*=\s*)?[A-Za-z_]\w*\.[\w.]*\(")  # `[z =] np.f(`


def found(stmt, program, locals_):
    """(the name the statement binds or None, the array written, the value written as a
    function of the name bound to NumPy's `sort`) where `stmt` is one of the calls above,
    else None. `locals_()`: the set `local_names(program)` (read only where needed). Reads
    the tree only."""
    if type(stmt) is gast.Expr:
        target, call = None, stmt.value
    elif type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name:
        target, call = stmt.targets[0].id, stmt.value
    else:
        return None
    if (type(call) is not gast.Call or any(type(a) is gast.Starred for a in call.args)
            or any(k.arg is None for k in call.keywords)):
        return None
    write = _out_call(call, program, locals_)
    if write is None and target is None:
        write = _method_write(call, program, locals_)
    return None if write is None else (target,) + write


class ArrayWrites:
    """Spells each such call as a write of the whole array, binding NumPy's `sort` (for
    `y.sort()`) to a fresh name in `program.bound` and `program.held`."""

    def __init__(self, program, locals_):
        self.program, self.locals = program, locals_
        self.helpers, self.namer = {}, None

    def rewritten(self, stmt):
        write = found(stmt, self.program, self.locals)
        if write is None:
            return None
        target, written, value, casting = write
        value, out = value(self._sort), []
        if casting is not None:  # NumPy refuses to cast the result where the assignment would not
            held = self._namer().fresh(f"{_root(written)}_out")
            check = syntax.call(self._helper("check_out_cast", patterns.check_out_cast), [
                syntax.name(held), syntax.attr(_load(written), "dtype"), syntax.copy(casting)])
            out = [syntax.assign(syntax.name(held, store=True), value), syntax.expr(check)]
            value = syntax.name(held)
        out.append(syntax.assign(syntax.subscript(_load(written), syntax.const(Ellipsis)), value))
        if target is not None:
            out.append(syntax.assign(syntax.name(target, store=True), _load(written)))
        return out

    def _sort(self):
        return self._helper("sort", np.sort)

    def _namer(self):
        if self.namer is None:
            self.namer = self.program.helper_namer()
        return self.namer

    def _helper(self, stem, fn):
        """A fresh name bound to `fn` (NumPy's `sort`, `check_out_cast`), the same each time."""
        if stem not in self.helpers:
            program = self.program
            self.helpers[stem] = self._namer().helper(stem, fn)
            program.bound[self.helpers[stem]] = program.held[self.helpers[stem]] = fn
        return syntax.name(self.helpers[stem])


def local_names(program):
    """A function giving the names the user's function binds, its parameters included
    (found at its first call)."""
    found = []

    def names():
        if not found:
            args = program.tree.args
            found.append(set(traversal.names_stored(program.tree)) | {a.id for a in args.posonlyargs + args.args + args.kwonlyargs})
        return found[0]

    return names


def _resolved(parts, program, locals_):
    """What the dotted name `parts` means, MISSING where it starts at a local name."""
    return MISSING if parts is None or parts[0] in locals_() else lookup_path(parts, program)


def _out_call(call, program, locals_):
    """(the array written, the call without it, the casting rule: `_casting`) for a call
    of NumPy's writing its result into `out`, given as a keyword or, for a ufunc, after
    its inputs."""
    keywords = {k.arg: k.value for k in call.keywords}
    parts = dotted_parts(call.func)
    if "out" in keywords:
        out = _one_name(keywords["out"])
        if out is None or "where" in keywords:
            return None
        if not _numpy_takes_out(_resolved(parts, program, locals_)):
            if type(call.func) is not gast.Attribute or call.func.attr not in _OUT_METHODS:
                return None  # a user's function with a parameter named `out`
            receiver = MISSING if parts is None else _resolved(parts[:-1], program, locals_)
            if not (receiver is MISSING or isinstance(receiver, np.ndarray)):
                return None  # a method of a module or object of the user's
        rest = [k for k in call.keywords if k.arg != "out"]
        return out, lambda sort: _call(call, call.args, rest), _casting(call, _resolved(parts, program, locals_), keywords)
    if len(call.args) < 2 or _destination(call.args[-1]) is None or "where" in keywords or parts is None:
        return None
    at = _out_position(_resolved(parts, program, locals_))
    if at is None or len(call.args) != at + 1:
        return None
    fn = _resolved(parts, program, locals_)
    return _destination(call.args[-1]), lambda sort: _call(call, call.args[:-1], call.keywords), _casting(call, fn, keywords)


def _out_position(fn):
    """The position of the `out` argument of NumPy's `fn`, where it can be given by
    position: after a ufunc's inputs, or `out`'s place in a NumPy function's signature."""
    if isinstance(fn, np.ufunc):
        return fn.nin if fn.nout == 1 else None
    if not _numpy_takes_out(fn) or any(fn is f for f in _C_FUNCTIONS_WITH_OUT) or isinstance(
            getattr(fn, "__self__", None), np.ufunc):
        return None
    params = list(inspect.signature(fn).parameters.values())
    names = [p.name for p in params]
    at = names.index("out")
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return at if all(p.kind in positional for p in params[:at + 1]) else None


def _method_write(call, program, locals_):
    """(the array written, the value written, the casting rule or None: `_casting`) for
    `y.fill(v)`, `np.copyto(y, v)` and `y.sort(axis, kind)`."""
    func, args, keywords = call.func, call.args, call.keywords
    if type(func) is not gast.Attribute or func.attr not in ("copyto", "fill", "sort"):
        return None
    if func.attr == "copyto" and _resolved(dotted_parts(func), program, locals_) is np.copyto:
        if len(args) != 2 or _destination(args[0]) is None or any(k.arg != "casting" for k in keywords):
            return None
        casting = keywords[0].value if keywords else syntax.const("same_kind")
        return _destination(args[0]), lambda sort: args[1], casting
    written = _destination(func.value)
    if written is None or _root(written) not in locals_():
        return None  # an array held by a global or an attribute: refused as a change in place
    if func.attr == "fill" and len(args) == 1 and not keywords:
        return written, lambda sort: args[0], None  # fill casts as the assignment does
    if type(func.value) is not gast.Name:
        return None
    name = func.value.id
    if func.attr == "sort" and len(args) <= 2 and all(k.arg in ("axis", "kind") for k in keywords):
        return name, lambda sort: _call(call, [syntax.name(name)] + list(args), keywords, sort()), None
    return None


def _casting(call, fn, keywords):
    """The casting rule under which NumPy writes `call`'s result into its `out` array (a
    node), or None where NumPy casts it as an assignment does (its reductions, `cumsum`,
    `take`, ...): a ufunc's `same_kind` (or the `casting=` given), `np.dot`'s exact dtype,
    `np.einsum`'s `safe`."""
    if "casting" in keywords:
        return keywords["casting"]
    same_kind = (np.clip, np.round, np.around, np.concatenate, getattr(np, "concat", np.concatenate))
    if isinstance(fn, np.ufunc) or any(fn is f for f in same_kind) or (
            fn is MISSING and type(call.func) is gast.Attribute and call.func.attr in ("clip", "round")):
        return syntax.const("same_kind")
    if fn is np.dot or (fn is MISSING and type(call.func) is gast.Attribute and call.func.attr == "dot"):
        return syntax.const("no")
    if fn is np.einsum:
        return syntax.const("safe")
    return None


def _call(call, args, keywords, func=None):
    """A copy of `call` with `args` and `keywords` (and `func`, if given)."""
    new = syntax.call(func if func is not None else call.func, list(args), [(k.arg, k.value) for k in keywords])
    return syntax.located(new, call)


def _one_name(node):
    """The array of `out=y` or `out=(y,)` (`_destination`), else None."""
    if type(node) is gast.Tuple and len(node.elts) == 1:
        node = node.elts[0]
    return _destination(node)


def _destination(node):
    """The array a call writes into, as a name (`y`) or a name's entry or slice read with
    names and constants only (`y[1:]`, `Y[i, :2]`: a view, or a copy that NumPy's write
    leaves unread, as `Y[i, :2][...] = v` does), else None."""
    if type(node) is gast.Name:
        return node.id
    if type(node) is gast.Subscript and _destination(node.value) is not None and _pure_index(node.slice):
        return node
    return None


def _pure_index(node):
    if node is None or type(node) in (gast.Constant, gast.Name):
        return True
    if type(node) is gast.Slice:
        return all(_pure_index(p) for p in (node.lower, node.upper, node.step))
    if type(node) is gast.Tuple:
        return all(_pure_index(e) for e in node.elts)
    if type(node) is gast.UnaryOp and type(node.op) is gast.USub:
        return _pure_index(node.operand)
    return False


def _root(written):
    """The name at the root of a destination."""
    return written if isinstance(written, str) else _root(_destination(written.value))


def _load(written):
    """A new node reading the destination."""
    return syntax.name(written) if isinstance(written, str) else syntax.copy(written)


def _numpy_takes_out(fn):
    """Whether `fn` is NumPy's and takes `out` (so `fn(..., out=y)` writes its result into y)."""
    if isinstance(fn, np.ufunc):
        return fn.nout == 1
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, np.ufunc):
        return getattr(fn, "__name__", None) in ("reduce", "accumulate") and owner.nout == 1
    if not callable(fn) or not (getattr(fn, "__module__", None) or "").startswith("numpy"):
        return False
    if any(fn is f for f in _C_FUNCTIONS_WITH_OUT):
        return True
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
