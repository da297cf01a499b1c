"""Activity analysis: which variables carry derivatives.

A variable is *varied* when its value depends differentiably on a `wrt` parameter,
*useful* when the output depends differentiably on it; it is *active* when both.
Reverse mode differentiates only statements whose target is active. The analysis is
flow-insensitive over names (sound for the ANF + versions form, where top-level
reassignments have their own names) and returns data; it never touches the tree.
"""

from dataclasses import dataclass

import gast

from .. import rules
from . import syntax

_NONDIFF_BINOPS = (gast.FloorDiv, gast.BitAnd, gast.BitOr, gast.BitXor, gast.LShift, gast.RShift)


@dataclass(frozen=True)
class Activity:
    varied: frozenset
    useful: frozenset

    @property
    def active(self):
        return self.varied & self.useful

    def is_active(self, name):
        return name in self.varied and name in self.useful


def diff_reads(value, calls):
    """Names whose derivative flows through the simple expression `value`."""
    if isinstance(value, gast.Name):
        return [value.id]
    if isinstance(value, (gast.Constant, gast.Compare, gast.BoolOp, gast.JoinedStr)):
        return []
    if isinstance(value, gast.UnaryOp):
        return [] if isinstance(value.op, (gast.Not, gast.Invert)) else diff_reads(value.operand, calls)
    if isinstance(value, gast.BinOp):
        if isinstance(value.op, _NONDIFF_BINOPS):
            return []
        return diff_reads(value.left, calls) + diff_reads(value.right, calls)
    if isinstance(value, gast.Subscript):
        return diff_reads(value.value, calls)
    if isinstance(value, gast.Attribute):
        callee = calls.get(value)
        if callee is not None and callee.obj is None and callee.known:
            return []  # .shape, .ndim, ...
        return diff_reads(value.value, calls) if isinstance(value.value, gast.Name) else []
    if isinstance(value, gast.Call):
        callee = calls.get(value)
        if callee is not None and callee.kind == "function" and rules.is_nondifferentiable(callee.obj):
            return []
        names = []
        if callee is not None and callee.kind == "method":
            names.append(callee.receiver)
        for arg in list(value.args) + [k.value for k in value.keywords]:
            names += diff_reads(arg, calls)
        return names
    if isinstance(value, (gast.Tuple, gast.List)):
        return [n for e in value.elts for n in diff_reads(e, calls)]
    if isinstance(value, gast.Dict):
        return [n for v in value.values for n in diff_reads(v, calls)]
    return [n.id for n in gast.walk(value) if isinstance(n, gast.Name)]


def _flows(tree, calls):
    """(source names, target name) pairs: derivative flows from sources into target."""
    flows = []
    for node in syntax.statements(tree):
        if isinstance(node, gast.Assign):
            target = node.targets[0]
            sources = diff_reads(node.value, calls)
            if isinstance(target, gast.Name):
                flows.append((sources, target.id))
            elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                flows.append((sources + [target.value.id], target.value.id))
        elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            flows.append((diff_reads(node.iter, calls), node.target.id))
        elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call):
            callee = calls.get(node.value)
            if callee is not None and callee.kind == "method":
                flows.append((diff_reads(node.value, calls), callee.receiver))
    return flows


def run(tree, wrt, output, calls):
    """Activity of the ANF FunctionDef `tree` for parameters `wrt` and the output name."""
    flows = _flows(tree, calls)
    varied = set(wrt)
    changed = True
    while changed:
        changed = False
        for sources, target in flows:
            if target not in varied and any(s in varied for s in sources):
                varied.add(target)
                changed = True
    useful = {output} if output else set()
    changed = True
    while changed:
        changed = False
        for sources, target in flows:
            if target in useful:
                for s in sources:
                    if s not in useful:
                        useful.add(s)
                        changed = True
    return Activity(frozenset(varied), frozenset(useful))
