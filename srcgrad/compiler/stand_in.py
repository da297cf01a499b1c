"""Python functions standing in for callables whose own code srcgrad does not read:

- a function with derivative rules but no Python source (a NumPy ufunc, `math.sin`,
  `abs`), one whose source is not what srcgrad should read (`np.linalg.det`), or one
  given rules by `srcgrad.defvjp`: `srcgrad.grad(np.sin)` differentiates

      def sin(x):
          return np.sin(x)

  which applies the rules, as a call inside a differentiated function does. The
  stand-in takes the rule's positional parameters up to `out` and passes them on by
  position (a default that is not a literal is read from its globals); the others keep
  their defaults. It is made once per function, so its derivatives are cached.
- a `functools.partial` of a Python function (`partial_function`), which a call inside
  a differentiated function differentiates through, as does `srcgrad.grad(partial)`;
  likewise a bound method (`model.loss`) or a callable instance (`method_function`).
- a Python function with keyword-only parameters taking them by position
  (`positional_function`, the same code), for `@srcgrad.compile`, whose derivatives
  take arguments by position.

Each is defined from text registered in linecache, where the loader reads it.
`in_user_code` tells the user's functions from the standard library's and installed
packages' (whose source srcgrad reads only where it must).
"""

import builtins
import functools
import inspect
import itertools
import linecache
import math
import os
import sys
import sysconfig
import types
import weakref

import numpy as np

from .. import rules

_STAND_INS = {}  # id(function) -> (function, its stand-in); library functions live forever


def stand_in(fn):
    """`fn`'s stand-in when `fn` has derivative rules (a library function, or one given
    rules by `srcgrad.defvjp`/`defjvp`): differentiating it then applies its rules, as a
    call of it inside a differentiated function does; `fn` itself otherwise."""
    if getattr(fn, "__srcgrad_lazy__", None) is not None or isinstance(fn, np.vectorize) or hasattr(fn, "defvjp"):
        return fn  # a derivative (named like its function), a wrapper of the user's function, a custom_vjp
    try:
        found = _STAND_INS.get(id(fn))
        rule = rules.lookup(fn) if found is None else None
    except TypeError:  # not hashable: no rules
        return fn
    if found is not None and found[0] is fn:
        return found[1]
    if rule is None or not (rule.vjps or rule.jvps) or (getattr(fn, "__module__", None) or "").startswith("srcgrad."):
        return fn  # srcgrad's own helpers are read as written (some rules of theirs come from that)
    if any(p.kind == p.VAR_POSITIONAL for p in rule.signature.parameters.values()):
        return fn  # `*operands` (einsum): srcgrad does not differentiate `*args`
    made = _make(fn, rule)
    _STAND_INS[id(fn)] = (fn, made)  # keeps fn alive, so its id is not reused
    return made


def _installed_roots():
    paths = sysconfig.get_paths()
    return tuple(os.path.join(os.path.realpath(paths[k]), "") for k in ("stdlib", "platstdlib", "purelib", "platlib")
                 if k in paths)


_INSTALLED = _installed_roots()


def in_user_code(fn):
    """Whether `fn`'s source lies outside the installed packages and the standard library
    (`scipy.linalg.expm` is theirs): a refusal inside it can name its own line usefully."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return True
    path = os.path.realpath(code.co_filename)
    return not path.startswith(_INSTALLED)


def of_user_class(value):
    """Whether `value` is an instance (`is_instance`) of a class defined outside the
    installed packages and the standard library: an object of the user's own code, whose
    methods srcgrad may follow (record_methods.py); `random.Random()` or a SciPy object is
    not one."""
    return is_instance(value) and _user_module(_class_module(value))


@functools.lru_cache(maxsize=256)
def _user_module(name):
    """Whether the module `name` lies outside the installed packages and the standard
    library (one without a file, `__main__` in a notebook, is the user's, but for a module
    built into Python)."""
    if name in sys.builtin_module_names:
        return False
    path = getattr(sys.modules.get(name), "__file__", None)
    return path is None or not os.path.realpath(path).startswith(_INSTALLED)


def refusal(fn):
    """Why the library function `fn` (NumPy, `math`, a builtin), the `functools.partial`
    or the np.vectorize object `fn` cannot be differentiated itself (None when it can, or
    is not one): no rule, no gradient, `*args`, a partial of something else than a Python
    function, a vectorized function (differentiated where it is called)."""
    if isinstance(fn, np.vectorize):
        inner = getattr(fn.pyfunc, "__name__", "f")
        spelled = inner if inner.isidentifier() else "f"
        return (f"srcgrad differentiates a Python function, not an np.vectorize object (of `{inner}`): "
                f"differentiate the function it vectorizes (one element), or a function that calls the "
                f"np.vectorize object (`def g(x): return np.sum(np.vectorize({spelled})(x))`)")
    if getattr(fn, "__module__", None) == "srcgrad" and callable(fn) and rules.is_nondifferentiable(fn):
        return (f"`srcgrad.{fn.__name__}` holds its argument constant, so it has no gradient of its own to give; "
                f"differentiate a function that calls it")
    if isinstance(fn, functools.partial) and partial_function(fn) is None:
        return (f"srcgrad differentiates a functools.partial only of a Python function without `*args` or "
                f"`**kwargs` parameters, not one of `{spelling(fn.func)}`: differentiate a function that calls "
                f"`{spelling(fn.func)}` with the partial's arguments written out")
    if not _is_library(fn) or stand_in(fn) is not fn:
        return None
    spelled = _callee(fn).replace("builtins.", "")
    try:
        if rules.is_nondifferentiable(fn):
            return f"`{spelled}` has no derivative (its value is piecewise constant or not a number)"
        rule = rules.lookup(fn)
    except TypeError:
        return None
    if rule is not None and rule.vjps:
        return (f"`{spelled}` takes `*args`, which srcgrad does not differentiate; differentiate a function "
                f"that calls it with its arguments written out")
    return (f"srcgrad has no derivative rule for `{spelled}` (docs/rules.md lists them); register one with "
            "srcgrad.defvjp, or differentiate a Python function that computes it")


def _is_library(fn):
    if isinstance(fn, np.vectorize) or getattr(fn, "__srcgrad_lazy__", None) is not None:
        return False  # a wrapper of the user's function, or a derivative (named like its function)
    module = getattr(fn, "__module__", None) or ""
    return module == "numpy" or module.startswith("numpy.") or module in ("math", "builtins")


def _make(fn, rule):
    params, names, scope = [], [], {}
    taken = set(rule.signature.parameters)
    for p in rule.signature.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name == "out":
            break
        names.append(p.name)
        default = "" if p.default is p.empty else "=" + _literal_or_name(p.default, f"{p.name}_default", scope, taken)
        params.append(p.name + default)
    spelled = _callee(fn)
    name = _identifier(getattr(fn, "__name__", "function"))
    text = f"def {name}({', '.join(params)}):\n    return {spelled}({', '.join(names)})\n"
    scope.update({"np": np, "math": math, "builtins": builtins, "__name__": getattr(fn, "__module__", None)})
    made = _define(text, name, f"<srcgrad stand-in for {spelled}>", scope)
    if spelled == name:
        scope[name] = fn  # the call in the stand-in's body: fn itself, not the stand-in
    made.__srcgrad_source__ = text
    return made


def _literal_or_name(value, preferred, namespace, taken):
    """`value`'s text where it is a literal, else a name, not one in `namespace` or
    `taken`, that `namespace` (the globals of the function being made) holds it under."""
    if type(value) in (bool, int, str, type(None)) or (type(value) is float and math.isfinite(value)):
        return repr(value)
    while preferred in namespace or preferred in taken:
        preferred = "_" + preferred
    namespace[preferred] = value
    return preferred


def _define(text, name, filename, namespace):
    """The function `name` that `text` defines, in `namespace` (its globals, without it),
    its text registered in linecache under `filename`, where the loader reads it."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - text made here from names and literals
    return namespace.pop(name)


def _callee(fn):
    """How the stand-in spells the call: `np.sin`, `np.linalg.det`, `math.sin`, `abs`."""
    module = getattr(fn, "__module__", None) or ""
    if module == "math":
        return f"math.{fn.__name__}"
    if module == "builtins":
        return f"builtins.{fn.__name__}"  # `abs` itself would be the stand-in's own name
    if module == "numpy" or module.startswith("numpy.") or isinstance(fn, np.ufunc):
        return spelling(fn)
    return _identifier(getattr(fn, "__name__", "function"))  # bound by that name in the stand-in's globals


def _identifier(name):
    """`name`, or `function` for one that is no identifier (`<lambda>`, given rules by srcgrad.defvjp)."""
    return name if name.isidentifier() else "function"


def spelling(obj):
    """`np.tanh`, `np.linalg.norm` for NumPy's functions, `a Model` for an instance of a
    Python class (the same in every run), the plain name of the others."""
    if is_instance(obj) and not hasattr(obj, "__name__"):
        return f"a {type(obj).__qualname__}"
    name = getattr(obj, "__name__", None) or repr(obj)
    module = getattr(obj, "__module__", None) or ("numpy" if isinstance(obj, np.ufunc) else "")
    if module == "numpy" or module.startswith("numpy."):
        public = module.replace("numpy.linalg._linalg", "numpy.linalg").replace("numpy.linalg.linalg", "numpy.linalg")
        inner = public[len("numpy"):] if public.startswith("numpy.linalg") or public.startswith("numpy.fft") else ""
        return f"np{inner}.{name}"
    return name


def partial_function(obj):
    """A Python function computing what the `functools.partial` `obj` of a Python
    function computes, with source that srcgrad reads like a user's (made once per
    partial), or None for a partial of anything else or one that takes `*args` or
    `**kwargs`:

        pb = functools.partial(base, 1.0, c=2.0)   ->   def base_partial(b, c=2.0):
                                                             return base(1.0, b, c=c)

    Bound values other than literals are names in the function's globals, so a call
    differentiates through `base` with the partial's values held constant.
    """
    return _made_once(_PARTIALS, obj, _partial_function)


_PARTIALS = weakref.WeakKeyDictionary()  # functools.partial -> its function, or False
_PARTIAL_FILES = itertools.count(1)


def _made_once(made, obj, make):
    """`make(obj)`, remembered in the weak dictionary `made` (False for None); None for an
    object without weak references."""
    try:
        found = made.get(obj)
    except TypeError:  # no weak reference
        return None
    if found is None:
        found = made[obj] = make(obj) or False
    return found or None


def _partial_function(obj):
    if isinstance(obj.func, types.MethodType):  # of a bound method: of its function, the instance first
        obj = functools.partial(obj.func.__func__, obj.func.__self__, *obj.args, **obj.keywords)
    func = obj.func
    if not is_user_function(func):
        return None
    try:
        params = list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):  # keywords that `func` does not take
        return None
    stem = func.__name__ if func.__name__.isidentifier() else "lambda_fn"
    bound = [(v, f"{stem}_arg{k}") for k, v in enumerate(obj.args)]
    label = f"<srcgrad functools.partial of {func.__qualname__} #{next(_PARTIAL_FILES)}>"
    return _calling(func, stem, bound, params, f"{stem}_partial", label)


def method_function(obj):
    """A Python function computing what the bound method `obj` (`model.loss`) of a Python
    function computes, or what the instance `obj` computes when called (its class's
    `__call__` is a Python function), its instance held as a constant; None for anything
    else, or a method taking `*args` or `**kwargs`:

        model.loss   ->   def loss(x):
                              return Model_loss(self, x)

    A call inside a differentiated function differentiates through the method's own
    code, where `self` is that instance (`bound_calls.with_functions`). The instance's
    attributes are read when the derivative runs, so later changes to them are seen.
    Within one derivation the same method of the same instance gives the same function
    (recursion through `self.f(...)` ends), see `forget_methods`.
    """
    if not isinstance(obj, types.MethodType):
        call = getattr(type(obj), "__call__", None)
        if not is_instance(obj) or not is_user_function(call):
            return None
        obj = types.MethodType(call, obj)
    func, instance = obj.__func__, obj.__self__
    if not is_user_function(func):
        return None
    key = (id(instance), func)
    found = _METHODS.get(key)
    if found is None:
        try:
            params = list(inspect.signature(obj).parameters.values())
        except (TypeError, ValueError):
            return None
        owner = instance if isinstance(instance, type) else type(instance)
        stem = "call" if func.__name__ == "__call__" else func.__name__ if func.__name__.isidentifier() else "lambda_fn"
        name = f"{owner.__name__}_call" if stem == "call" else stem
        label = f"<srcgrad method {func.__qualname__} of a {owner.__name__} #{next(_PARTIAL_FILES)}>"
        receiver = "cls" if isinstance(instance, type) else "self"
        made = _calling(func, f"{owner.__name__}_{stem}", [(instance, receiver)], params, name, label)
        if made:
            made.__srcgrad_method__ = (func, instance)  # frontend.load reads the method's own code
        found = _METHODS[key] = (instance, made or False)
    return found[1] or None


def defaults_holder(fn):
    """The function whose defaults a derivative of `fn` takes: for the stand-in of a
    method (`method_function`), whose derivative is built from the method's own code,
    the method's function (the stand-in copied its defaults when made, and may take its
    keyword-only parameters by position); `fn` itself otherwise."""
    method = getattr(fn, "__srcgrad_method__", None)
    return fn if method is None else method[0]


def defaults(fn):
    """(`__defaults__`, `__kwdefaults__`) for the derivative of `fn` (see `defaults_holder`)."""
    holder = defaults_holder(fn)
    positional = getattr(holder, "__defaults__", None)
    code = getattr(holder, "__code__", None)
    if holder is not fn and positional and code is not None and len(positional) == code.co_argcount:
        positional = positional[1:] or None  # the receiver's own default: it is bound
    return positional, getattr(holder, "__kwdefaults__", None)


_METHODS = {}  # (id(instance), function) -> (instance, its method_function), during one derivation
DURING_DERIVATION = {}  # other memos holding instances (bound_calls.with_functions' bound copies)


def forget_methods():
    """Drop the functions `method_function` made and the other memos holding instances:
    called when the outermost derivation ends, so srcgrad keeps no instance alive beyond
    the derivatives using it."""
    _METHODS.clear()
    DURING_DERIVATION.clear()


def is_instance(value):
    """An instance of a class written in Python (a model, a layer), not a number, array,
    container, module, class or function: what a method call or `self` can be known as."""
    module = _class_module(value)
    return not (module == "builtins" or module.startswith(("numpy", "srcgrad.", "functools", "types"))
                or isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType)))


def _class_module(value):
    """The module of `value`'s class ("" where that is no string: a Cython function's class
    gives a descriptor on some Cython versions)."""
    module = getattr(type(value), "__module__", "")
    return module if isinstance(module, str) else ""


def is_user_function(obj):
    """A plain Python function (not NumPy's, not a builtin, not SciPy's batch wrapper) that
    srcgrad can transform."""
    return (isinstance(obj, types.FunctionType) and not (getattr(obj, "__module__", "") or "").startswith("numpy")
            and not _batch_wrapper(obj))


def _batch_wrapper(fn):
    """SciPy's wrapper applying a function of matrices over a stack of them (most of
    scipy.linalg, SciPy 1.15 on): its `f(*arrays, ...)` call cannot be followed, so a
    function it wraps needs a rule, and a call of one without is refused as such."""
    return (getattr(fn, "__wrapped__", None) is not None
            and fn.__code__.co_filename.replace("\\", "/").endswith("scipy/_lib/_util.py"))


def _calling(func, called_as, bound, params, name, label):
    """The function `name` taking `params` (inspect.Parameter) that returns `func` called
    with the values `bound` (value, preferred name) first, then its parameters."""
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    namespace = {"__name__": func.__module__}
    taken = {p.name for p in params} | {name}

    def spelled(value, preferred):
        return _literal_or_name(value, preferred, namespace, taken)

    called = spelled(func, called_as)
    passed = [spelled(v, preferred) for v, preferred in bound]
    header, defaults = [], False
    for p in params:
        default = "" if p.default is p.empty else "=" + spelled(p.default, f"{p.name}_default")
        passed.append(f"{p.name}={p.name}" if p.kind is p.KEYWORD_ONLY else p.name)
        # a keyword the partial binds makes it and the later parameters keyword-only; the
        # function takes them by position too where it can (then a call may differentiate them)
        if p.kind is p.KEYWORD_ONLY and "*" not in header and not (default or not defaults):
            header.append("*")
        defaults = defaults or bool(default)
        header.append(p.name + default)
    text = f"def {name}({', '.join(header)}):\n    return {called}({', '.join(passed)})\n"
    return _define(text, name, label, namespace)


def positional_function(fn):
    """`fn` taking its keyword-only parameters by position after its others: the same
    code, globals and closure, defaults and name, its code object saying so (the
    frontend reads the `def` by it), or None where `fn` takes `*args` or `**kwargs`, has
    no keyword-only parameter, or a parameter without a default follows one with one:

        def layer(x, w, *, scale=2.0)   is differentiated as   def layer(x, w, scale=2.0)

    Made once per function.
    """
    return _made_once(_POSITIONAL, fn, _positional_function)


_POSITIONAL = weakref.WeakKeyDictionary()  # function -> its positional version, or False


def _positional_function(fn):
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or not code.co_kwonlyargcount or code.co_flags & 0x0C:
        return None  # no keyword-only parameter, or *args / **kwargs
    names = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    kw_defaults = fn.__kwdefaults__ or {}
    defaults = list(fn.__defaults__ or ())
    for name in names:
        if name in kw_defaults:
            defaults.append(kw_defaults[name])
        elif defaults:
            return None  # `def f(x=1, *, k)`: k would follow a default
    made = types.FunctionType(
        code.replace(co_argcount=code.co_argcount + code.co_kwonlyargcount, co_kwonlyargcount=0),
        fn.__globals__, fn.__name__, tuple(defaults) or None, fn.__closure__,
    )
    made.__qualname__, made.__module__, made.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    return made
