"""Derivative contributions: what one assignment adds to the adjoints of what it reads.

`Contributions` is the part of reverse mode (reverse.py) that turns a simple statement
`y = <op>(a, b)` into `_Accumulate` markers `a_bar += vjp_a(y_bar, ...)`: Python
operators, subscripts, attributes and calls through the rule registry (rules inlined by
inline.py), tuples/lists/dicts entry by entry, and calls of other user functions through
their own generated pullbacks. adjoints.py later writes each marker as `=` or `+`.
"""

import inspect
import operator
from dataclasses import dataclass

import gast
import numpy as np

from .. import rules, runtime
from ..errors import NotDifferentiableError, SrcGradError
from . import bound_calls, call_effects, calls, frontend, inline, printing, syntax
from .stand_in import in_user_code

@dataclass
class _Accumulate:
    adjoint: str
    value: object


class Contributions:
    """Mixin of the reverse-mode visitor: needs program, activity, calls, namer, bind,
    structured and pullback_of on the instance."""

    def contributions(self, stmt, target, value):
        g = syntax.name(self.namer.adjoint(target))
        ans = syntax.name(target)
        if isinstance(value, gast.Name):
            return self.accumulate(value.id, g)
        if isinstance(value, gast.BinOp):
            if calls.joins_sequences(value, self.containers):
                return self.joined(value, g)
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            found = calls.operation(value)
            if found is None:
                return []
            op, args, label = found
            return self.apply_rule(stmt, rules.lookup(op), g, ans, args, label)
        if isinstance(value, gast.Subscript):
            if isinstance(value.value, gast.Name):
                self.structured.add(self.namer.adjoint(value.value.id))  # it may be a list, tuple or dict
            rule = rules.lookup(operator.getitem)
            index = _index_value(value.slice)
            return self.apply_rule(stmt, rule, g, ans, {"x": value.value, "index": index}, "indexing")
        if isinstance(value, gast.Attribute):
            callee = self.calls.get(value)
            if callee is not None and callee.obj is not None:
                rule = rules.lookup(callee.obj)
                read = calls.Site(callee, callee.obj, [value.value], {}, f"`.{value.attr}`")
                return self.apply_rule(stmt, rule, g, ans, calls.bind(self.program, stmt, rule, read), read.label)
            if callee is not None and not callee.known:  # a field of a namedtuple (field_grad refuses others)
                self.structured.add(self.namer.adjoint(value.value.id))
                args = {"x": value.value, "name": syntax.const(value.attr)}
                return self.apply_rule(stmt, rules.lookup(getattr), g, ans, args, f"`.{value.attr}`")
            if not calls.active_names(value.value, self.activity):
                return []  # an attribute of a constant object (`W = self.W if W is None else W`): a constant
            raise self.program.error(
                stmt, f"no derivative rule for the attribute `.{value.attr}` of `{printing.unparse(value.value)}` "
                f"(in `{self.program.name}`)", NotDifferentiableError,
            )
        if isinstance(value, gast.Call):
            return self.call(stmt, value, g, ans)
        if isinstance(value, (gast.Tuple, gast.List, gast.Dict)):
            return self.container(stmt, value, g)
        return []

    def joined(self, value, g):
        """`y = a + b` / `y = a * n` that may join or repeat lists or tuples: each operand's
        adjoint is its run of y's (`runtime.joined_part`, `repeated_part`), which also
        cover the case where the operation turns out to be arithmetic."""
        left, right = value.left, value.right
        if isinstance(value.op, gast.Add):
            part = syntax.name(self.bind("joined_part", runtime.joined_part))
            parts = [(left, [g, left, right, syntax.const(True)]), (right, [g, right, left, syntax.const(False)])]
        else:
            part = syntax.name(self.bind("repeated_part", runtime.repeated_part))
            parts = [(left, [g, left, right]), (right, [g, right, left])]
        out = []
        for operand, args in parts:
            value = syntax.call(syntax.copy(part), [syntax.copy(a) for a in args])
            if isinstance(operand, gast.Name):
                out += self.accumulate(operand.id, value)
            elif isinstance(operand, (gast.List, gast.Tuple)) and calls.active_names(operand, self.activity):
                parts_name = self.namer.fresh("part_bar")  # `L + [a, b]`: one gradient per entry
                out.append(syntax.assign(parts_name, value))
                out += self.distribute(operand, syntax.name(parts_name))
        return out

    def container(self, stmt, value, g):
        """`t = (a, b)` / `[a, b]` / `{"k": a}`: each entry's adjoint is its part of t's."""
        if isinstance(value, gast.Dict):
            if any(k is None for k in value.keys):
                raise self.program.error(stmt, f"`**` in a dict display is not supported (in `{self.program.name}`)")
            entries = list(zip(value.keys, value.values))
        else:
            entries = [(syntax.const(k), e) for k, e in enumerate(value.elts)]
        item = syntax.name(self.bind("item_grad", runtime.item_grad))
        out = []
        for key, element in entries:
            assert not isinstance(element, (gast.Tuple, gast.List, gast.Dict)), "ANF names inner displays"
            if isinstance(element, gast.Name) and self.activity.is_active(element.id):
                part = syntax.call(syntax.copy(item), [syntax.copy(g), syntax.copy(key), syntax.copy(element)])
                out += self.accumulate(element.id, part)
        return out

    def call(self, stmt, value, g, ans):
        callee = self.calls.get(value)
        if callee is not None and callee.kind == "method" and callee.obj is None:
            read = list(value.args) + [k.value for k in value.keywords]
            if not self.activity.is_active(callee.receiver) and not calls.active_names(read, self.activity):
                # a method with no rule on values without gradients (`a.dtype.type(n)`), its
                # target differentiated by another assignment: nothing to pull back, as in forward mode
                return []
        call = calls.site(self.program, stmt, value, callee, "srcgrad.defvjp")
        rule = rules.lookup(call.primal)
        if rule is None:
            if rules.is_nondifferentiable(call.primal):
                return []
            if call.callee.kind == "function" and calls.is_user_function(call.primal):
                return self.user_call(stmt, call.primal, call.args, call.keywords, g, call.label)
            if calls.of_constants(call, self.activity):
                return []
            raise calls.missing_rule(self.program, stmt, call, "srcgrad.defvjp")
        bound = calls.bind(self.program, stmt, rule, call)
        if _through_source(rule, bound, call.primal, self.activity):
            return self.user_call(stmt, call.primal, call.args, call.keywords, g, call.label)
        calls.check_varargs(self.program, stmt, rule, call, bound, self.activity, rule.vjps, inline.inlinable)
        if call.primal in (getattr, operator.getitem) and isinstance(bound.get("x"), gast.Name):
            self.structured.add(self.namer.adjoint(bound["x"].id))  # `getattr(p, 'W')`: an entry's gradient
        return self.apply_rule(stmt, rule, g, ans, bound, call.label)

    def user_call(self, stmt, fn, args, keywords, g, label):
        """Differentiate a call of another user function through its own generated pullback.

        The pullback reruns that function's forward pass and returns the gradients of the
        parameters that receive active arguments, in parameter order.
        """
        try:
            bound = inspect.signature(fn).bind(*args, **keywords)
        except TypeError as exc:
            raise self.program.error(
                stmt, f"cannot differentiate this call of {label}: {exc} (in `{self.program.name}`)",
                NotDifferentiableError,
            ) from None
        fn = bound_calls.with_functions(self.program, fn, bound, self.namer.locals.__contains__)
        params = list(inspect.signature(fn).parameters.values())
        positions, receivers = [], []
        for k, param in enumerate(params):
            if param.name not in bound.arguments:
                continue
            node = bound.arguments[param.name]
            if param.kind not in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                if calls.active_names(node, self.activity):
                    raise self.program.error(
                        stmt, f"{label} receives a differentiated value through its parameter "
                        f"`{param.name}`, which is not a plain positional parameter (in `{self.program.name}`)",
                        NotDifferentiableError,
                    )
                continue
            if not calls.active_names(node, self.activity):
                continue
            self.check_receiver(stmt, node, label)
            positions.append(k)
            receivers.append(node)
        if not positions:
            return []
        refused = frontend.derivative_refusal(fn)
        if refused is not None:
            raise self.program.error(stmt, f"{label}: {refused}", NotDifferentiableError)
        try:
            pullback_fn = self.pullback_of(fn, tuple(positions))
        except (SrcGradError, RecursionError) as exc:
            if not isinstance(exc, RecursionError) and in_user_code(fn):
                raise  # names the line of the user's callee
            reason = getattr(exc, "msg", None) or str(exc)
            raise self.program.error(
                stmt, f"cannot differentiate the call of {label} at {self.program.where(stmt)} (in "
                f"`{self.program.name}`): {reason}", NotDifferentiableError,
            ) from exc
        pullback = self.bind(f"{fn.__name__}_pullback", pullback_fn)
        grads = [self.namer.fresh(f"{fn.__name__}_{params[k].name}_bar") for k in positions]
        call = syntax.call(syntax.name(pullback), [syntax.copy(g)] + [syntax.copy(a) for a in args],
                           [(k, syntax.copy(v)) for k, v in keywords.items()])
        out = [syntax.assign(syntax.tuple_([syntax.name(n, store=True) for n in grads], store=True), call)]
        for receiver, grad_name in zip(receivers, grads):
            if isinstance(receiver, gast.Name):
                self.structured.add(self.namer.adjoint(receiver.id))  # the pullback mirrors containers
            out += self.distribute(receiver, syntax.name(grad_name))
        return out

    def check_receiver(self, stmt, node, label):
        """An argument that receives a gradient must be a name or a display of atoms (or, for
        a `*args` parameter, of atoms and such displays)."""
        if isinstance(node, gast.Name) or (isinstance(node, (gast.Tuple, gast.List)) and all(
            _is_simple_atom(e) or (isinstance(e, (gast.Tuple, gast.List)) and all(_is_simple_atom(x) for x in e.elts))
            for e in node.elts
        )):
            return
        raise self.program.error(
            stmt, f"differentiating {label} through the argument `{printing.unparse(node).strip()}` "
            f"is not supported (in `{self.program.name}`); give it a name first", NotDifferentiableError,
        )

    def distribute(self, node, value):
        """Accumulate the gradient `value` into the argument `node`: a name, or each entry of
        a display `[a, b]` (then `value`, a name, holds one gradient per entry)."""
        if isinstance(node, gast.Name):
            return self.accumulate(node.id, value)
        item = syntax.name(self.bind("item_grad", runtime.item_grad))
        out = []
        for k, element in enumerate(node.elts):
            part = syntax.call(syntax.copy(item), [syntax.copy(value), syntax.const(k), syntax.copy(element)])
            if isinstance(element, gast.Name) and self.activity.is_active(element.id):
                out += self.accumulate(element.id, part)
            elif isinstance(element, (gast.List, gast.Tuple)) and calls.active_names(element, self.activity):
                entry = self.namer.fresh("part_bar")  # a display among np.einsum's operands
                out.append(syntax.assign(entry, part))
                out += self.distribute(element, syntax.name(entry))
        return out

    def apply_rule(self, stmt, rule, g, ans, args, label):
        out = []
        arrays = None  # the rule's arguments, lists read as one array made arrays
        if call_effects.casts_result(rule, args):  # `dtype=int` rounds: no gradient then
            g = syntax.call(syntax.name(self.bind("unless_integral", runtime.unless_integral)), [syntax.copy(g), syntax.copy(ans)])
        for param, node in args.items():
            names = calls.active_names(node, self.activity)
            if not names:
                continue
            if calls.is_discrete(self.program, rule, param):
                continue  # an index or a key: no derivative
            if arrays is None:
                calls.check_supported(self.program, stmt, rule, args, label, "vjp")
                arrays = calls.as_arrays(rule, args, rule.vjps, self.containers, self.namer,
                                         lambda: syntax.attr(syntax.name(self.bind("np", np)), "asarray"), out)
            if param not in rule.vjps:
                raise self.program.error(
                    stmt, f"no derivative rule for {label} with respect to its argument `{param}` "
                    f"(`{names[0]}` there depends on the differentiated input; at {self.program.where(stmt)}, "
                    f"in `{self.program.name}`); register one with srcgrad.defvjp", NotDifferentiableError,
                )
            self.check_receiver(stmt, node, label)
            if isinstance(node, gast.Name) and (node.id in self.containers or calls.takes_sequence(rule, param)
                                                or getattr(rule.vjps[param].fn, "container_gradient", False)):
                self.structured.add(self.namer.adjoint(node.id))  # one gradient per entry: never `+`
            value = self.vjp_expression(rule, param, g, ans, arrays)
            if not isinstance(node, gast.Name):  # `np.stack([a, b])`: one gradient per entry
                parts = self.namer.fresh(f"{param}_bar")
                out.append(syntax.assign(parts, value))
                value = syntax.name(parts)
            out += self.distribute(node, value)
        return out

    def vjp_expression(self, rule, param, g, ans, args):
        derivative = rule.vjps[param]
        if derivative.kind == "vjp":
            return inline.apply(derivative.fn, [g, ans], args, self.bind)
        local = inline.apply(derivative.fn, [ans], args, self.bind)
        product = syntax.mul(syntax.copy(g), local)
        if len(rule.params) == 1:
            return product
        return syntax.call(syntax.name(self.bind("unbroadcast", runtime.unbroadcast)), [product, syntax.copy(args[param])])

    def accumulate(self, name, value):
        if not self.activity.is_active(name):
            return []
        adjoint = self.namer.adjoint(name)
        if name in self.containers:
            self.structured.add(adjoint)  # list gradients add entry by entry, not by `+`
        return [_Accumulate(adjoint, value)]


def _is_simple_atom(node):
    return isinstance(node, (gast.Name, gast.Constant)) or syntax.is_const(node)


def _index_value(index):
    """The run-time value of a subscript's index expression (`1:3` -> `slice(1, 3, None)`)."""
    if isinstance(index, gast.Slice):
        parts = [p if p is not None else syntax.const(None) for p in (index.lower, index.upper, index.step)]
        return syntax.call("slice", parts)
    if isinstance(index, gast.Tuple):
        return syntax.tuple_([_index_value(e) for e in index.elts])
    return index


def _through_source(rule, bound, fn, activity):
    """Whether a call is differentiated through the called function's source rather than
    its rule: a helper of the rules (its forward rules derived from its source,
    `srcgrad_helper_rule`), with no reverse rule for an argument that carries a
    derivative. Generated code differentiated in reverse mode calls such helpers (the
    Tensor shim's gradients of gradients)."""
    if not calls.is_user_function(fn) or not any(getattr(d.fn, "srcgrad_helper_rule", False) for d in rule.jvps.values()):
        return False
    return any(param not in rule.vjps and calls.active_names(node, activity) for param, node in bound.items())
