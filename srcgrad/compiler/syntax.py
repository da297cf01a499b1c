"""The only module that constructs gast nodes; it also copies them and moves locations.

Every other pass builds trees through these functions, so a gast upgrade (new
fields, renamed classes) touches this file alone (and printing.py, which prints
nodes as source text, parsing.py, which converts Python's parse as gast does, and
traversal.py, which walks trees). Constructors fill fields that a gast version has
and the caller did not give with empty defaults.
"""

import gast

from . import parsing, traversal


class _Makers(dict):
    """Node class -> its constructor: keyword arguments for its fields (those not given are
    None, or a new [] for the list fields of `_LISTS`), set in `__dict__` in field order,
    without gast's per-call overhead. Compiled once per class."""

    def __missing__(self, cls):
        params, body = [], []
        for f in cls._fields:
            params.append(f"{f}={'_NO_LIST' if f in _LISTS else 'None'}")
            body.append(f"    _values[{f!r}] = [] if {f} is _NO_LIST else {f}" if f in _LISTS else f"    _values[{f!r}] = {f}")
        text = (f"def make({'*, ' + ', '.join(params) if params else ''}):\n    _node = _new(_cls)\n"
                f"    _values = _node.__dict__\n" + "".join(line + "\n" for line in body) + "    return _node\n")
        scope = {"_new": cls.__new__, "_cls": cls, "_NO_LIST": _NO_LIST}
        exec(text, scope)  # noqa: S102 - text made of the class's field names only
        found = self[cls] = scope["make"]
        return found


_LISTS = ("type_params", "decorator_list", "keywords", "type_ignores")
_NO_LIST = object()  # a list field not given
_MAKE = _Makers()


_LOAD, _STORE = gast.Load(), gast.Store()  # field-less: shared, as copies share them


def name(id, store=False):
    return _MAKE[gast.Name](id=id, ctx=_STORE if store else _LOAD)


def const(value):
    if isinstance(value, float) and value < 0 or isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return _MAKE[gast.UnaryOp](op=gast.USub(), operand=_MAKE[gast.Constant](value=-value, kind=None))
    return _MAKE[gast.Constant](value=value, kind=None)


def is_literal(value):
    """Whether `const(value)` writes `value` as a literal: None, a bool, number or string,
    or a tuple of them."""
    return value is None or isinstance(value, (bool, int, float, str)) or (
        isinstance(value, tuple) and all(is_literal(x) for x in value)
    )


def attr(value, attr_name):
    return _MAKE[gast.Attribute](value=value, attr=attr_name, ctx=_LOAD)


def dotted(path):
    """`dotted("np.linalg.norm")` -> the attribute chain."""
    first, *rest = path.split(".")
    node = name(first)
    for part in rest:
        node = attr(node, part)
    return node


def call(func, args=(), keywords=()):
    func = dotted(func) if isinstance(func, str) else func
    kws = [_MAKE[gast.keyword](arg=k, value=v) for k, v in keywords]
    return _MAKE[gast.Call](func=func, args=list(args), keywords=kws)


def binop(left, op, right):
    return _MAKE[gast.BinOp](left=left, op=op, right=right)


def add(left, right):
    return binop(left, gast.Add(), right)


def mul(left, right):
    return binop(left, gast.Mult(), right)


def neg(operand):
    return _MAKE[gast.UnaryOp](op=gast.USub(), operand=operand)


def not_(operand):
    return _MAKE[gast.UnaryOp](op=gast.Not(), operand=operand)


def bool_op(op, values):
    """`a and b and ...` (`op` gast.And) or `a or b or ...` (gast.Or) of `values`."""
    return values[0] if len(values) == 1 else _MAKE[gast.BoolOp](op=op, values=list(values))


def compare(left, op, right):
    return _MAKE[gast.Compare](left=left, ops=[op], comparators=[right])


def tuple_(elts, store=False):
    return _MAKE[gast.Tuple](elts=list(elts), ctx=_STORE if store else _LOAD)


def list_(elts):
    return _MAKE[gast.List](elts=list(elts), ctx=_LOAD)


def starred(value):
    """`*value`, in a call or a display."""
    return _MAKE[gast.Starred](value=value, ctx=_LOAD)


def set_(elts):
    return _MAKE[gast.Set](elts=list(elts))


def dict_(keys, values):
    """`{k: v, ...}`; a None key is a `**` entry."""
    return _MAKE[gast.Dict](keys=list(keys), values=list(values))


def list_comprehension(elt, target, iterable, ifs=()):
    """`[elt for target in iterable if ...]`, one generator; `target` a store-context node."""
    generator = _MAKE[gast.comprehension](target=target, iter=iterable, ifs=list(ifs), is_async=0)
    return _MAKE[gast.ListComp](elt=elt, generators=[generator])


def dict_comprehension(key, value, target, iterable):
    """`{key: value for target in iterable}`, one generator; `target` a store-context node."""
    generator = _MAKE[gast.comprehension](target=target, iter=iterable, ifs=[], is_async=0)
    return _MAKE[gast.DictComp](key=key, value=value, generators=[generator])


def subscript(value, index, store=False):
    return _MAKE[gast.Subscript](value=value, slice=index, ctx=_STORE if store else _LOAD)


def slice_(lower, upper, step):
    return _MAKE[gast.Slice](lower=lower, upper=upper, step=step)


def assign(target, value):
    target = name(target, store=True) if isinstance(target, str) else as_store(target)
    return _MAKE[gast.Assign](targets=[target], value=value, type_comment=None)


def aug_add(target, value):
    """`target += value` (used by reverse mode to mean "accumulate into an adjoint")."""
    return aug_assign(target, gast.Add(), value)


def aug_assign(target, op, value):
    """`target op= value` of the name `target`."""
    return _MAKE[gast.AugAssign](target=name(target, store=True), op=op, value=value)


def expr(value):
    return _MAKE[gast.Expr](value=value)


def return_(value):
    return _MAKE[gast.Return](value=value)


def if_(test, body, orelse=()):
    return _MAKE[gast.If](test=test, body=list(body) or [pass_()], orelse=list(orelse))


def for_(target, iter, body):
    target = name(target, store=True) if isinstance(target, str) else as_store(target)
    return _MAKE[gast.For](target=target, iter=iter, body=list(body) or [pass_()], orelse=[], type_comment=None)


def while_(test, body):
    return _MAKE[gast.While](test=test, body=list(body) or [pass_()], orelse=[])


def try_finally(body, finalbody):
    return _MAKE[gast.Try](body=list(body), handlers=[], orelse=[], finalbody=list(finalbody))


def try_except(body, types, as_name, handler):
    """`try: body` with one `except types as as_name: handler` (no `as` when `as_name` is None)."""
    clause = _MAKE[gast.ExceptHandler](type=types, name=name(as_name, store=True) if as_name else None, body=list(handler) or [pass_()])
    return _MAKE[gast.Try](body=list(body) or [pass_()], handlers=[clause], orelse=[], finalbody=[])


def raise_(exc):
    return _MAKE[gast.Raise](exc=exc, cause=None)


def with_(items, body):
    return _MAKE[gast.With](items=list(items), body=list(body))


def break_():
    return gast.Break()


def pass_():
    return gast.Pass()


def nonlocal_(names):
    return _MAKE[gast.Nonlocal](names=list(names))


def lambda_(params, body):
    """`lambda p, q: body`."""
    args = _MAKE[gast.arguments](args=[_MAKE[gast.Name](id=p, ctx=gast.Param()) for p in params], posonlyargs=[],
                                 vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return _MAKE[gast.Lambda](args=args, body=body)


def function_def(fn_name, params, body, docstring=None, defaults=(), kwonly=(), kw_defaults=()):
    args = _MAKE[gast.arguments](
        args=[_MAKE[gast.Name](id=p, ctx=gast.Param()) for p in params],
        posonlyargs=[],
        vararg=None,
        kwonlyargs=[_MAKE[gast.Name](id=p, ctx=gast.Param()) for p in kwonly],
        kw_defaults=list(kw_defaults),
        kwarg=None,
        defaults=list(defaults),
    )
    stmts = ([expr(const(docstring))] if docstring else []) + list(body)
    return _MAKE[gast.FunctionDef](name=fn_name, args=args, body=stmts, decorator_list=[], returns=None)


class Comment(str):
    """A comment line in generated code; `emit` prints it as `# text`."""


def comment(text):
    """A statement that `emit` prints as a comment and every other pass ignores."""
    return expr(_MAKE[gast.Constant](value=Comment(text), kind=None))


def comment_text(stmt):
    """The text of a comment statement, or None for any other statement."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
        if isinstance(stmt.value.value, Comment):
            return str(stmt.value.value)
    return None


def as_store(node):
    node = copy(node)
    for n in traversal.walk(node):
        if isinstance(n, (gast.Name, gast.Attribute, gast.Subscript, gast.Tuple, gast.List)):
            n.ctx = gast.Load()
    node.ctx = gast.Store()
    if isinstance(node, (gast.Tuple, gast.List)):
        node.elts = [as_store(e) for e in node.elts]
    return node


def as_load(node):
    node = copy(node)
    if hasattr(node, "ctx"):
        node.ctx = gast.Load()
    if isinstance(node, (gast.Tuple, gast.List)):
        node.elts = [as_load(e) for e in node.elts]
    return node


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def copy(node, name=None):
    """A deep copy that keeps source locations; with `name`, each `Name` becomes `name(Name)`.
    Fields and locations are copied through `__dict__` (gast's keyword constructor is slow);
    `ctx` and operator nodes (no fields, no location) are shared."""
    if type(node) is list:
        return [copy(n, name) for n in node]
    if not isinstance(node, gast.AST):
        return node
    cls = type(node)
    if name is not None and cls is gast.Name:
        return name(node)
    old = node.__dict__
    if cls in _LEAVES and old.keys() in _LEAVES[cls] and old.get("annotation") is None:
        new = cls.__new__(cls)  # a name or constant as made here: every field a shared atom
        new.__dict__.update(old)
        return new
    if not old and not cls._attributes:
        return node
    new = cls.__new__(cls)
    values, leaves = new.__dict__, (_LEAVES if name is None else _CONSTANT_LEAF)
    for f in cls._fields:
        value = old.get(f)
        kind = type(value)
        if value is None or kind in _SHARED:
            values[f] = value
        elif kind is list:
            items = values[f] = []
            for v in value:  # names and constants (most nodes) copied here, as below
                leaf = v.__dict__ if type(v) in leaves else None
                if leaf is not None and leaf.keys() in leaves[type(v)] and leaf.get("annotation") is None:
                    copied = type(v).__new__(type(v))
                    copied.__dict__.update(leaf)
                    items.append(copied)
                else:
                    items.append(copy(v, name))
        elif kind in leaves and value.__dict__.keys() in leaves[kind] and value.__dict__.get("annotation") is None:
            copied = values[f] = kind.__new__(kind)
            copied.__dict__.update(value.__dict__)
        else:
            values[f] = copy(value, name)
    for a in _LOCATION:
        if a in old:
            values[a] = old[a]
    return new


# what copies share: atoms and the field-less `ctx` and operator nodes
_SHARED = {str, int, float, bool} | {
    c for c in vars(gast).values() if isinstance(c, type) and issubclass(c, gast.AST) and not c._fields and not c._attributes
}


# the keys of a Name's and a Constant's `__dict__` with all their fields and all or no location:
# then none holds a list or a node but a shared `ctx` (an annotation aside), so `copy` copies the dict
_LEAVES = {cls: ({*cls._fields}, {*cls._fields, *_LOCATION}) for cls in (gast.Name, gast.Constant)}
_CONSTANT_LEAF = {gast.Constant: _LEAVES[gast.Constant]}  # with a `name` function, names go to it


def located(new, old, done=frozenset()):
    """Give `new` (and its children without a location) the location of `old`. `done`:
    nodes known to be located whole, themselves and all they hold (not walked again)."""
    if old is None or not hasattr(old, "lineno") or not isinstance(new, gast.AST) or new in done:
        return new
    have, own = type(old)._attributes, old.__dict__
    where = []  # (attribute, value) for each location attribute `old` has (its own, or its class's)
    for a in _LOCATION:
        if a in have:
            value = own[a] if a in own else getattr(old, a, _ABSENT)
            if value is not _ABSENT:
                where.append((a, value))
    stack, ast_node, children, leaves = [new], gast.AST, traversal.CHILDREN, traversal.LEAF_CLASSES
    while stack:  # as gast.copy_location(n, old) on each node n without a line
        n = stack.pop()
        cls, values = type(n), n.__dict__
        wanted = cls._attributes
        if "lineno" in wanted and values.get("lineno") is None:
            for a, value in where:
                if a in wanted:
                    values[a] = value
        for field in children[cls]:
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                if type(v) in leaves and v.__dict__.get("annotation") is None:  # a name or constant: here
                    leaf = v.__dict__
                    if leaf.get("lineno") is None:
                        leaf.update(where)
                elif isinstance(v, ast_node) and v not in done:
                    stack.append(v)
    return new


_ABSENT = object()


def parse(text, mode="exec"):
    """`gast.parse(text, mode=mode)`: a gast Module (an Expression for "eval"), built faster (parsing.py)."""
    return parsing.parse(text, mode)


def is_name(node, id=None):
    return isinstance(node, gast.Name) and (id is None or node.id == id)


def is_const(node):
    return isinstance(node, gast.Constant) or (
        isinstance(node, gast.UnaryOp)
        and isinstance(node.op, (gast.USub, gast.UAdd))
        and isinstance(node.operand, gast.Constant)
    )




def refusal_arguments(error):
    """The constants a check in generated code passes so that it raises `error` where the
    user wrote it (runtime.containers, errors.raised_at): its message, file and line."""
    return [const(error.msg), const(error.filename), const(error.lineno)]
