"""Calls of the user's other functions, spliced into the caller (on the ANF tree).

Before:                                After:
    def inner(v):                          def f(x):
        return np.tanh(v) * 2.0                tanh_x = np.tanh(x)
                                               y = tanh_x * 2.0
    def f(x):                                  return np.sum(y)
        y = inner(x)
        return np.sum(y)

The derivative then treats the callee's statements as the caller's own. The forward
pass computes each value once, and the backward pass reads the values it saved. A call
that is not spliced goes through the callee's pullback instead. That pullback runs the
callee's forward pass again, and it is not specialized to the shapes of the call.

Splicing is exact. A call is spliced only when Python would run the same statements:
- the callee is a plain Python function (or a method of a known object: its receiver
  becomes a name bound to that object), not a recursive one, with no rule of its own;
- it reads no closure cell, and defines no function, class or import;
- it has plain and keyword-only parameters (no `/`; `*args` and `**kwargs` written out
  for the call's arguments, varargs.py), and each
  default is a literal equal to the one it holds (`__defaults__`, `__kwdefaults__`,
  logged: a change builds the derivative again);
- it passes the checks a derivative of it would pass on its own (fence.py); its
  in-place updates keep their run-time checks (`fence.shared_augmented`);
- it is handed no partial, bound method or callable object passed as an argument but as
  the receiver of its own function, nor a record whose methods it calls
  (record_methods.py): those calls are rewritten in its own derivative.

Its own variables get fresh names. A parameter it never assigns reads the argument
itself; any other parameter is assigned the argument first. A global name it reads
stays that name where the caller's scope reads the same object the same way (its own
module, or a module); otherwise it is read through the callee's module
(`helpers.SCALE`, seeing later rebinding), or the call stays a call. Every spliced statement
takes the location of the call, so comments and run-time errors name the caller's
line. Anything else stays a call. A derivative of the spliced tree that is refused is
built again without splicing (pipeline.py), so a refusal names the callee's own line.
"""

import builtins
import itertools
import sys
import types
from dataclasses import dataclass

import gast

from .. import rules
from ..errors import SrcGradError
from . import aliases, anf, fence, folds, frontend, function_choices, generator_calls, generator_lists, idioms, jumps, key_lambdas, map_filter, module_tests, record_methods, scope, stand_in, syntax, transform_calls, traversal, unroll, varargs, vectorized_calls
from .passed_callables import Passed
from .scope import MISSING, dotted_parts, first_meaning, lookup_path
from .stand_in import is_user_function

MAX_CALLEE_STATEMENTS = 80  # a larger callee stays a call: its pullback keeps the code short
MAX_SPLICED_STATEMENTS = 600  # in one derivative, all callees together


def run(tree, program, namer, local_names, transform):
    """`tree` with each call described above replaced by the callee's statements (in
    place); returns whether any call was spliced. New bound names (receivers, unrolled
    loops' elements) go into `program.bound` and `namer.helpers`."""
    if not traversal.holds(tree, gast.Call):
        return False
    loads, others = traversal.name_counts(tree)  # one walk: the reads, and the stores for `_unseen_temporaries`
    splicer = _Splicer(program, namer, set(local_names), transform, loads)
    splicer.temporaries = _unseen_temporaries(tree, others)
    tree.body = splicer.block(tree.body, (_identity(program.fn),))
    return splicer.spliced > 0


def _identity(fn):
    """The function whose code `fn` runs (a method stand-in's method, the function a
    `*args` variant was made of), for recursion checks and its `__code__`'s log."""
    fn = varargs.original(fn)
    method = getattr(fn, "__srcgrad_method__", None)
    return method[0] if method is not None else fn


@dataclass
class _Callee:
    """A callee ready to splice at one call: its tree before jumps and ANF, and what
    `_Splicer.spliced_body` respells in it."""

    tree: object
    params: list
    held: dict  # a method's receiver -> its object
    bound: dict  # names its unrolled loops bound -> their objects
    through: dict  # see _Splicer.spellings
    shared: dict  # its in-place updates' run-time checks (fence.shared_augmented)
    listed: str = None  # a generator's listing (generator_lists.py): the name of the list it returns


class _Splicer:
    def __init__(self, program, namer, local_names, transform, loads):
        self.program, self.namer, self.local_names, self.transform = program, namer, local_names, transform
        self.loads = loads  # {name: how often it is read} (at least)
        self.spliced = 0
        self.depth = 0  # how many compound statements enclose the statements being spliced
        self.checked_callees = {}  # function -> (its checked program, its run-time checks), or None
        self.temporaries = {}  # _unseen_temporaries of the caller
        self.here = None  # the block holding the statement being spliced

    def block(self, stmts, expanding):
        out, k = [], 0
        while k < len(stmts):
            s = stmts[k]
            k += 1
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    self.depth += 1
                    setattr(s, field, self.block(inner, expanding))
                    self.depth -= 1
            call = s.value if isinstance(s, (gast.Assign, gast.Expr)) else None
            if not isinstance(call, gast.Call):
                out.append(s)
                continue
            unpacking = self.unpacking(s, itertools.islice(stmts, k, None))
            self.here = stmts
            body = self.callee_body(s, call, expanding, unpacking)
            if body is None:
                out.append(s)
                continue
            statements, fn, unpacked = body
            k += len(unpacking) if unpacked else 0
            if self.returns_back(s, statements, stmts[k] if k < len(stmts) else None):
                statements, k = statements[:-1], k + 1
            out += self.block(statements, expanding + (_identity(fn),))
        return out

    def unseen(self, value):
        """Whether the argument `value` is a new value that only this call reads: a name
        the caller binds once, in the block of the call, to arithmetic or a copy
        (`_unseen_temporaries`; ANF's `v_times_2 = v * 2.0` for `f(v * 2.0)`), and reads
        nowhere else. A change the callee makes to it in place is then seen by no one,
        and its splice, which computes the change as a new value, is exact."""
        return (isinstance(value, gast.Name) and self.temporaries.get(value.id) is self.here
                and self.loads.get(value.id) == 1)

    def returns_back(self, stmt, statements, following):
        """Whether the spliced `statements` of `stmt`, `t = f(u)`, end in `t = u` (f returns
        the `u` it was given, changed in place) and `following` is `u = t`, ANF's second
        half of `u = f(u)` in a loop, with nothing else reading `t`: the two do nothing."""
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 else None
        last = statements[-1] if statements else None
        return (isinstance(target, gast.Name) and self.loads.get(target.id) == 1
                and isinstance(last, gast.Assign) and len(last.targets) == 1 and syntax.is_name(last.targets[0], target.id)
                and isinstance(last.value, gast.Name)
                and isinstance(following, gast.Assign) and len(following.targets) == 1
                and syntax.is_name(following.targets[0], last.value.id) and syntax.is_name(following.value, target.id))

    def unpacking(self, stmt, following):
        """The statements right after `stmt` that unpack the tuple it assigns (ANF's
        `s = t[0]`, `p = t[1]` for `s, p = f(x)`), when nothing else reads it; else []."""
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) else None
        if not isinstance(target, gast.Name):
            return []
        found = []
        for s in following:
            value = s.value if isinstance(s, gast.Assign) and len(s.targets) == 1 else None
            if not (isinstance(value, gast.Subscript) and syntax.is_name(value.value, target.id)
                    and isinstance(value.slice, gast.Constant) and type(value.slice.value) is int
                    and isinstance(s.targets[0], gast.Name)):
                break
            found.append(s)
        if sorted(s.value.slice.value for s in found) != list(range(len(found))) or self.loads.get(target.id) != len(found):
            return []
        return found

    def callee_body(self, stmt, call, expanding, unpacking):
        """(the statements that replace `stmt` and, where the callee returns a tuple
        display of their length, the `unpacking` statements, the callee, whether they are
        replaced) or None to keep the call."""
        parts = dotted_parts(call.func)
        if parts is None or (parts[0] in self.local_names and parts[0] not in self.program.bound):
            return None
        if any(isinstance(a, gast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        fn = lookup_path(parts, self.program)
        if _hands_on_passed(call, fn, self.program.bound):
            return None
        if isinstance(fn, types.MethodType) and rules.is_nondifferentiable(fn.__func__):  # `log.info(...)`
            return None
        if isinstance(fn, types.MethodType) or stand_in.is_instance(fn):  # `self.step(x)`, `layer(x)`
            fn = stand_in.method_function(fn)
        fn = varargs.variant_for_call(fn, call)  # `*args`, `**kwargs` written out for this call
        if not _spliceable(fn, expanding):
            return None
        callee = self.prepared(fn)
        if callee is None or _hands_on_record(call, callee, self.program.records):
            return None
        size = sum(1 for _ in traversal.statements(callee.tree))
        if size > MAX_CALLEE_STATEMENTS or self.spliced + size > MAX_SPLICED_STATEMENTS:
            return None
        values = _arguments(callee.tree, callee.params, call)
        if values is None:
            return None
        statements, unpacked = self.spliced_body(stmt, callee, values, parts, unpacking)
        return statements, fn, unpacked

    @staticmethod
    def names_of(tree, values):
        """The names the callee `tree` uses and its arguments `values` read."""
        return ({n.id for n in traversal.walk(tree) if isinstance(n, gast.Name)}
                | {n.id for v in values.values() for n in traversal.walk(v) if isinstance(n, gast.Name)})

    def module_name(self, preferred, module):
        """The caller's own global name for `module` (`np` for another module's `onp`),
        else a name bound to it."""
        own = [k for k, v in self.program.globals.items() if v is module and k not in self.local_names
               and first_meaning(k, self.program) is module and self.namer.helpers.get(k, v) is v]
        return min(own) if own else self.bind(preferred, module)

    def bind(self, preferred, obj):
        """The name generated code reads `obj` by (a helper), known to the caller's scope."""
        name = self.namer.helper(preferred, obj)
        self.program.bound[name] = obj
        return name

    def prepared(self, fn):
        """The `_Callee` of `fn` for one call, or None when it cannot be spliced."""
        checked = self.checked(fn)
        if checked is None:
            return None
        callee, shared = checked
        held = callee.held
        tree = syntax.copy(callee.tree)
        params = [a.id for a in tree.args.args + tree.args.kwonlyargs]
        own = set(params) | set(traversal.names_stored(tree)) | set(held)
        free = {n.id for n in traversal.walk(tree) if isinstance(n, gast.Name) and n.id not in own}
        through = self.spellings(callee, free)
        if through is None:
            return None
        for name in free - set(through):
            self.namer.reserve(name)
        before = dict(callee.bound)
        try:
            tree = unroll.run(tree, callee, self.namer)
        except SrcGradError:
            return None
        bound = {k: v for k, v in callee.bound.items() if k not in before}
        method = getattr(fn, "__srcgrad_method__", None)  # a method's stand-in: of its function
        listed = generator_lists.generator_of(method[0] if method is not None else fn)
        return _Callee(tree, params, held, bound, through, shared, listed[1] if listed is not None else None)

    def checked(self, fn):
        """(`fn`'s program, checked and with its module aliases respelled, its run-time
        checks), or None where it stays a call; once per function and derivative."""
        if fn not in self.checked_callees:
            self.checked_callees[fn] = self._check(fn)
        return self.checked_callees[fn]

    def _check(self, fn):
        try:
            callee = frontend.load(fn)
        except (OSError, TypeError, SrcGradError):
            return None
        scope.note_attribute(_identity(fn), "__code__", _identity(fn).__code__)  # spliced: `fn.__code__ = ...` rebuilds
        if set(callee.bound) != set(callee.held):
            return None
        args = callee.tree.args
        holder = fn if varargs.arity(fn) is not None else _identity(fn)  # a variant holds its own defaults
        if (args.vararg or args.kwarg or getattr(args, "posonlyargs", None)
                or not _defaults_as_written(args.defaults, holder)
                or not _keyword_defaults_as_written(args.kwonlyargs, args.kw_defaults, holder)):
            return None
        if any(isinstance(n, _KEPT_CALLS) or (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Del))
               for s in callee.tree.body for n in traversal.walk(s)):
            return None
        try:
            callee.tree = module_tests.run(callee)
            callee.tree = generator_calls.run(callee)
            callee.tree = key_lambdas.run(callee, self.transform)
            callee.tree = transform_calls.run(callee)
            callee.tree = function_choices.run(callee)
            callee.tree = idioms.run(callee, self.transform)
            callee.tree = map_filter.run(callee)
            callee.tree = vectorized_calls.run(callee, self.transform)
            callee.tree = folds.run(callee)
            fence.check(callee, self.transform)
            callee.tree = aliases.run(callee)
            return callee, fence.shared_augmented(callee)  # in-place updates checked when they run
        except SrcGradError:
            return None

    def spellings(self, callee, free):
        """{name: (the module through which the callee's global `name` is read, or None
        for a module bound to a name of its own; what it means)} for the free names that
        the caller's scope would read otherwise (another module's globals, a name the
        caller shadows); None when a name cannot be read as the callee reads it."""
        same_globals = callee.globals is self.program.globals
        module = _module_of(callee.globals)
        through = {}
        for name in free:
            if name in callee.cells:
                return None
            in_globals = name in callee.globals
            meaning = callee.globals[name] if in_globals else getattr(builtins, name, MISSING)
            if meaning is MISSING:
                return None
            is_module = isinstance(meaning, types.ModuleType)
            visible = (name not in self.local_names and first_meaning(name, self.program) is meaning
                       and self.namer.helpers.get(name, meaning) is meaning)
            if visible and (same_globals or not in_globals or is_module):
                continue  # the caller reads the same name the same way (modules are not rebound)
            if is_module:
                through[name] = (None, meaning)
            elif in_globals and module is not None:
                through[name] = (module, meaning)
            else:
                return None
        return through

    def spliced_body(self, stmt, callee, values, parts, unpacking):
        """(the callee's statements for the call `stmt`, normalized and located at it,
        whether they assign the targets of `unpacking` in its place)."""
        tree, params = callee.tree, callee.params
        renames = {}
        for name, obj in callee.held.items():  # a method's receiver: a name bound to its object
            preferred = parts[-1] if obj is lookup_path(parts, self.program) else (parts[-2] if len(parts) > 1 else name)
            renames[name] = self.bind(preferred, obj)
        self.program.bound.update(callee.bound)
        stored = set(traversal.names_stored(tree))
        prologue, substituted = [], {}
        for name, (module, meaning) in callee.through.items():  # `K` of another module: `helpers.K`
            if module is None:
                substituted[name] = syntax.name(self.module_name(name, meaning))
            else:
                holder = module.__name__.rpartition(".")[2].strip("_") or "module"
                substituted[name] = syntax.attr(syntax.name(self.module_name(holder, module)), name)
        for p in params:
            value = values[p]
            if p not in stored and _substitutable(value, self.local_names) and not _literal_in_identity_test(tree, p, value):
                substituted[p] = value
            else:
                renames[p] = self.namer.fresh(p)
                prologue.append(syntax.assign(syntax.name(renames[p], store=True), syntax.copy(value)))
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) else None
        for name in sorted(stored - set(params)):
            renames[name] = self.namer.fresh(name)
            if name == callee.listed and target is not None and target.id not in self.names_of(tree, values):
                # the list a listing builds is built under the name its call assigns: no second
                # name for it (which a loop would see changed in place while in use)
                renames[name] = target.id

        tree.args.args, tree.args.kwonlyargs, tree.args.kw_defaults = [], [], []
        _respell(tree, substituted, renames)
        tree = jumps.run(tree, self.namer)  # one `return`, the last statement
        *body, ret = tree.body
        unpacked = bool(unpacking) and isinstance(ret.value, gast.Tuple) and len(ret.value.elts) == len(unpacking)
        if unpacked:  # `s, p = (a + b, a * b)`: no tuple made and taken apart
            targets = [s.targets[0] for s in sorted(unpacking, key=lambda s: s.value.slice.value)]
            result = syntax.assign(syntax.tuple_(targets, store=True), ret.value)
        elif isinstance(stmt, gast.Assign) and not (isinstance(stmt.targets[0], gast.Name)
                                                    and syntax.is_name(ret.value, stmt.targets[0].id)):
            result = syntax.assign(stmt.targets[0], ret.value)
        elif isinstance(stmt, gast.Assign):  # `u = step(u)` returning the `u` it changed: `u = u` does nothing
            result = None
        else:  # a call for its effects: a value that is only read is dropped
            result = None if isinstance(ret.value, (gast.Name, gast.Constant)) else syntax.expr(ret.value)
        tree.body = body + ([syntax.located(result, ret)] if result is not None else [])
        locals_ = self.local_names | set(renames.values()) | set(traversal.names_stored(tree))
        # in a loop or branch, ANF keeps an assignment's target off its right-hand side
        # (`u = step(u)` spliced as `u = u * c` would leave reverse mode no old value)
        unseen = {p for p in params if self.unseen(values[p])}
        checks = _respelled_checks(callee.shared, substituted, renames, unseen)
        tree = anf.run(tree, self.namer, locals_, checks, self.program.bound,
                       nested=self.depth > 0)
        out = [_relocated(s, stmt) for s in prologue + tree.body]
        self.local_names |= set(traversal.names_stored(out))
        for s in out:
            traversal.load_counts(s, self.loads)
        self.spliced += len(out)
        return out, unpacked


# what keeps a callee a call: `with` blocks, nested functions, scope statements, generators, imports
_KEPT_CALLS = (gast.With, gast.FunctionDef, gast.Lambda, gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom, gast.Await,
               gast.Import, gast.ImportFrom, gast.ClassDef)


def _module_of(namespace):
    """The imported module whose globals are `namespace`, or None."""
    module = sys.modules.get(namespace.get("__name__"))
    return module if module is not None and getattr(module, "__dict__", None) is namespace else None


def _hands_on_passed(call, fn, bound):
    """Whether `call` passes `fn` a parameter bound to a partial, bound method or callable
    object (passed_callables.py) other than as the receiver of its own function, or to a
    container of callables (passed_containers.py): its calls
    are rewritten in the callee's own derivative, which the call then stays."""
    for node in call.args + [k.value for k in call.keywords]:
        shape = bound.get(node.id) if isinstance(node, gast.Name) else None
        if (isinstance(shape, Passed) and shape.func is not fn) or getattr(shape, "srcgrad_callables", False):
            return True  # a container of callables (passed_containers.py) too
    return False


def _hands_on_record(call, callee, records):
    """Whether `call` passes a parameter bound to a record's class (record_methods.py) to
    a callee that calls a method of one of its parameters: those calls are rewritten in
    the callee's own derivative, which the call then stays."""
    handed = [node.id for node in call.args + [k.value for k in call.keywords]
              if isinstance(node, gast.Name) and node.id in records]
    if not handed:
        return False
    classes = {getattr(records[name], "cls", None) for name in handed} - {None}
    if record_methods.calls_a_method(callee.tree, set(callee.params), classes):
        return True
    params = {p for p, a in zip(callee.params, call.args) if _named_in(a, records)} | {
        k.arg for k in call.keywords if _named_in(k.value, records)}  # the parameters the records go to
    return any(  # `u + v`, `-u`: its class's operators
        (type(node) is gast.BinOp and (_named_in(node.left, params) or _named_in(node.right, params)))
        or (type(node) is gast.UnaryOp and _named_in(node.operand, params))
        or (type(node) is gast.AugAssign and _named_in(node.target, params))
        or (type(node) is gast.Attribute and _named_in(node.value, params)
            and any(isinstance(record_methods.defined(c, node.attr)[1], property) for c in classes))
        for node in traversal.walk(callee.tree))


def _named_in(node, names):
    return type(node) is gast.Name and node.id in names


def _spliceable(fn, expanding):
    """Whether `fn` is a user function that no rule and no recursion keeps a call."""
    target = _identity(fn)
    if not is_user_function(fn) or target in expanding:
        return False
    if (getattr(target, "__module__", "") or "").startswith("srcgrad") or frontend.derivative_refusal(fn) is not None:
        return False
    if rules.lookup(fn) is not None or rules.is_nondifferentiable(fn) or getattr(fn, "__wrapped__", None) is not None:
        return False
    if record_methods.owner_of(target) is not None and _own_array_named_calls(target):
        return False  # `self.dot(o)` of its class: its own derivative knows `self`'s class, or refuses it
    return not target.__code__.co_flags & 0x2A0  # generator, coroutine, async generator


def _own_array_named_calls(fn):
    try:
        return bool(record_methods.own_array_named_calls(fn, frontend.load(fn).tree))
    except (SrcGradError, OSError, TypeError):
        return False


def _defaults_as_written(defaults, fn):
    """Whether each default is a literal, and the one `fn` holds (`fn.__defaults__`, which a
    call reads) is the value written; the spliced code reads the literal, so a derivative
    is built again after `fn.__defaults__ = ...` (scope.note_attribute)."""
    held = getattr(fn, "__defaults__", None) or ()
    if len(held) != len(defaults) or not all(syntax.is_const(d) for d in defaults):
        return False
    if not all(_holds_literal(value, node) for node, value in zip(defaults, held)):
        return False
    if defaults:
        scope.note_attribute(fn, "__defaults__", fn.__defaults__)
    return True


def _literal_in_identity_test(tree, name, value):
    """Whether `name` is an operand of `is`/`is not` in `tree` and `value` a literal that
    Python warns about there (`0.5 is not None`: SyntaxWarning): such a parameter is
    assigned its argument, not replaced by it."""
    literal = value.operand if isinstance(value, gast.UnaryOp) else value
    if not (isinstance(literal, gast.Constant) and type(literal.value) in (int, float, complex, str, bytes)):
        return False
    return any(type(n) is gast.Compare and any(type(op) in (gast.Is, gast.IsNot) for op in n.ops)
               and any(syntax.is_name(o, name) for o in [n.left, *n.comparators]) for n in traversal.nodes(tree))


def _holds_literal(value, node):
    """Whether `value` is the literal `node` (a constant, or a negated one) as written."""
    written = node.value if isinstance(node, gast.Constant) else node.operand.value
    written = -written if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) else written
    return type(written) is type(value) and (written == value or written is value)


def _keyword_defaults_as_written(kwonly, defaults, fn):
    """`_defaults_as_written` for the keyword-only parameters (`__kwdefaults__`); one
    without a default must be passed."""
    held = getattr(fn, "__kwdefaults__", None) or {}
    given = [(a.id, d) for a, d in zip(kwonly, defaults) if d is not None]
    if set(held) != {name for name, _ in given} or not all(syntax.is_const(d) for _, d in given):
        return False
    if not all(_holds_literal(held[name], node) for name, node in given):
        return False
    if given:
        scope.note_attribute(fn, "__kwdefaults__", fn.__kwdefaults__)
    return True


def _arguments(tree, params, call):
    """{parameter: argument node} of `call` (defaults for the rest), or None when it does
    not bind. `params`: the positional parameters, then the keyword-only ones."""
    positional = params[:len(tree.args.args)]
    if len(call.args) > len(positional):
        return None
    values = dict(zip(positional, call.args))
    for k in call.keywords:
        if k.arg not in params or k.arg in values:
            return None
        values[k.arg] = k.value
    defaults = tree.args.defaults
    for p, d in zip(positional[len(positional) - len(defaults):], defaults):
        values.setdefault(p, d)
    for a, d in zip(tree.args.kwonlyargs, tree.args.kw_defaults):
        if d is not None:
            values.setdefault(a.id, d)
    return values if len(values) == len(params) else None


def _substitutable(value, local_names):
    """Whether a parameter can read the argument `value` where it is read: a literal, a
    name, or an attribute chain on a name that is not a local variable (`np.tanh`)."""
    if syntax.is_const(value) or isinstance(value, gast.Name):
        return True
    parts = dotted_parts(value)
    return parts is not None and parts[0] not in local_names


def _respell(tree, substituted, renames):
    """Each name of `substituted` in `tree` replaced by a copy of its node, each of
    `renames` renamed (in place)."""
    for node in list(traversal.nodes(tree)):
        values = node.__dict__
        for field in traversal.child_fields(type(node)):
            value = values.get(field)
            items = value if type(value) is list else [value]
            for i, item in enumerate(items):
                if type(item) is not gast.Name:
                    continue
                if item.id in substituted:
                    new = syntax.copy(substituted[item.id])
                    if type(value) is list:
                        value[i] = new
                    else:
                        values[field] = new
                elif item.id in renames:
                    item.id = renames[item.id]


def _unseen_temporaries(tree, stores):
    """{name: the block (statement list) binding it} for each name `tree` binds exactly
    once, to a value no other name holds: arithmetic (`v * 2.0`, `-v`) or a copy
    (`v.copy()`). `stores`: {name: how many times a Name under `tree` is met not read}
    (traversal.name_counts)."""
    found = {}

    def visit(block):
        for s in block:
            if (type(s) is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name
                    and stores.get(s.targets[0].id) == 1 and _new_value(s.value)):
                found[s.targets[0].id] = block
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    visit(inner)
            for handler in getattr(s, "handlers", None) or ():
                visit(handler.body)

    visit(tree.body)
    return found


def _new_value(value):
    if type(value) in (gast.BinOp, gast.UnaryOp):
        return True
    return (type(value) is gast.Call and type(value.func) is gast.Attribute and value.func.attr == "copy"
            and type(value.func.value) is gast.Name and not value.args and not value.keywords)


def _respelled_checks(shared, substituted, renames, unseen=frozenset()):
    """fence.shared_augmented's run-time checks of the callee, its names respelled as
    `_respell` respells them (a check against a literal argument is dropped: it shares
    no memory, and so is one against a parameter in `unseen`, given a new value that
    nothing else reads); keyed by the callee's own locations, which the tree keeps until
    ANF."""
    out = {}
    for key, checks in shared.items():
        kept = []
        for other, message in checks:
            if other in unseen:
                continue
            if other in substituted:
                node = substituted[other]
                if not isinstance(node, gast.Name):
                    continue
                kept.append((node.id, message))
            else:
                kept.append((renames.get(other, other), message))
        out[key] = kept
    return out


def _relocated(stmt, at):
    """`stmt` with every node located at the statement `at`."""
    for node in traversal.nodes(stmt):
        for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if a in type(node)._attributes and hasattr(at, a):
                setattr(node, a, getattr(at, a))
    return stmt
