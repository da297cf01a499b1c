"""Lists, tuples and dicts of callables passed as arguments (`def net(x, layers)`,
`layers = [np.tanh, relu, np.sin]`; `acts = {"a": np.tanh, "b": relu}`).

function_arguments.py binds such a parameter to a `Callables`: the container's kind, a
dict's keys, and what each element is bound to as a single function passed would be
(`function_arguments.followed`: the function itself, a `Passed` partial or bound method,
the `RecordOf` of a callable object's class), interned per those, so the derivative is
made per identity of the callables and their number, never per container: a list
changed in place, or another list, is bound anew at its next call. `run` gives each
element a name of its own and rewrites the parameter's uses into them:

    for layer in layers:             h = tanh(h)          (unroll.py, over the display
        h = layer(h)                 h = relu(h)           `(tanh, relu, sin)`)
                                     h = sin(h)
    acts["b"](x), layers[-1](h)      relu(x), sin(h)
    len(layers)                      3

A function element is a helper of its own name (`Program.held`); a partial or bound
method is bound as a parameter holding it would be, its values read from the container
when the derivative runs (`Program.elements`: passed_callables.py reads `layers[1].__self__`);
a callable object is read into a local (`layers_1 = layers[1]`) whose calls
record_methods.py follows through its class. Loops over the container (also through
`enumerate`, `reversed`, `zip`, a dict's `.items()`, `.values()`, `.keys()`, a slice
with constant bounds; `for i in range(len(layers))` and `for k in acts` reading
`layers[i]`, `acts[k]`) are unrolled here, before those stages rewrite the calls, and a
list comprehension over it (`[f(x) for f in layers]`, no condition) becomes a list display.

Invariants: after `run` the tree reads a parameter bound to a `Callables` only as the
argument of a call of a function of the user's (whose own derivative is made for the
container: bound_calls.py), in a partial's or bound method's element read as it is
(`layers[1].keywords`), and in the reads of elements into names; any other use (an
index that is not a constant, a comprehension with a condition) is refused at its line,
and so is a container srcgrad could not bind (`refused`: an element that is no function
srcgrad follows beside one it does).
"""

import builtins
import weakref

import gast

from ..errors import NotDifferentiableError
from . import printing, syntax, traversal, unroll
from .scope import MISSING, dotted_parts, first_meaning, lookup_path
from .stand_in import is_user_function, spelling


class Callables:
    """What a parameter holding a list, tuple or dict of callables is bound to: `kind`
    (list, tuple or dict), `keys` (a dict's, in order; None for a sequence), `elements`
    (what each element is bound to), or `refused`: why srcgrad cannot bind it."""

    __slots__ = ("kind", "keys", "elements", "__name__", "refused", "__weakref__")
    srcgrad_callables = True  # how function_arguments and frontend know one

    def __init__(self, kind, keys, elements, name, refused=None):
        self.kind, self.keys, self.elements, self.__name__, self.refused = kind, keys, elements, name, refused

    def __repr__(self):
        return self.__name__

    def paths(self):
        """(the step reading each element from the container (passed_callables._read), element)."""
        if self.keys is None:
            return list(enumerate(self.elements))
        return [((key,), element) for key, element in zip(self.keys, self.elements)]


_INTERNED = weakref.WeakValueDictionary()  # (kind, keys, ids of the elements) or a refusal's text -> its Callables


def callables_of(value, follow):
    """The `Callables` of the list, tuple or dict `value`, each element bound by
    `follow` (function_arguments.followed); a refused one where an element is none
    srcgrad binds beside one it binds; None for one holding none it binds (arrays,
    numbers: not a container of functions), and for any other value."""
    kind = type(value)
    if kind not in (list, tuple, dict):
        return None
    keys = tuple(value) if kind is dict else None
    items = list(value.values()) if kind is dict else list(value)
    spelled = "a dict" if kind is dict else f"a {kind.__name__}"
    if keys is not None and any(type(k) not in (str, int) for k in keys):
        return _refused(f"{spelled} whose keys are not all strings or integers")
    found = [None if type(item) in (list, tuple, dict) else follow(item) for item in items]
    # an element srcgrad binds: a callable, or an object whose methods a loop calls
    bindable = [f is not None and (callable(item) or getattr(f, "srcgrad_record", False)) for f, item in zip(found, items)]
    if items and not any(bindable):
        return None  # data (arrays, numbers): left as it was, whatever reads it
    elements = []
    for position, item in enumerate(items):
        where = f"its element {position}" if keys is None else f"its entry {keys[position]!r}"
        if not bindable[position]:
            return _refused(f"{spelled} mixing callables with other values ({where} is {_kind(item)}); srcgrad "
                            "specializes the derivative to the functions such a container holds, so pass them in a "
                            "container of their own and the other values apart (`zip(acts, weights)` pairs them in a loop)")
        if getattr(found[position], "refused", None):
            return _refused(f"{spelled} of callables, where {where} is {found[position].refused}")
        elements.append(found[position])
    key = (kind, keys, tuple(map(id, elements)))
    interned = _INTERNED.get(key)
    if interned is None:
        shown = [spelling(e) for e in elements]
        name = ("{" + ", ".join(f"{k!r}: {s}" for k, s in zip(keys, shown)) + "}" if keys is not None
                else ("[{}]" if kind is list else "({})").format(", ".join(shown) + ("," if len(shown) == 1 and kind is tuple else "")))
        interned = _INTERNED[key] = Callables(kind, keys, tuple(elements), name)
    return interned


def _refused(text):
    found = _INTERNED.get(text)
    if found is None:
        found = _INTERNED[text] = Callables(None, None, (), "a container srcgrad cannot bind", text)
    return found


def _kind(item):
    if item is None:
        return "None"
    if type(item) in (list, tuple, dict):
        return f"a {type(item).__name__}"
    if type(item).__name__ == "ndarray":
        return "an array"
    return f"a {type(item).__module__ + '.' if type(item).__module__ not in ('builtins', 'numpy') else ''}{type(item).__qualname__}"


def run(program):
    """`program.tree` with each parameter bound to a `Callables` read through its
    elements (the module docstring); the element names bound in `program.bound`,
    `program.held`, `program.records` and `program.elements`. Returns a new tree."""
    containers = {name: value for name, value in program.bound.items() if getattr(value, "srcgrad_callables", False)}
    if not containers:
        return program.tree
    tree = syntax.copy(program.tree)
    for param, container in containers.items():
        if container.refused:
            use = next((n for n in (n for s in tree.body for n in traversal.nodes(s)) if syntax.is_name(n, param)), tree)
            raise program.error(use, f"`{program.name}` reads its parameter `{param}`, which holds "
                                f"{container.refused}", NotDifferentiableError)
    namer = program.helper_namer()
    names, kept = _element_reads(program, tree, containers)
    prologue = []
    for param, container in containers.items():
        for step, element in container.paths():
            key = step if type(step) is int else step[0]
            if (param, key) not in names:
                names[param, key] = _element_name(program, namer, param, step, element, prologue)
    docstring = 1 if tree.body and isinstance(tree.body[0], gast.Expr) and isinstance(tree.body[0].value, gast.Constant) else 0
    tree.body[docstring:docstring] = [syntax.located(s, tree.body[docstring]) for s in prologue]
    rewriter = _Uses(program, containers, names, kept | {id(s) for s in prologue}, namer)
    loops = rewriter.loops(tree)
    tree = unroll.run(tree, program, namer, only=set(loops), spelled=loops)
    tree = rewriter.reads(tree)
    return tree


def _element_reads(program, tree, containers):
    """({(parameter, key): name} of the callable objects the function reads into a name of
    their own, once, at its top level (`layer = layers[0]`; the generated code of a
    derivative, differentiated again, reads its elements so), whose calls record_methods.py
    follows through the class; the ids of those statements, and of `m_self =
    layers[1].__self__` of a bound method's instance, whose methods are followed so too)."""
    counts = {}
    for n in (n for s in tree.body for n in traversal.nodes(s)):
        if type(n) is gast.Name and not isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    names, kept, aliases = {}, set(), {}  # aliases: a name read an element into -> the element
    for s in tree.body:
        if not (type(s) is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name
                and counts.get(s.targets[0].id) == 1):
            continue
        read, through = (s.value.value, True) if type(s.value) is gast.Attribute and s.value.attr == "__self__" else (
            s.value, False)
        name = s.targets[0].id
        if through and type(read) is gast.Name and read.id in aliases:  # `layers_1 = layers[1]`, `m = layers_1.__self__`
            element = aliases[read.id]
        elif type(read) is gast.Subscript and type(read.value) is gast.Name and read.value.id in containers:
            container, key = containers[read.value.id], _constant(read.slice)
            keys = container.keys if container.keys is not None else range(len(container.elements))
            if key is _NOT_CONSTANT or key not in keys or (container.keys is None and type(key) is not int):
                continue
            element = container.elements[list(keys).index(key)]
            if not through and getattr(element, "srcgrad_record", False):
                program.records[name] = element
                names[read.value.id, key] = name
                kept.add(id(s))
                continue
            if not through:
                aliases[name] = element
                continue
        else:
            continue
        if through and getattr(element, "receiver", None) is not None:
            program.records[name] = element.receiver  # passed_callables.py: `self.helper(...)` followed so
            kept.add(id(s))
    return names, kept


def _element_name(program, namer, param, step, element, prologue):
    """The name the rewritten code calls the element at `step` of `param` by."""
    key = step if type(step) is int else step[0]
    own = f"{param}_{key}" if str(key).isidentifier() or type(key) is int else f"{param}_entry"
    if getattr(element, "srcgrad_record", False):  # a callable object: record_methods.py follows its class
        name = namer.fresh(own)
        program.records[name] = element
        prologue.append(syntax.assign(syntax.name(name, store=True), syntax.subscript(syntax.name(param), syntax.const(key))))
        return name
    if getattr(element, "srcgrad_passed", False):  # passed_callables.py reads what it holds from the container
        name = namer.fresh(own)
        program.bound[name] = element
        program.elements[name] = (param, step)
        return name
    preferred = element.__name__ if getattr(element, "__name__", "").isidentifier() else own
    name = namer.helper(preferred, element)
    program.bound[name] = program.held[name] = element
    program.elements[name] = (param, step)
    return name


class _Uses:
    """The rewrites of the uses of the parameters bound to a `Callables`."""

    def __init__(self, program, containers, names, kept, namer):
        self.program, self.containers, self.names, self.namer = program, containers, names, namer
        self.kept = kept  # ids of the statements reading an element into a name (`layers_1 = layers[1]`): left as they are

    def display(self, param, keys=None, at=None):
        """A tuple display of the elements of `param` at `keys` (all where None), each its name."""
        container = self.containers[param]
        if keys is None:
            keys = container.keys if container.keys is not None else range(len(container.elements))
        return syntax.located(syntax.tuple_([syntax.name(self.names[param, k]) for k in keys]), at)

    def loops(self, tree):
        """The `for` loops over a container rewritten to run over a display of its
        elements (the tree changed in place), those unroll.run unrolls: {id: the
        iterable as written}."""
        found = {}  # id of a loop -> its iterable as written
        for node in list(traversal.nodes(tree)):
            if isinstance(node, gast.For):
                written = printing.unparse(node.iter).strip()
                new = self.by_position(node)
                new = self.iterable(node.iter) if new is None else new
                if new is not None:
                    node.iter = new
                    found[id(node)] = written
        return found

    def by_position(self, loop):
        """For `for i in range(len(layers))` or `for k in acts` (`acts.keys()`) whose body
        reads `layers[i]` (`acts[k]`): the display of (position or key, element) pairs the
        loop then runs over, its target made `i, layers_i` and those reads that name
        (the loop changed in place); else None."""
        target, iterable, program = loop.target, loop.iter, self.program
        if type(target) is not gast.Name or target.id in traversal.names_stored(loop.body):
            return None
        param, keyed = None, True  # keyed: a dict's keys, else a list's positions
        if type(iterable) is gast.Name:
            param = iterable.id  # a dict's keys (a list's elements are no keys: left to `iterable`)
        elif (type(iterable) is gast.Call and type(iterable.func) is gast.Attribute and iterable.func.attr == "keys"
              and not iterable.args and type(iterable.func.value) is gast.Name):
            param = iterable.func.value.id
        elif (type(iterable) is gast.Call and syntax.is_name(iterable.func) and len(iterable.args) == 1
              and first_meaning(iterable.func.id, program) is builtins.range and type(iterable.args[0]) is gast.Call
              and syntax.is_name(iterable.args[0].func) and first_meaning(iterable.args[0].func.id, program) is builtins.len
              and len(iterable.args[0].args) == 1 and type(iterable.args[0].args[0]) is gast.Name):
            param, keyed = iterable.args[0].args[0].id, False
        container = self.containers.get(param)
        if container is None or (container.keys is not None) != keyed:
            return None
        reads = [n for s in loop.body for n in traversal.nodes(s) if type(n) is gast.Subscript and isinstance(n.ctx, gast.Load)
                 and syntax.is_name(n.value, param) and syntax.is_name(n.slice, target.id)]
        if not reads:
            return None
        element = self.namer.fresh(f"{param}_{target.id}")
        ids = {id(n) for n in reads}
        loop.body = [traversal.rewrite(s, {gast.Subscript: lambda n: syntax.located(syntax.name(element), n)
                                        if id(n) in ids else n}) for s in loop.body]
        loop.target = syntax.located(syntax.tuple_([target, syntax.name(element, store=True)], store=True), target)
        keys = container.keys if container.keys is not None else range(len(container.elements))
        return syntax.located(syntax.tuple_([syntax.tuple_([syntax.const(k), syntax.name(self.names[param, k])])
                                             for k in keys]), iterable)

    def iterable(self, node):
        """`node`, the iterable of a loop, reading a container's elements through a display, or None."""
        if type(node) is gast.Name and node.id in self.containers:
            container = self.containers[node.id]
            if container.keys is not None:  # iterating a dict gives its keys
                return syntax.located(syntax.tuple_([syntax.const(k) for k in container.keys]), node)
            return self.display(node.id, at=node)
        if type(node) is gast.Subscript and type(node.value) is gast.Name and node.value.id in self.containers:
            return self.sliced(node)
        if type(node) is not gast.Call or node.keywords:
            return None
        func = node.func
        if (type(func) is gast.Attribute and type(func.value) is gast.Name and func.value.id in self.containers
                and not node.args and self.containers[func.value.id].keys is not None):
            param, keys = func.value.id, self.containers[func.value.id].keys
            if func.attr == "values":
                return self.display(param, at=node)
            if func.attr == "keys":
                return syntax.located(syntax.tuple_([syntax.const(k) for k in keys]), node)
            if func.attr == "items":
                return syntax.located(syntax.tuple_([syntax.tuple_([syntax.const(k), syntax.name(self.names[param, k])])
                                                     for k in keys]), node)
            return None
        wrapper = first_meaning(func.id, self.program) if type(func) is gast.Name else None
        if wrapper not in (builtins.enumerate, builtins.reversed, builtins.zip):
            return None
        args = [self.iterable(a) for a in node.args]
        if all(a is None for a in args):
            return None
        node.args = [a if new is None else new for a, new in zip(node.args, args)]
        return node

    def sliced(self, node):
        """`layers[1:]` with constant bounds: a display of those elements, else None."""
        param, index = node.value.id, node.slice
        container = self.containers[param]
        if type(index) is not gast.Slice or container.keys is not None:
            return None
        bounds = [None if b is None else _constant(b) for b in (index.lower, index.upper, index.step)]
        if any(b is _NOT_CONSTANT or (b is not None and type(b) is not int) for b in bounds):
            return None
        return self.display(param, range(len(container.elements))[slice(*bounds)], at=node)

    def reads(self, tree):
        """The tree with `layers[k]`, `acts["a"]`, `len(layers)` and the loops' displays
        left by unrolling read through the elements' names; any other use refused."""
        program, containers = self.program, self.containers
        runtime = {}  # id of `layers` in `layers[1]` of a partial or bound method (read as it is but where called) -> its name

        def element(node, name):
            if getattr(program.bound.get(name), "srcgrad_passed", False):
                runtime[id(node.value)] = name  # `layers[1].keywords`: the object itself
                return node
            return syntax.located(syntax.name(name), node)

        def subscript(node):
            if type(node.value) is not gast.Name or node.value.id not in containers or not isinstance(node.ctx, gast.Load):
                return node
            param = node.value.id
            sliced = self.sliced(node)
            if sliced is not None:
                return sliced
            container, key = containers[param], _constant(node.slice)
            if container.keys is not None:
                if key is _NOT_CONSTANT or key not in container.keys:
                    raise self.refuse(node, param, f"`{param}[...]` reads an entry by a key srcgrad does not find in it "
                                      f"at build time (it holds {', '.join(map(repr, container.keys))}); write the key as a "
                                      f"constant, or loop over `{param}.items()`")
                return element(node, self.names[param, key])
            count = len(container.elements)
            if type(key) is not int or not -count <= key < count:
                raise self.refuse(node, param, f"`{param}[...]` reads an element by an index that is not an integer "
                                  f"constant within its {count} elements; loop over it (`for f in {param}:`, also "
                                  f"through `enumerate` or `zip`), or write the index as a constant")
            return element(node, self.names[param, key % count])

        def call(node):
            if type(node.func) is gast.Subscript and id(node.func.value) in runtime:  # `layers[1](h)`: passed_callables.py
                node.func = syntax.located(syntax.name(runtime.pop(id(node.func.value))), node.func)
            called = first_meaning(node.func.id, program) if type(node.func) is gast.Name else None
            if (called is builtins.len and len(node.args) == 1 and not node.keywords and type(node.args[0]) is gast.Name
                    and node.args[0].id in containers):
                return syntax.located(syntax.const(len(containers[node.args[0].id].elements)), node)
            if called in _CONSUMERS and len(node.args) == 1 and type(node.args[0]) is gast.GeneratorExp:
                node.args[0] = self.comprehension(node.args[0])  # `sum(f(x) for f in layers)`: a list's sum
            return node

        rewrites = {gast.Subscript: subscript, gast.Call: call, gast.ListComp: self.comprehension}
        tree.body = [s if id(s) in self.kept else traversal.rewrite(s, rewrites) for s in tree.body]
        handed = set()  # `apply_all(layers, x)`: the callee's derivative is made for the container (bound_calls.py)
        for node in (n for s in tree.body for n in traversal.nodes(s)):
            if type(node) is gast.Call and is_user_function(_meaning(node.func, program)):
                handed |= {id(a) for a in node.args + [k.value for k in node.keywords] if type(a) is gast.Name}
        for node in (n for s in tree.body if id(s) not in self.kept for n in traversal.nodes(s)):
            if type(node) is gast.Name and node.id in containers and id(node) not in handed and id(node) not in runtime:
                raise self.refuse(node, node.id, f"`{program.text(node)}` uses it otherwise")
        return tree

    def comprehension(self, node):
        """The list comprehension (or generator `node` a builtin reads whole) with one
        generator, no condition, over a container: a list display of its element once
        per element of the container, the loop variable replaced; `node` otherwise."""
        if len(node.generators) != 1 or node.generators[0].ifs:
            return node
        generator = node.generators[0]
        iterable = generator.iter
        if type(iterable) is not gast.Tuple:
            iterable = self.iterable(iterable)
        names = _target_names(generator.target)
        if type(iterable) is not gast.Tuple or names is None:
            return node
        copies = []
        for element in iterable.elts:
            parts = [element] if type(generator.target) is gast.Name else element.elts if type(element) is gast.Tuple else []
            if len(parts) != len(names):
                return node
            values = dict(zip(names, parts))
            copies.append(syntax.copy(node.elt, lambda n, values=values: syntax.located(syntax.copy(values[n.id]), n)
                                      if n.id in values and isinstance(n.ctx, gast.Load) else syntax.copy(n)))
        return syntax.located(syntax.list_(copies), node)

    def refuse(self, node, param, why):
        return self.program.error(
            node, f"`{self.program.name}` reads its parameter `{param}`, which holds {self.containers[param].__name__}, "
            f"a container of functions: {why}; srcgrad reads such a container only as `for f in {param}:` (also through "
            f"`enumerate`, `reversed`, `zip`, a slice, a dict's `.items()`, `.values()`), as `{param}[i]` in "
            f"`for i in range(len({param})):` or `{param}[k]` in `for k in {param}:` (a dict), as `{param}[0]` or "
            f"`{param}['key']` with a constant, as `len({param})`, in a list comprehension over it, or handed on to "
            "a function of yours, its loops unrolled over its elements",
            NotDifferentiableError,
        )


def _meaning(func, program):
    """What the called expression `func` means at build time (a dotted name), or MISSING."""
    parts = dotted_parts(func)
    return MISSING if parts is None else lookup_path(parts, program)


_NOT_CONSTANT = object()
_CONSUMERS = frozenset({builtins.sum, builtins.min, builtins.max, builtins.any, builtins.all, builtins.list, builtins.tuple})


def _target_names(target):
    """The names a loop target binds (a name or a flat tuple of names), or None."""
    if type(target) is gast.Name:
        return [target.id]
    if type(target) is gast.Tuple and all(type(e) is gast.Name for e in target.elts):
        return [e.id for e in target.elts]
    return None


def _constant(node):
    """The value of the constant `node` (`1`, `-1`, `"a"`), or _NOT_CONSTANT."""
    if type(node) is gast.Constant:
        return node.value
    if type(node) is gast.UnaryOp and type(node.op) is gast.USub and type(node.operand) is gast.Constant \
            and type(node.operand.value) is int:
        return -node.operand.value
    return _NOT_CONSTANT
