"""Activity analysis: which variables carry derivatives.

A variable is *varied* when its value depends differentiably on a `wrt` parameter,
*useful* when the output depends differentiably on it; it is *active* when both.
Reverse mode differentiates only statements whose target is active. The analysis is
flow-insensitive over names (sound for the ANF + versions form, where top-level
reassignments have their own names) and returns data; it never touches the tree.
"""

import re
from dataclasses import dataclass

import gast
import numpy as np

from .. import rules
from ..errors import NotDifferentiableError
from . import scope, traversal
from .calls import from_numpy

_NONDIFF_BINOPS = (gast.FloorDiv, gast.BitAnd, gast.BitXor, gast.LShift, gast.RShift)  # `|` merges dicts


@dataclass(frozen=True)
class Activity:
    varied: frozenset
    useful: frozenset

    @property
    def active(self):
        return self.varied & self.useful

    def is_active(self, name):
        return name in self.varied and name in self.useful


def diff_reads(value, calls, foreign=frozenset()):
    """Names whose derivative flows through the simple expression `value`. A method named
    like a NumPy one of no gradient (`p.round(2)`, `p.argmax()`) carries none only where
    its receiver is not among `foreign`, the names made by calls srcgrad has no rule for
    (`p = Poly(x)`), whose `round` may be anything."""
    if isinstance(value, gast.Name):
        return [value.id]
    if isinstance(value, (gast.Constant, gast.Compare, gast.BoolOp)):
        return []
    if isinstance(value, gast.JoinedStr):  # refused where active: refuse_text
        return [n for v in value.values if isinstance(v, gast.FormattedValue) for n in diff_reads(v.value, calls)]
    if _formats(value):  # refused where active: refuse_text
        if isinstance(value, gast.Call):
            return [n for a in value.args + [k.value for k in value.keywords] for n in diff_reads(a, calls)]
        return diff_reads(value.right, calls)
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
        if (callee is not None and callee.kind in ("function", "method") and rules.is_nondifferentiable(callee.obj)
                and not (callee.kind == "method" and callee.receiver in foreign)):
            return []  # `len(x)`, `x.argmax()`, `d.keys()`
        names = []
        if callee is not None and callee.kind == "method":
            names.append(callee.receiver)
        elif isinstance(value.func, gast.Name):
            names.append(value.func.id)  # a callable value made from differentiated ones (`m = Model(W)`)
        skipped = _discrete_arguments(value, callee)
        for arg in list(value.args) + [k.value for k in value.keywords]:
            if id(arg) not in skipped:
                names += diff_reads(arg, calls)
        return names
    if isinstance(value, (gast.Tuple, gast.List)):
        return [n for e in value.elts for n in diff_reads(e, calls)]
    if isinstance(value, gast.Dict):
        return [n for v in value.values for n in diff_reads(v, calls)]
    return [n.id for n in gast.walk(value) if isinstance(n, gast.Name)]


def _formats(value):
    """Whether `value` is `"%.3f" % v` or `"{:.3f}".format(v)`: text made of numbers,
    which `refuse_text` refuses where it carries the derivative."""
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "format":
        value = value.func.value
        return isinstance(value, gast.Constant) and isinstance(value.value, str)
    return (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mod) and isinstance(value.left, gast.Constant)
            and isinstance(value.left.value, str))


def refuse_text(program, tree, activity):
    """Refuse an f-string, a `%` format or a `str.format` of a differentiated value that
    the output is computed from (`float(f"{x}")`): text has no derivative, and the number read back
    from it had none without a word. Text that only prints or names things is fine. Code
    srcgrad generated (a gradient differentiated again, for a Hessian) is not checked: its
    text is the user's, checked when it was made, where a tape makes the loop counter a
    key is formatted from look differentiated (`f"w{i}"`)."""
    if program.generated:
        return
    for node in traversal.statements(tree):
        if type(node) is not gast.Assign or not (type(node.value) is gast.JoinedStr or _formats(node.value)):
            continue
        if any(activity.is_active(n) for n in traversal.names_stored(node)):
            raise program.error(
                node, f"`{program.text(node).strip()}` formats a differentiated value as text that the result is "
                f"computed from (in `{program.name}`); text carries no derivative: compute with the number itself",
                NotDifferentiableError,
            )


def _discrete_arguments(call, callee):
    """The ids of the arguments of the function call `call` that its rule declares
    discrete (`np.heaviside`'s x1, `np.bincount`'s bins): no derivative flows from them."""
    if callee is None or callee.kind != "function":
        return ()
    rule = rules.lookup(callee.obj)
    if rule is None or not rule.discrete:
        return ()
    found = {id(arg) for param, arg in zip(rule.params, call.args) if param in rule.discrete}
    return found | {id(k.value) for k in call.keywords if k.arg in rule.discrete}


def _flows(tree, calls):
    """(source names, target name) pairs: derivative flows from sources into target."""
    flows, loops, made = [], [], {}  # made: name -> whether each assignment makes a dict
    listed = []  # (flow, name): `ks = sorted(name)` and its kin, the keys where `name` is a dict
    firsts = []  # (flow, name): `k = name[0]`, a key where `name` is a pair of `for name in d.items()`
    foreign = _made_by_foreign_calls(tree, calls)
    counted = _enumerate_items(tree, calls)
    for node in traversal.statements(tree):
        if isinstance(node, gast.Assign):
            target = node.targets[0]
            sources = diff_reads(node.value, calls, foreign)
            if _reads_count(node.value, counted):
                sources = []  # `u = item[0]` of `for item in enumerate(...)`: an int
            if isinstance(target, gast.Name):
                flows.append((sources, target.id))
                listed += [(len(flows) - 1, n) for n in _listed_name(node.value, calls)]
                if _reads_entry(node.value, 0):  # `k = item[0]` of `for item in d.items()`: d's key
                    firsts.append((len(flows) - 1, node.value.value.id))
                made[target.id] = made.get(target.id, True) and _makes_dict(node.value, calls)
            elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                flows.append((sources + [target.value.id], target.value.id))
        elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            loops.append(node)
            made[node.target.id] = False
        elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call):
            callee = calls.get(node.value)
            if callee is not None and callee.kind == "method":
                flows.append((diff_reads(node.value, calls), callee.receiver))
    looped = [(node, [node.iter.id] if isinstance(node.iter, gast.Name) else _listed_name(node.iter, calls))
              for node in loops]
    pairs = _items_pairs(tree, calls) if firsts else {}  # item -> d, of `for item in d.items()`
    listed += [(k, pairs[item]) for k, item in firsts if item in pairs]
    read = [name for _, name in listed] + [name for _, names in looped for name in names]
    # names of dicts where every assignment makes one (`made`), else found to a fixed
    # point (`d = items`, the dict a comprehension built): a name assigned nowhere is none
    dicts = _dict_names(tree, calls) if any(made.get(name) is False for name in read) else made
    for node, names in looped:  # the keys of a dict carry no derivative
        keys = any(dicts.get(name, False) for name in names)
        flows.append(([] if keys else diff_reads(node.iter, calls), node.target.id))
    for k, name in listed:  # `ks = sorted(d)`, `list(d)`, ... of a dict: its keys, no derivative
        if dicts.get(name, False):
            flows[k] = ([], flows[k][1])
    return flows


_OF_KEYS = (sorted, list, tuple, set, frozenset, reversed)


def _listed_name(value, calls):
    """[name] where `value` is `sorted(name)`, `list(name)`, `tuple(name)`, `set(name)`,
    `frozenset(name)` or `reversed(name)` (any keywords: `sorted(d, key=...)` orders the
    same keys), which of a dict hold its keys; else []."""
    callee = calls.get(value) if type(value) is gast.Call else None
    if (callee is None or callee.kind != "function" or callee.obj not in _OF_KEYS or len(value.args) != 1
            or type(value.args[0]) is not gast.Name):
        return []
    return [value.args[0].id]


def _enumerate_items(tree, calls):
    """The names bound only as the target of `for name in enumerate(...)`: their entry 0
    is the count, an int, whatever the sequence holds."""
    return set(_bound_only_by_loops(tree, calls, lambda node, callee: True if callee.obj is enumerate else None))


def _bound_only_by_loops(tree, calls, over):
    """{name: over(loop, callee)} for the names bound only as the target of `for name in
    call(...)` loops for which `over` gives the same value, not None. Most functions have
    no such loop, and then the other statements are not walked."""
    statements = list(traversal.statements(tree))
    found, loops, others = {}, set(), set()
    for node in statements:
        if isinstance(node, gast.For) and isinstance(node.target, gast.Name) and isinstance(node.iter, gast.Call):
            callee = calls.get(node.iter)
            value = None if callee is None else over(node, callee)
            if value is not None:
                if found.get(node.target.id, value) != value:
                    others.add(node.target.id)
                found[node.target.id] = value
                loops.add(id(node))
    if not found:
        return {}
    for node in statements:
        if isinstance(node, gast.For):
            if id(node) not in loops:
                others.update(traversal.names_stored(node.target))
        elif not hasattr(node, "body"):  # the statements of a block are visited themselves
            others.update(traversal.names_stored(node))
    return {name: value for name, value in found.items() if name not in others}


def _reads_count(value, counted):
    """Whether `value` is `item[0]` for an `item` of `_enumerate_items`."""
    return _reads_entry(value, 0) and value.value.id in counted


def _reads_entry(value, position):
    """Whether `value` is `name[position]` (a constant position)."""
    return (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
            and isinstance(value.slice, gast.Constant) and type(value.slice.value) is int
            and value.slice.value == position)


def _items_pairs(tree, calls):
    """{item: d} for the names bound only as the target of `for item in d.items()` (`d` a
    name): where `d` is a dict, `item[0]` is one of its keys, which carry no derivative."""

    def receiver(node, callee):
        found = callee.kind == "method" and callee.path == "items" and not node.iter.args
        return callee.receiver if found and callee.receiver else None

    return _bound_only_by_loops(tree, calls, receiver)


def _made_by_foreign_calls(tree, calls):
    """The names assigned the result of a call of something with no rule that is not
    NumPy's (a user's class, another library's constructor): objects of unknown methods."""
    out = set()
    for node in traversal.statements(tree):
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.Call):
            callee = calls.get(node.value)
            if (callee is not None and callee.kind == "function" and rules.lookup(callee.obj) is None
                    and not rules.is_nondifferentiable(callee.obj) and not from_numpy(callee.obj)):
                out.update(traversal.names_stored(node))
    return out


def _makes_dict(value, calls, dicts=(), holders=()):
    """Whether `value` is a dict display or a `dict(...)` call, or (`_dict_names`) a name of
    `dicts`, its `.copy()`, or an entry of a name of `holders`."""
    if isinstance(value, gast.Dict) or (type(value) is gast.Name and value.id in dicts):
        return True
    if type(value) is gast.Subscript:
        return type(value.value) is gast.Name and value.value.id in holders
    callee = calls.get(value) if isinstance(value, gast.Call) else None
    if callee is not None and callee.kind == "method":
        return callee.path == "copy" and callee.receiver in dicts and not value.args
    return callee is not None and callee.kind == "function" and callee.obj is dict


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
    while changed:  # last flow first: a straight run of statements settles in one pass and a check
        changed = False
        for sources, target in reversed(flows):
            if target in useful:
                for s in sources:
                    if s not in useful:
                        useful.add(s)
                        changed = True
    return Activity(frozenset(varied), frozenset(useful))


def constant_operands(program, tree, params, activity, calls):
    """The checks (api.check_arguments) of the parameters not differentiated whose values
    enter the differentiated computation directly: an operand of an operator, an argument
    of a call with a rule, or the receiver of a method with one (`A @ x`, `x * m`,
    `A.dot(x)`) in a statement whose target carries the derivative. The rules there
    describe NumPy arrays and Python numbers; a masked array, a sparse matrix or an
    object of a user's class computes something else, and is refused at the call
    (`undescribed`). Attribute reads (`cfg.scale`) are constants, and not checked."""
    candidates = {p: k for k, p in enumerate(params) if p not in activity.varied}
    found = {}
    if not candidates:
        return ()
    for node in traversal.statements(tree):
        if type(node) is not gast.Assign or type(node.targets[0]) is not gast.Name:
            continue
        if not activity.is_active(node.targets[0].id):
            continue
        for name in _operand_names(node.value, calls):
            if name in candidates and name not in found:
                found[name] = node
    checks = []
    for name, node in found.items():
        error = program.error(node, "", NotDifferentiableError)
        location = (error.filename, error.lineno, error.offset - 1, error.text)
        message = _operand_message(program, name, node)
        checks.append((candidates[name], (), undescribed, message, location))
    return tuple(checks)


def _operand_names(value, calls):
    """The names that the simple expression `value` computes with directly."""
    if type(value) is gast.BinOp:
        return [o.id for o in (value.left, value.right) if type(o) is gast.Name]
    if type(value) is gast.UnaryOp:
        return [value.operand.id] if type(value.operand) is gast.Name else []
    if type(value) in (gast.List, gast.Tuple):
        return [e.id for e in value.elts if type(e) is gast.Name]
    if type(value) is gast.Call:
        callee = calls.get(value)
        if callee is None or callee.obj is None or rules.lookup(callee.obj) is None:
            return []
        if getattr(callee.obj, "takes_records", False):
            return []  # its rules read a record's fields (rules/structure.py `replace_fields`)
        names = [callee.receiver] if callee.kind == "method" else []
        return names + [a.id for a in list(value.args) + [k.value for k in value.keywords] if type(a) is gast.Name]
    return []


def _operand_message(program, name, node):
    where = f"line {program.line(node)} (`{program.text(node)}`) of `{program.name}`"

    def message(value):
        kind = type(value).__name__
        return (f"`{name}` is of type `{kind}`, and {where} computes with it on the differentiated path; "
                f"srcgrad's rules describe NumPy arrays and Python numbers, not `{kind}`: pass a plain array "
                f"(`np.asarray({name})`, `{name}.toarray()` for a sparse matrix, `{name}.filled(...)` for a "
                "masked array)")

    return message


# and the generator a sampler's rule takes first (`Generator.normal(rng, mu, s)`), which it never differentiates
_DESCRIBED = (np.ndarray, np.generic, bool, int, float, complex, str, bytes, range, slice, type(None),
              np.random.Generator, np.random.RandomState)


def undescribed(value, depth=0):
    """Whether `value`, entering differentiated operations, is of a type whose operations
    the rules do not describe: not a plain or other ndarray (a masked array or a
    np.matrix is not), NumPy scalar, Python number, string, function or class, nor a
    list, tuple or dict holding only those."""
    if type(value) is np.ndarray or type(value) is float:  # the common cases, first
        return False
    if isinstance(value, (np.ma.MaskedArray, np.matrix)):
        return True
    if isinstance(value, _DESCRIBED):
        return False
    if isinstance(value, (list, tuple)):
        return depth < 8 and any(undescribed(v, depth + 1) for v in value)
    if type(value) is dict:
        return depth < 8 and any(undescribed(v, depth + 1) for v in value.values())
    return not (callable(value) and not hasattr(value, "__array__") and not hasattr(value, "__array_ufunc__"))


def _dict_names(tree, calls):
    """{name: whether every assignment to it makes a dict}: a display, a `dict(...)` call,
    another name for one, its `.copy()`, or an entry of a list or tuple display of them
    (`ds = [{}]`, then `d = ds[0]`), found to a fixed point."""
    assigns = [(node.targets[0].id, node.value) for node in traversal.statements(tree)
               if isinstance(node, gast.Assign) and type(node.targets[0]) is gast.Name]
    dicts, holders, made = set(), set(), {}
    while True:
        made, held = {}, {}
        for name, value in assigns:
            made[name] = made.get(name, True) and _makes_dict(value, calls, dicts, holders)
            held[name] = held.get(name, True) and type(value) in (gast.List, gast.Tuple) and bool(value.elts) and all(
                _makes_dict(e, calls, dicts, holders) for e in value.elts)
        found = {n for n, m in made.items() if m}, {n for n, h in held.items() if h}
        if found == (dicts, holders):
            return made
        dicts, holders = found


def refuse_displays(program, tree, activity, calls):
    """Refuse a display whose entries srcgrad cannot match to their gradients where it
    carries the derivative: a set (`{a, b}`: no order), or a tuple or list with a `*a`
    of a length idioms.py could not see (`(*a, b)`: b's position is unknown). Sets of
    constants (`if k in {1, 3}`) and shapes (`(*shape, 3)`) are fine. A differentiated
    value made a dict's key, in a display or by `d[key] = v`, is refused too: activity
    gives the keys of a dict no derivative, so reading them back would be wrong, not refused."""
    # (in code srcgrad generated, keys were checked when it was made from the user's
    # code, and names a tape holds among differentiated values only look varied)
    dicts = {} if program.generated else _dict_names(tree, calls)
    for node in traversal.statements(tree):
        if type(node) is not gast.Assign:
            continue
        value = node.value
        target = node.targets[0]
        keys = [k for k in value.keys if k is not None] if type(value) is gast.Dict and not program.generated else []
        if type(target) is gast.Subscript and type(target.value) is gast.Name and dicts.get(target.value.id):
            keys.append(target.slice)
        if any(name in activity.varied for k in keys for name in diff_reads(k, calls)):
            raise program.error(
                node, f"`{program.text(node).strip()}` makes a differentiated value a key of a dict (in "
                f"`{program.name}`); srcgrad gives a dict's keys no gradient (a loop over the dict, `.keys()` "
                "and `list(d)` read them as constants): keep such values in a list, or as the dict's values",
                NotDifferentiableError,
            )
        starred = type(value) in (gast.Tuple, gast.List) and any(type(e) is gast.Starred for e in value.elts)
        if not (type(value) is gast.Set or starred) or not any(activity.is_active(n) for n in traversal.names_stored(node)):
            continue
        if type(value) is gast.Set:
            raise program.error(
                node, f"`{program.text(node).strip()}` puts differentiated values into a set (in "
                f"`{program.name}`); a set has no order, so srcgrad cannot match their gradients to them: use "
                "a list or a tuple", NotDifferentiableError,
            )
        raise program.error(
            node, f"`{program.text(node).strip()}` unpacks a value of a length srcgrad cannot see into a "
            f"{type(value).__name__.lower()} that carries the derivative (in `{program.name}`); write the "
            "entries out, or unpack a tuple written out in the function", NotDifferentiableError,
        )


def refuse_complex(program, tree, activity, calls):
    """Refuse a complex constant (`1j`, `2 + 3j`) whose value flows into an active name:
    the derivative rules are for real numbers, and a gradient through complex values
    (`abs(x + 1j * y)`) would be wrong, not refused, where it comes back real. A value
    made real (`.real`, `.imag`, `abs`, `np.angle`) stops the flow: a constant computed
    with complex numbers (`np.exp(2j * np.pi * k / n).real`) is fine."""
    if not any(_IMAGINARY.search(line) for line in program.source_lines):
        return  # every complex constant is an imaginary literal of the function's text
    made = {}  # name -> the statement whose complex constant it may carry
    flows = []
    for node in traversal.statements(tree):
        if not isinstance(node, gast.Assign):
            continue
        value = node.value
        if any(type(n) is gast.Constant and type(n.value) is complex for n in traversal.nodes(value)):
            for target in traversal.names_stored(node):
                made.setdefault(target, node)
        elif not _made_real(value, calls):
            flows.append((diff_reads(value, calls), traversal.names_stored(node)))
    if not made:
        return
    changed = True
    while changed:
        changed = False
        for sources, targets in flows:
            source = next((made[s] for s in sources if s in made), None)
            for target in targets if source is not None else ():
                if target not in made:
                    made[target] = source
                    changed = True
    reached = [made[n] for n in activity.active if n in made]
    if reached:
        stmt = min(reached, key=lambda n: (getattr(n, "lineno", 0) or 0, getattr(n, "col_offset", 0) or 0))
        raise program.error(
            stmt, f"`{program.text(stmt).strip()}` computes a complex number on the differentiated path (in "
            f"`{program.name}`); srcgrad's derivative rules are for real numbers: keep the computation real (the "
            "real and imaginary parts as two real values) or differentiate it by hand", NotDifferentiableError,
        )


def _made_real(value, calls):
    """Whether the ANF value `value` is real whatever its operand: `z.real`, `z.imag`,
    `abs(z)`, `np.real(z)`, `np.imag(z)`, `np.abs(z)`, `np.angle(z)`."""
    if isinstance(value, gast.Attribute):
        return value.attr in ("real", "imag")
    if isinstance(value, gast.Call):
        callee = calls.get(value)
        return callee is not None and callee.obj in _REAL_OF_COMPLEX
    return False


_IMAGINARY = re.compile(r"[0-9.][jJ]\b")  # `1j`, `2.5j`, `1e3j` (and, harmlessly, names like `x1j`)
_REAL_OF_COMPLEX = {abs, np.real, np.imag, np.abs, np.absolute, np.angle}


_CONCATENATORS = (type(np.r_), type(np.c_))


def refuse_index_tricks(program, tree, activity):
    """Refuse `np.r_[...]` and `np.c_[...]` (NumPy's concatenating index objects) holding a
    differentiated value: srcgrad reads an index as carrying no derivative, so the
    concatenation's gradient would be zero, not refused."""
    for node in traversal.statements(tree):
        value = getattr(node, "value", None)
        for sub in (n for n in traversal.inner_nodes(value) if type(n) is gast.Subscript) if value is not None else ():  # gast.walk's order
            parts = scope.dotted_parts(sub.value)
            if parts is None or parts[0] in activity.varied:
                continue
            maker = scope.lookup_path(parts, program)
            if not isinstance(maker, _CONCATENATORS):
                continue
            if any(type(n) is gast.Name and n.id in activity.varied for n in gast.walk(sub.slice)):
                spelled = ".".join(parts)
                instead = "np.concatenate" if isinstance(maker, type(np.r_)) else "np.column_stack"
                raise program.error(
                    node, f"`{program.text(node).strip()}` concatenates differentiated values with `{spelled}[...]` (in "
                    f"`{program.name}`), whose entries srcgrad reads as an index, which carries no derivative: "
                    f"write `{instead}([...])` instead", NotDifferentiableError,
                )
