"""The only module that constructs gast nodes.

Every other pass builds trees through these functions, so a gast upgrade (new
fields, renamed classes) touches this file alone. Constructors fill fields that
a gast version has and the caller did not give with empty defaults.
"""

import ast
import collections
import sys

import gast


def _make(cls, **fields):
    for f in cls._fields:
        if f not in fields:
            fields[f] = [] if f in ("type_params", "decorator_list", "keywords", "type_ignores") else None
    return cls(**{k: v for k, v in fields.items() if k in cls._fields})


def walk(node):
    """Every node under `node`, itself first, in `gast.walk`'s (breadth-first) order,
    without its per-node generator overhead."""
    todo, ast_node = collections.deque([node]), gast.AST
    pop, append, extend = todo.popleft, todo.append, todo.extend
    while todo:
        node = pop()
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, ast_node):
                append(value)
            elif type(value) is list:
                extend([v for v in value if isinstance(v, ast_node)])
        yield node


def name(id, store=False):
    return _make(gast.Name, id=id, ctx=gast.Store() if store else gast.Load())


def const(value):
    if isinstance(value, float) and value < 0 or isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return _make(gast.UnaryOp, op=gast.USub(), operand=_make(gast.Constant, value=-value, kind=None))
    return _make(gast.Constant, value=value, kind=None)


def attr(value, attr_name):
    return _make(gast.Attribute, value=value, attr=attr_name, ctx=gast.Load())


def dotted(path):
    """`dotted("np.linalg.norm")` -> the attribute chain."""
    first, *rest = path.split(".")
    node = name(first)
    for part in rest:
        node = attr(node, part)
    return node


def call(func, args=(), keywords=()):
    func = dotted(func) if isinstance(func, str) else func
    kws = [_make(gast.keyword, arg=k, value=v) for k, v in keywords]
    return _make(gast.Call, func=func, args=list(args), keywords=kws)


def binop(left, op, right):
    return _make(gast.BinOp, left=left, op=op, right=right)


def add(left, right):
    return binop(left, gast.Add(), right)


def mul(left, right):
    return binop(left, gast.Mult(), right)


def neg(operand):
    return _make(gast.UnaryOp, op=gast.USub(), operand=operand)


def not_(operand):
    return _make(gast.UnaryOp, op=gast.Not(), operand=operand)


def compare(left, op, right):
    return _make(gast.Compare, left=left, ops=[op], comparators=[right])


def tuple_(elts, store=False):
    return _make(gast.Tuple, elts=list(elts), ctx=gast.Store() if store else gast.Load())


def list_(elts):
    return _make(gast.List, elts=list(elts), ctx=gast.Load())


def subscript(value, index, store=False):
    return _make(gast.Subscript, value=value, slice=index, ctx=gast.Store() if store else gast.Load())


def slice_(lower, upper, step):
    return _make(gast.Slice, lower=lower, upper=upper, step=step)


def assign(target, value):
    target = name(target, store=True) if isinstance(target, str) else as_store(target)
    return _make(gast.Assign, targets=[target], value=value, type_comment=None)


def aug_add(target, value):
    """`target += value` (used by reverse mode to mean "accumulate into an adjoint")."""
    return _make(gast.AugAssign, target=name(target, store=True), op=gast.Add(), value=value)


def expr(value):
    return _make(gast.Expr, value=value)


def return_(value):
    return _make(gast.Return, value=value)


def if_(test, body, orelse=()):
    return _make(gast.If, test=test, body=list(body) or [pass_()], orelse=list(orelse))


def for_(target, iter, body):
    target = name(target, store=True) if isinstance(target, str) else as_store(target)
    return _make(gast.For, target=target, iter=iter, body=list(body) or [pass_()], orelse=[], type_comment=None)


def while_(test, body):
    return _make(gast.While, test=test, body=list(body) or [pass_()], orelse=[])


def break_():
    return gast.Break()


def pass_():
    return gast.Pass()


def nonlocal_(names):
    return _make(gast.Nonlocal, names=list(names))


def function_def(fn_name, params, body, docstring=None, defaults=(), kwonly=(), kw_defaults=()):
    args = _make(
        gast.arguments,
        args=[_make(gast.Name, id=p, ctx=gast.Param()) for p in params],
        posonlyargs=[],
        vararg=None,
        kwonlyargs=[_make(gast.Name, id=p, ctx=gast.Param()) for p in kwonly],
        kw_defaults=list(kw_defaults),
        kwarg=None,
        defaults=list(defaults),
    )
    stmts = ([expr(const(docstring))] if docstring else []) + list(body)
    return _make(gast.FunctionDef, name=fn_name, args=args, body=stmts, decorator_list=[], returns=None)


class Comment(str):
    """A comment line in generated code; `emit` prints it as `# text`."""


def comment(text):
    """A statement that `emit` prints as a comment and every other pass ignores."""
    return expr(_make(gast.Constant, value=Comment(text), kind=None))


def comment_text(stmt):
    """The text of a comment statement, or None for any other statement."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
        if isinstance(stmt.value.value, Comment):
            return str(stmt.value.value)
    return None


def as_store(node):
    node = copy(node)
    for n in walk(node):
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


def copy(node):
    """A deep copy that keeps source locations."""
    return _deepcopy(node)


def _deepcopy(node):
    if isinstance(node, list):
        return [_deepcopy(n) for n in node]
    if not isinstance(node, gast.AST):
        return node
    new = type(node)(**{f: _deepcopy(getattr(node, f, None)) for f in node._fields})
    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(node, a):
            setattr(new, a, getattr(node, a))
    return new


def located(new, old):
    """Give `new` (and its children without a location) the location of `old`."""
    if old is None or not hasattr(old, "lineno"):
        return new
    for n in walk(new) if isinstance(new, gast.AST) else []:
        if getattr(n, "lineno", None) is None and "lineno" in getattr(n, "_attributes", ()):
            gast.copy_location(n, old)
    return new


def parse_function(source):
    """Parse source text into a gast Module."""
    return gast.parse(source)


def to_python_ast(node):
    """Convert a gast node to a standard-library `ast` node (for unparsing)."""
    return gast.gast_to_ast(node)


if sys.version_info >= (3, 11):
    _unparse = ast.unparse
else:  # 3.10 prints `(a, b) = ...` and `for (i, x) in ...`; print as 3.11+ does, for one text on every Python

    class _Unparser(ast._Unparser):
        def visit_Tuple(self, node):  # parenthesized unless a target (3.11's rule)
            with self.delimit_if("(", ")", not node.elts or self.get_precedence(node) > ast._Precedence.TUPLE):
                self.items_view(self.traverse, node.elts)

        def visit_Assign(self, node):
            for target in node.targets:
                self.set_precedence(ast._Precedence.TUPLE, target)
            super().visit_Assign(node)

        def visit_For(self, node):
            self.set_precedence(ast._Precedence.TUPLE, node.target)
            super().visit_For(node)

    def _unparse(tree):
        return _Unparser().visit(tree)


def unparse(node):
    """Source text of one gast expression or statement, the same on every Python."""
    tree = gast.gast_to_ast(node)
    ast.fix_missing_locations(tree)
    return _unparse(tree)


def is_name(node, id=None):
    return isinstance(node, gast.Name) and (id is None or node.id == id)


def is_const(node):
    return isinstance(node, gast.Constant) or (
        isinstance(node, gast.UnaryOp)
        and isinstance(node.op, (gast.USub, gast.UAdd))
        and isinstance(node.operand, gast.Constant)
    )


def names_read(node):
    """Names loaded anywhere in `node` (a node or a list of nodes), in order, without duplicates."""
    seen = {}
    for root in node if isinstance(node, list) else [node]:
        for n in walk(root):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                seen.setdefault(n.id, None)
    return list(seen)


def names_stored(node):
    """Names assigned anywhere in `node` (targets, for targets, augmented targets)."""
    seen = {}
    for root in node if isinstance(node, list) else [node]:
        for n in walk(root):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                seen.setdefault(n.id, None)
    return list(seen)


def copy_pseudo(stmts):
    """Copy a statement list that may hold reverse mode's pseudo statements (dataclasses)."""
    import dataclasses

    out = []
    for s in stmts:
        if dataclasses.is_dataclass(s):
            fields = {f.name: copy_pseudo(v) if isinstance(v, list) else (_deepcopy(v) if isinstance(v, gast.AST) else v)
                      for f in dataclasses.fields(s) for v in [getattr(s, f.name)]}
            out.append(type(s)(**fields))
        elif isinstance(s, (gast.If, gast.For, gast.While)):
            new = _deepcopy(s)
            new.body = copy_pseudo(s.body)
            new.orelse = copy_pseudo(s.orelse)
            out.append(new)
        else:
            out.append(_deepcopy(s))
    return out
