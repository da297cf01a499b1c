"""Two terms scaled by the same bound constant: one multiplication (specialized code).

Before:                                  After:
    z_bar = SEED64_2 * y                     z_bar = SEED64_1 * (sig - y)
    z_bar = z_bar + SEED64_1 * sig

Specialized code binds the seed and the constant factors it meets (a mean's 1/n, a
subtraction's -1) into float64 constants (`optimize._fold_bound_scalars`). When an
adjoint's first contribution is `c * a` and the next adds `k * b` with `c == k` or
`c == -k`, the sum is `k * (a + b)` or `k * (b - a)`: one scalar-array product fewer,
the form a hand-written gradient takes (`(sigmoid(z) - y) / n`). The result equals
the general code's up to rounding (the factor is applied once instead of twice), with
the same type and dtype: both forms multiply a bound float64 by the same operands.

Post-condition: every rewrite joined two assignments of one name `v`, with only
comments between: `v = c * a` and `v = v + k * b` (either operand order), neither `a`
nor `b` reading `v`; `c` and `k` are bound NumPy float64 constants, finite and nonzero;
for `b - a`, one of `a` and `b` is arithmetic of names and constants, so running `b`
first changes nothing; and one of `a` and `b` provably holds numbers, not booleans.
"""

import math

import gast
import numpy as np

from . import syntax, traversal


def run(tree, namer, types):
    """Join the qualifying pairs of statements of the FunctionDef `tree` in place;
    `types`: parameter name -> dtype or type, as `shapes.Signature.types`."""
    bound = {n: v for n, v in namer.helpers.items() if type(v) is np.float64 and math.isfinite(v) and v != 0.0}
    if bound:
        numeric = {n for n, t in types.items() if _numeric_type(t)} | set(bound)
        _block(tree.body, bound, numeric)
    return tree


def _block(stmts, bound, numeric):
    k = 0
    while k < len(stmts):
        stmt = stmts[k]
        if isinstance(stmt, (gast.If, gast.While, gast.For)):
            _block(stmt.body, bound, numeric)
            _block(stmt.orelse, bound, numeric)
        j = k + 1
        while j < len(stmts) and syntax.comment_text(stmts[j]) is not None:
            j += 1  # the comments emit merges: the backward pass's copies of user lines
        joined = _joined(stmt, stmts[j], bound, numeric) if j < len(stmts) else None
        if joined is not None:
            stmts[k] = gast.copy_location(joined, stmt)
            del stmts[j]
        else:
            k += 1


def _joined(first, second, bound, numeric):
    """`v = k * (a + b)` or `v = k * (b - a)` for the pair, else None."""
    head = _scaled_assignment(first, bound)
    if head is None:
        return None
    v, c, a = head
    if v in traversal.names_read(a):
        return None
    if not (isinstance(second, gast.Assign) and len(second.targets) == 1 and syntax.is_name(second.targets[0], v)):
        return None
    value = second.value
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)):
        return None
    for mine, term in ((value.left, value.right), (value.right, value.left)):
        if not syntax.is_name(mine, v):
            continue
        found = _scaled(term, bound)
        if found is None:
            continue
        k, b = found
        if v in traversal.names_read(b) or not (_not_bool(a, numeric) or _not_bool(b, numeric)):
            return None  # two boolean arrays: a + b would be `or`, b - a an error
        if bound[c] == bound[k]:
            inner = syntax.binop(a, gast.Add(), b)
        elif bound[c] == -bound[k] and (_plain(a) or _plain(b)):  # b - a: b runs first
            inner = syntax.binop(b, gast.Sub(), a)
        else:
            return None
        return syntax.assign(v, syntax.binop(syntax.name(k), gast.Mult(), inner))
    return None


def _scaled_assignment(stmt, bound):
    """(target, constant name, operand) of `v = c * a` / `v = a * c`, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
        return None
    found = _scaled(stmt.value, bound)
    return None if found is None else (stmt.targets[0].id, *found)


def _scaled(node, bound):
    """(constant name, operand) of `c * e` / `e * c` with `c` a bound constant, else None."""
    if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult)):
        return None
    for c, e in ((node.left, node.right), (node.right, node.left)):
        if isinstance(c, gast.Name) and c.id in bound:
            return c.id, e
    return None


def _plain(node):
    """True for arithmetic of names and number constants: nothing to run in order."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.BinOp):
        return _plain(node.left) and _plain(node.right)
    return isinstance(node, gast.UnaryOp) and _plain(node.operand)


def _numeric_type(t):
    """True for a dtype or type whose values add as numbers (not booleans)."""
    if isinstance(t, np.dtype):
        return t.kind in "iufc"
    return isinstance(t, type) and issubclass(t, (float, complex, np.floating, np.complexfloating)) or t is int


_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def _not_bool(node, numeric):
    """True where `node` provably holds numbers that are not booleans: a number constant,
    a name in `numeric`, or arithmetic with such an operand (True + 0.5 is 1.5)."""
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float, complex)
    if isinstance(node, gast.Name):
        return node.id in numeric
    if isinstance(node, gast.BinOp) and isinstance(node.op, _ARITHMETIC):
        return isinstance(node.op, gast.Div) or _not_bool(node.left, numeric) or _not_bool(node.right, numeric)
    return False
