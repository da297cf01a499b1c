"""The only module that knows the order of the stages.

source -> parse (frontend) -> stored lazy iterators checked (stored_iterators) -> calls of generators as calls of their listings (generator_calls) -> nested functions' defaults evaluated at their defs (def_defaults) -> check (fence) -> `try` statements as branches (attempts) -> `with` blocks between markers (contexts) ->
nested functions out (closures) -> jumps ->
ANF -> nested functions inlined (closures) -> calls of other user functions spliced
(callees) -> versions -> resolve -> activity -> loops over
sequences by index (iteration) -> reverse (contributions, mutation, adjoints, tape; or
forward for mode "jvp") -> optimize -> scaling (specialized reverse mode) -> split (vjp's pullback) -> `try`
statements again (attempts) -> `with` blocks again (contexts) -> emit -> load -> cache,
which dispatches each kind of call to code specialized for it (kinds, shapes). With
`verbose`, the code after each stage is printed.
"""

import contextlib
import functools
import gc
import inspect
import types
import weakref
from dataclasses import dataclass, replace

import gast

from ..errors import SrcGradError
from . import accumulate, activity, aliases, anf, assembly, attempts, block_defs, cache, cached_calls, call_effects, callees, closures, collections_dicts, constants, contexts, declarations, def_defaults, einsum_sublists, emit, factories, factoring, fence, folds, forward, frontend, function_choices, generator_calls, hoist, idioms, index_tricks, iteration, itertools_lists, jumps, key_lambdas, known_classes, load, map_filter, matches, module_tests, operand_checks, optimize, origins, passed_callables, passed_containers, printing, record_calls, record_methods, resolve, reverse, row_writes, scaling, scope, sorted_loops, split, stand_in, standalone, stored_iterators, syntax, transform_calls, traversal, tuple_writes, unroll, vectorized_calls, versions
from .naming import Namer
from .shapes import Signature

MODES = ("grad", "value_and_grad", "vjp", "pullback", "jvp", "split_vjp")
_BUILDING = set()  # (function, key) pairs being derived right now (recursive calls)


class Derivative:
    """A generated derivative: `function`, the live function to call, and the general
    code's `source` text, `name` and `unit`. For modes that specialize per kind of call,
    `function` dispatches and the general code is built when first needed (a call no
    specialization serves, or its text asked for)."""

    __slots__ = ("function", "_general", "reads", "code", "argument_checks", "specialized")

    def __init__(self, function, general, reads=(), code=None, argument_checks=(), specialized=None):
        self.function = function
        # a jvp's: the dispatcher to code specialized per kind of call (accumulate.py), for
        # calls passing every parameter by position (srcgrad.jvp); `function` is the general code
        self.specialized = specialized
        self.argument_checks = argument_checks  # what only the arguments show: see api.check_arguments
        self.code = code  # the code object of the function it was made from
        self._general = general  # () -> the general code's function
        # (namespace, name, callable) for each global or cell name its calls resolved
        # through, its callees' included: it is stale once one of them is rebound
        self.reads = reads

    def current(self, fn):
        """Whether it still is `fn`'s derivative: made from `fn`'s code, and every global or
        cell name its calls resolved through still means the object it meant (else it is
        stale: build it again)."""
        return self.code is getattr(fn, "__code__", None) and (not self.reads or scope.still_read(self.reads))

    @property
    def source(self):
        """The text compiled (its helpers bound by load.py); what forward mode over it reads."""
        return self._general().__srcgrad_source__

    @property
    def name(self):
        return self._general().__name__

    @property
    def unit(self):
        """standalone.Unit: what `srcgrad.source` shows (standalone.text)."""
        return self._general().__srcgrad_unit__

    def display(self):
        """The text `srcgrad.source` shows: this source with its imports and the
        derivatives it calls, runnable on its own (standalone.py)."""
        return standalone.text(self.unit)


def derive(fn, mode="grad", wrt=(0,), verbose=False, source=None):
    """The derivative of `fn` in `mode` with respect to the parameter positions `wrt`.

    `wrt` is an int (one gradient) or a tuple of ints (a tuple of gradients).
    """
    key = (mode, wrt)
    found = cache.get(fn, key)
    if found is not None and found.current(fn) and verbose != "stages":  # the stages are shown as they run
        scope.note_reads(found.reads)
        if verbose:  # made before, without verbose: shown all the same
            print(found.display())
        return found
    _BUILDING.add((fn, key))
    try:
        with _collector_paused():
            return _derive(fn, mode, wrt, verbose, source, key)
    finally:
        _BUILDING.discard((fn, key))
        if not _BUILDING:
            stand_in.forget_methods()


def pullback_of(fn, positions):
    """The pullback of the user function `fn` for its parameters `positions`.

    A function that is being derived right now (recursion) gets a stand-in that finds
    the finished pullback at its first call.
    """
    _note_code(fn)
    if (fn, ("pullback", positions)) in _BUILDING:
        return _Pending(fn, positions, "pullback")
    return derive(fn, "pullback", positions).function


def _note_code(fn):
    """Log the code of `fn`, a function another derivative calls the derivative of: its
    caller is built again after `fn.__code__ = ...` (the derivative of `fn` itself too, as
    `fn` is then parsed again). Not logged for a derivative the user asked for, which
    would lose the dispatcher's fast path (api.py)."""
    if isinstance(fn, types.FunctionType):
        scope.note_attribute(fn, "__code__", fn.__code__)


def jvp_of(fn, positions):
    """The generated jvp function of the user function `fn` for its parameters `positions`
    (a stand-in while `fn` itself is being derived: recursion)."""
    _note_code(fn)
    if (fn, ("jvp", positions)) in _BUILDING:
        return _Pending(fn, positions, "jvp")
    return derive(fn, "jvp", positions, source=getattr(fn, "__srcgrad_source__", None)).function


from ..rules import derived_rules as _derived_rules  # noqa: E402

_derived_rules._JVP_OF[:] = [jvp_of]  # forward rules of rule helpers differentiate their source


class _Pending:
    """Calls the derivative of a function whose derivation had not finished when it was bound."""

    def __init__(self, fn, positions, mode="pullback"):
        self.fn, self.positions, self.mode = fn, positions, mode
        self.__name__ = f"{fn.__name__}_{mode}"

    def __call__(self, *args, **kwargs):
        function = derive(self.fn, self.mode, self.positions).function
        if self.mode == "jvp" and kwargs:  # the tangents, last, under the names the caller guessed
            given = list(kwargs)[-len(self.positions):]
            names = list(inspect.signature(function).parameters)[-len(self.positions):]
            if given != names:
                kwargs = {**{k: v for k, v in kwargs.items() if k not in given}, **{n: kwargs[g] for n, g in zip(names, given)}}
        return function(*args, **kwargs)

    @property
    def srcgrad_target(self):
        """The finished derivative it stands for (None while that is being made): forward
        mode differentiates it like a user function (a gradient calling a recursive pullback)."""
        found = cache.get(self.fn, (self.mode, self.positions))
        return found.function if found is not None else None

    @property
    def __srcgrad_key__(self):
        """What it stands for, as a standalone.Unit's key: (fn, mode, positions)."""
        return (self.fn, self.mode, self.positions)

    @property
    def __srcgrad_unit__(self):
        """The standalone.Unit of the derivative it stands for; None while that is being made."""
        found = cache.get(self.fn, (self.mode, self.positions))
        if found is None and (self.fn, (self.mode, self.positions)) in _BUILDING:
            return None
        try:
            found = found or derive(self.fn, self.mode, self.positions, source=getattr(self.fn, "__srcgrad_source__", None))
        except Exception:  # noqa: BLE001 - source() then names it in a comment
            return None
        return found.unit


def _derive(fn, mode, wrt, verbose, source, key):
    splicing = _Splicing()
    with scope.reads_logged() as log:
        _note_defaults(fn)
        prepared = splicing.attempt(lambda: _prepare(fn, mode, wrt, verbose, source, splicing))
        if mode not in _SPECIALIZED or not _positional_only(prepared):
            function = splicing.attempt(
                lambda: _finish(prepared, verbose),
                lambda: _finish(_prepare(fn, mode, wrt, verbose, source, splicing), verbose))
            return cache.put(fn, key, Derivative(function, lambda: function, _distinct(log), getattr(fn, "__code__", None),
                                                 prepared.argument_checks))
    reads = _distinct(log)
    params = prepared.tree.args if mode == "jvp" else prepared.sweeps.args
    arity = len(params.args) + (1 if mode == "vjp" else 0)  # vjp: the seed first; no *args
    name = f"{prepared.program.name}_{mode}"
    alive = _weak(fn)  # the derivative must not keep its function alive (cache.py)
    take = _sweeps_for_each_build(prepared, lambda: _prepare(alive(), mode, wrt, False, source, splicing))

    def build(signature=None):
        shown = verbose if signature is None else False
        with _collector_paused():
            return splicing.attempt(
                lambda: _finish(take(), shown, signature),
                lambda: _finish(_prepare(alive(), mode, wrt, False, source, splicing), shown, signature))

    general = _once(build)
    if verbose:
        general()  # printed now
    function = cache.specializing(general, build, name, arity)
    if mode == "jvp":  # the general code for every other caller (nested forward mode, linearize, jacobians)
        return cache.put(fn, key, Derivative(general(), general, reads, getattr(fn, "__code__", None),
                                             prepared.argument_checks, specialized=function))
    return cache.put(fn, key, Derivative(function, general, reads, getattr(fn, "__code__", None),
                                         prepared.argument_checks))


def _note_defaults(fn):
    """Log the defaults the derivative of `fn` copies (`_finish`) and its callers' bind
    (for a method's stand-in, the method's: `stand_in.defaults`): after
    `fn.__defaults__ = ...` or `Cls.method.__defaults__ = ...` it is built again."""
    holder = stand_in.defaults_holder(fn)
    for name in ("__defaults__", "__kwdefaults__"):
        if getattr(holder, name, None) is not None:
            scope.note_attribute(holder, name, getattr(holder, name))


class _Splicing:
    """Whether a derivative's builds splice calls of other user functions (callees.py):
    until one with spliced calls is refused. Its builds are then made again, and from then
    on, with the calls as written, so a refusal names the callee's own line."""

    def __init__(self):
        self.allowed = True
        self.used = False  # set by _prepare when it spliced a call

    def attempt(self, build, unspliced=None):
        """`build()`; where it is refused after splicing, `unspliced()` (default: `build()`
        again) without splicing."""
        try:
            return build()
        except SrcGradError:
            if not (self.allowed and self.used):
                raise
        self.allowed = False
        return (unspliced or build)()


def _distinct(log):
    """The reads of `log` (see scope.reads_logged), each (namespace, name) once."""
    return tuple({(id(namespace), name): (namespace, name, value) for namespace, name, value in log}.values())


def _sweeps_for_each_build(prepared, prepare_again):
    """A function giving each build (the general code, each specialization) a `_Prepared`
    of its own to consume.

    Most derivatives are built once (one kind of call), so the first build takes
    `prepared` itself, and nothing is kept for later ones: keeping a copy would cost the
    first build that copy (about a sixth of it), the memory, the garbage collector's
    walks over it, and a reference to the user's function. A later build prepares
    again (`prepare_again()`: the same stages, the same result).
    """
    pending = [prepared]  # no other reference to `prepared` is kept
    return lambda: pending.pop() if pending else prepare_again()


def _weak(fn):
    """A function giving `fn` back while it exists (a weak reference where it takes one)."""
    try:
        ref = weakref.ref(fn)
    except TypeError:
        return lambda: fn

    def get():
        found = ref()
        if found is None:
            raise RuntimeError("the function this derivative was made from no longer exists")
        return found

    return get


def _once(build):
    """`build()`, called at the first call only: later calls return the same result."""
    made = []

    def get():
        if not made:
            made.append(build())
        return made[0]

    return get


_SPECIALIZED = ("grad", "value_and_grad", "vjp", "split_vjp", "jvp")  # called by users, once per kind of call


def _positional_only(prepared):
    """Whether the derivative takes positional parameters only, without defaults (a jvp
    taking keywords or defaults is not specialized: the dispatcher passes positions)."""
    if prepared.tree is None:
        return True
    args = prepared.tree.args
    return not (args.kwonlyargs or args.vararg or args.kwarg or args.defaults or args.posonlyargs)


@dataclass
class _Prepared:
    """A derivative up to where the kind of call matters: the reverse sweeps (tape markers
    not lowered), or for "jvp" the finished tangent function in `tree`."""

    program: object
    key: tuple  # (fn, mode, wrt): the derivative's standalone.Unit key
    sweeps: object = None  # reverse.Sweeps; its Namer is the derivative's
    split_vjp: bool = False
    tree: object = None  # "jvp": the FunctionDef
    namer: object = None  # "jvp": its Namer
    argument_checks: tuple = ()  # iteration.run's and activity.constant_operands': see api.check_arguments


def _prepare(fn, mode, wrt, verbose, source, splicing=None):
    """The stages that do not depend on the kind of call (shapes and dtypes); calls of
    other user functions are spliced in where `splicing` allows it (callees.py).

    "split_vjp" is "vjp" with the backward pass moved into a pullback closure (split.py).
    """
    key = (fn, mode, wrt)
    split_vjp, mode = mode == "split_vjp", "vjp" if mode == "split_vjp" else mode
    program = frontend.load(fn, source=source)
    for read in program.inherited:
        scope.note_inherited(*read)
    program.tree = declarations.run(program)
    program.tree = module_tests.run(program)
    stored_iterators.check(program)
    program.tree = generator_calls.run(program)
    program.tree = matches.run(program, _transform_name(mode))
    program.tree = sorted_loops.run(program)
    program.tree = key_lambdas.run(program, _transform_name(mode))
    program.tree = transform_calls.run(program)
    program.tree = function_choices.run(program)
    program.tree = factories.run(program)
    program.tree = def_defaults.run(program)
    program.tree = block_defs.run(program)
    program.tree = collections_dicts.run(program)
    program.tree = idioms.run(program, _transform_name(mode))
    program.tree = index_tricks.run(program)
    program.tree = einsum_sublists.run(program)
    program.tree = cached_calls.run(program)
    program.tree = row_writes.run(program)
    program.tree = tuple_writes.run(program)
    program.tree = map_filter.run(program)
    program.tree = vectorized_calls.run(program, _transform_name(mode))
    program.tree = folds.run(program)
    program.tree = itertools_lists.run(program)
    program.tree = passed_containers.run(program)
    program.tree = passed_callables.run(program)
    record_checks, written = record_methods.argument_checks(program), program.tree
    program.tree = known_classes.run(program)
    record_checks += operand_checks.run(program, written)
    fence.check(program, _transform_name(mode))
    program.bound.update(fence.imports(program, _transform_name(mode)))
    program.tree = attempts.lower(program, _transform_name(mode))
    program.tree = contexts.lower(program, _transform_name(mode))
    program.tree = aliases.run(program)
    shared = fence.shared_augmented(program)
    tree = syntax.copy(program.tree)
    _show(verbose, "parse and check", tree)
    namer = Namer.for_tree(tree, lambda name: scope.lookup_path([name], program))
    with _user_errors(program, mode):
        local_functions = closures.extract(tree, program)
        namer.helpers.update(program.nested)  # generated code calls them by their own names
        namer.helpers.update(program.held)  # and reads a method's `self` as one
        tree = unroll.run(tree, program, namer)
        tree = jumps.run(tree, namer)
        _show(verbose, "jumps", tree)
        params = [a.id for a in tree.args.args]
        local_names = set(params) | {a.id for a in tree.args.kwonlyargs} | set(traversal.names_stored(tree))
        tree = anf.run(tree, namer, local_names, shared, program.bound, program.listed_defs)
        tree = closures.inline(tree, local_functions, namer, local_names, program.listed_defs)
        _show(verbose, "ANF", tree)
        if splicing is not None and splicing.allowed and callees.run(tree, program, namer, local_names, _transform_name(mode)):
            splicing.used = True
            _show(verbose, "callees", tree)
        tree, stored = versions.run(tree, namer, restores=program.generated)
        _show(verbose, "versions", tree)
        local_names |= stored
        calls = resolve.run(tree, program, local_names, namer.helpers)
        if mode == "pullback":
            call_effects.refuse_redrawn(program, tree, calls)
        positions = wrt if isinstance(wrt, tuple) else (wrt,)
        names = [params[i] for i in positions]  # vjp: gradients of the others are zeros
        ret = tree.body[-1].value
        output = ret.id if isinstance(ret, gast.Name) else None
        active = activity.run(tree, names, output, calls)
        rewritten, argument_checks = iteration.run(tree, program, active, calls, namer)
        if rewritten:
            active = activity.run(tree, names, output, calls)
            _show(verbose, "iteration", tree)
        activity.refuse_complex(program, tree, active, calls)
        activity.refuse_displays(program, tree, active, calls)
        activity.refuse_index_tricks(program, tree, active)
        activity.refuse_text(program, tree, active)
        call_effects.refuse_kept_changes(program, tree, active, calls)
        argument_checks += activity.constant_operands(program, tree, params, active, calls)
        argument_checks += record_calls.field_reads(program, tree, params, active, calls) + record_checks
        if verbose == "stages":
            print(f"--- after activity ---\nvaried: {', '.join(sorted(active.varied))}\n"
                  f"useful: {', '.join(sorted(active.useful))}\nactive: {', '.join(sorted(active.active))}")
        if mode == "jvp":
            tree = forward.run(tree, program, calls, namer, wrt, jvp_of)
            return _Prepared(program, key, tree=hoist.run(tree, namer), namer=namer, argument_checks=argument_checks)
        tree = hoist.invariants(tree, namer)
        sweeps = reverse.sweeps(tree, program, active, calls, namer, wrt, mode, pullback_of)
        return _Prepared(program, key, sweeps, split_vjp, argument_checks=argument_checks)


def _finish(prepared, verbose, signature=None):
    """The stages from the tape on, specialized to `signature` if given: the live function
    (its text in `__srcgrad_source__`, its standalone.Unit in `__srcgrad_unit__`)."""
    program, sw = prepared.program, prepared.sweeps
    mode = "jvp" if sw is None else sw.mode
    with _user_errors(program, mode):
        if sw is None:
            tree, namer = prepared.tree, prepared.namer
            shapes = _shapes(signature, [a.id for a in tree.args.args], namer, None, mode)
        else:
            namer = sw.namer
            params = [a.id for a in sw.args.args]
            output = sw.out.id if isinstance(sw.out, gast.Name) else None
            shapes = _shapes(signature, params, namer, output, mode, prepared.split_vjp)
            tree = assembly.assemble(sw, shapes, prepared.split_vjp)
        _show(verbose, "forward" if mode == "jvp" else "reverse", tree)
        tree = optimize.run(tree, namer)
        if signature is not None and mode != "jvp":
            tree = scaling.run(tree, namer)
            tree = factoring.run(tree, namer, shapes.types)
            constants.bound_scalars(tree, namer)
        if signature is not None and mode == "jvp" and not (program.attempts or program.contexts):
            accumulate.run(tree, shapes, namer)
        if prepared.split_vjp:
            tree = split.run(tree, namer)
        _show(verbose, "optimize", tree)
        if prepared.program.attempts:
            tree = attempts.fold(tree, prepared.program.attempts, namer, check_tape=mode != "jvp",
                                 forward=mode == "jvp")
        if prepared.program.contexts:
            tree = contexts.fold(tree)
    text = emit.source(tree)
    unit = standalone.Unit(
        standalone.key_id(prepared.key), text, tree.name, dict(namer.helpers), program.globals, dict(program.cells), program.name,
    )
    if verbose == "stages":
        print("--- emitted source ---", text, sep="\n")
    elif verbose:
        print(standalone.text(unit))
    where = replace(program, fn=None, globals={}, cells={}, nested={}, bound={})  # not the function: see cache.py
    outline = origins.outline(tree, program)
    described = functools.partial(origins.described, outline, text, where)
    located = functools.partial(origins.located, outline, text, where)  # when an error needs it
    behind = getattr(program.fn, "__srcgrad_origin__", None) if program.generated else None
    if behind is not None:  # a derivative of a derivative: on to the user's lines
        described, located = (functools.partial(origins.through, o, behind) for o in (described, located))
    function = load.function(text, tree.name, program, namer.helpers, mode, origin=described)
    function.__srcgrad_unit__ = unit
    function.__defaults__, function.__kwdefaults__ = stand_in.defaults(program.fn)
    function.__srcgrad_source__ = text
    function.__srcgrad_origin__ = located
    function.__srcgrad_described__ = described  # linearize.py's, for its notes
    return function


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off while a derivative is built.

    A build allocates tens of thousands of AST nodes that hold no reference cycles (plain
    reference counting frees them); with the collector on, its full collections
    traverse every one of them again and again, up to half the build time of a large
    function. Cycles made meanwhile are collected after it is turned back on.

    What the build leaves alive (the reverse sweeps kept for the first call's
    specialization: about 30,000 objects for a 200-line function) is then moved to the
    oldest generation (`gc.freeze` then `gc.unfreeze`: no traversal), so the first young
    collection after it does not walk it all (a tenth of that build's time). Skipped
    where the program froze objects itself: unfreezing would release them.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()


@contextlib.contextmanager
def _user_errors(program, mode):
    """A construct a stage cannot handle, reported at the user's line (a refusal caused by
    a generator call left as a call, as the reason it was: generator_calls.kept_refusals)."""
    try:
        with generator_calls.kept_refusals(program):
            yield
    except NotImplementedError as exc:
        node = getattr(exc, "node", None)
        raise program.error(node, f"{exc} is not supported by {_transform_name(mode)} (in `{program.name}`)") from None


def _shapes(signature, params, namer, output, mode, split_vjp=False):
    """What a call signature (see cache.specializing) tells of the parameters (and seed)."""
    if signature is None:
        return None
    shapes, types = cache.signature_shapes(signature), cache.signature_types(signature)
    names = list(params)
    if mode in ("vjp", "pullback") and not split_vjp:  # split: the seed comes later
        names = [namer.adjoint(output) if output else None] + names
    known = {n: t for n, t in zip(names, types) if n is not None}
    if split_vjp and output:  # the pullback's seed, of any kind (not its backward pass's assignments')
        known.setdefault(namer.adjoint(output), None)
    trees = {n: s for n, s in zip(names, signature) if n is not None and type(s) is cache.TreeKind}
    return Signature(tuple(params), {n: s for n, s in zip(names, shapes) if n is not None and s is not None}, known,
                     trees)


def _transform_name(mode):
    return f"srcgrad.{mode}"


def _show(verbose, stage, tree):
    if verbose == "stages":
        print(f"--- after {stage} ---")
        print(printing.unparse(tree))
