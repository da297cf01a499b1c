"""Source text -> a gast tree, as `gast.parse` makes it, converted from Python's `ast`
about four times faster.

gast converts Python's `ast` tree through an `ast.NodeTransformer` whose generic visit
calls each gast class's keyword constructor, and looks the visitor method up by name at
every node. This converter looks a class's visitor up once and makes most nodes gast's
in place: the ast tree is not kept, and where the gast class of the same name has the
same fields and location attributes (all but a few), the node's class is replaced and
its fields converted, so nothing is allocated for it; the others get a new node whose
`__dict__` is filled directly. The nodes gast converts specially (a parameter becomes a `Name`, a
`def` gains fields) go through gast's own visitor methods, whose children come back
here; `Name` and parameters, the most frequent of them, are converted here as gast does.

Invariant: the tree equals `gast.parse`'s field for field and location for location
(tests/test_parsing.py compares them), except that the field-less `ctx` and operator
nodes are shared, as `syntax.copy` shares them.
"""

import ast
import gc

import gast
from gast.ast3 import Ast3ToGAst


def parse(text, mode="exec"):
    """`gast.parse(text, mode=mode)`, faster. Python's cyclic garbage collector is paused
    meanwhile: the two trees hold no reference cycles, and its young collections would
    walk their thousands of new nodes again and again (about a seventh of parsing a long function)."""
    if not gc.isenabled():
        return _Converter().visit(ast.parse(text, mode=mode))
    gc.disable()
    try:
        return _Converter().visit(ast.parse(text, mode=mode))
    finally:
        gc.enable()


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _located(values, node):
    """`ast.copy_location` from the ast `node` into the new node's `values` (its `__dict__`)."""
    old = node.__dict__
    if "end_col_offset" in old and "lineno" in old and "col_offset" in old and "end_lineno" in old:
        values["lineno"], values["col_offset"] = old["lineno"], old["col_offset"]
        values["end_lineno"], values["end_col_offset"] = old["end_lineno"], old["end_col_offset"]
        if values["lineno"] is not None and values["col_offset"] is not None:
            return
        for a in ("lineno", "col_offset"):  # copy_location leaves out a None start
            if values[a] is None:
                del values[a]
        return
    for a in _LOCATION:
        value = getattr(node, a, None)
        if value is not None or (a.startswith("end_") and hasattr(node, a)):
            values[a] = value


class _Converter(Ast3ToGAst):
    def visit(self, node):
        cls = type(node)
        convert = _VISITORS.get(cls)
        if convert is None:
            convert = _VISITORS[cls] = _visitor(cls)
        return convert(self, node)

    def _visit(self, node):  # what gast's own visitor methods call for a child
        if isinstance(node, ast.AST):
            return self.visit(node)
        if isinstance(node, list):
            return [self._visit(n) for n in node]
        return node

    def generic_visit(self, node):
        """The gast node of the same class name, with the fields `node` has, each
        converted, and its location (gast's `generic_visit`): `node` itself, its class
        replaced and its fields converted in place (the ast tree is not kept), where the
        gast class names the same fields and location attributes (nearly all)."""
        cls = type(node)
        target = _TARGETS.get(cls, _UNKNOWN)
        if target is _UNKNOWN:
            target = _TARGETS[cls] = getattr(gast, cls.__name__, None)
            _RETYPED[cls] = target is not None and target._fields == cls._fields and target._attributes == cls._attributes
        if target is None:
            return None  # not part of gast's tree (gast leaves it out)
        shared = _SHARED.get(target)
        if shared is not None:
            return shared
        if not _RETYPED[cls]:
            return self.copied(node, target)
        values, ast_node, visit, shared = node.__dict__, ast.AST, self.visit, _SHARED_FOR
        for field in cls._fields:
            value = values.get(field)
            if type(value) is list:
                values[field] = [visit(v) if isinstance(v, ast_node) else self._visit(v) for v in value]
            elif isinstance(value, ast_node):
                values[field] = shared.get(type(value)) or visit(value)
        node.__class__ = target
        return node

    def copied(self, node, target):
        """A new gast node of the class `target`, with the fields `node` has, each
        converted, and its location (gast's `generic_visit`)."""
        cls = type(node)
        new = target.__new__(target)
        values, old, ast_node, visit, shared = new.__dict__, node.__dict__, ast.AST, self.visit, _SHARED_FOR
        for field in cls._fields:
            if field in old:
                value = old[field]
            elif hasattr(node, field):
                value = getattr(node, field)
            else:
                continue
            if type(value) is list:
                value = [visit(v) if isinstance(v, ast_node) else self._visit(v) for v in value]
            elif isinstance(value, ast_node):
                value = shared.get(type(value)) or visit(value)
            values[field] = value
        for a in cls._attributes:
            if a in old:
                values[a] = old[a]
            elif hasattr(node, a):
                values[a] = getattr(node, a)
        return new

    def visit_Name(self, node):
        new = gast.Name.__new__(gast.Name)
        values = new.__dict__
        ctx = node.ctx
        values["id"], values["ctx"] = node.id, _SHARED_FOR.get(type(ctx)) or self.visit(ctx)
        values["annotation"] = values["type_comment"] = None
        _located(values, node)
        return new

    def visit_arg(self, node):
        new = gast.Name.__new__(gast.Name)
        values = new.__dict__
        values["id"], values["ctx"] = node.arg, _PARAM
        values["annotation"] = self._visit(node.annotation)
        values["type_comment"] = self._visit(getattr(node, "type_comment", None))
        _located(values, node)
        return new


def _visitor(cls):
    """The function converting nodes of the ast class `cls`: a visitor method where
    gast or this converter has one, else the generic conversion."""
    method = getattr(_Converter, "visit_" + cls.__name__, None)
    return method if method is not None else _Converter.generic_visit


_VISITORS = {}  # ast class -> its conversion
_TARGETS = {}  # ast class -> the gast class of its name, None where gast has none
_RETYPED = {}  # ast class -> whether its nodes become their gast class in place (same fields and attributes)
_UNKNOWN = object()
_PARAM = gast.Param()
# one instance of each gast class without fields and location (`ctx`, operators)
_SHARED = {
    c: c() for c in vars(gast).values() if isinstance(c, type) and issubclass(c, gast.AST) and not c._fields and not c._attributes
}
# ast class -> the shared gast node it becomes (`ast.Load` -> `gast.Load()`)
_SHARED_FOR = {
    c: _SHARED[getattr(gast, c.__name__)] for c in vars(ast).values()
    if isinstance(c, type) and issubclass(c, ast.AST) and getattr(gast, c.__name__, None) in _SHARED and not c._fields
}
