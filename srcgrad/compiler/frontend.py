"""Source recovery: a Python function -> `Program` (its gast tree and where it came from).

The tree is the function's own `def`, dedented and without decorators. Line numbers in
the tree count from the first line of the recovered source; `Program.line(node)` turns
them into the user's real line numbers. Globals are the function's live module dict;
closure cells are kept as cells, so later rebinding is seen.
"""

import dataclasses
import inspect
import linecache
import re
import textwrap
import types
import weakref
from dataclasses import dataclass, field

import gast

from ..errors import NotDifferentiableError, SrcGradError
from . import generator_lists, given_source, lambda_source, none_defaults, syntax, traversal, varargs
from .naming import Namer
from .stand_in import spelling, stand_in


@dataclass
class Program:
    """A parsed user function and its provenance."""

    fn: object
    tree: gast.FunctionDef
    filename: str
    first_line: int  # real line number of the tree's line 1
    indent: int  # columns removed by dedenting
    source_lines: list
    globals: dict
    cells: dict = field(default_factory=dict)  # free variable name -> cell
    nested: dict = field(default_factory=dict)  # recursive nested functions made real (closures.py)
    # names with one known value: a parameter -> the function every call passes it (calls.py),
    # a name an `import` in the function binds -> what it imports (fence.imports), a
    # method's receiver -> its instance (`held`)
    bound: dict = field(default_factory=dict)
    # parameters taken out of the signature and held at one value, which generated code
    # reads as a helper: a method's `self` (`load` of a stand_in.method_function)
    held: dict = field(default_factory=dict)
    # the `super()` reads a method's program resolved (`super().loss`, held as `super_loss`):
    # (the super object, the attribute, the bound method), which a base class's rebinding changes
    inherited: list = field(default_factory=list)
    # whether the tree holds `with` blocks that contexts.lower put between markers
    contexts: bool = False
    # attempts.lower's markers: number -> the exception types that `try` catches (a gast expression)
    attempts: dict = field(default_factory=dict)
    # parameters the record each call passes them is of one class (record_methods.RecordOf):
    # their methods' calls are calls of the class's functions; a parameter the body assigns is left out
    records: dict = field(default_factory=dict)
    # parameters bound to a record's class that the body assigns (`p = p.step(dt)`): known_classes.py
    # binds one where every assignment makes an object of that class
    assigned_records: dict = field(default_factory=dict)
    # names standing for an element of a container of callables passed as an argument
    # (passed_containers.py): name -> (the parameter, the step reading it: an index, or a 1-tuple of a key)
    elements: dict = field(default_factory=dict)
    # calls of generator functions left as calls (generator_calls.py): (why each could not be read
    # as a list, the generator's name, "file:line" of the call); a later refusal they cause is
    # reported as that one
    kept_generators: list = field(default_factory=list)
    # generator `def`s in the function listed in place (generator_calls.py): a loop over a call gives its list a name (anf.py)
    listed_defs: frozenset = frozenset()
    # names holding the defaults of nested functions, assigned where their `def` runs (def_defaults.py)
    default_names: frozenset = frozenset()

    @property
    def generated(self):
        """Whether the function is a derivative srcgrad made (differentiated again)."""
        return getattr(self.fn, "__srcgrad_source__", None) is not None

    @property
    def name(self):
        return self.tree.name

    def helper_namer(self):
        """A Namer for helpers bound in the function's scope (`bound`, `held`): fresh
        names clash with none of its tree, its globals or what it binds already."""
        namer = Namer.for_tree(self.tree, lambda name: self.bound.get(name, self.globals.get(name)))
        namer.taken |= set(self.bound)
        return namer

    def line(self, node):
        """The user's real line number of `node` (None when it has no location)."""
        lineno = getattr(node, "lineno", None)
        return None if lineno is None else self.first_line + lineno - 1

    def text(self, node):
        """The user's source line holding `node`, stripped."""
        lineno = getattr(node, "lineno", None)
        if lineno is None or not 0 < lineno <= len(self.source_lines):
            return ""
        return self.source_lines[lineno - 1].strip()

    def bindings(self):
        """How the parameters bound to a known function read in a docstring: " (f = rhs)"."""
        params = {a.id for a in self.tree.args.args + self.tree.args.kwonlyargs}
        # the function a partial, method or object passed calls (passed_callables.Passed) is said by its parameter
        through = {id(obj.func) for obj in self.bound.values() if getattr(obj, "srcgrad_passed", False)}
        # and a record's method (record_methods.py) by the record's parameter
        through |= {id(getattr(f, "__func__", f)) for record in self.records.values() for klass in record.cls.__mro__
                    for f in vars(klass).values()}
        spelled = [f"{name} = {spelling(obj)}" for name, obj in sorted({**self.bound, **self.records}.items())
                   if name in params or (name in self.held and name not in self.elements and not isinstance(obj, types.MethodType)
                                         and generator_lists.generator_of(obj) is None  # `pairs_list`: says itself
                                         and spelling(obj) != name and id(obj) not in through)]  # not a helper by its own name (`added_at`)
        return varargs.described(self.fn) + (f" ({', '.join(spelled)})" if spelled else "")

    def where(self, node=None):
        line = self.line(node) if node is not None else self.first_line
        return f"{self.filename}:{line}"

    def error(self, node, message, cls=SrcGradError):
        """An error located at `node` in the user's file (not raised)."""
        col = getattr(node, "col_offset", 0) or 0
        lineno = getattr(node, "lineno", None)
        text = self.source_lines[lineno - 1] if lineno and lineno <= len(self.source_lines) else None
        if text is not None and self.indent:
            text = " " * self.indent + text
        return cls(message, self.filename, self.line(node), col + self.indent, text)


def differentiated(fn):
    """The function whose source stands for `fn`: what srcgrad's own wrappers
    (`@srcgrad.compile`, derivatives) and wrappers that are not Python functions
    (`functools.lru_cache`, ...) wrap; `fn` itself otherwise. A decorator's Python
    wrapper (`functools.wraps`) is differentiated as written: it may compute something
    else than the function it wraps. A derived rule taking `*args` stands for its
    definition with the parameters written out (`__srcgrad_definition__`)."""
    while hasattr(fn, "__wrapped__") and (not isinstance(fn, types.FunctionType) or hasattr(fn, "__srcgrad_compiled__")):
        fn = fn.__wrapped__
    definition = getattr(fn, "__srcgrad_definition__", None)  # rules/written_rules.py
    fn = (definition() or fn) if definition is not None else fn
    refused = derivative_refusal(fn)
    if refused is not None:
        raise NotDifferentiableError(refused)
    return fn


# srcgrad's transforms: their source is srcgrad's machinery, not a computation to differentiate
_TRANSFORMS = {("srcgrad.api", "grad"), ("srcgrad.api", "value_and_grad"), ("srcgrad.api", "vjp"),
               ("srcgrad.jacobians", "jvp"), ("srcgrad.jacobians", "jacobian"), ("srcgrad.jacobians", "hessian")}


# copiers of any object by its own protocol (`__copy__`, `__reduce_ex__`): their source is no computation
_COPIERS = {("copy", "copy"): "copy.copy", ("copy", "deepcopy"): "copy.deepcopy"}


def derivative_refusal(fn):
    """Why `fn`, a derivative made by srcgrad (its `__wrapped__` is the function it
    differentiates, not what it computes), one of srcgrad's transforms, or `copy.copy` /
    `copy.deepcopy`, cannot be loaded; None for any other function."""
    copier = _COPIERS.get((getattr(fn, "__module__", None), getattr(fn, "__name__", None)))
    if copier is not None:
        return (
            f"`{copier}` of a differentiated value is not supported by srcgrad, which does not follow the copy "
            f"protocols of objects: copy it as what it is, `np.copy(v)` or `v.copy()` for an array, `list(v)` "
            f"for a list{' (of lists: `[list(r) for r in v]`)' if copier == 'copy.deepcopy' else ''}, `dict(v)` "
            f"or `v.copy()` for a dict"
        )
    if (getattr(fn, "__module__", None), getattr(fn, "__name__", None)) in _TRANSFORMS:
        return (
            f"`srcgrad.{fn.__name__}` is called in a function that srcgrad differentiates: srcgrad does not "
            "differentiate its own transforms. Make the derivative once outside the function "
            "(`g = srcgrad.grad(f)`) and call `g` in it (a gradient of one parameter can be), or differentiate "
            "`g` itself with srcgrad.grad, jvp, hessian or jacobian(..., mode='forward'), or use srcgrad.hessian "
            "or srcgrad.jacobian of `f`"
        )
    if getattr(fn, "__srcgrad_lazy__", None) is None:
        return None
    return (
        f"`{getattr(fn, '__name__', fn)}` is a derivative made by srcgrad: of those, only a `grad` or "
        "`value_and_grad` of one parameter, of a function that reaches no custom rule and no stop_gradient, can "
        "be called in a "
        "differentiated function (derivative_calls.py), and none differentiated by "
        "vjp or jacobian(..., mode='reverse'). Differentiate it itself with srcgrad.grad, value_and_grad, jvp, "
        "hessian or jacobian(..., mode='forward'), which transform its generated code"
    )


def load(fn, source=None):
    """Recover `fn`'s source and parse it. `source` overrides recovery (for `exec`).
A variant of a function taking `*args` or `**kwargs` (varargs.py) gives its tree
written out for the variant's arity; a generator's listing (generator_lists.py) the
generator's program with the listed tree.

    The parse is kept per function object (and `source` and code): a derivative and its
    specializations read one tree, which no pass changes (the pipeline copies it).

    Recovery reads the `def` from `linecache` (`_def_block`, else `inspect.getsourcelines`):
    IPython registers every cell there, so notebook functions work without `source`.
    A given `source` is the text the function was made from; its line 1 is line 1 of
    the function's code object's file (so pass the whole text given to `exec`, or the
    `def` alone when line numbers do not matter). It is registered in `linecache` under
    the function's file name unless that name is already there, so tracebacks of the
    function itself show its lines.
    """
    listed = generator_lists.generator_of(fn)
    if listed is not None and source is None:  # a generator's listing: its program, with the listed tree
        program = dataclasses.replace(load(listed[0]), fn=fn)
        program.tree = generator_lists.listed(program)[0]
        program.tree = varargs.explicit(program)  # a variant of a listing taking `*args`: written out
        return program
    method = getattr(fn, "__srcgrad_method__", None)
    if method is not None and source is None:
        program = _method_program(fn, *method)
        if program is not None:
            program.bound.update(getattr(fn, "__srcgrad_bound__", None) or {})
            return _records_apart(program)
    bound = dict(getattr(fn, "__srcgrad_bound__", None) or {})
    fn = differentiated(stand_in(fn))
    code = getattr(fn, "__code__", None)
    try:
        parsed = _PARSED.get(fn, {}).get((source, code))
    except TypeError:  # no weak reference (a callable object)
        parsed = None
    if parsed is not None:
        tree, filename, first_line, indent, lines = parsed
        cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
        return _records_apart(_bind(Program(fn, tree, filename, first_line, indent, lines, fn.__globals__, cells), bound))
    program = _load(fn, source)
    program.tree = varargs.explicit(program)  # a variant of a function taking `*args`: written out for its arity
    parsed = program.tree
    _records_apart(_bind(program, bound))
    try:
        _PARSED.setdefault(fn, {})[(source, code)] = (
            parsed, program.filename, program.first_line, program.indent, program.source_lines,
        )
    except TypeError:
        pass
    return program


def _records_apart(program):
    """`program` with its parameters bound to a record's class (record_methods.RecordOf)
    moved from `bound` to `records`: no stage but record_methods reads them as known values."""
    if any(getattr(v, "srcgrad_record", False) for v in program.bound.values()):
        program.records = {k: v for k, v in program.bound.items() if getattr(v, "srcgrad_record", False)}
        program.bound = {k: v for k, v in program.bound.items() if k not in program.records}
    return program


def _bind(program, bound):
    """`program` with its parameters bound per `bound`, its `None`-default statements
    resolved for them first (none_defaults.py)."""
    program.tree, bound = none_defaults.run(program, bound)
    program.bound = _unassigned(bound, program.tree)
    program.assigned_records = {k: v for k, v in bound.items() if k not in program.bound and getattr(v, "srcgrad_record", False)}
    return program


def _unassigned(bound, tree):
    """The bindings of `bound` whose names the function `tree` never assigns: a parameter
    bound to the function a call passes (`f = np.sin`) but reassigned in the body
    (`if flip: f = np.cos`) holds another function after, so it is left unbound (its calls
    are then refused, calls.site)."""
    if not bound:
        return bound
    stored = set(traversal.names_stored(tree))
    return {name: value for name, value in bound.items() if name not in stored}


def _method_program(fn, func, instance):
    """The program of `fn`, the function stand_in.method_function made of the method
    `func` of `instance`: `func`'s own `def` without its first parameter, which is held
    at the instance. The derivative then runs the method's code itself, not a call of it
    (whose pullback would run the method's forward pass once more). None where the
    method assigns its receiver or takes it positional-only: `fn`'s own source serves."""
    program = load(func)
    args = program.tree.args
    if not args.args or getattr(args, "posonlyargs", None):
        return None
    receiver = args.args[0].id
    if receiver in traversal.names_stored(program.tree):
        return None
    tree = syntax.copy(program.tree)
    del tree.args.args[0]
    held, inherited = {receiver: instance}, []
    owner = program.cells.get("__class__")  # the class whose body defines the method, where it uses super()
    if owner is not None:
        tree = traversal.rewrite(tree, {gast.Attribute: lambda node: _super_method(node, owner, instance, held, inherited)})
    return dataclasses.replace(program, fn=fn, tree=tree, bound=dict(held), held=held, inherited=inherited)


def _super_method(node, owner, instance, held, inherited):
    """`super().loss` in a method of `instance`'s class: a name held at the bound method
    `super(__class__, instance).loss` (a Python function's, which srcgrad follows);
    `node` itself otherwise (the fence refuses other uses of `super()`)."""
    inner = node.value
    if not (isinstance(inner, gast.Call) and syntax.is_name(inner.func, "super") and not inner.args
            and not inner.keywords and isinstance(node.ctx, gast.Load)):
        return node
    try:
        through = super(owner.cell_contents, instance)
        method = getattr(through, node.attr)
    except (ValueError, TypeError, AttributeError):
        return node
    if not isinstance(method, types.MethodType) or not isinstance(method.__func__, types.FunctionType):
        return node
    name = f"super_{node.attr}"
    held[name] = method
    inherited.append((through, node.attr, method))
    return syntax.located(syntax.name(name), node)


# function -> {(source, code): its parse}; nothing in it refers back to the function
_PARSED = weakref.WeakKeyDictionary()


def _load(fn, source):
    code = getattr(fn, "__code__", None)
    if code is None:
        raise TypeError(f"srcgrad can differentiate Python functions, not {type(fn).__name__} objects")
    filename = code.co_filename
    if code.co_name == "<lambda>" and source is None:  # by its code: a custom_vjp of a lambda is a def named so
        return _load_lambda(fn, code, filename)
    if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
        raise SrcGradError(
            f"`async def` is not supported by srcgrad (in `{fn.__name__}`); differentiate a synchronous function",
            filename,
            code.co_firstlineno,
            None,
            linecache.getline(filename, code.co_firstlineno) or None,
        )
    if source is None and filename.startswith("<") and not given_source.matches(fn, "".join(linecache.getlines(filename))):
        raise SrcGradError(  # the text kept for `<string>` is another function's, given with source= before
            f"cannot read the source of `{fn.__name__}` ({filename}): the text kept for {filename} defines another "
            f"`{code.co_name}`. srcgrad reads a function's source to differentiate it, and functions made by `exec` "
            f"keep none; pass its text: srcgrad.grad({fn.__name__}, source=text)",
            filename,
            code.co_firstlineno,
        )
    if source is None:
        block = _def_block(fn, code)
        if block is not None:
            try:
                found = _parsed(fn, code, "".join(block[0]), block[1])
            except SyntaxError:
                found = None  # the block ends inside a statement: read it by tokens
            if found is not None:
                return _as_compiled(found, code)
        try:
            lines, first_line = inspect.getsourcelines(code)  # not fn: inspect would unwrap it
        except (OSError, TypeError) as exc:
            raise SrcGradError(
                f"cannot read the source of `{fn.__name__}` ({filename}): {exc}. srcgrad reads a "
                "function's source to differentiate it, and functions typed at the plain Python "
                "REPL or made by `exec` keep none; define it in a file or notebook cell, or pass "
                f"its text: srcgrad.grad({fn.__name__}, source=text)",
                filename,
                code.co_firstlineno,
            ) from None
        text = "".join(lines)
    else:
        if not isinstance(source, str):
            raise TypeError(
                f"source= for `{fn.__name__}` must be the text of its `def` statement, a str, not "
                f"{type(source).__name__}"
            )
        text, first_line = source, 1
        linecache.cache.setdefault(filename, (len(text), None, text.splitlines(True), filename))
    try:
        found = _parsed(fn, code, text, first_line)
    except SyntaxError as exc:
        raise SrcGradError(
            f"cannot parse the source of `{fn.__name__}`: {exc.msg}", filename, first_line + (exc.lineno or 1) - 1
        ) from None
    if found is None:
        where = "given with source=" if source is not None else "read back"
        raise SrcGradError(
            f"the source {where} for `{fn.__name__}` has no `def {fn.__name__}` statement (was the "
            "function renamed?); srcgrad transforms the `def` that made the function: pass its "
            f"text with srcgrad.grad({fn.__name__}, source=text)",
            filename,
            first_line,
        )
    return found if source is not None else _as_compiled(found, code)


def _as_compiled(program, code):
    """`program`, read back from the function's file, where its text can be what `code`
    was compiled from: every global, attribute and module name the code (and the code
    nested in it) uses occurs in the text. A file edited since the function was defined
    is read at the function's old line: another function's text there would be
    differentiated instead (a silently wrong derivative), so it is refused. Code that a
    tool rewrote after compiling its text (pytest's assertions: names such as
    `@pytest_ar`) cannot be compared so, and is taken as it is."""
    names = _code_names(code)
    if any(n.startswith("@") for n in names):
        return program
    words = set(_WORD.findall("\n".join(program.source_lines)))
    missing = sorted(n for n in names if n and not n.startswith("__") and not set(n.split(".")) <= words)
    if missing:
        name = "this `lambda`" if code.co_name == "<lambda>" else f"`{code.co_name}`"
        raise SrcGradError(
            f"the source read back for {name} does not match its code (it uses {', '.join(f'`{n}`' for n in missing[:3])}, "
            "which the text does not mention): was the file changed since the function was defined? Reload its "
            "module (or restart), or pass the function's text with source=",
            program.filename,
            program.first_line,
        )
    return program


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _code_names(code):
    """The names `code` and the code objects nested in it load by name (co_names)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _parsed(fn, code, text, first_line):
    """The Program of `fn` whose `def` is in `text`, starting at the user's line
    `first_line`; None if `text` has no `def` of its name, a SyntaxError if it does not parse."""
    dedented = textwrap.dedent(text)
    indent = _indent_of(text)
    module = syntax.parse(dedented)
    tree = _find_def(module, code.co_name)  # the def's own name (a wrapper's __name__ is copied)
    if tree is None:
        return None
    tree.decorator_list = []
    _positional_as_the_code_says(tree.args, code)
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    return Program(
        fn=fn,
        tree=tree,
        filename=code.co_filename,
        first_line=first_line,
        indent=indent,
        source_lines=dedented.splitlines(),
        globals=fn.__globals__,
        cells=cells,
    )


def _positional_as_the_code_says(args, code):
    """Positional-only parameters (`def f(v, /)`) become plain ones, which every stage
    reads (a derivative then also takes them by name), and keyword-only parameters that
    the code object takes by position (a function made by
    `stand_in.positional_function`) become positional ones, after the others."""
    if args.posonlyargs:
        args.args, args.posonlyargs = args.posonlyargs + args.args, []
    if not args.kwonlyargs or code.co_kwonlyargcount:
        return
    if [a.id for a in args.posonlyargs + args.args + args.kwonlyargs] != list(code.co_varnames[:code.co_argcount]):
        return
    # positional_function made them positional only where those without a default come
    # first and follow no default: the defaults stay a run at the end
    args.args, args.defaults = args.args + args.kwonlyargs, args.defaults + [d for d in args.kw_defaults if d is not None]
    args.kwonlyargs, args.kw_defaults = [], []


_DECORATOR_OR_DEF = re.compile(r"\s*(@|def\s|async\s+def\s)")
_DEF = re.compile(r"\s*(async\s+)?def\s")


def _def_block(fn, code):
    """(lines, first line) of the `def` of `fn` with its decorators, read from `linecache`
    by indentation, or None where the lines do not start as a `def` should.

    The block ends before the first later line, not blank or a comment, indented no
    deeper than the `def` (without the blank lines and shallower comments before it):
    where `inspect.getsourcelines` ends it by tokenizing (slower). A line that only looks
    dedented, inside brackets or a string or after a backslash, ends the block inside a
    statement, so the block does not parse; the caller then asks `inspect`.
    """
    filename = code.co_filename
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, fn.__globals__)
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines) or not _DECORATOR_OR_DEF.match(lines[start]):
        return None
    depth = len(lines[start]) - len(lines[start].lstrip())
    head = next((k for k in range(start, len(lines)) if _DEF.match(lines[k])), None)
    if head is None:
        return None
    end, body = head + 1, None  # body: the column of the first line after the `def`'s
    for k in range(head + 1, len(lines)):
        line = lines[k]
        stripped = line.strip()
        column = len(line) - len(line.lstrip())
        if stripped and not stripped.startswith("#"):
            if column <= depth:
                break
            end, body = k + 1, body or column
        elif stripped and body is not None and column >= body:
            end = k + 1  # a comment as deep as the body belongs to it, as for `inspect`
    return lines[start:end], start + 1


LAMBDA_NAME = "lambda_fn"  # the name a lambda's derivative is built under (`lambda_fn_grad`)


def _load_lambda(fn, code, filename):
    """A lambda's Program: its expression, cut out of its file (lambda_source.py), as a `def`.

    None found, or several that Python 3.10 cannot tell apart, is a `SrcGradError` saying
    to use `def`.
    """
    try:
        text, first_line, column = lambda_source.find(code, filename, fn.__globals__)
    except lambda_source.Refused as why:
        line = linecache.getline(filename, code.co_firstlineno)
        raise SrcGradError(
            f"cannot differentiate this `lambda` ({why}); define the function with `def` and pass it",
            filename, code.co_firstlineno, None, line or None,
        ) from None
    node = syntax.parse("(" + text + "\n)", mode="eval").body
    body = syntax.located(syntax.return_(node.body), node.body)
    tree = syntax.located(syntax.function_def(LAMBDA_NAME, [], [body], defaults=node.args.defaults), node)
    tree.args = node.args
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    source_lines = [" " * column + t if k == 0 else t for k, t in enumerate(text.splitlines())]
    return _as_compiled(Program(
        fn=fn, tree=tree, filename=filename, first_line=first_line, indent=0,
        source_lines=source_lines, globals=fn.__globals__, cells=cells,
    ), code)


def _indent_of(text):
    for line in text.splitlines():
        if line.strip():
            return len(line) - len(line.lstrip())
    return 0


def _find_def(module, fn_name):
    for node in module.body:
        if isinstance(node, gast.FunctionDef) and node.name == fn_name:
            return node
    for node in gast.walk(module):
        if isinstance(node, gast.FunctionDef) and node.name == fn_name:
            return node
    return None
