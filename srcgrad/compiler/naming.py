"""Deterministic fresh names for generated code.

`Namer` starts from every name the user's function mentions (parameters, locals,
globals, attribute roots) and hands out names that collide with none of them:
`fresh("sin_x")` gives `sin_x`, then `sin_x_1`, `sin_x_2`. Adjoints are `x_bar`,
tangents `x_dot`. The same program always gets the same names.
"""

import keyword
import re

import gast

from . import traversal

_IDENT = re.compile(r"[^0-9a-zA-Z_]+")
_CLEANED = {}  # base -> `_cleaned(base)`, kept (a pure function of its argument)


def _cleaned(base):
    """`base` made an identifier that is no keyword: the stem `Namer.fresh` numbers."""
    cleaned = _IDENT.sub("_", base).strip("_") or "t"
    if cleaned[0].isdigit():
        cleaned = "_" + cleaned
    if keyword.iskeyword(cleaned):
        cleaned += "_"
    if len(_CLEANED) < 65536:
        _CLEANED[base] = cleaned
    return cleaned


class Namer:
    def __init__(self, taken=(), locals_=(), scope=None):
        self.taken = set(taken)
        self.locals = set(locals_)
        self.scope = scope or (lambda name: None)  # what a name means to the user's code
        self.helpers = {}  # helper name -> object, bound into generated code
        self._adjoints = {}
        self._primals = {}  # adjoint name -> its primal, the inverse of `_adjoints`
        self._tangents = {}
        self._temp = 1  # `_t1` ... below it are all taken (`taken` only grows): where `temp` looks first

    @classmethod
    def for_tree(cls, tree, scope=None):
        loads, others = traversal.name_counts(tree)
        taken, stored = set(loads) | set(others), set(others)
        for n in traversal.statements(tree):  # definitions and imports are statements
            if isinstance(n, (gast.FunctionDef, gast.ClassDef)):
                taken.add(n.name)
                if n is not tree:  # a nested `def` binds a local name
                    stored.add(n.name)
            elif isinstance(n, (gast.Import, gast.ImportFrom)):  # `import numpy as np` inside the function: a local
                for alias in n.names:
                    taken.add(alias.asname or alias.name.split(".")[0])
                    stored.add(alias.asname or alias.name.split(".")[0])
        return cls(taken, stored, scope)

    def helper(self, preferred, obj):
        """The name generated code uses for the helper `obj` (np, unbroadcast, a rule helper).

        The preferred name is kept unless the user's code means something else by it or
        it is no identifier (`<lambda>_pullback`, of a lambda bound to a global name).
        """
        for name, bound in self.helpers.items():
            if bound is obj:
                return name
        clash = not preferred.isidentifier() or keyword.iskeyword(preferred) or preferred in self.helpers or preferred in self.locals or (
            preferred in self.taken and self.scope(preferred) is not obj
        )
        name = self.fresh(preferred) if clash else preferred
        self.taken.add(name)
        self.helpers[name] = obj
        return name

    def reserve(self, name):
        self.taken.add(name)

    def fresh(self, base):
        base = _CLEANED.get(base) or _cleaned(base)
        candidate, k = base, 0
        while candidate in self.taken:
            k += 1
            candidate = f"{base}_{k}"
        self.taken.add(candidate)
        self.locals.add(candidate)
        return candidate

    def temp(self):
        """A numbered temporary (`_t1`, `_t2`, ...) for values with no short descriptive name."""
        k = self._temp
        while f"_t{k}" in self.taken:
            k += 1
        self._temp = k + 1
        self.taken.add(f"_t{k}")
        return f"_t{k}"

    def adjoint(self, name):
        """The adjoint variable of `name` (`x` -> `x_bar`), the same on every call."""
        found = self._adjoints.get(name)
        if found is None:
            found = self._adjoints[name] = self.fresh(f"{name.lstrip('_')}_bar")
            self._primals[found] = name
        return found

    def tangent(self, name):
        """The tangent variable of `name` (`x` -> `x_dot`), the same on every call."""
        if name not in self._tangents:
            self._tangents[name] = self.fresh(f"{name.lstrip('_')}_dot")
        return self._tangents[name]

    def is_tangent(self, name):
        return name in self._tangents.values()

    def is_adjoint(self, name):
        return name in self._primals

    def primal_of(self, adjoint_name):
        return self._primals.get(adjoint_name)


# --- temporaries named for their content (anf.py) ---------------------------------------

_OP_WORDS = {
    gast.Add: "plus", gast.Sub: "minus", gast.Mult: "times", gast.Div: "over", gast.Pow: "pow",
    gast.MatMult: "at", gast.FloorDiv: "floordiv", gast.Mod: "mod",
}
_CMP_WORDS = {gast.Lt: "lt", gast.LtE: "le", gast.Gt: "gt", gast.GtE: "ge", gast.Eq: "eq", gast.NotEq: "ne"}
_MAX_NAME = 16


def word(e):
    """A name's, a number's or an attribute's word for a temporary's name (`x`, `2_0`, `T`), or None."""
    if isinstance(e, gast.Name):
        return e.id.lstrip("_")
    if isinstance(e, gast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
        return str(e.value).replace(".", "_").replace("-", "neg")
    if isinstance(e, gast.Attribute):
        return _plain(e.attr)
    return None


def _plain(attr):
    """An attribute's word: `self` for `__self__`."""
    return attr.strip("_") or attr if attr.startswith("__") and attr.endswith("__") else attr


def content_name(e):
    """A name that says what `e` computes (`sin_x`, `h_at_W`), or None when too long."""
    name = None
    if isinstance(e, gast.Call):
        func = e.func.attr if isinstance(e.func, gast.Attribute) else getattr(e.func, "id", "call")
        if isinstance(e.func, gast.Attribute) and not _is_module_chain(e.func):
            first = word(e.func.value)
            name = f"{first}_{func}" if first else func
        else:
            first = next((word(a) for a in e.args if isinstance(a, gast.Name)), None)
            name = f"{func}_{first}" if first else func
    elif isinstance(e, gast.BinOp):
        left, right = word(e.left), word(e.right)
        if left and right:
            name = f"{left}_{_OP_WORDS.get(type(e.op), 'op')}_{right}"
    elif isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
        operand = word(e.operand)
        name = f"neg_{operand}" if operand else None
    elif isinstance(e, gast.Subscript):
        value = word(e.value)
        index = word(e.slice)
        name = f"{value}_{index}" if value and index else (f"{value}_part" if value else None)
    elif isinstance(e, gast.Attribute):
        value = word(e.value)
        name = f"{value}_{_plain(e.attr)}" if value else None
    elif isinstance(e, gast.Compare):
        name = cond_hint(e)
    if name is None or len(name) > _MAX_NAME:
        return None
    return name


def _is_module_chain(e):
    while isinstance(e, gast.Attribute):
        e = e.value
    return isinstance(e, gast.Name) and e.id in ("np", "numpy", "math", "jnp", "onp")


def cond_hint(test):
    """A name for the value of the test `test` (`x_lt_y`, `not_done`), else "cond"."""
    if isinstance(test, gast.Compare) and len(test.ops) == 1:
        left, right = word(test.left), word(test.comparators[0])
        relation = _CMP_WORDS.get(type(test.ops[0]))
        if left and right and relation:
            name = f"{left}_{relation}_{right}"
            if len(name) <= _MAX_NAME:
                return name
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not) and isinstance(test.operand, gast.Name):
        return f"not_{test.operand.id}"[:_MAX_NAME]
    return "cond"
