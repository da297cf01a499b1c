"""Forward rules derived, not written, for the helpers of the rule modules that generated
gradient code calls (the rules written by hand are in `runtime_rules.py`).

Generated gradient code calls them (`sort_vjp(x_bar, x, axis)`, `split_joined(...)`,
`builtin_extreme_vjp_a(...)`); forward mode over that code needs their forward rules.
A helper whose first parameter is the adjoint or tangent it carries (`g`, `t`,
`cotangent`, `tangents`) is linear in it: its forward rule there is the helper itself
applied to the tangent of that adjoint. With respect to its other parameters the
forward rule differentiates the helper's own source (forward mode, once per helper and
parameter, cached), with the adjoint held constant: there the helper is usually piecewise
constant (an index, a sort order) or the other factor of a product; the parameters
`_PIECEWISE_CONSTANT` lists, which only lend a shape, a structure or an order, get a zero
rule instead, and the helpers declared non-differentiable here are constants to any
derivative. Helpers whose source cannot be differentiated that way have rules written by
hand. Helpers of other first parameters are left to forward mode, which differentiates
them through their source. Each derived rule takes `*args`; it carries its definition
with the parameters written out (written_rules.py), which forward mode reads to
differentiate it in turn (third derivatives and above).

Invariants: imported after every other rule module, since it looks at the helpers of
all registered rules and leaves alone those that already have rules; every rule it makes
is marked `srcgrad_helper_rule`. Rules do not import the compiler: compiler/pipeline.py
puts its `jvp_of`, which differentiates a helper's source, in `_JVP_OF`.
"""

import inspect

from ..runtime import joined_part, repeated_part, zeros_like_grad
from . import activations, copies, elementwise, methods, record_replace, reductions, scalars, selections, series, shapes, statistics, structure, ufunc_methods, variances, fills
from .registry import defjvp, is_nondifferentiable, lookup, nondifferentiable
from .container_rules import _item_transpose, _leaf_transpose
from .runtime_rules import _zero
from .written_rules import written as _written

# Helpers of the rule modules whose values are piecewise constant (shares of a max, masks,
# counts) or not numbers at all (axes, dtypes): constants to any derivative.
nondifferentiable(
    reductions._extremum_share, statistics._median_share, statistics._nan_median_share, reductions._ptp_share,
    reductions._not_nan, reductions._counted,
    reductions._valid_count, variances._dof, variances._counted, reductions._axes, reductions._float_dtype,
    elementwise._nan_ignoring_share, elementwise._order_sign, elementwise._clip_lower_share, elementwise._clip_upper_share, elementwise._within,
    activations._count, shapes._axes, shapes._inverse_axes, structure._hsplit_axis, structure._hstack_axis,
    reductions._initial_share, elementwise._select_masks, structure._insert_sources, scalars._sorted_order,
    shapes._reading_order, ufunc_methods._segments, fills._beyond, fills._replaced, fills._ediff1d_edges,
    fills._interp_piece, copies._pad_options, scalars._empty, statistics._cov_weights, statistics._cov_dof,
    methods._numbers_only,
)

_LINEAR_FIRST = ("g", "t", "cotangent", "tangents")
_LEADING = ("tangent__", "result__")  # the rules' leading parameters: no helper uses these names


def rule_helpers():
    """{helper: names of the rules using it}: every srcgrad function a rule binds into
    generated code (the names its code reads, or itself when it is called, not inlined)."""
    import types

    from .registry import all_rules

    found = {}

    def note(obj, user):
        if isinstance(obj, types.FunctionType) and (getattr(obj, "__module__", "") or "").startswith("srcgrad."):
            found.setdefault(obj, set()).add(user.__qualname__)

    for rule in all_rules():
        for d in list(rule.vjps.values()) + list(rule.jvps.values()):
            fn = d.fn
            if getattr(fn, "srcgrad_helper_rule", False):
                continue
            note(fn, fn)
            cells = dict(zip(fn.__code__.co_freevars, [c.cell_contents for c in fn.__closure__ or ()]))
            for name in fn.__code__.co_names + fn.__code__.co_freevars:
                note(cells.get(name, fn.__globals__.get(name)), fn)
    return found


_JVP_OF = []  # the compiler's jvp_of, set by compiler/pipeline.py (rules do not import the compiler)


def _rule_signature(helper):
    params = list(inspect.signature(helper).parameters.values())
    leading = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in _LEADING]
    return inspect.Signature(leading + params)


def _linear_rule(helper):
    """The forward rule of `helper` with respect to its first parameter, which it is linear in."""

    def rule(*args, **kwargs):
        bound = rule.__signature__.bind(*args, **kwargs)
        values = list(bound.arguments.values())
        return _call(helper, [values[0], *values[3:]])

    rule.__signature__ = _rule_signature(helper)
    rule.__name__ = f"{helper.__name__.lstrip('_')}_jvp_{next(iter(inspect.signature(helper).parameters))}"
    rule.srcgrad_helper_rule = True
    return _published(_written(rule, helper, "linear"))


def _published(rule):
    """`rule`, also a global of this module under its name (with `_2`, `_3`, ... after a
    name already taken), so that the source of a derivative calling it imports it
    (`from srcgrad.rules.derived_rules import diag_vjp_jvp_g`) and runs on its own. Rules
    are made in a fixed order (sorted helpers), so each gets the same name in every process."""
    name, k = rule.__name__, 1
    while name in globals():
        k += 1
        name = f"{rule.__name__}_{k}"
    globals()[name] = rule
    rule.__qualname__ = name
    rule.__module__ = __name__
    return rule


def _call(fn, values):
    """`fn` called with `values` for its parameters in order (see `_arguments`)."""
    positional, named = _arguments(fn, values)
    return fn(*positional, **named)


def _arguments(fn, values):
    """(positional arguments, keyword arguments) passing `values` to `fn`'s parameters in
    order: its keyword-only ones (`key=` of max and sorted) by name."""
    params = list(inspect.signature(fn).parameters.values())
    named = {p.name: v for p, v in zip(params, values) if p.kind is p.KEYWORD_ONLY}
    return [v for p, v in zip(params, values) if p.kind is not p.KEYWORD_ONLY], named


def _source_rule(helper, position):
    """The forward rule of `helper` with respect to the parameter at `position`: forward
    mode over the helper's own source."""

    def rule(*args, **kwargs):
        bound = rule.__signature__.bind(*args, **kwargs)
        values = list(bound.arguments.values())
        return _source_tangent(helper, position, values[0], values[2:])

    rule.__signature__ = _rule_signature(helper)
    name = list(inspect.signature(helper).parameters)[position]
    rule.__name__ = f"{helper.__name__.lstrip('_')}_jvp_{name}"
    rule.srcgrad_helper_rule = True
    return _published(_written(rule, helper, "source", position))


def helper_jvp(helper, position):
    """The generated jvp function of `helper` for its parameter at `position`."""
    if not _JVP_OF:
        from importlib import import_module

        import_module("srcgrad.compiler")  # registers its jvp_of here
    return _JVP_OF[0](helper, (position,))


def _source_tangent(helper, position, t, values):
    jvp_fn = helper_jvp(helper, position)
    tangent = list(inspect.signature(jvp_fn).parameters)[-1]
    positional, named = _arguments(helper, values)
    return jvp_fn(*positional, **named, **{tangent: t})[1]


def _zero_rule(helper):
    def rule(*args, **kwargs):
        bound = rule.__signature__.bind(*args, **kwargs)
        return zeros_like_grad(bound.arguments[_LEADING[1]])

    rule.__signature__ = _rule_signature(helper)
    rule.__name__ = f"{helper.__name__.lstrip('_')}_jvp_constant"
    rule.srcgrad_helper_rule = True
    return _zero(_published(_written(rule, helper, "zero")))


def _register_helper_rules(piecewise_constant):
    """Forward rules for every rule helper linear in its first parameter (see above);
    `piecewise_constant` maps a helper to its parameters of zero derivative."""
    for helper in sorted(rule_helpers(), key=lambda f: (f.__module__, f.__qualname__)):
        if is_nondifferentiable(helper) or getattr(helper, "srcgrad_helper_rule", False):
            continue
        params = list(inspect.signature(helper).parameters)
        if not params or params[0] not in _LINEAR_FIRST or any(p in _LEADING for p in params):
            continue
        rule = lookup(helper)
        if rule is not None and (rule.params != tuple(params) or rule.vjps):
            continue  # rules written by hand above
        done = set(rule.jvps) if rule is not None else set()
        if params[0] not in done:
            defjvp(helper, params[0])(_linear_rule(helper))
        constant = piecewise_constant.get(helper, ())
        for k, name in enumerate(params[1:], start=1):
            if name not in done:
                defjvp(helper, name)(_zero_rule(helper) if name in constant else _source_rule(helper, k))


# Parameters that only lend a shape, a structure or an order (where the adjoint goes):
# piecewise constant, a zero derivative.
_PAD_VALUES = ("stat_length", "constant_values", "end_values", "reflect_type")
_PIECEWISE_CONSTANT = {
    scalars.builtin_extreme_vjp_a: ("ans", "a", "b", "default"),
    shapes._sort_vjp: ("x",), shapes._sort_jvp: ("x",), copies._repeat_vjp: ("x",), shapes._take_vjp: ("x",),
    shapes._take_along_axis_vjp: ("x",), copies._tile_vjp: ("x",), shapes._diag_vjp: ("v",),
    shapes._diagonal_scatter: ("x",), shapes._unravel: ("x",), copies._pad_vjp: ("x", "kwargs"), shapes._item_vjp: ("x",),
    shapes._ravel_tangent: ("x",), series._interp_vjp_fp: ("fp",), series._gradient_vjp: ("f",),
    structure._split_joined: ("arrays",), structure._unstack: ("arrays",), structure._unpack: ("value",),
    structure._reshape_each: ("arrays",), structure._unbroadcast_each: ("arrays",),
    structure._join_pieces: ("pieces", "x"), structure._append_parts: ("arr", "values"),
    scalars._spread: ("iterable",), scalars._select_grad: ("sequence", "ans"),
    scalars._unsorted: ("iterable", "order"), scalars._each_times: ("iterable",), scalars._sorted_tangent: ("iterable", "order"),
    scalars.sorted_vjp: ("ans", "iterable", "key", "reverse"), scalars.sorted_jvp: ("ans", "iterable", "key", "reverse"), copies.pad_vjp: ("ans", "x", *_PAD_VALUES),
    copies.pad_jvp: ("ans", "x", *_PAD_VALUES),  # linear in x: its padding values add, never scale
    _leaf_transpose: ("g",), _item_transpose: ("g",),
    reductions._masked_mean_vjp: ("x",), reductions._running_extremum_vjp: ("ans", "x"),
    reductions._running_extremum_jvp: ("ans",), structure._gather_back: ("ids", "x"), copies._pad_jvp: ("x", "kwargs"),
    statistics._quantile_vjp_x: ("ans", "x"), statistics._quantile_jvp_x: ("ans", "x"),  # weights from ranks and q
    elementwise._select_vjp_choices: ("condlist", "choicelist"),
    selections._choose_vjp: ("a", "choices"), selections._choose_tangent: ("choices",),
    selections._compress_vjp: ("condition", "a"), selections._resize_vjp: ("a",),
    selections._partition_vjp: ("a",), selections._partition_jvp: ("a",), selections._windows_vjp: ("x",),
    elementwise._select_jvp_choices: ("ans", "condlist", "choicelist"),
    structure._merged_grad: ("x", "other"), structure._merged_tangent: ("ans", "x", "other"),  # keys only
    fills._pad_values_vjp: ("x", "values"), fills._pad_values_jvp: ("x",),
    fills._diff_edge_vjp: ("x", "prepend", "append"), fills._diff_edge_jvp: ("x", "prepend", "append"),
    **{helper: ("ans", "record", "names", "values") for helper in (  # the record lends its class, the values zeros
        record_replace.replace_fields_vjp_record, record_replace.replace_fields_vjp_values,
        record_replace.replace_fields_jvp_record, record_replace.replace_fields_jvp_values)},
}
_register_helper_rules(_PIECEWISE_CONSTANT)

# The helpers of `+`/`*` on lists, which generated code calls and no rule does: linear in
# `g`, and their operands lend a length or a shape (`repeated_part`'s count: above).
defjvp(joined_part, "g")(_linear_rule(joined_part))
defjvp(joined_part, ("x", "other"))(_zero_rule(joined_part))
defjvp(repeated_part, "g")(_linear_rule(repeated_part))
defjvp(repeated_part, "x")(_zero_rule(repeated_part))
