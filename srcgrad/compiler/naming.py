"""Deterministic fresh names for generated code.

`Namer` starts from every name the user's function mentions (parameters, locals,
globals, attribute roots) and hands out names that collide with none of them:
`fresh("sin_x")` gives `sin_x`, then `sin_x_1`, `sin_x_2`. Adjoints are `x_bar`,
tangents `x_dot`. The same program always gets the same names.
"""

import keyword
import re

import gast

from . import syntax

_IDENT = re.compile(r"[^0-9a-zA-Z_]+")


class Namer:
    def __init__(self, taken=(), locals_=(), scope=None):
        self.taken = set(taken)
        self.locals = set(locals_)
        self.scope = scope or (lambda name: None)  # what a name means to the user's code
        self.helpers = {}  # helper name -> object, bound into generated code
        self._adjoints = {}
        self._primals = {}  # adjoint name -> its primal, the inverse of `_adjoints`
        self._tangents = {}

    @classmethod
    def for_tree(cls, tree, scope=None):
        taken, stored = set(), set()
        for n in syntax.nodes(tree):
            if isinstance(n, gast.Name):
                taken.add(n.id)
                if not isinstance(n.ctx, gast.Load):
                    stored.add(n.id)
            elif isinstance(n, gast.FunctionDef):
                taken.add(n.name)
            elif isinstance(n, gast.alias):  # `import numpy as np` inside the function: a local
                taken.add(n.asname or n.name.split(".")[0])
                stored.add(n.asname or n.name.split(".")[0])
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
        base = _IDENT.sub("_", base).strip("_") or "t"
        if base[0].isdigit():
            base = "_" + base
        if keyword.iskeyword(base):
            base += "_"
        candidate, k = base, 0
        while candidate in self.taken:
            k += 1
            candidate = f"{base}_{k}"
        self.taken.add(candidate)
        self.locals.add(candidate)
        return candidate

    def temp(self):
        """A numbered temporary (`_t1`, `_t2`, ...) for values with no short descriptive name."""
        k = 1
        while f"_t{k}" in self.taken:
            k += 1
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
