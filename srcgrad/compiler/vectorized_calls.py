"""NumPy calls that run a Python function per element (`np.vectorize`) or per piece
(`np.piecewise`), written as the loop and the masked writes they run, so that the
function's own code is differentiated.

Before:                                              After:
    y = np.vectorize(lambda v: v * v if v > 0            y = np.array([v * v if v > 0 else -v
                     else -v)(x)                                   for v in np.ravel(x)]).reshape(np.shape(x))
    z = vbump(x, 2.0)  # vbump = np.vectorize(bump)     broadcast = np.broadcast_arrays(x, 2.0)
                                                         z = np.array([bump(element, element_1) for element, element_1
                                                                       in zip(np.ravel(broadcast[0]), np.ravel(broadcast[1]))]
                                                                      ).reshape(np.shape(broadcast[0]))
    p = np.piecewise(x, [x < 0, x >= 0],                 piecewise_x = np.asarray(x)
                     [lambda v: -v, np.sqrt])            piece_condition = np.asarray(x < 0, dtype=bool)
                                                         piece_condition_1 = np.asarray(x >= 0, dtype=bool)
                                                         piece = lambda v: -v
                                                         pieces = np.zeros_like(piecewise_x)
                                                         if np.any(piece_condition):
                                                             pieces[piece_condition] = piece(piecewise_x[piece_condition])
                                                         if np.any(piece_condition_1):
                                                             pieces[piece_condition_1] = np.sqrt(piecewise_x[piece_condition_1])
                                                         p = pieces

As NumPy does: the vectorized function sees each element of the arguments broadcast
together, and the result has their shape (`otypes=` of one type gives its dtype); each
piece's function sees the entries its condition selects, and only where it selects
some, a later condition overriding an earlier one, the entries no condition selects 0
(or the extra function's, where there is one more function than conditions), the result
in x's dtype. A lambda's body becomes the comprehension's element (np.vectorize) or
is bound to a name before the statement (np.piecewise). What the statement computes
before the call is computed before these statements too, so a call that needs them
inside a lambda, a comprehension, a conditional expression, `and`/`or` or a `while`
test is refused, as are `np.vectorize` with `excluded=` or `signature=` and
`np.piecewise` whose conditions or functions are not written as a list in the call.
`f = np.vectorize(...)` at the top of the function, `f` bound there only and only called,
is the call of the `np.vectorize` itself at each call of `f` (`_named_vectorizes`).
Returns a new tree; the parse stays as it was.
"""

import ast

import gast
import numpy as np

from ..errors import NotDifferentiableError
from . import printing, syntax, traversal
from .statement_parts import expressions, replace
from .function_choices import store_counts
from .naming import Namer
from .scope import MISSING, dotted_parts, lookup_path

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def run(program, transform="srcgrad.grad"):
    """`program.tree` with each such call rewritten as above."""
    if not (any("vectorize" in line or "piecewise" in line for line in program.source_lines)
            or any(type(v) is np.vectorize for v in program.globals.values())):
        return program.tree
    tree = program.tree
    local = set(traversal.names_stored(tree)) | {a.id for a in tree.args.args + tree.args.kwonlyargs}
    rewriter = _Rewriter(program, local, transform)
    if _named_vectorizes(tree, rewriter.meaning):
        tree = syntax.copy(tree)
        _call_in_place(tree, _named_vectorizes(tree, rewriter.meaning))
    if not any(isinstance(n, gast.Call) and rewriter.kind(n) for n in traversal.walk(tree)):
        return tree
    tree = syntax.copy(tree)
    rewriter.namer = Namer.for_tree(tree)
    rewriter.namer.taken |= set(program.globals) | set(program.bound)
    rewriter.block(tree.body)
    return tree


def _named_vectorizes(tree, meaning):
    """{name: its statement} for each `name = np.vectorize(f, ...)` at the top of the
    function's body where `name` is bound there only and read only as the function of
    calls, and `f` is a lambda without defaults or a name bound once (a `def`, a parameter
    never assigned): each call `name(...)` means `np.vectorize(f, ...)(...)` there."""
    counts = store_counts(tree)
    found = {}
    for s in tree.body:
        if (type(s) is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name
                and type(s.value) is gast.Call and meaning(s.value.func) is np.vectorize
                and counts.get(s.targets[0].id) == 1 and s.value.args):
            first, rest = s.value.args[0], s.value.args[1:] + [k.value for k in s.value.keywords]
            if type(first) is gast.Lambda:
                if first.args.defaults or any(d is not None for d in first.args.kw_defaults):
                    continue
            elif not (type(first) is gast.Name and counts.get(first.id, 0) <= 1):
                continue
            if any(type(n) is gast.Name and counts.get(n.id, 0) > 1 for r in rest for n in traversal.walk(r)):
                continue
            found[s.targets[0].id] = s
    if found:
        called = {id(n.func) for n in traversal.walk(tree) if isinstance(n, gast.Call)}
        for n in traversal.walk(tree):
            if type(n) is gast.Name and n.id in found and isinstance(n.ctx, gast.Load) and id(n) not in called:
                found.pop(n.id)  # read as a value: left as written
    return found


def _call_in_place(tree, found):
    """`tree` without the statements of `found` (`_named_vectorizes`), each call of their
    names calling the `np.vectorize(...)` itself."""
    tree.body = [s for s in tree.body if all(s is not made for made in found.values())]
    for n in traversal.walk(tree):
        if isinstance(n, gast.Call) and type(n.func) is gast.Name and n.func.id in found:
            n.func = syntax.located(syntax.copy(found[n.func.id].value), n.func)


class _Rewriter:
    def __init__(self, program, local, transform):
        self.program, self.local, self.transform, self.namer = program, local, transform, None
        self.defs = {n.name for n in traversal.walk(program.tree) if isinstance(n, gast.FunctionDef) and n is not program.tree}

    def meaning(self, node):
        """What the expression `node` means where it is a name the function does not assign, else MISSING."""
        parts = dotted_parts(node)
        if parts is None or parts[0] in self.local or parts[0] in self.defs:
            return MISSING
        return lookup_path(parts, self.program)

    def kind(self, call):
        """"vectorize", "vectorized" (a call of an `np.vectorize` object), "piecewise" or None."""
        if isinstance(call.func, gast.Call) and self.meaning(call.func.func) is np.vectorize:
            return "vectorize"
        meaning = self.meaning(call.func)
        if type(meaning) is np.vectorize:
            return "vectorized"
        return "piecewise" if meaning is np.piecewise else None

    def refuse(self, node, message):
        raise self.program.error(node, f"{message} (in `{self.program.name}`)", NotDifferentiableError)

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, _SCOPES):
                out.append(s)
                continue
            for inner in traversal.blocks_in(s):
                self.block(inner)
            pre = []
            self.statement(s, pre)
            out += pre + [s]
        stmts[:] = out

    def statement(self, s, pre):
        """Rewrite the calls of the statement `s` (outside its blocks), their statements to `pre`."""
        found, inside = {}, set()
        for node, deferred in expressions(s):  # outer nodes first
            if not isinstance(node, gast.Call) or id(node) in inside:
                continue
            kind = self.kind(node)
            if kind is None:
                continue
            made = []
            if kind == "piecewise":
                new = self.piecewise(node, made, s)
            else:
                new = self.vectorized(node, kind, made, s)
            if made and deferred:
                self.refuse(node, f"`{_spelled(node)}` inside a lambda, a comprehension, a conditional expression, "
                            f"`and`/`or` or a `while` test is not supported by {self.transform}: compute it in a "
                            "statement of its own first")
            pre += made
            found[id(node)] = syntax.located(new, node)
            inside |= {id(n) for n in traversal.walk(node)}
        if found:
            replace(s, found)

    def numpy(self):
        """The name generated code reads NumPy by."""
        for name in ("np", "numpy"):
            if name not in self.local and name not in self.defs and lookup_path([name], self.program) is np:
                return name
        name = self.namer.fresh("np")
        self.program.bound[name] = self.program.held[name] = np
        return name

    def np_call(self, function, args, keywords=()):
        return syntax.call(syntax.attr(syntax.name(self.numpy()), function), args, keywords)

    def held(self, preferred, obj):
        name = self.namer.fresh(preferred if preferred.isidentifier() else "vectorized")
        self.program.bound[name] = self.program.held[name] = obj
        return syntax.name(name)

    def computed(self, node, label, pre, s):
        """`node`, or a fresh name assigned it in `pre` where reading it twice would compute it twice."""
        if isinstance(node, (gast.Name, gast.Constant)):
            return node
        name = self.namer.fresh(label)
        pre.append(syntax.located(syntax.assign(name, node), s))
        return syntax.name(name)

    # --- np.vectorize ---------------------------------------------------------------

    def vectorized(self, call, kind, pre, s):
        if call.keywords or any(isinstance(a, gast.Starred) for a in call.args) or not call.args:
            self.refuse(call, f"`{_spelled(call)}`: srcgrad writes a call of an `np.vectorize` as the loop over "
                        "the elements it runs, for arguments given by position, none starred; pass them so")
        if kind == "vectorize":
            made = call.func
            if len(made.args) != 1 or any(k.arg not in ("otypes", "doc") for k in made.keywords):
                self.refuse(call, f"`{_spelled(made)}`: srcgrad writes `np.vectorize(f)(...)` (`otypes=` of one type "
                            "allowed) as the loop over the elements it runs, not with `excluded=`, `signature=` or "
                            "`cache=`: write the loop (`np.array([f(v) for v in np.ravel(x)]).reshape(np.shape(x))`)")
            function = made.args[0]
            otypes = next((self.otypes(k.value, call) for k in made.keywords if k.arg == "otypes"), None)
        else:
            obj = self.meaning(call.func)
            if obj.excluded or obj.signature is not None:
                self.refuse(call, f"`{printing.unparse(call.func).strip()}` is an `np.vectorize` with `excluded=` or "
                            "`signature=`, which srcgrad does not write as a loop: write the loop "
                            "(`np.array([f(v) for v in np.ravel(x)]).reshape(np.shape(x))`)")
            name = getattr(obj.pyfunc, "__name__", "vectorized")
            same = name.isidentifier() and name not in self.local and lookup_path([name], self.program) is obj.pyfunc
            function = syntax.name(name) if same else self.held(name, obj.pyfunc)
            otypes = self.otypes(obj.otypes, call) if obj.otypes else None
        arrays = call.args
        if len(arrays) == 1:
            first = self.computed(arrays[0], "vectorized_argument", pre, s)
            sequences, shaped = [self.np_call("ravel", [syntax.copy(first)])], first
        else:
            broadcast = self.namer.fresh("broadcast")
            pre.append(syntax.located(syntax.assign(broadcast, self.np_call("broadcast_arrays", list(arrays))), s))
            parts = [syntax.subscript(syntax.name(broadcast), syntax.const(k)) for k in range(len(arrays))]
            sequences, shaped = [self.np_call("ravel", [p]) for p in parts], syntax.copy(parts[0])
        element, targets = self.element(function, len(arrays), call)
        iterable = sequences[0] if len(sequences) == 1 else syntax.call("zip", sequences)
        target = targets[0] if len(targets) == 1 else syntax.tuple_(targets, store=True)
        listed = syntax.list_comprehension(element, target, iterable)
        keywords = [] if otypes is None else [("dtype", otypes)]
        array = self.np_call("array", [listed], keywords)
        return syntax.call(syntax.attr(array, "reshape"), [self.np_call("shape", [shaped])])

    def element(self, function, count, call):
        """(the comprehension's element, its targets) for `count` arguments: a lambda's body
        over its parameters, else a call of the function over fresh names."""
        if isinstance(function, gast.Lambda):
            args = function.args
            if (args.vararg or args.kwarg or args.kwonlyargs or args.defaults or getattr(args, "posonlyargs", None)
                    or len(args.args) != count):
                self.refuse(call, f"`{_spelled(call)}`: the `lambda` given to np.vectorize takes {count} plain "
                            "parameter(s), one per argument of the call: write it so, or as a `def`")
            return syntax.copy(function.body), [syntax.name(a.id, store=True) for a in args.args]
        if dotted_parts(function) is None:
            self.refuse(call, f"`{_spelled(call)}`: srcgrad writes np.vectorize of a function named by a name "
                        "(`np.vectorize(f)`) or of a lambda as its loop: name the function")
        names = [self.namer.fresh("element") for _ in range(count)]
        return syntax.call(syntax.copy(function), [syntax.name(n) for n in names]), [syntax.name(n, store=True) for n in names]

    def otypes(self, value, call):
        """The node naming the one output dtype of `otypes=` (a held np.dtype), or a refusal."""
        if isinstance(value, gast.AST):
            try:
                value = ast.literal_eval(printing.unparse(value).strip())
            except (ValueError, SyntaxError):
                items = value.elts if isinstance(value, (gast.List, gast.Tuple)) else [value]
                value = [self.meaning(v) for v in items]
        try:
            types = list(value) if not isinstance(value, str) else list(value)
            if len(types) != 1:
                raise TypeError
            dtype = np.dtype(types[0])
        except TypeError:
            self.refuse(call, f"`{_spelled(call)}`: srcgrad writes np.vectorize as its loop where `otypes=` names one "
                        "type (`otypes=[float]`), or none")
        return self.held("vectorized_dtype", dtype)

    # --- np.piecewise ---------------------------------------------------------------

    def piecewise(self, call, pre, s):
        advice = ("srcgrad writes `np.piecewise(x, [conditions...], [functions...], *args)` as the masked writes "
                  "it makes, with the conditions and the functions (lambdas, named functions or constants) written "
                  "as lists in the call, as many functions as conditions or one more")
        args = call.args
        if len(args) < 3 or any(isinstance(a, gast.Starred) for a in args) or any(k.arg is None for k in call.keywords):
            self.refuse(call, f"`{_spelled(call)}`: {advice}")
        x, conditions, functions, extra = args[0], args[1], args[2], args[3:]
        if not (isinstance(conditions, (gast.List, gast.Tuple)) and isinstance(functions, (gast.List, gast.Tuple))
                and conditions.elts and len(functions.elts) in (len(conditions.elts), len(conditions.elts) + 1)
                and not any(isinstance(e, gast.Starred) for e in conditions.elts + functions.elts)):
            self.refuse(call, f"`{_spelled(call)}`: {advice}")
        base = self.namer.fresh("piecewise_x")
        pre.append(syntax.located(syntax.assign(base, self.np_call("asarray", [x])), s))
        masks = []
        for c in conditions.elts:
            mask = self.namer.fresh("piece_condition")
            pre.append(syntax.located(syntax.assign(mask, self.np_call("asarray", [c], [("dtype", syntax.name("bool"))])), s))
            masks.append(mask)
        if len(functions.elts) > len(masks):  # the entries no condition selects
            mask = self.namer.fresh("piece_condition")
            anywhere = self.np_call("any", [syntax.list_([syntax.name(m) for m in masks])], [("axis", syntax.const(0))])
            pre.append(syntax.located(syntax.assign(mask, self.np_call("logical_not", [anywhere])), s))
            masks.append(mask)
        extra = [self.computed(a, "piece_argument", pre, s) for a in extra]
        keywords = [(k.arg, self.computed(k.value, f"piece_{k.arg}", pre, s)) for k in call.keywords]
        pieces = self.namer.fresh("pieces")
        writes = [syntax.located(syntax.assign(pieces, self.np_call("zeros_like", [syntax.name(base)])), s)]
        for mask, f in zip(masks, functions.elts):
            target = syntax.subscript(syntax.name(pieces), syntax.name(mask), store=True)
            function = self.piece_function(f, pre, s)
            if function is None:  # a constant: written where the condition holds
                writes.append(syntax.located(syntax.assign(target, f), s))
                continue
            values = syntax.subscript(syntax.name(base), syntax.name(mask))
            piece = syntax.call(function, [values] + [syntax.copy(a) for a in extra],
                                [(k, syntax.copy(v)) for k, v in keywords])
            test = self.np_call("any", [syntax.name(mask)])
            writes.append(syntax.located(syntax.if_(test, [syntax.assign(target, piece)]), s))
        pre += writes
        return syntax.name(pieces)

    def piece_function(self, f, pre, s):
        """The node calling the piece's function (a lambda bound to a name in `pre`), or None
        for a constant."""
        if isinstance(f, gast.Lambda):
            name = self.namer.fresh("piece")
            pre.append(syntax.located(syntax.assign(name, f), s))
            return syntax.name(name)
        if isinstance(f, gast.Constant):
            return None
        parts = dotted_parts(f)
        if parts is None:
            return None  # an expression: its value is written, as NumPy writes a non-callable
        if parts[0] in self.defs or parts[0] in self.program.bound:
            return syntax.copy(f)
        if parts[0] in self.local:
            return syntax.copy(f) if self.assigned_a_lambda(parts[0]) else None
        meaning = lookup_path(parts, self.program)
        return syntax.copy(f) if callable(meaning) else None

    def assigned_a_lambda(self, name):
        return any(isinstance(n, gast.Assign) and syntax.is_name(n.targets[0], name) and isinstance(n.value, gast.Lambda)
                   for n in traversal.walk(self.program.tree))


def _spelled(node):
    return printing.unparse(node).strip()
