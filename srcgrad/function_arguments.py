"""Functions passed as arguments to a differentiated function (`def loss(x, act=np.tanh)`,
`def integrate(y0, rhs, h)`): derivatives specialized to the function each call passes.

A parameter the function calls (`act(x)`) or hands to another of the user's functions
(`rk4_step(rhs, y, h)`) holds a function known only when the derivative is called. Such
a transform is built per call's functions: each call binds those parameters to the
functions it passes (or their defaults) and runs the derivative made for that binding,
as a callee's parameters are bound where a caller passes a known function
(`compiler.bound_calls.with_functions`). The generated code reads like the user's, with the
binding named in its docstring (`Gradient of f (act = np.tanh)`).

A `functools.partial` of a Python function, a bound method or a callable object is bound
as what it calls (`followed`: a `compiler.passed_callables.Passed`), keyed by the function
and, for a partial, the number of its positional arguments and the names of its keywords,
never by the object nor its values: the derivative reads the partial's arguments or the
instance from the argument when it runs (`f_k = f.keywords['k']`, `f.__self__`), so a
fresh partial per call, another instance or a changed attribute reuses the derivative
with its own numbers. Those values are constants (no gradient flows into them).

A parameter whose methods the function calls (`p.apply(x)`, or handed to a function of
the user's that does) and that holds a dataclass instance, a namedtuple or an object of
a class of the user's own code (`problem.cost(x)`, a callable object too) is bound to
its class (`followed`: a `compiler.record_methods.RecordOf`), so its methods are
followed through the class's code; keyed by the class, never the instance, so one
derivative serves every object of a class (another object's attributes read when it
runs), and a subclass gets its own.

A parameter the function loops over calling the loop variable (`for layer in layers:
h = layer(h)`, also through `enumerate`, `zip`, ...), or calls an element of
(`acts["a"](x)`), and that holds a list, tuple or dict of such functions, partials,
methods or objects is bound to a `compiler.passed_containers.Callables`: what each
element is bound to, interned per their identities (and a dict's keys), so another list,
another length or the same list changed in place is bound anew at its next call (it is
looked up again at every call, as a `Passed` is); a container mixing them with other
values is bound to a refused one, refused at its first use.

A function taking `*args` or `**kwargs` is differentiated per call's arity (`_PerArity`):
the count of the call's positional arguments and its keywords' names pick the function's
explicit variant (`compiler.varargs`: `def wrapper(args_0, args_1, *, scale)`), whose
transform is made once and kept; `wrt` positions count the call's positional arguments.

Invariants: a function that calls none of its parameters (nor a method of one) gets the
transform itself, with no per-call cost; a parameter is bound only to a function srcgrad
can follow (`bound_calls.is_followable`), a `Passed` (one that cannot be followed is refused at
its call's line) or a `RecordOf` (a method it cannot follow refused so); at most `_KEPT` bindings are kept per transform (and four times as many
bound copies in all), the oldest dropped first: a new lambda per call derives anew
rather than growing memory. A call whose arguments are the objects of an earlier call
reuses its transform without type checks, but for a `Passed` or a `RecordOf`, which is
looked up again (a partial's keywords, a class's `__call__` or an object's class may
have changed); a parameter left to its default takes the default the function has at
that call (`fn.__defaults__ = ...` may have changed it).
"""

import functools
import inspect
import re
import weakref

import gast

from .compiler import frontend, none_defaults, traversal, varargs
from .compiler.bound_calls import bound_variant, is_followable
from .compiler.passed_callables import Passed, passed
from .compiler.passed_containers import Callables, callables_of
from .compiler.record_methods import RecordOf, is_method_name, record_of
from .compiler.scope import MISSING, dotted_parts, lookup_path
from .compiler.stand_in import is_user_function
from .errors import SrcGradError

_KEPT = 16


def called_parameters(fn, _seen=None):
    """The names of `fn`'s parameters that its code calls (`act(x)`), calls a method of
    (`p.apply(x)`, record_methods.is_method_name), hands to such a method (`p.apply(x, g)`)
    or passes to a parameter another of the user's functions calls so (`rk4_step(rhs, y, h)`), in order; ()
    where its source cannot be read (the transform then reports that itself). Kept per
    function and code (`vjp` and `jvp` ask at every call)."""
    if _seen is not None:
        return _called_parameters(fn, _seen)
    key = (getattr(fn, "__code__", None), tuple(getattr(fn, "__srcgrad_bound__", None) or ()))
    try:
        kept = _CALLED.get(fn)
    except TypeError:  # not weakly referable
        return _called_parameters(fn, set())
    if kept is None or kept[0] != key:
        kept = _CALLED[fn] = (key, _called_parameters(fn, set()))
    return kept[1]


_CALLED = weakref.WeakKeyDictionary()  # function -> ((its code, its bound names), called_parameters)


def none_defaulted(fn):
    """The names of `fn`'s parameters that its body replaces `None` in by a default
    function (compiler.none_defaults): one given None is bound to `GIVEN_NONE`."""
    try:
        return frozenset(none_defaults.idioms(frontend.load(fn).tree))
    except (SrcGradError, OSError, TypeError):
        return frozenset()


def _followed_at(param, value, defaulted):
    """`followed(value)`, or `GIVEN_NONE` for None given to a parameter in `defaulted`."""
    if value is None and param in defaulted:
        return none_defaults.GIVEN_NONE
    return followed(value)


def _called_parameters(fn, seen):
    if fn in seen:
        return ()
    seen.add(fn)
    try:
        program = frontend.load(fn)
    except (SrcGradError, OSError, TypeError):
        return ()
    args, bound = program.tree.args, getattr(fn, "__srcgrad_bound__", None) or {}
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs if a.id not in bound]
    body = "\n".join(program.source_lines[program.tree.body[0].lineno - 1:])  # the header too, where on one line
    # called, a method of it called, an argument, or a choice (`act = f if smooth else relu`)
    used = {word for pattern in _USES for word in pattern.findall(body)}
    operands = _object_operands(program.tree, params)
    params = [p for p in params if p in used or p in operands]
    if not params:
        return ()
    called = set(operands)
    # the nodes looked at below, in the walk's order, and the names called (one walk)
    nodes, called_names, kinds = [], set(), _LOOKED_AT
    for n in traversal.branch_nodes(program.tree):  # `nodes`'s order; none of the kinds is a leaf
        if type(n) in kinds:
            nodes.append(n)
            if type(n) is gast.Call and type(n.func) is gast.Name:
                called_names.add(n.func.id)
    for node in nodes:
        if isinstance(node, gast.For):  # `for layer in layers: h = layer(h)`: a container of callables
            called.update(_iterated(node, params))
        elif isinstance(node, (gast.ListComp, gast.GeneratorExp)) and len(node.generators) == 1:
            called.update(_iterated(node.generators[0], params, [node.elt]))  # `[f(x) for f in layers]`
        if (isinstance(node, gast.Assign) and isinstance(node.value, gast.IfExp)
                and any(isinstance(t, gast.Name) and t.id in called_names for t in node.targets)):
            called.update(_chosen(node.value, params))  # function_choices.py makes the calls of each choice
        if not isinstance(node, gast.Call):
            continue
        if isinstance(node.func, gast.Name) and node.func.id in params:
            called.add(node.func.id)
        elif (isinstance(node.func, gast.Subscript) and isinstance(node.func.value, gast.Name)
              and node.func.value.id in params):
            called.add(node.func.value.id)  # `layers[0](h)`, `acts["a"](x)`: a container of callables
        elif (isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name)
              and node.func.value.id in params and is_method_name(node.func.attr)):
            called.add(node.func.value.id)  # `p.apply(x)`: bound where a record is passed
            # `p.apply(x, act=g)`: a function handed to a record's method, which may call it
            called.update(a.id for a in node.args + [k.value for k in node.keywords]
                          if isinstance(a, gast.Name) and a.id in params)
        elif any(isinstance(a, gast.Name) and a.id in params for a in node.args + [k.value for k in node.keywords]):
            called.update(_handed(node, params, program, seen))
    return tuple(p for p in params if p in called)


_LOOKED_AT = frozenset({gast.For, gast.ListComp, gast.GeneratorExp, gast.Assign, gast.Call})  # by _called_parameters


def _object_operands(tree, params):
    """The names of `params` that are operands of an operator whose result the function
    reads as an object (`(u + v).norm()`, `w = u * 2.0` then `w.x`: an attribute that
    arrays and numbers lack, record_methods.is_method_name): bound where a record is
    passed, so that the operator is its class's (compiler/known_classes.py)."""
    operators = (gast.BinOp, gast.UnaryOp)
    made = {}  # name -> the operator expressions assigned to it
    read = []  # the objects whose attributes are read
    local = set()  # the names stored
    for node in traversal.nodes(tree):
        cls = type(node)
        if cls is gast.Name:
            if type(node.ctx) is gast.Store:
                local.add(node.id)
        elif cls is gast.Assign and len(node.targets) == 1 and type(node.targets[0]) is gast.Name and (
                isinstance(node.value, operators)):
            made.setdefault(node.targets[0].id, []).append(node.value)
        elif cls is gast.Attribute and is_method_name(node.attr):
            read.append(node.value)
    if not read:
        return set()
    found, todo = set(), []
    for value in read:
        todo.extend(made.get(value.id, ()) if type(value) is gast.Name else [value] if isinstance(value, operators) else ())
    local -= set(params)
    while todo:  # the operands, through nested operators (`(u + v) * 2.0`)
        op = todo.pop()
        operands = (op.left, op.right) if type(op) is gast.BinOp else (op.operand,)
        if any(type(o) is gast.Name and o.id in local for o in operands):
            continue  # `(u * x).a` of a local object `u`: the parameter is its number
        for operand in operands:
            if type(operand) is gast.Name and operand.id in params:
                found.add(operand.id)
            elif isinstance(operand, operators):
                todo.append(operand)
    return found


# the words of a function's text that it may call (`p(`), call a method of (`p.`), pass
# (`(p,`, `=p)`) or choose (`p if`, `else p`): four scans of the text in all, not four per
# parameter (a text without such a parameter is read to its end each time)
_USES = tuple(re.compile(pattern) for pattern in (
    r"\b(\w+)(?=\s*[(.\[])", r"[(,=]\s*(\w+)(?=\s*[,)])", r"\b(\w+)(?=\s+if\b)", r"\belse\s+(\w+)\b",
    r"\bin\s+(\w+)(?=\s*[:\])])"))  # and a container of callables: `layers[0](`, `for f in layers:`


def _iterated(loop, params, body=None):
    """The names of `params` the `for` statement or comprehension generator `loop` (whose
    element is `body`) iterates over (also through `enumerate`, `reversed`, `zip`, a slice,
    a dict's `.items()` or `.values()`) where its body calls the loop variable taking their
    elements or a method of it: containers of callables (compiler.passed_containers)."""
    body = loop.body if body is None else body
    called = {(dotted_parts(n.func) or [None])[0] for s in body for n in traversal.nodes(s) if isinstance(n, gast.Call)
              and (not isinstance(n.func, gast.Attribute) or is_method_name(n.func.attr))}  # not `W.dot(h)` of an array
    return _iterated_by(loop.iter, loop.target, params, called) if called else []


def _iterated_by(node, target, params, called):
    """`_iterated` of the iterable `node` whose elements the loop target `target` takes."""
    if isinstance(node, gast.Name):
        return [node.id] if node.id in params and called & set(traversal.names_stored(target)) else []
    if isinstance(node, gast.Subscript):
        return _iterated_by(node.value, target, params, called)
    if not isinstance(node, gast.Call) or node.keywords:
        return []
    func, args, pair = node.func, node.args, isinstance(target, gast.Tuple) and len(target.elts) == 2
    if isinstance(func, gast.Attribute) and not args and func.attr in ("values", "items"):
        if func.attr == "values" or pair:
            return _iterated_by(func.value, target if func.attr == "values" else target.elts[1], params, called)
    elif isinstance(func, gast.Name) and func.id == "reversed" and len(args) == 1:
        return _iterated_by(args[0], target, params, called)
    elif isinstance(func, gast.Name) and func.id == "enumerate" and len(args) == 1 and pair:
        return _iterated_by(args[0], target.elts[1], params, called)
    elif isinstance(func, gast.Name) and func.id == "zip" and isinstance(target, gast.Tuple) and len(target.elts) == len(args):
        return [p for arg, part in zip(args, target.elts) for p in _iterated_by(arg, part, params, called)]
    return []


def _chosen(choice, params):
    """The names of `params` among the functions the conditional expression `choice`
    chooses between (`f if smooth else relu`)."""
    if isinstance(choice, gast.IfExp):
        return _chosen(choice.body, params) + _chosen(choice.orelse, params)
    return [choice.id] if isinstance(choice, gast.Name) and choice.id in params else []


def _handed(call, params, program, seen):
    """Which of `params` the call `call` passes to a parameter that its callee, a Python
    function of the user's, calls."""
    parts = dotted_parts(call.func)
    callee = MISSING if parts is None else lookup_path(parts, program)
    if not is_user_function(callee) or (callee.__module__ or "").startswith("srcgrad"):
        return ()
    inner = called_parameters(callee, seen)
    if not inner:
        return ()
    try:
        passed = inspect.signature(callee).bind_partial(*call.args, **{k.arg: k.value for k in call.keywords if k.arg})
    except TypeError:
        return ()
    return [node.id for name, node in passed.arguments.items()
            if name in inner and isinstance(node, gast.Name) and node.id in params]


def per_call(fn, make):
    """`make(fn)`, or where `fn` calls one of its parameters, a function that makes
    `make(variant)` for each call's functions and calls it. `fn` may itself be such a
    function (`grad(grad(f))`, `hessian`): the bindings are then of the innermost
    function, and the transforms compose."""
    inner = getattr(fn, "__srcgrad_per_call__", None)
    if inner is not None:
        original, inner_make = inner
        composed = lambda variant: make(inner_make(variant))  # noqa: E731
        return (_PerArity if varargs.takes_varargs(original) else _PerCall)(original, composed).function
    if varargs.takes_varargs(fn):
        return _PerArity(fn, make).function
    params = called_parameters(fn)
    if not params:
        return make(fn)
    made = _PerCall(fn, make, params)
    if all(_followed_at(p, default, made.defaulted) is not None for p, _, default in made.slots):
        made.for_call((), {})  # made now for the defaults: what cannot be differentiated fails here
    return made.function


def resolve(fn, args, kwargs=None):
    """What a transform taking its arguments at once (`vjp`, `jvp`) differentiates for
    this call: the made function of a per-call transform, `fn` bound to the functions in
    `args` where it calls a parameter, else `fn`."""
    inner = getattr(fn, "__srcgrad_per_call__", None)
    if inner is not None:
        return fn.__srcgrad_for_call__(args, kwargs or {})
    if varargs.takes_varargs(fn):
        fn = varargs.variant(fn, len(args), list(kwargs or ()))
    params = called_parameters(fn)
    return _binding(fn, params, args, kwargs or {}) if params else fn


def followed(value):
    """What a parameter holding `value` is bound to: `value` itself where it is a function
    srcgrad follows (`bound_calls.is_followable`), the interned `Passed` of a partial, bound
    method or callable object (the values it holds are read from it at run time), the
    interned `RecordOf` of a dataclass instance's, namedtuple's or user's object's class
    (its methods are followed through its code), else None."""
    if is_followable(value):
        return value
    # a callable record is a record (its own fields get gradients), a callable object of
    # the user's class is bound to its class (its `__call__` may call its methods); a
    # list, tuple or dict of those is bound to what each element is
    return record_of(value) or passed(value, record_of) or callables_of(value, followed)


def _binding(fn, params, args, kwargs):
    """`fn` with `params` bound to what this call passes them (or their defaults) where
    `followed` knows it; `fn` itself where it knows none."""
    try:
        arguments = inspect.signature(fn).bind_partial(*args, **kwargs)
    except TypeError:
        return fn  # the transform reports the bad call
    arguments.apply_defaults()
    defaulted = none_defaulted(fn)
    found = {p: _followed_at(p, arguments.arguments[p], defaulted) for p in params if p in arguments.arguments}
    found = {p: value for p, value in found.items() if value is not None}
    if not found:
        return fn
    # the copy takes fn's defaults as they are now: after `fn.__defaults__ = ...` another
    # copy, whose derivative reads the new ones
    defaults = _defaults_of(fn)
    key = (id(fn), tuple((p, id(v)) for p, v in found.items()), tuple(map(id, defaults)))
    kept = _VARIANTS.get(key)
    if kept is None:
        kept = _keep(_VARIANTS, key, (fn, found, bound_variant(fn, found), defaults), 4 * _KEPT)  # holding what the ids are of
    return kept[2]


def _keep(table, key, value, limit):
    """`table[key] = value`, first dropping the oldest entry where `table` holds `limit`."""
    if len(table) >= limit:
        del table[next(iter(table))]
    table[key] = value
    return value


_VARIANTS = {}  # (id of a function, its bound parameters' ids) -> (it, the values, the bound copy); oldest first


class _PerCall:
    """A transform made per binding of `params` (see the module docstring)."""

    def __init__(self, fn, make, params=None):
        self.fn, self.make = fn, make
        self.params = called_parameters(fn) if params is None else params
        signature = inspect.signature(fn).parameters
        positional = [n for n, p in signature.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        # (name, position or a number past any call's, default or _UNSET) of each bound parameter
        self.slots = [(p, positional.index(p) if p in positional else 1 << 30,
                       _UNSET if signature[p].default is signature[p].empty else signature[p].default)
                      for p in self.params]
        self.defaulted = none_defaulted(fn)  # parameters whose None the body replaces by a function
        self.read = _defaults_of(fn)  # the defaults `slots` hold
        self.positional, self.keyword = getattr(fn, "__defaults__", None), bool(getattr(fn, "__kwdefaults__", None))
        self.made = {}  # (ids of what is bound (`followed`; None: nothing), of the defaults) -> (it, made transform, the defaults); oldest first
        # ids of the parameters' values at a call -> (them, made transform, whether one is a Passed); oldest first
        self.seen = {}
        self.last = None

        @functools.wraps(fn)
        def function(*args, **kwargs):
            return self.for_call(args, kwargs)(*args, **kwargs)

        function.__srcgrad_per_call__ = (fn, make)
        function.__srcgrad_for_call__ = self.for_call
        function.__srcgrad_made__ = self.latest
        self.function = function

    def defaults(self):
        """The slots with the defaults `fn` has now (`fn.__defaults__ = ...` may change them)."""
        fn = self.fn
        if fn.__defaults__ is self.positional and not fn.__kwdefaults__ and not self.keyword:
            return self.slots  # the common case: the same tuple (a new one is a new object), no keyword-only ones
        now = _defaults_of(fn)
        self.positional, self.keyword = fn.__defaults__, bool(fn.__kwdefaults__)
        if len(now) != len(self.read) or any(a is not b for a, b in zip(now, self.read)):
            self.read = now
            signature = inspect.signature(self.fn).parameters
            self.slots = [(p, i, _UNSET if signature[p].default is signature[p].empty else signature[p].default)
                          for p, i, _ in self.slots]
        return self.slots

    def for_call(self, args, kwargs):
        given = len(args)
        values = [args[i] if i < given else kwargs.get(p, default) for p, i, default in self.defaults()]
        ids = tuple(map(id, values)) + tuple(map(id, self.read))  # self.read: held by the transform made
        found = self.seen.get(ids)  # the same objects as a call before: no type checks
        if found is None or found[2]:  # a partial's keywords or a class's `__call__` may have changed since
            bound = [_followed_at(p, v, self.defaulted) for (p, _, _), v in zip(self.slots, values)]
            # with the defaults' ids: a transform made before `fn.__defaults__ = ...` copied the old ones
            key = (tuple(None if b is None else id(b) for b in bound), tuple(map(id, self.read)))
            found = self.made.get(key)
            if found is None:
                found = _keep(self.made, key, (bound, self.make(_binding(self.fn, self.params, args, kwargs)), self.read),
                              _KEPT)
            # a record's class may be set anew, a container's elements changed in place
            shaped = any(isinstance(b, (Passed, RecordOf, Callables)) for b in bound)
            found = _keep(self.seen, ids, (values, found[1], shaped), _KEPT)  # holding what its ids are of
        self.last = found[1]
        return found[1]

    def latest(self):
        """The transform last called, or the one of the parameters' defaults (what
        `srcgrad.source` prints)."""
        if self.last is None:
            unbound = [p for p, _, default in self.defaults() if _followed_at(p, default, self.defaulted) is None]
            if unbound:
                raise TypeError(
                    f"the derivative of `{self.fn.__name__}` is made for the functions passed to {_listed(unbound)} "
                    f"at each call (for a dataclass or namedtuple, for its class): call it once before asking for its "
                    "source"
                )
            self.for_call((), {})
        return self.last


class _PerArity:
    """A transform of a function taking `*args` or `**kwargs`, made per call's arity
    (the count of its positional arguments, the names of its keywords, in order) from
    the function's explicit variant (`compiler.varargs`): at most `_KEPT` kept, the
    oldest dropped first. Each is itself made per call's functions where the variant
    calls a parameter (`per_call`)."""

    def __init__(self, fn, make):
        self.fn, self.make = fn, make
        self.made = {}  # (count, keywords) -> (the code it was made of, the transform made); oldest first
        self.last = None

        @functools.wraps(fn)
        def function(*args, **kwargs):
            found = self.made.get((len(args), tuple(kwargs)))
            found = found[1] if found is not None and found[0] is fn.__code__ else self.made_for(args, kwargs)
            self.last = found
            return found(*args, **kwargs)

        function.__srcgrad_per_call__ = (fn, make)
        function.__srcgrad_for_call__ = self.for_call
        function.__srcgrad_made__ = self.latest
        self.function = function

    def made_for(self, args, kwargs):
        key, code = (len(args), tuple(kwargs)), self.fn.__code__
        found = self.made.get(key)
        if found is None or found[0] is not code:  # new, or the function's code replaced since
            self.made.pop(key, None)
            found = _keep(self.made, key, (code, per_call(varargs.variant(self.fn, *key), self.make)), _KEPT)
        return found[1]

    def for_call(self, args, kwargs):
        """The transform this call runs (`resolve`)."""
        found = self.last = self.made_for(args, kwargs)
        bindings = getattr(found, "__srcgrad_for_call__", None)
        return found if bindings is None else bindings(args, kwargs)

    def latest(self):
        """The transform last called (what `srcgrad.source` prints)."""
        if self.last is None:
            raise TypeError(
                f"the derivative of `{self.fn.__name__}` is made for the number of arguments its `*` and `**` "
                "parameters collect at each call: call it once before asking for its source"
            )
        return self.last


def _defaults_of(fn):
    """The defaults of `fn`'s parameters, as a tuple compared by identity: the positional
    ones', then each keyword-only one's name and default."""
    return tuple(getattr(fn, "__defaults__", None) or ()) + tuple(
        v for kv in sorted((getattr(fn, "__kwdefaults__", None) or {}).items()) for v in kv)


def _listed(names):
    quoted = [f"`{n}`" for n in names]
    return ("its parameter " if len(quoted) == 1 else "its parameters ") + ", ".join(quoted)


_UNSET = object()
