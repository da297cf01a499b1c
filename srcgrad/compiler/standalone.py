"""The text `srcgrad.source` shows: a generated derivative as a file that runs on its own.

The compiled text of a derivative (emit.py) names its helpers (`np`, `unbroadcast`, rule
helpers, the generated derivatives of the user functions it calls), which load.py binds as
parameters of a factory. Here that text is completed into a module: imports of the helpers
(`import numpy as np`, `from srcgrad.runtime import unbroadcast`, `from srcgrad.rules.shapes
import getitem_vjp`, with `as` where the code uses a renamed one), the user's globals
imported from the user's module when that can be done reliably (else a comment naming
them), constants that the optimizer folded (`SEED64_1 = np.float64(0.5)`, `SEED32_1 = np.float32(...)`), and then,
after the derivative's `def`, the generated derivatives of the user functions it calls,
recursively, each once, in the order first met. A name that two of these functions use
for different things is renamed in the later one. Lines over 100 characters are broken
(wrapping.py). Pure text: nothing here runs the code.

A `Unit` is what one generated function needs for this: made by the pipeline next to the
compiled function (its `__srcgrad_unit__`) and kept on the `Derivative`.
"""

import builtins
import io
import math
import symtable
import sys
import tokenize
import types
from dataclasses import dataclass, field

import numpy as np

from . import wrapping

_WIDTH = wrapping.WIDTH  # import lines longer than this are wrapped


@dataclass(eq=False)
class Unit:
    """One generated function: its text, def name, helpers and the user's scope."""

    key: tuple  # `key_id((fn, mode, wrt))` of what `pipeline.derive` was asked for (not fn itself:
    # a derivative must not keep its function alive, see cache.py)
    text: str
    name: str
    helpers: dict  # name in the text -> object bound by load.py
    globals: dict  # the user's module dict
    cells: dict = field(default_factory=dict)  # the user's closure: name -> cell
    owner: str = ""  # the user function's name, for comments


def text(unit):
    """The standalone source of `unit` and of the derivatives it calls."""
    return _File(unit).render()


# --- what a name means: a descriptor that says how the file binds it ---------------------
#
# ("import", module)            import module [as name]
# ("from", module, attr)        from module import attr [as name]
# ("expr", module, path)        name = <module>.path        (a bound method: np.add.reduce)
# ("const", type, value)        name = <literal>             (a folded constant)
# ("unit", key)                 def name(...): ...           (a generated derivative)
# ("user", module, attr)        comment: from the user's module, not importable
# ("cell", owner, name)         comment: closed over by the user's function
# ("unknown", repr, id)         comment: cannot be written as an import
# None                          a builtin: nothing to bind


class _File:
    def __init__(self, root):
        self.root = root
        self.names = {}  # name in the file -> descriptor
        self.first = {}  # descriptor -> the first name the file gives it
        self.units = []  # [unit, def name, renames, aliases]
        self.placed = {}  # unit key -> entry of self.units
        self.defined = {}  # id of a function the file defines from the user's text -> its Unit
        self._add_unit(root, root.name)
        k = 0
        while k < len(self.units):
            self._resolve(self.units[k])
            k += 1

    # -- collecting --------------------------------------------------------------------

    def _add_unit(self, unit, name):
        desc = ("unit", unit.key)
        entry = [unit, name, {}, []]
        if unit.name != name:
            entry[2][unit.name] = name
        self.units.append(entry)
        self.placed[desc[1]] = entry
        self._bind(name, desc)
        return entry

    def _bind(self, name, desc):
        self.names[name] = desc
        self.first.setdefault(desc, name)

    def _resolve(self, entry):
        unit, _, renames, aliases = entry
        tokens = _name_tokens(unit.text)
        for name in _free_names(unit.text):
            desc, callee = self._describe(unit, name)
            if desc is None:
                continue
            if self.names.get(name) == desc:
                continue
            known = self.first.get(desc)
            if desc[0] == "unit" and known is not None:  # already printed under another name
                if known not in tokens:
                    renames[name] = known
                elif name not in self.names:
                    self._bind(name, desc)
                    aliases.append((name, known))
                else:
                    fresh = self._fresh(name, tokens)
                    renames[name] = fresh
                    self._bind(fresh, desc)
                    aliases.append((fresh, known))
                continue
            if name in self.names:  # the file already uses this name for something else
                if known is not None and known not in tokens:
                    renames[name] = known
                    continue
                target = self._fresh(name, tokens)
                renames[name] = target
            else:
                target = name
            if callee is not None:
                self._add_unit(callee, target)
            else:
                self._bind(target, desc)

    def _fresh(self, base, tokens):
        k = 1
        while f"{base}_{k}" in self.names or f"{base}_{k}" in tokens:
            k += 1
        return f"{base}_{k}"

    def _describe(self, unit, name):
        """(descriptor, callee unit or None) of the free name `name` of `unit`."""
        if name in unit.helpers:
            return self._object(unit.helpers[name], name)
        if name in unit.cells:
            try:
                value = unit.cells[name].cell_contents
            except ValueError:
                return ("cell", unit.owner, name), None
            desc, callee = self._object(value, name)
            if desc is None or desc[0] in ("unknown", "user"):
                return ("cell", unit.owner, name), None
            if desc[0] == "const":  # its value now, for the file: the live code sees rebinding
                return desc + (unit.owner,), None
            return desc, callee
        if name in unit.globals:
            return self._user_global(unit, name, unit.globals[name]), None
        if hasattr(builtins, name):
            return None, None
        return ("missing", name), None

    def _object(self, obj, name):
        pending = _pending_key(obj)
        if pending is not None and pending in self.placed:  # recursion into a function shown here
            return ("unit", pending), self.placed[pending][0]
        found = _unit_of(obj)
        if found is not None:
            if isinstance(found, str):
                return ("unknown", found), None
            return ("unit", found.key), found
        if isinstance(obj, types.ModuleType):
            return ("import", obj.__name__), None
        defined = self._defined(obj, name)
        if defined is not None:
            return ("unit", defined.key), defined
        place = _locate(obj)
        if place is not None:
            module, path = place
            if module == "builtins" and path == name:
                return None, None
            if module == "__main__":
                return ("user", module, path), None
            return (("from", module, path) if "." not in path else ("expr", module, path)), None
        literal = _literal(obj)
        if literal is not None:
            return literal, None
        return ("unknown", _short_repr(obj), id(obj)), None  # two layers print alike: not one object

    def _defined(self, obj, name):
        """The Unit defining `obj` in the file from the user's own text (its
        `__srcgrad_text__`): a function defined in the user's function that reads nothing
        of it (closures.py: `def stats(L): ...`, calling itself through its name), or the
        `key=` lambda of a sort (key_lambdas.py: `key_lambda = lambda t: -t`); None for
        other objects. Its names are those of the user's module."""
        text = getattr(obj, "__srcgrad_text__", None) if isinstance(obj, types.FunctionType) else None
        if not isinstance(text, str) or any(c.cell_contents is not obj for c in obj.__closure__ or ()):
            return None
        unit = self.defined.get(id(obj))
        if unit is None:
            if text.startswith("def "):
                own, helpers = obj.__name__, {obj.__name__: obj}
            else:
                own, helpers, text = name, {}, f"{name} = {text}\n"
            unit = Unit(("defined", len(self.defined)), text, own, helpers, obj.__globals__, owner=own)
            self.defined[id(obj)] = unit
        return unit

    def _user_global(self, unit, name, value):
        if isinstance(value, types.ModuleType):
            return ("import", value.__name__)
        module = unit.globals.get("__name__")
        loaded = sys.modules.get(module) if isinstance(module, str) else None
        if module != "__main__" and loaded is not None and getattr(loaded, "__dict__", None) is unit.globals:
            return ("from", module, name)
        if _unit_of(value) is not None:
            return self._object(value, name)[0]
        place = _locate(value)
        if place is not None and place[0] != "__main__" and "." not in place[1]:
            return ("from", *place)
        return ("user", module or "?", name)

    # -- printing ----------------------------------------------------------------------

    def render(self):
        imports, froms, exprs, consts, comments = set(), {}, [], [], {}
        user_modules = {_module_of(entry[0]) for entry in self.units}
        numpy_name = next((n for n, d in self.names.items() if d == ("import", "numpy")), None)
        for name, desc in sorted(self.names.items(), key=lambda item: item[0]):
            kind = desc[0]
            if kind == "import":
                module = desc[1]
                imports.add(f"import {module}" if name == module else f"import {module} as {name}")
            elif kind == "from":
                froms.setdefault(desc[1], []).append(desc[2] if name == desc[2] else f"{desc[2]} as {name}")
            elif kind in ("expr", "const"):
                if numpy_name is None and (kind == "const" and (desc[1] in ("float64", "float32") or desc[1].startswith("ndarray:")) or desc[1] == "numpy"):
                    numpy_name = self._numpy_name()
                    imports.add("import numpy" if numpy_name == "numpy" else f"import numpy as {numpy_name}")
                (exprs if kind == "expr" else consts).append((name, desc))
            elif kind in ("user", "cell", "unknown", "missing"):
                comments.setdefault(desc[:2] if kind in ("user", "cell") else (kind,), []).append((name, desc))
        for _, desc in exprs:  # `P_norm = geometry.P.norm` (a method record_methods calls) needs its module
            if desc[1] != "numpy" and not any(d == ("import", desc[1]) for d in self.names.values()):
                imports.add(f"import {desc[1]}")
        lines = sorted(imports, key=lambda line: (line.split()[1], line))
        library = sorted(m for m in froms if m not in user_modules)
        own = sorted(m for m in froms if m in user_modules)
        if lines and (library or own):
            lines.append("")
        for group in (library, own):
            for module in group:
                lines.extend(_from_line(module, sorted(froms[module], key=_import_key)))
            if group is library and library and own:
                lines.append("")
        assigned = []
        for name, desc in exprs:
            module = numpy_name if desc[1] == "numpy" else next(
                (n for n, d in self.names.items() if d == ("import", desc[1])), desc[1])
            assigned.append(f"{name} = {module}.{desc[2]}")
        for name, desc in consts:
            assigned.append(f"{name} = {_render_literal(desc, numpy_name)}")
        if assigned:
            lines += [""] * bool(lines) + assigned
        notes = [_comment(group, items) for group, items in sorted(comments.items(), key=lambda c: repr(c[0]))]
        if notes:
            lines += [""] * bool(lines) + notes
        parts = ["\n".join(lines) + "\n"] if lines else []
        aliases = []
        for unit, name, renames, unit_aliases in self.units:
            parts.append(wrapping.wrapped(_rename(unit.text, renames)))
            aliases += [f"{a} = {b}" for a, b in unit_aliases]
        if aliases:
            parts.append("\n".join(aliases) + "\n")
        return "\n\n".join(parts)

    def _numpy_name(self):
        for candidate in ("np", "numpy", "np_"):
            if candidate not in self.names and all(candidate not in _name_tokens(u[0].text) for u in self.units):
                self.names[candidate] = ("import", "numpy")
                return candidate
        raise AssertionError("no name for numpy")  # pragma: no cover


def _module_of(unit):
    return unit.globals.get("__name__")


def _import_key(item):
    return item.split(" as ")[0].lower(), item


def _from_line(module, items):
    line = f"from {module} import {', '.join(items)}"
    if len(line) <= _WIDTH:
        return [line]
    out, current = [f"from {module} import ("], "   "
    for item in items:
        if len(current) + len(item) + 2 > _WIDTH:
            out.append(current)
            current = "   "
        current += f" {item},"
    out.append(current)
    out.append(")")
    return out


def _comment(group, items):
    kind = group[0]
    names = ", ".join(
        f"`{n}`" if len(d) < 3 or d[2] == n else f"`{n}` (`{d[2]}`)" for n, d in items
    )
    if kind == "user":
        module = group[1]
        why = "which cannot be imported" if module == "__main__" else "which was not found as an importable module"
        return f"# From the user's module `{module}` ({why}): {names}; define or import them before calling."
    if kind == "cell":
        return f"# Closed over by the user's function `{group[1]}`: {names}; define them before calling."
    if kind == "missing":
        return f"# Not defined when the derivative was made: {names}."
    reprs = "; ".join(f"`{n}` is {d[1]}" for n, d in items)
    return f"# Bound by srcgrad to objects that cannot be imported: {reprs}."


# --- objects ----------------------------------------------------------------------------


def _unit_of(obj):
    """The Unit of a generated derivative (or of the stand-in of one being made, which
    pipeline.py binds for recursive calls), or a string saying why it has none; None for
    other objects."""
    key = _pending_key(obj)
    unit = getattr(obj, "__srcgrad_unit__", None) if key is not None or isinstance(obj, types.FunctionType) else None
    if isinstance(unit, Unit):
        return unit
    if key is not None:
        return f"the {key[1]} of `{getattr(obj, '__name__', '?')}`, being derived"
    return None


def _pending_key(obj):
    """The key (as `key_id`) of what a stand-in for a derivative being made stands for."""
    if isinstance(obj, (types.FunctionType, types.ModuleType, type)):
        return None
    try:
        key = getattr(obj, "__srcgrad_key__", None)
    except Exception:  # noqa: BLE001 - an object with an unusual __getattr__
        return None
    return key_id(key) if isinstance(key, tuple) and len(key) == 3 else None


def key_id(key):
    """The identity of a derivative's key (fn, mode, wrt), without a reference to fn."""
    fn, mode, wrt = key
    return (id(fn), mode, wrt)


def _locate(obj):
    """(module, dotted path) at which `obj` can be imported, verified; or None."""
    module = getattr(obj, "__module__", None)
    path = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if module is None and isinstance(obj, np.ufunc):
        module = "numpy"  # NumPy 1's ufuncs have no __module__
    if isinstance(module, str) and isinstance(path, str) and "<" not in path and _at(module, path, obj):
        return module, path
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", None)
    if owner is not None and not isinstance(owner, types.ModuleType) and isinstance(name, str):
        place = _locate(owner)
        if place is not None and _at(place[0], f"{place[1]}.{name}", obj):
            return place[0], f"{place[1]}.{name}"
    return None


def _at(module, path, obj):
    value = sys.modules.get(module)
    if value is None:
        return False
    try:
        for part in path.split("."):
            value = getattr(value, part)
    except AttributeError:
        return False
    if value is obj:
        return True
    return isinstance(obj, (types.BuiltinMethodType, types.MethodType)) and value == obj


def _literal(obj):
    if type(obj) is np.float64 or type(obj) is np.float32:
        return ("const", type(obj).__name__, float(obj))
    if type(obj) is np.ndarray and obj.ndim == 0 and obj.dtype.name in ("float64", "float32", "float16"):
        return ("const", "ndarray:" + obj.dtype.name, float(obj))  # constants.py's 0-d arrays
    if obj is None or type(obj) in (bool, int, float, str, complex):
        return ("const", type(obj).__name__, obj)
    return None


def _render_literal(desc, numpy_name):
    kind, value = desc[1], desc[2]
    note = f"  # closed over by `{desc[3]}`: its value when the derivative was made" if len(desc) > 3 else ""
    if kind in ("float64", "float32"):  # repr of a float32's float: the same float32 back
        inner = repr(value) if math.isfinite(value) else f"'{value}'"
        return f"{numpy_name}.{kind}({inner}){note}"
    if kind.startswith("ndarray:"):
        return f"{numpy_name}.array({value!r}, dtype={numpy_name}.{kind[8:]}){note}"
    if kind == "float" and not math.isfinite(value):
        return f"float('{value}'){note}"
    return repr(value) + note


def _short_repr(obj):
    """A deterministic description of `obj` (no memory addresses)."""
    kind = type(obj)
    text = repr(obj)
    if " at 0x" in text or len(text) > 60 or "\n" in text:  # a comment holds one line
        text = f"a `{kind.__module__}.{kind.__qualname__}`"
    return text


# --- text -------------------------------------------------------------------------------


def _free_names(text):
    """The global names the functions in `text` read, sorted."""
    found = set()

    def walk(table):
        for symbol in table.get_symbols():
            if table.get_type() != "module":
                if symbol.is_global() and symbol.is_referenced():
                    found.add(symbol.get_name())
            elif symbol.is_referenced() and not symbol.is_assigned() and not symbol.is_imported():
                found.add(symbol.get_name())  # read at module level: a default (`scale=_SCALE`)
        for child in table.get_children():
            walk(child)

    walk(symtable.symtable(text, "<srcgrad>", "exec"))
    return sorted(found)


def _name_tokens(text):
    return {t.string for t in _tokens(text) if t.type == tokenize.NAME}


def _tokens(text):
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def _rename(text, renames):
    """`text` with the names in `renames` replaced (not attributes, not keyword names)."""
    if not renames:
        return text
    tokens = _tokens(text)
    lines = text.splitlines(True)
    edits = []
    for k, tok in enumerate(tokens):
        if tok.type != tokenize.NAME or tok.string not in renames:
            continue
        before = tokens[k - 1] if k else None
        after = tokens[k + 1] if k + 1 < len(tokens) else None
        if before is not None and before.type == tokenize.OP and before.string == ".":
            continue
        if after is not None and after.type == tokenize.OP and after.string == "=" and _in_call(tokens, k):
            continue
        edits.append((tok.start, tok.end, renames[tok.string]))
    for (row, col), (_, end), new in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[end:]
    return "".join(lines)


def _in_call(tokens, k):
    """Whether token k is inside brackets (a keyword argument rather than an assignment)."""
    depth = 0
    for tok in reversed(tokens[:k]):
        if tok.type == tokenize.OP and tok.string in ")]}":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in "([{":
            if depth == 0:
                return True
            depth -= 1
        elif tok.type == tokenize.NEWLINE:
            return False
    return False
