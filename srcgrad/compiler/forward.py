"""Forward mode: an ANF function -> a function that also pushes tangents through it.

Each statement becomes itself followed by the statements computing the tangent of its
target, so primal and tangent code interleave and read top to bottom. For
`y = np.sin(x) * x`, after ANF:

    sin_x = np.sin(x)                      sin_x = np.sin(x)
    y = sin_x * x               ->         sin_x_dot = x_dot * np.cos(x)
                                           y = sin_x * x
                                           y_dot = sin_x_dot * x + x_dot * sin_x

Invariants of the output:
- Every assignment to an active name (varied by the `wrt` parameters and useful to the
  output) is followed by an assignment to its tangent (`x_dot`, from `Namer.tangent`),
  a zero (`zeros_like_grad`) when nothing active flows into it. So wherever an active
  name has a value, its tangent has one of the same shape: control flow (`if`, `for`,
  `while`, `break`, already structured by jumps.py) needs no special treatment.
- A rule's tangent is the sum of its active parameters' contributions (`jvp` rules
  inlined by inline.py, `scale` rules as `t * d`). When a broadcasting parameter is
  neither active nor a literal, the sum may be smaller than the output: it is then
  broadcast to it by `broadcast_tangent`.
- A call of another user function calls that function's own generated jvp function
  (bound as a helper), `y, y_dot = g_jvp(a, b, a_dot=a_dot)`.
- In-place updates `x[i] = v` of an active `x` first give `x_dot` an array of its own.
  A list's tangent is the list of its entries' tangents: `ys.append(v)` and
  `v = ys.pop(i)` append and pop the same entry of `ys_dot`.
- In code that srcgrad generated (a gradient being differentiated again), a value
  tape (`tape = []`, `tape.append(v)`, `v = tape.pop()`) gets a tangent tape beside it
  holding the tangents of the active values it saves; activity sees through it.
The generated function takes the primal parameters, then one tangent per `wrt`
parameter (keyword-only when the function has defaults), and returns `(out, out_dot)`.
"""

import dataclasses
import inspect
import operator
import os

import gast
import numpy as np

from .. import rules, runtime
from ..runtime.containers import ABSENT
from ..errors import NotDifferentiableError, SrcGradError
from . import activity as activity_pass
from . import bound_calls, call_effects, calls, inline, mutation, printing, syntax, traversal
from . import calls as call_sites
from . import tape_tangents

_ADD_GRAD = rules.lookup(runtime.add_grad)


class _Forward:
    def __init__(self, program, activity, calls, namer, jvp_of, tapes, replaying, containers):
        self.program = program
        self.activity = activity
        self.calls = calls
        self.namer = namer
        self.bind = namer.helper
        self.jvp_of = jvp_of
        self.tapes = tapes  # tape name -> its tangent tape's name (None: saves nothing active)
        self.replaying = replaying  # tapes whose tangent tapes move at every push and pop (tape_tangents.py)
        self.containers = containers  # names that may hold a list, tuple or dict (calls.containers)
        self.float_arrays = ()  # names that surely hold float arrays (`_float_arrays`)
        self.element_checks = {}  # mutation.run's: checks after `v = y[i]`

    def active(self, name):
        return self.activity.is_active(name)

    def tangent(self, name):
        return syntax.name(self.namer.tangent(name))

    def helper(self, name, obj):
        return syntax.name(self.bind(name, obj))

    def zero(self, like):
        return syntax.call(self.helper("zeros_like_grad", runtime.zeros_like_grad), [syntax.copy(like)])

    # --- blocks and statements -------------------------------------------------------

    def block(self, stmts):
        out = []
        for s in stmts:
            text = self.program.text(s) if getattr(s, "lineno", None) else ""
            if text and not isinstance(s, (gast.If, gast.For, gast.While)) and text != printing.unparse(s):
                out.append(syntax.comment(text))
            method = getattr(self, "visit_" + type(s).__name__, None)
            if type(s) is gast.Try:  # attempts.py lowers every one: never pass one on undifferentiated
                err = NotImplementedError("a `try` statement here")
                err.node = s
                raise err
            out += method(s) if method else [s]
        return out

    def visit_If(self, s):
        return [syntax.located(syntax.if_(s.test, self.block(s.body), self.block(s.orelse)), s)]

    def visit_While(self, s):
        return [syntax.located(syntax.while_(s.test, self.block(s.body)), s)]

    def visit_For(self, s):
        target = s.target.id
        body = self.block(s.body)
        if not self.active(target):
            return [syntax.located(syntax.for_(target, s.iter, body), s)]
        pre, iterable = [], s.iter
        if not isinstance(iterable, gast.Name) and calls.active_names(iterable, self.activity):
            temp = self.namer.fresh("items")  # a call of active values: compute it and its tangent first
            pre = self.visit_Assign(syntax.located(syntax.assign(temp, iterable), s), force=True)
            iterable = syntax.name(temp)
        if pre or (isinstance(iterable, gast.Name) and self.active(iterable.id)):
            pair = syntax.tuple_([syntax.name(target), self.tangent(target)], store=True)
            zipped = syntax.call("zip", [syntax.copy(iterable), self.tangent(iterable.id)])
            return pre + [syntax.located(syntax.for_(pair, zipped, body), s)]
        start = syntax.assign(self.namer.tangent(target), self.zero(syntax.name(target)))
        return [syntax.located(syntax.for_(target, iterable, [start] + body), s)]

    def visit_Expr(self, s):
        value = s.value
        if not isinstance(value, gast.Call):
            return [s]
        callee = self.calls.get(value)
        if callee is not None and callee.kind == "function" and callee.obj is runtime.restore_entry:
            return self.restore_entry(s, value)
        if callee is None or callee.kind != "method":
            return self.refuse_in_place(s, callee)
        if callee.path == "pop" and self.active(callee.receiver) and callee.receiver not in self.tapes:
            # `items.pop(i)` (also the undo of `items.append(v)` in generated code): the
            # tangent list drops its entry too
            return [s, syntax.located(syntax.expr(self.tangent_pop(value, callee)), s)]
        if callee.receiver in self.tapes and callee.path == "append":
            saved = value.args[0]
            if self.tapes[callee.receiver] and isinstance(saved, gast.Name) and self.active(saved.id):
                push = syntax.attr(syntax.name(self.tapes[callee.receiver]), "append")
                return [s, syntax.expr(syntax.call(push, [self.tangent(saved.id)]))]
            if self.tapes[callee.receiver] and callee.receiver in self.replaying:
                push = syntax.attr(syntax.name(self.tapes[callee.receiver]), "append")
                return [s, syntax.expr(syntax.call(push, [self.zero(saved)]))]
            return [s]
        stores = callee.path == "append" and len(value.args) == 1
        if self.program.generated and callee.path == "insert" and len(value.args) == 2 and not value.keywords:
            stores = True  # the undo of `v = items.pop(i)`: the tangent list gets v's back
        if stores and self.active(callee.receiver):
            item = value.args[-1]  # the list's tangent is the list of its entries' tangents
            part = self.tangent(item.id) if isinstance(item, gast.Name) and self.active(item.id) else self.zero(item)
            push = syntax.attr(self.tangent(callee.receiver), callee.path)
            return [s, syntax.located(syntax.expr(syntax.call(push, [syntax.copy(a) for a in value.args[:-1]] + [part])), s)]
        if (stores or callee.path == "pop") and callee.receiver not in self.tapes:
            # a list the output does not depend on (`if not [v for v in x if ...]:`, and the undo of its
            # appends in generated code): no tangent to keep; mutation.py checked what it may share
            return [s]
        return self.refuse_in_place(s, callee)

    def tangent_pop(self, value, callee):
        """`items_dot.pop(i)` for `items.pop(i)`: the tangent list gives up the same entry."""
        return syntax.call(syntax.attr(self.tangent(callee.receiver), "pop"), [syntax.copy(a) for a in value.args],
                           [(k.arg, syntax.copy(k.value)) for k in value.keywords])

    def restore_entry(self, s, value):
        """`restore_entry(d, key, entry)` (the undo of a dict write in generated code): the
        tangent dict gets back the tangent of the entry."""
        d, key, entry = value.args
        if not (isinstance(d, gast.Name) and self.active(d.id)):
            return [s]
        entry_dot = self.tangent(entry.id) if isinstance(entry, gast.Name) and self.active(entry.id) else syntax.const(None)
        helper = self.helper("restore_tangent_entry", restore_tangent_entry)
        undo = syntax.call(helper, [self.tangent(d.id), syntax.copy(key), syntax.copy(entry), entry_dot])
        return [s, syntax.located(syntax.expr(undo), s)]

    def refuse_in_place(self, s, callee):
        """A dropped-result call that may change a value with a tangent: refused (see calls.py)."""
        call_effects.refuse_in_place(self.program, s, callee, self.activity.varied, rules, self.namer.helpers)
        return [s]

    def visit_Assign(self, s, force=False):
        checks = self.element_checks.get(id(s))
        if checks:  # `v = y[i]`: mutation.py's check that v shares no memory with y, right after it
            out = self.assign(s, force)
            refuse = self.helper("refuse_shared", runtime.refuse_shared)
            return out[:1] + mutation.element_check_statements(checks, refuse, s) + out[1:]
        return self.assign(s, force)

    def assign(self, s, force=False):
        if isinstance(s.value, gast.Call):
            call_effects.refuse_out(self.program, s, self.calls.get(s.value), self.activity.varied, rules)
        target = s.targets[0]
        if isinstance(target, gast.Subscript):
            return self.subscript_store(s)
        name = target.id
        value = s.value
        callee = self.calls.get(value) if isinstance(value, gast.Call) else None
        if (callee is not None and callee.kind == "method" and callee.path == "pop" and self.active(callee.receiver)
                and callee.receiver not in self.tapes):  # `v = items.pop(i)`: v's tangent is the entry's
            pop = self.tangent_pop(value, callee)
            step = syntax.assign(self.namer.tangent(name), pop) if self.active(name) else syntax.expr(pop)
            return [s, syntax.located(step, s)]
        if (not (force or self.active(name)) and callee is not None and callee.kind == "method"
                and callee.receiver in self.replaying and callee.path == "pop" and self.tapes[callee.receiver]):
            return [s, syntax.expr(syntax.call(syntax.attr(syntax.name(self.tapes[callee.receiver]), "pop")))]
        if not (force or self.active(name)):
            return [s]
        if callee is not None and callee.kind == "method" and callee.receiver in self.tapes and callee.path == "pop":
            if not self.tapes[callee.receiver]:
                return [s]
            pop = syntax.call(syntax.attr(syntax.name(self.tapes[callee.receiver]), "pop"))
            return [s, syntax.assign(self.namer.tangent(name), pop)]
        if callee is not None and callee.kind == "function" and getattr(callee.obj, "__srcgrad_key__", None):
            callee = dataclasses.replace(callee, obj=_stand_in_target(callee.obj))
        if callee is not None and callee.kind == "function" and self.is_user_call(callee):
            return self.user_call(s, name, value, callee)
        before = []  # what the tangent needs computed first
        expr = self.tangent_expression(s, name, value, before)
        if expr is None:
            literal = isinstance(value, gast.Constant) and type(value.value) is float
            expr = syntax.const(0.0) if literal else self.zero(syntax.name(name))
        return [s, *before, syntax.located(syntax.assign(self.namer.tangent(name), expr), s)]

    def subscript_store(self, s):
        """`x[i] = v`: the tangent gets the same update, in an array of its own."""
        target = s.targets[0]
        if not (isinstance(target.value, gast.Name) and self.active(target.value.id)):
            return [s]
        x = target.value.id
        own = syntax.call(self.helper("tangent_for_update", runtime.tangent_for_update), [self.tangent(x), syntax.name(x)])
        value = s.value
        if isinstance(value, gast.Name) and self.active(value.id):
            part = self.tangent(value.id)
            if x not in self.containers and x not in self.float_arrays:  # into an integer array, `v` rounds
                part = syntax.call(self.helper("unless_integral", runtime.unless_integral), [part, syntax.name(x)])
        elif isinstance(value, gast.Name) and (x in self.containers or value.id in self.containers):
            part = self.zero(value)  # an entry of a list or dict, or a list itself: a zero of its structure
        else:
            part = syntax.const(0.0)  # broadcast into the array's tangent
        store = syntax.assign(syntax.subscript(self.tangent(x), syntax.copy(target.slice)), part)
        return [s, syntax.assign(self.namer.tangent(x), own), store]

    # --- tangent expressions ------------------------------------------------------------

    def tangent_expression(self, stmt, target, value, before):
        """The tangent of `target = value` as an expression, or None for a zero tangent;
        statements it needs first go to `before`."""
        ans = syntax.name(target)
        if isinstance(value, gast.Name):
            return self.tangent(value.id) if self.active(value.id) else None
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            found = calls.operation(value)
            if found is None:
                return None
            op, args, label = found
            return self.apply_rule(stmt, rules.lookup(op), ans, args, label, before)
        if isinstance(value, gast.Subscript):
            base = value.value
            if isinstance(base, gast.Name) and self.active(base.id):
                return syntax.subscript(self.tangent(base.id), syntax.copy(value.slice))
            if isinstance(base, (gast.Tuple, gast.List, gast.Dict)) and calls.active_names(base, self.activity):
                # `[a, b][k]` (also what `first, *rest = [a, b, c]` becomes): the display of tangents, read alike
                return syntax.subscript(self.tangent_expression(stmt, target, base, before), syntax.copy(value.slice))
            return None
        if isinstance(value, gast.Attribute):
            callee = self.calls.get(value)
            if callee is not None and callee.obj is not None:
                rule = rules.lookup(callee.obj)
                read = calls.Site(callee, callee.obj, [value.value], {}, f"`.{value.attr}`")
                return self.apply_rule(stmt, rule, ans, calls.bind(self.program, stmt, rule, read), read.label, before)
            if callee is not None and callee.known:
                return None  # .shape, .ndim, ...
            if callee is not None and isinstance(value.value, gast.Name) and self.active(value.value.id):
                # a field of a record, read off its tangent by the rule of getattr, which refuses a property
                args = {"x": value.value, "name": syntax.const(value.attr)}
                return self.apply_rule(stmt, rules.lookup(getattr), ans, args, f"`.{value.attr}`", before)
            if not calls.active_names(value.value, self.activity):
                return None  # an attribute of a constant object (`W = self.W if W is None else W`): a constant
            raise self.program.error(
                stmt, f"no derivative rule for the attribute `.{value.attr}` of `{printing.unparse(value.value)}` "
                f"(in `{self.program.name}`)", NotDifferentiableError,
            )
        if isinstance(value, gast.Call):
            return self.call(stmt, value, ans, before)
        if isinstance(value, (gast.Tuple, gast.List)):
            parts = [self.tangent(e.id) if isinstance(e, gast.Name) and self.active(e.id) else self.zero(e) for e in value.elts]
            return syntax.tuple_(parts) if isinstance(value, gast.Tuple) else syntax.list_(parts)
        if isinstance(value, gast.Dict):
            parts = [self.tangent(v.id) if isinstance(v, gast.Name) and self.active(v.id) else self.zero(v) for v in value.values]
            return gast.Dict(keys=[syntax.copy(k) for k in value.keys], values=parts)
        return None

    def call(self, stmt, value, ans, before):
        callee = self.calls.get(value)
        if callee is not None and callee.kind == "method" and callee.obj is None:
            read = list(value.args) + [k.value for k in value.keywords]  # `p._replace(b=v)`: v has a tangent
            if not self.active(callee.receiver) and not calls.active_names(read, self.activity):
                return None  # a method with no rule on values without tangents: nothing to push
        call = calls.site(self.program, stmt, value, callee, "srcgrad.defjvp")
        rule = rules.lookup(call.primal)
        if rule is None:
            if rules.is_nondifferentiable(call.primal) or calls.of_constants(call, self.activity):
                return None
            raise calls.missing_rule(self.program, stmt, call, "srcgrad.defjvp")
        bound = calls.bind(self.program, stmt, rule, call)
        calls.check_varargs(self.program, stmt, rule, call, bound, self.activity, rule.jvps, inline.inlinable)
        return self.apply_rule(stmt, rule, ans, bound, call.label, before)

    def apply_rule(self, stmt, rule, ans, args, label, before):
        """The sum of the active parameters' contributions to the output tangent, or None.
        A list the NumPy primal reads as one array reaches the rule as an array assigned
        in `before` (`x_array = np.asarray([a, 0.1])`), its tangent as an array too."""
        terms, kinds, inactive = [], set(), []
        arrays = None  # the rule's arguments, lists read as one array made arrays
        for param, node in args.items():
            names = calls.active_names(node, self.activity)
            if not names:
                if param in rule.jvps and isinstance(node, gast.Name):
                    inactive.append(node.id)  # an inactive array may broadcast the output wider
                if rule.primal is operator.add and (isinstance(node, (gast.List, gast.Tuple))
                                                    or (isinstance(node, gast.Name) and node.id in self.containers)):
                    terms.append(self.zero(node))  # `[a] + [0.0]` joins lists: zeros for the constant part
                continue
            if calls.is_discrete(self.program, rule, param):
                continue  # an index or a key: no derivative
            derivative = rule.jvps.get(param)
            if derivative is None:
                raise self.program.error(
                    stmt, f"no forward derivative rule for {label} with respect to its argument `{param}` "
                    f"(`{names[0]}` there depends on the differentiated input; at {self.program.where(stmt)}, "
                    f"in `{self.program.name}`); register one with srcgrad.defjvp", NotDifferentiableError,
                )
            if getattr(derivative.fn, "zero_tangent", False):
                continue  # a parameter that only lends its shape
            if arrays is None:
                calls.check_supported(self.program, stmt, rule, args, label, "jvp")
                arrays = calls.as_arrays(rule, args, rule.jvps, self.containers, self.namer,
                                         lambda: syntax.attr(self.helper("np", np), "asarray"), before)
            t = self.argument_tangent(stmt, node, label)
            if isinstance(node, (gast.List, gast.Tuple)) and calls.reads_as_array(rule, param):
                t = self.array_tangent(node, t)
            elif isinstance(node, (gast.List, gast.Tuple)) and (calls.is_operator(rule.primal)
                                                                or rule.primal is list or rule.primal is tuple):
                t = self.filled_tangent(node, t)  # `x * [b, 2.0]`, `tuple([1.0, b])`: no None
            elif isinstance(node, gast.Tuple) and calls.reads_each_as_array(rule, param):
                t = self.entry_tangents(node, t)  # np.einsum's operands
            elif arrays[param] is not node:  # a name holding a list: its tangent is a list
                t = syntax.call(syntax.attr(self.helper("np", np), "asarray"), [t])
            if derivative.kind == "jvp":
                terms.append(inline.apply(derivative.fn, [t, syntax.copy(ans)], arrays, self.bind))
            else:
                terms.append(syntax.mul(t, inline.apply(derivative.fn, [syntax.copy(ans)], arrays, self.bind)))
            kinds.add(derivative.kind)
        if not kinds:
            return None
        total = terms[0]
        for term in terms[1:]:
            if rule is _ADD_GRAD or calls.several_results(rule.primal):  # tangents that may be tuples
                total = syntax.call(self.helper("add_grad", runtime.add_grad), [total, term])
            elif isinstance(term, gast.UnaryOp) and isinstance(term.op, gast.USub):
                total = syntax.binop(total, gast.Sub(), term.operand)  # `a - b` reads better than `a + -b`
            else:
                total = syntax.add(total, term)
        if call_effects.casts_result(rule, args):  # `dtype=int` rounds: no tangent then
            total = syntax.call(self.helper("unless_integral", runtime.unless_integral), [total, syntax.copy(ans)])
        used = {n.id for n in gast.walk(total) if isinstance(n, gast.Name)}
        if "jvp" in kinds and len(rule.params) > 1 and any(name not in used for name in inactive):
            # a term that does not involve the wider operand (`t` for `x + y`) keeps x's shape
            helper = self.helper("broadcast_tangent", runtime.broadcast_tangent)
            total = syntax.call(helper, [total, syntax.copy(ans)])
        return total

    def entry_tangents(self, node, t):
        """The tangents `t` of the arguments that a `*args` parameter collects (the tuple
        `node`), each display among them read as one array (`array_tangent`)."""
        constant = [isinstance(te, gast.Constant) and te.value is None for te in t.elts]
        return syntax.tuple_([
            self.array_tangent(e, te) if isinstance(e, (gast.List, gast.Tuple)) and not none else te
            for e, te, none in zip(node.elts, t.elts, constant)
        ])

    def array_tangent(self, node, t):
        """The tangent of a list or tuple display read as one array: its entries' tangents,
        zeros for its constant entries, as an array (`[a_dot, zeros_like_grad(3.0)]`)."""
        return syntax.call("np.asarray", [self.filled_tangent(node, t, syntax.list_)])

    def filled_tangent(self, node, t, display=None):
        """The tangent `t` of the display `node` (from `argument_tangent`) with zeros for
        its constant entries, where it marks them None; each display rebuilt by `display`
        (by default, in its own kind: `(a, 2.0) * 2` repeats a tuple)."""
        if isinstance(t, gast.Constant) and t.value is None:
            return self.zero(node)
        if not isinstance(node, (gast.List, gast.Tuple)):
            return t
        parts = [self.filled_tangent(e, te, display) for e, te in zip(node.elts, t.elts)]
        if display is None:
            display = syntax.tuple_ if isinstance(node, gast.Tuple) else syntax.list_
        return display(parts)

    def argument_tangent(self, stmt, node, label):
        """The tangent of one argument: a name's tangent, or a sequence of them (None: constant)."""
        if isinstance(node, gast.Name):
            return self.tangent(node.id)
        if isinstance(node, (gast.Tuple, gast.List)):
            parts = [self.argument_tangent(stmt, e, label) if calls.active_names(e, self.activity) else syntax.const(None)
                     for e in node.elts]
            return syntax.tuple_(parts) if isinstance(node, gast.Tuple) else syntax.list_(parts)
        raise self.program.error(
            stmt, f"differentiating {label} through the argument `{printing.unparse(node) if isinstance(node, gast.AST) else node}` "
            f"is not supported yet (in `{self.program.name}`); pass a variable", NotDifferentiableError,
        )

    # --- calls of other user functions --------------------------------------------------

    def is_user_call(self, callee):
        obj = callee.obj
        if obj is dataclasses.replace:
            return False  # a record made from another: calls.site reads it (record_calls.replacement)
        return calls.is_user_function(obj) and rules.lookup(obj) is None and not rules.is_nondifferentiable(obj)

    def user_call(self, s, name, value, callee):
        """`y = g(a, b)` -> `y, y_dot = g_jvp(a, b, a_dot=a_dot)` through g's own jvp function."""
        fn = callee.obj
        label = f"`{callee.path}`"
        args, keywords = list(value.args), {k.arg: k.value for k in value.keywords}
        try:
            signature = inspect.signature(fn)
            bound = signature.bind(*args, **keywords)
        except (TypeError, ValueError) as exc:
            raise self.program.error(
                s, f"cannot differentiate this call of {label}: {exc} (in `{self.program.name}`)", NotDifferentiableError,
            ) from None
        fn = bound_calls.with_functions(self.program, fn, bound, self.namer.locals.__contains__)
        params = list(signature.parameters.values())
        positions, tangents = [], []
        for k, param in enumerate(params):
            node = bound.arguments.get(param.name)
            if node is None or not calls.active_names(node, self.activity):
                continue
            if param.kind not in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                raise self.program.error(
                    s, f"{label} receives a differentiated value through its parameter `{param.name}`, which is "
                    f"not a plain positional parameter (in `{self.program.name}`)", NotDifferentiableError,
                )
            positions.append(k)
            tangents.append(self.argument_tangent(s, node, label))
        if not positions:
            return [s, syntax.assign(self.namer.tangent(name), self.zero(syntax.name(name)))]
        try:
            jvp_fn = self.jvp_of(fn, tuple(positions))
        except (SrcGradError, NotDifferentiableError, RecursionError) as exc:
            reason = getattr(exc, "msg", None) or str(exc)
            raise self.program.error(
                s, f"cannot differentiate the call of {label} at {self.program.where(s)} (in `{self.program.name}`): "
                f"{reason}", NotDifferentiableError,
            ) from exc
        if fn is self.program.fn and not inspect.isfunction(jvp_fn):  # calls itself: the jvp being made
            tangent_names = [self.namer.tangent(params[k].name) for k in positions]
        elif not inspect.isfunction(jvp_fn):  # a stand-in for a jvp being made (mutual recursion):
            tangent_names = [f"{params[k].name}_dot" for k in positions]  # it passes them on by position
        else:
            tangent_names = list(inspect.signature(jvp_fn).parameters)[-len(positions):]
        helper = self.helper(f"{fn.__name__}_jvp", jvp_fn)
        call = syntax.call(
            helper, [syntax.copy(a) for a in args],
            [(k, syntax.copy(v)) for k, v in keywords.items()] + list(zip(tangent_names, tangents)),
        )
        pair = syntax.tuple_([syntax.name(name, store=True), syntax.name(self.namer.tangent(name), store=True)], store=True)
        return [syntax.located(syntax.assign(pair, call), s)]


# --- helpers -------------------------------------------------------------------------


def _stand_in_target(stand_in):
    """The generated derivative a stand-in (pipeline._Pending: a recursive call bound while
    its derivative was being made) calls, now finished: a function with source, which
    forward mode differentiates like a user function (forward over a recursive pullback)."""
    return getattr(stand_in, "srcgrad_target", None) or stand_in


def restore_tangent_entry(d_dot, key, entry, entry_dot):
    """The tangent side of `restore_entry(d, key, entry)`: `entry_dot` (None: a zero) back
    into the tangent dict, or the key removed where the write had added it."""
    if entry is ABSENT:
        d_dot.pop(key, None)
    else:
        d_dot[key] = runtime.zeros_like_grad(entry) if entry_dot is None else entry_dot








def _output_tangent(fw, out):
    if isinstance(out, gast.Name) and fw.active(out.id):
        return fw.tangent(out.id)
    if isinstance(out, (gast.Tuple, gast.List)):
        parts = [_output_tangent(fw, e) for e in out.elts]
        return syntax.tuple_(parts) if isinstance(out, gast.Tuple) else syntax.list_(parts)
    return fw.zero(out)


def run(tree, program, calls, namer, wrt, jvp_of):
    """Build the jvp FunctionDef of the ANF `tree` (whose last statement is its return).

    `wrt` (an int or a tuple of ints) are the parameters that get tangents; `jvp_of(fn,
    positions)` returns the generated jvp function of another user function.
    """
    params = [a.id for a in tree.args.args]
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    varied = [params[i] for i in positions]
    *body, ret = tree.body
    out = ret.value
    tapes = tape_tangents.find(tree, calls) if program.generated else set()
    pushed, replaying = tape_tangents.pushes_and_replays(tree, tapes, calls)
    replays = {tape: pushed[tape] for tape in replaying}
    view_body = tape_tangents.activity_view(body, tapes, replays, calls)
    output = namer.fresh("output")
    view = syntax.function_def(tree.name, params, view_body + [syntax.assign(output, syntax.copy(out))])
    active = activity_pass.run(view, varied, output, calls)
    element_checks = {}
    if not program.generated:  # the same in-place changes as reverse mode: through no alias or view
        mutation.run(tree, list(traversal.statements(tree)), program, set(params), active, calls, element_checks)

    tangent_tapes = {}
    for tape in sorted(tapes):
        saves_active = any(active.is_active(v) for v in pushed[tape])
        tangent_tapes[tape] = namer.tangent(tape) if saves_active else None
    for p in varied:
        namer.tangent(p)  # the seeds get the plain names
    fw = _Forward(program, active, calls, namer, jvp_of, tangent_tapes, replaying, call_sites.containers(tree, calls))
    fw.element_checks = element_checks
    fw.float_arrays = _float_arrays(tree, calls, set(varied))
    prelude = [syntax.assign(namer.tangent(p), fw.zero(syntax.name(p))) for p in params
               if p not in varied and active.is_active(p)]
    stmts = fw.block(body)
    for tape, tangent_tape in tangent_tapes.items():
        if tangent_tape:
            stmts = tape_tangents.after_creation(stmts, tape, tangent_tape)
    out_dot = _output_tangent(fw, out)
    result = syntax.tuple_([syntax.copy(out), out_dot])

    fn_name = namer.fresh(f"{program.name}_jvp")
    tangents = [namer.tangent(p) for p in varied]
    filename = program.filename
    short = os.path.basename(filename) if filename and not filename.startswith("<") else filename
    doc = (
        f"Jacobian-vector product of {program.name}{program.bindings()} ({short}:{program.first_line}) with respect to "
        f"{', '.join(varied)}: returns the output and its tangent given {', '.join(tangents)}. Generated by srcgrad."
    )
    new = syntax.function_def(fn_name, params + tangents, prelude + stmts + [syntax.return_(result)], docstring=doc,
                              defaults=tree.args.defaults)
    user_kwonly = list(tree.args.kwonlyargs)
    if tree.args.defaults or user_kwonly:
        # the tangents follow parameters with defaults (or keyword-only ones): they are
        # keyword-only too, after the function's own keyword-only parameters
        new.args.kwonlyargs = user_kwonly + new.args.args[len(params):]
        new.args.args = new.args.args[: len(params)]
        new.args.kw_defaults = list(tree.args.kw_defaults) + [None] * len(tangents)
    return new


_FLOAT_MAKERS = (np.zeros, np.ones, np.empty)  # without a dtype: float64 arrays
_COPIES = (np.zeros_like, np.ones_like, np.empty_like, np.copy)  # of a differentiated parameter: floats too


def _float_arrays(tree, calls, params):
    """The names every assignment of which surely makes a float array: `np.zeros(shape)`
    (ones, empty) without a dtype, `np.zeros_like(p)` (ones_like, empty_like, copy) or
    `p.copy()` of one of `params`, the differentiated parameters (their arguments are
    floats), or arithmetic with a float literal (`a * 1.0`). A write into one needs no
    check that it rounds (`runtime.unless_integral`)."""
    verdict = {}
    for s in traversal.statements(tree):
        if type(s) is not gast.Assign:
            continue
        for target in s.targets:
            for name in traversal.names_stored(target):
                verdict[name] = verdict.get(name, True) and type(target) is gast.Name and _makes_floats(s.value, calls, params)
    return frozenset(name for name, surely in verdict.items() if surely)


def _makes_floats(value, calls, params):
    if type(value) is gast.BinOp:
        return any(type(o) is gast.Constant and type(o.value) is float for o in (value.left, value.right))
    if type(value) is not gast.Call or any(k.arg == "dtype" for k in value.keywords):
        return False
    callee = calls.get(value)
    if callee is None:
        return False
    if callee.kind == "function" and callee.obj in _FLOAT_MAKERS:
        return len(value.args) <= 1
    if callee.kind == "function" and callee.obj in _COPIES:
        return len(value.args) == 1 and syntax.is_name(value.args[0]) and value.args[0].id in params
    return callee.kind == "method" and callee.path == "copy" and callee.receiver in params and not value.args

