"""gast nodes printed as Python source text, the same on every Python: simple statements
and the expressions generated code holds are printed here, directly from gast, as Python
3.11's `ast.unparse` prints them; anything else goes through `ast.unparse` (made to print
as 3.11 does on 3.10). Reads nodes and constructs none (syntax.py constructs them).
"""

import ast
import sys

import gast


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


def python_text(tree):
    """Source text of a standard-library `ast` node, as Python 3.11's `ast.unparse` prints it."""
    return _unparse(tree)


def unparse(node):
    """Source text of one gast expression or statement, the same on every Python.

    Simple statements and the expressions generated code holds are printed here, directly
    from gast, as Python 3.11's `ast.unparse` prints them; anything else goes through it."""
    try:
        return _text(node, _TEST)
    except _Unprintable:
        pass
    tree = gast.gast_to_ast(node)
    ast.fix_missing_locations(tree)
    return _unparse(tree)


class _Unprintable(Exception):
    """A node that `_text` leaves to `ast.unparse`."""


# `ast._Precedence`: how tightly each context binds (`ast.unparse` parenthesizes what binds looser)
_TUPLE, _YIELD, _TEST, _OR, _AND, _NOT, _CMP, _EXPR = 2, 3, 4, 5, 6, 7, 8, 9
_TERM, _FACTOR, _POWER, _ATOM = 14, 15, 16, 18
_BINOPS = {
    gast.Add: (" + ", 13), gast.Sub: (" - ", 13), gast.Mult: (" * ", _TERM), gast.MatMult: (" @ ", _TERM),
    gast.Div: (" / ", _TERM), gast.Mod: (" % ", _TERM), gast.FloorDiv: (" // ", _TERM), gast.Pow: (" ** ", _POWER),
    gast.LShift: (" << ", 12), gast.RShift: (" >> ", 12), gast.BitOr: (" | ", _EXPR), gast.BitXor: (" ^ ", 10),
    gast.BitAnd: (" & ", 11),
}
_UNARY = {gast.USub: "-", gast.UAdd: "+", gast.Invert: "~", gast.Not: "not "}


# the binary operators by class name (ast's and gast's alike): (text, how tightly it binds)
BINARY = {cls.__name__: (text.strip(), level) for cls, (text, level) in _BINOPS.items()}
# how tightly the other operations bind, on `BINARY`'s scale
CONDITIONAL, OR, AND, NOT, COMPARE, UNARY = _TEST, _OR, _AND, _NOT, _CMP, _FACTOR


def operator_text(op):
    """The text of the binary operator node `op` (`gast.Add()` -> "+")."""
    return _BINOPS[type(op)][0].strip()

_COMPARE = {
    gast.Eq: " == ", gast.NotEq: " != ", gast.Lt: " < ", gast.LtE: " <= ", gast.Gt: " > ", gast.GtE: " >= ",
    gast.Is: " is ", gast.IsNot: " is not ", gast.In: " in ", gast.NotIn: " not in ",
}


def _text(node, prec):
    """`node` printed where the context binds with precedence `prec`."""
    printer = _PRINTERS.get(type(node))
    if printer is None:
        raise _Unprintable
    return printer(node, prec)


def _items(elts):
    """Tuple items: `a, b`, or `a,` for one."""
    if len(elts) == 1:
        return _text(elts[0], _TEST) + ","
    return ", ".join([_text(e, _TEST) for e in elts])


def _constant(node, prec):
    value = node.value
    if type(value) is tuple:
        return "(" + (_constant_text(value[0]) + "," if len(value) == 1 else ", ".join(map(_constant_text, value))) + ")"
    if value is ...:
        return "..."
    return ("u" if node.kind == "u" else "") + _constant_text(value)


def _constant_text(value):
    if isinstance(value, (float, complex)):
        return repr(value).replace("inf", "1e309").replace("nan", "(1e309-1e309)")
    return repr(value)


def _binop(node, prec):
    op, own = _BINOPS[type(node.op)]
    if own == _POWER:  # right-associative
        text = _text(node.left, own + 1) + op + _text(node.right, own)
    else:
        text = _text(node.left, own) + op + _text(node.right, own + 1)
    return "(" + text + ")" if prec > own else text


def _unaryop(node, prec):
    op = _UNARY[type(node.op)]
    own = _NOT if op == "not " else _FACTOR
    text = op + _text(node.operand, own)
    return "(" + text + ")" if prec > own else text


def _compare(node, prec):
    parts = [_text(node.left, _CMP + 1)]
    for op, right in zip(node.ops, node.comparators):
        parts += [_COMPARE[type(op)], _text(right, _CMP + 1)]
    text = "".join(parts)
    return "(" + text + ")" if prec > _CMP else text


def _boolop(node, prec):
    own = _AND if isinstance(node.op, gast.And) else _OR
    level, parts = own, []
    for value in node.values:  # as ast.unparse: each operand binds one level tighter
        level = min(level + 1, _ATOM)
        parts.append(_text(value, level))
    text = (" and " if own == _AND else " or ").join(parts)
    return "(" + text + ")" if prec > own else text


def _ifexp(node, prec):
    text = f"{_text(node.body, _TEST + 1)} if {_text(node.test, _TEST + 1)} else {_text(node.orelse, _TEST)}"
    return "(" + text + ")" if prec > _TEST else text


def _attribute(node, prec):
    value = node.value
    space = " " if isinstance(value, gast.Constant) and isinstance(value.value, int) else ""
    return _text(value, _ATOM) + space + "." + node.attr


def _call(node, prec):
    args = [_text(a, _TEST) for a in node.args]
    for k in node.keywords:
        args.append(("**" if k.arg is None else k.arg + "=") + _text(k.value, _TEST))
    return _text(node.func, _ATOM) + "(" + ", ".join(args) + ")"


def _subscript(node, prec):
    index = node.slice
    inner = _items(index.elts) if isinstance(index, gast.Tuple) and index.elts else _text(index, _TEST)
    return _text(node.value, _ATOM) + "[" + inner + "]"


def _slice(node, prec):
    text = (_text(node.lower, _TEST) if node.lower else "") + ":" + (_text(node.upper, _TEST) if node.upper else "")
    return text + (":" + _text(node.step, _TEST) if node.step else "")


def _tuple(node, prec):
    if not node.elts or prec > _TUPLE:
        return "(" + _items(node.elts) + ")" if node.elts else "()"
    return _items(node.elts)


def _dict(node, prec):
    parts = [("**" + _text(v, _EXPR)) if k is None else _text(k, _TEST) + ": " + _text(v, _TEST) for k, v in zip(node.keys, node.values)]
    return "{" + ", ".join(parts) + "}"


def _assign(node, prec):
    if node.type_comment is not None:
        raise _Unprintable
    return "".join([_text(t, _TUPLE) + " = " for t in node.targets]) + _text(node.value, _TEST)


def _aug_assign(node, prec):
    return _text(node.target, _TEST) + " " + _BINOPS[type(node.op)][0].strip() + "= " + _text(node.value, _TEST)


_PRINTERS = {
    gast.Name: lambda node, prec: node.id,
    gast.Constant: _constant,
    gast.BinOp: _binop,
    gast.UnaryOp: _unaryop,
    gast.Compare: _compare,
    gast.BoolOp: _boolop,
    gast.IfExp: _ifexp,
    gast.Attribute: _attribute,
    gast.Call: _call,
    gast.Subscript: _subscript,
    gast.Slice: _slice,
    gast.Tuple: _tuple,
    gast.List: lambda node, prec: "[" + ", ".join([_text(e, _TEST) for e in node.elts]) + "]",
    gast.Dict: _dict,
    gast.Starred: lambda node, prec: "*" + _text(node.value, _EXPR),
    gast.Assign: _assign,
    gast.AugAssign: _aug_assign,
    gast.Expr: lambda node, prec: _text(node.value, _YIELD),
    gast.Return: lambda node, prec: "return" + (" " + _text(node.value, _TEST) if node.value else ""),
    gast.Pass: lambda node, prec: "pass",
    gast.Break: lambda node, prec: "break",
    gast.Continue: lambda node, prec: "continue",
}
