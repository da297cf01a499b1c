"""Integer arithmetic in compiled code: where Python's integers have no bounds, numba's are int64.

Python computes `n * n * n`, `2 ** n`, `1 << n` and `int(a * 1e19)` exactly (`2 ** -2`
is 0.25); numba's int64 arithmetic wraps around (`3_000_000 ** 3` becomes
8553255926290448384), its `2 ** -2` is 0 and its `int(1e19)` is some other number,
each silently. After compiling, the backend reads numba's typing of the code
(`integer_lines`): the lines where `+ - * ** <<` meet two integers, or where `int`,
`round`, `math.floor`, `math.ceil` or `math.trunc` make an integer of a float. The text is
then compiled again with those operations spelled as checked helpers
(`checked_integers`: `n * n` -> `int_mul(n, n)`, `int(v)` -> `int(int_range(v))`), which
compute as numba does where the result fits comfortably in an int64 and otherwise raise
`CompiledUnsupported`, so that call runs the Python derivative. Code without such lines
compiles as it is.
Imported only by numba_backend.py, after numba.
"""

import ast
import builtins
import math
import operator
import re

import numba
from numba.core import ir
from numba.core import types as _nb
from numba.extending import overload

from .numba_helpers import CompiledUnsupported

_LIMIT = 9.0e18  # below 2 ** 63 by more than a float's rounding of numbers that large


def _signed(*ts):
    return all(isinstance(t, _nb.Integer) and t.signed for t in ts)


def _integers(*ts):
    return all(isinstance(t, _nb.Integer) for t in ts)


def int_add(a, b):
    return a + b


def int_sub(a, b):
    return a - b


def int_mul(a, b):
    return a * b


def int_pow(a, b):
    return a ** b


def int_lshift(a, b):
    return a << b


def int_range(v):
    """`v`, a float that an integer conversion may take: finite and within int64's range."""
    return v


@numba.extending.register_jitable
def _unsupported():
    raise CompiledUnsupported("integer arithmetic beyond int64 is not compiled")


def _checked(python_op, fits):
    """The numba version of the helper that applies `python_op`: as numba does for numbers
    other than two integers, checked by `fits(a, b)` (float arithmetic) for two signed
    integers, and never compiled for unsigned ones (Python integers past 2 ** 63)."""
    def typed(a, b):
        if not _integers(a, b):
            return lambda a, b: python_op(a, b)
        if not _signed(a, b):
            return lambda a, b: _unsupported()

        def impl(a, b):
            if not fits(a, b):
                _unsupported()
            return python_op(a, b)

        return impl

    return typed


@numba.extending.register_jitable
def _fits_add(a, b):
    return abs(float(a) + float(b)) < _LIMIT


@numba.extending.register_jitable
def _fits_sub(a, b):
    return abs(float(a) - float(b)) < _LIMIT


@numba.extending.register_jitable
def _fits_mul(a, b):
    return abs(float(a) * float(b)) < _LIMIT


@numba.extending.register_jitable
def _fits_pow(a, b):
    # Python's int ** negative int is a float; a large power overflows
    return b >= 0 and (b == 0 or abs(a) <= 1 or (b < 64 and abs(float(a)) ** b < _LIMIT))


@numba.extending.register_jitable
def _fits_lshift(a, b):
    return 0 <= b < 63 and abs(float(a)) * 2.0 ** b < _LIMIT


overload(int_add)(_checked(operator.add, _fits_add))
overload(int_sub)(_checked(operator.sub, _fits_sub))
overload(int_mul)(_checked(operator.mul, _fits_mul))
overload(int_pow)(_checked(operator.pow, _fits_pow))
overload(int_lshift)(_checked(operator.lshift, _fits_lshift))


@overload(int_range)
def _int_range(v):
    if isinstance(v, _nb.Float):
        def impl(v):
            if not abs(v) < _LIMIT:  # also nan
                _unsupported()
            return v

        return impl
    return lambda v: v


HELPERS = {"int_add": int_add, "int_sub": int_sub, "int_mul": int_mul, "int_pow": int_pow, "int_lshift": int_lshift,
           "int_range": int_range}
_OPERATORS = {  # numba's binop function -> the AST operator spelled as a helper
    operator.add: ast.Add, operator.iadd: ast.Add, operator.sub: ast.Sub, operator.isub: ast.Sub,
    operator.mul: ast.Mult, operator.imul: ast.Mult, operator.pow: ast.Pow, operator.ipow: ast.Pow,
    operator.lshift: ast.LShift, operator.ilshift: ast.LShift,
}
_HELPER_OF = {ast.Add: "int_add", ast.Sub: "int_sub", ast.Mult: "int_mul", ast.Pow: "int_pow", ast.LShift: "int_lshift"}
_TO_INTEGER = (int, round, math.floor, math.ceil, math.trunc)


def integer_lines(dispatcher):
    """The lines of the compiled text where, in any signature `dispatcher` compiled, an
    operation of `_OPERATORS` meets two integers or a call makes an integer of a float."""
    lines = set()
    for result in dispatcher.overloads.values():
        annotation = result.type_annotation
        typemap = annotation.typemap
        for block in annotation.blocks.values():
            for stmt in block.body:
                if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr)):
                    continue
                expr = stmt.value
                if expr.op in ("binop", "inplace_binop") and expr.fn in _OPERATORS:
                    if _integers(typemap[expr.lhs.name], typemap[expr.rhs.name]):
                        lines.add(stmt.loc.line)
                elif expr.op == "call" and isinstance(typemap[stmt.target.name], _nb.Integer):
                    if any(isinstance(typemap[a.name], _nb.Float) for a in expr.args):
                        lines.add(stmt.loc.line)
    return lines


def checked_integers(text, lines, env):
    """`text` with, on `lines`, the operations of `_OPERATORS` spelled as the checked helpers
    and the float argument of `int`, `round`, `math.floor/ceil/trunc` passed through
    `int_range`; None if one of `lines` is not a statement, or an `if`, `while` or `for`
    header, on a line of its own."""
    tree = ast.parse(text)
    if any(isinstance(n, ast.Name) and n.id in HELPERS for n in ast.walk(tree)):
        return None
    rows = text.splitlines(True)
    lines = {k for k in lines if not _TAPE_POP.match(rows[k - 1])}  # the array tapes' pops: never overflow
    edits = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)):
            part, mode = node.test, "eval"
        elif isinstance(node, ast.For):
            part, mode = node.iter, "eval"
        elif isinstance(node, ast.stmt) and "body" not in node._fields:
            part, mode = node, "exec"
        else:
            continue
        if part.lineno not in lines:
            continue
        if part.lineno != part.end_lineno or part.lineno in edits:
            return None
        new = _Checked(env).visit(ast.parse(ast.unparse(part), mode=mode))
        ast.fix_missing_locations(new)
        edits[part.lineno] = (part.col_offset, part.end_col_offset, ast.unparse(new.body[0] if mode == "exec" else new.body))
    if set(edits) != lines:
        return None
    for line, (start, end, replacement) in edits.items():
        row = rows[line - 1].encode()  # ast's columns count UTF-8 bytes
        rows[line - 1] = (row[:start] + replacement.encode() + row[end:]).decode()
    return "".join(rows)


_TAPE_POP = re.compile(r"^\s*(\w+_top(?:_\d+)?) = \1 - 1\s*$")


class _Checked(ast.NodeTransformer):
    def __init__(self, env):
        self.env = env

    def visit_BinOp(self, node):
        self.generic_visit(node)
        helper = _HELPER_OF.get(type(node.op))
        if helper is None:
            return node
        return ast.Call(ast.Name(helper, ast.Load()), [node.left, node.right], [])

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        helper = _HELPER_OF.get(type(node.op))
        if helper is None or not isinstance(node.target, ast.Name):
            return node
        value = ast.Call(ast.Name(helper, ast.Load()), [ast.Name(node.target.id, ast.Load()), node.value], [])
        return ast.Assign([node.target], value)

    def visit_Call(self, node):
        self.generic_visit(node)
        if node.args and self._to_integer(node.func):
            node.args[0] = ast.Call(ast.Name("int_range", ast.Load()), [node.args[0]], [])
        return node

    def _to_integer(self, func):
        if isinstance(func, ast.Name):
            return any(self.env.get(func.id, getattr(builtins, func.id, None)) is f for f in _TO_INTEGER)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return any(getattr(self.env.get(func.value.id), func.attr, None) is f for f in _TO_INTEGER)
        return False
