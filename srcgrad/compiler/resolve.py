"""Call resolution: which Python object each call and attribute read of an ANF tree means.

Returns a side table `{node: Callee}` for every `gast.Call` and every attribute read on
a local value (`x.T`, `x.shape`); nodes are not modified. A call's function is looked up
in the parameters bound to a known function (`bound_calls.with_functions`), the function's
closure cells, then its globals, then builtins, following attribute chains
(`np.linalg.norm`). A method on a local value (`x.sum(0)`) resolves through
`rules.methods` to the NumPy function whose rule it uses; a sampler's (`rng.normal(mu, s)`) on a
local the function assigns once, from `np.random.default_rng(...)`, `np.random.Generator(...)` or
`np.random.RandomState(...)`, to the generator class's method (`rules.sampling`), which takes the
generator first; another object's `.normal()` stays unknown. Names are looked up by
`scope.lookup_path`. A `functools.partial` of a user function resolves to the function
`stand_in.partial_function` makes of it, a bound method of one (`self.step`, where
`self` is a parameter bound to a known instance) or a callable instance to the function
`stand_in.method_function` makes of it. A user function taking `*args` or `**kwargs`
resolves to its variant for the call's arity (`varargs.variant_for_call`) where the
call shows it.
"""

import functools
import types
from dataclasses import dataclass

import gast

import numpy as np

from ..rules import methods, registry, sampling
from . import stand_in, traversal, varargs
from .scope import MISSING, dotted_parts, lookup_path


@dataclass(frozen=True)
class Callee:
    """What a call or attribute means. `kind` is one of:

    - "function": `obj` is the called object (np.sin, a user function, a builtin);
    - "method": a method on the local value `receiver` (a name); `obj` is the NumPy
      primal it differentiates like (None when unknown), `packs_varargs` as in rules.methods;
    - "attribute": an attribute read on a local value; `obj` is its primal (`.T`), or
      None for constant attributes (`.shape`) and unknown ones (`known` False);
    - "unresolved": a global name that does not exist (yet); `path` is its spelling.
    """

    kind: str
    obj: object = None
    path: str = ""
    receiver: str = ""
    packs_varargs: bool = False
    known: bool = True


def run(tree, program, local_names, helpers=None):
    """Resolve every call and local attribute read in `tree`; a name found nowhere else is
    looked up in `helpers` (the srcgrad helpers normalization put in: `runtime.in_place`)."""
    table = {}
    local_names = set(local_names)
    samplers = []  # calls of a sampler's name on a local, which may be a generator (`rng.normal(...)`)
    for node in traversal.inner_nodes(tree):  # gast.walk's order (of calls and attributes), faster
        if isinstance(node, gast.Call):
            callee = table[node] = _resolve_call(node, program, local_names)
            if callee.kind == "unresolved" and helpers and type(node.func) is gast.Name and node.func.id in helpers:
                callee = table[node] = Callee("function", helpers[node.func.id], node.func.id)
            if callee.kind == "method" and callee.obj is None and callee.path in sampling.SAMPLERS:
                samplers.append(node)
        elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
            if node.value.id in local_names:
                primal = methods.ATTRIBUTES.get(node.attr)
                known = primal is not None or node.attr in methods.CONSTANT_ATTRIBUTES
                table[node] = Callee("attribute", primal, node.attr, node.value.id, known=known)
    if samplers:  # only then the generators the function makes (another walk)
        generators = _generators(tree, program)
        for node in samplers:
            table[node] = _resolve_call(node, program, local_names, generators)
    return table


_GENERATOR_MAKERS = {np.random.default_rng: np.random.Generator, np.random.Generator: np.random.Generator,
                     np.random.RandomState: np.random.RandomState}
_MAKER_NAMES = frozenset(maker.__name__ for maker in _GENERATOR_MAKERS)


def _generators(tree, program):
    """{name: generator class} of the names `tree` assigns exactly once, by a plain
    `name = np.random.default_rng(...)` (or `Generator(...)`, `RandomState(...)`)."""
    stores, made = {}, {}
    for node in traversal.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif (isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name)
              and isinstance(node.value, gast.Call)):
            parts = dotted_parts(node.value.func)
            if parts is None or parts[-1] not in _MAKER_NAMES:  # most calls: no lookup
                continue
            value = lookup_path(parts, program)
            try:
                cls = _GENERATOR_MAKERS.get(value)
            except TypeError:  # unhashable
                cls = None
            if cls is not None:
                made[node.targets[0].id] = cls
    return {name: cls for name, cls in made.items() if stores.get(name) == 1}


def _resolve_call(node, program, local_names, generators=None):
    func = node.func
    if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id in local_names
            and func.value.id not in program.bound):
        primal, packs = methods.METHODS.get(func.attr, (None, False))
        cls = (generators or {}).get(func.value.id)
        if cls is not None and primal is None:
            primal = sampling.GENERATOR_METHODS[cls].get(func.attr)
        return Callee("method", primal, func.attr, func.value.id, packs)
    parts = dotted_parts(func)
    if parts is None or (parts[0] in local_names and parts[0] not in program.bound):
        return Callee("unresolved", None, ".".join(parts or ["<expression>"]))
    value = lookup_path(parts, program)
    if value is MISSING:
        return Callee("unresolved", None, ".".join(parts))
    if isinstance(value, functools.partial):  # of a user function: through its own code
        value = stand_in.partial_function(value) or value
    elif isinstance(value, types.MethodType) and registry.is_nondifferentiable(value.__func__):
        value = value.__func__  # a method declared to have no gradient (`log.info`): its result is a constant
    elif isinstance(value, types.MethodType) or stand_in.is_instance(value):  # `self.step(x)`, `layer(x)`
        value = stand_in.method_function(value) or value
    else:  # a function taking `*args` or `**kwargs`: written out for this call's arguments
        value = varargs.variant_for_call(value, node)
    return Callee("function", value, ".".join(parts))
