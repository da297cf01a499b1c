"""Displays and comprehensions in A-normal form: the part of `anf._ANF` that turns
`[f(x) for x in xs if c]`, `{k: v for ...}`, generator expressions and tuple, list, set
and dict displays into statements on atoms.

`Displays` is a mixin of `anf._ANF` and relies on its `namer`, `locals`, `pending`,
`atom`, `atoms` and `stmt`. Invariants: a comprehension's variables get fresh names
(they are local to it); an entry of a display is an atom, an inner display getting a
name of its own; a dict display whose keys may be equal when it runs is written entry
by entry, so that Python's last-value-wins rule holds.
"""

import gast

from . import display_keys, syntax, traversal


class Displays:
    def expr_ListComp(self, e, hint=None, result=None):
        """`[f(x) for x in xs if c]` -> `result = []; for x in xs: if c: result.append(f(x))`.

        Comprehension variables get fresh names (they are local to the comprehension).
        A generator expression becomes a list the same way.
        """
        result = result or self.namer.fresh(hint or "items")
        self.locals.add(result)
        renames = {}
        for gen in e.generators:
            for n in traversal.walk(gen.target):
                if isinstance(n, gast.Name):
                    renames[n.id] = self.namer.fresh(n.id)
        self.locals |= set(renames.values())

        def renamed(node):
            node = syntax.copy(node)
            for n in traversal.walk(node):
                if isinstance(n, gast.Name) and n.id in renames:
                    n.id = renames[n.id]
            return node

        if isinstance(e, gast.DictComp):  # `{k: v for ...}`: `result[k] = v` on a new dict
            put = syntax.assign(syntax.subscript(syntax.name(result), renamed(e.key)), renamed(e.value))
            body, empty = [syntax.located(put, e)], gast.Dict(keys=[], values=[])
        else:
            append = syntax.call(syntax.attr(syntax.name(result), "append"), [renamed(e.elt)])
            body, empty = [syntax.located(syntax.expr(append), e)], syntax.list_([])
        for k, gen in reversed(list(enumerate(e.generators))):
            for cond in reversed(gen.ifs):
                body = [syntax.located(syntax.if_(renamed(cond), body), e)]
            iterable = gen.iter if k == 0 else renamed(gen.iter)
            loop = gast.For(target=renamed(gen.target), iter=iterable, body=body, orelse=[], type_comment=None)
            body = [syntax.located(loop, e)]
        pre = [syntax.located(syntax.assign(result, empty), e)]
        for stmt in body:
            pre += [syntax.located(new, stmt) for new in self.stmt(stmt)]
        return pre, syntax.name(result)

    expr_GeneratorExp = expr_ListComp
    expr_DictComp = expr_ListComp

    def expr_Tuple(self, e):
        pre, elts = self.entries(e.elts)
        return pre, syntax.tuple_(elts)

    def expr_List(self, e):
        pre, elts = self.entries(e.elts)
        return pre, syntax.list_(elts)

    def expr_Set(self, e):  # `{1, 2}`; activity.refuse_displays refuses one holding differentiated values
        pre, elts = self.entries(e.elts)
        return pre, syntax.located(syntax.set_(elts), e)

    def entries(self, exprs):
        """Atoms for the entries of a display; an inner display gets a name of its own, and
        `*a` (of a length idioms.py could not see: a shape) unpacks an atom."""
        starred = [k for k, e in enumerate(exprs) if type(e) is gast.Starred]
        if starred:
            pre, out = self.entries([e.value if type(e) is gast.Starred else e for e in exprs])
            for k in starred:
                out[k] = syntax.located(syntax.starred(out[k]), exprs[k])
            return pre, out
        pre, out = self.atoms(exprs)
        for k, a in enumerate(out):
            if isinstance(a, (gast.Tuple, gast.List)):
                temp = self.namer.fresh("part")
                pre.append(syntax.assign(temp, a))
                out[k] = syntax.name(temp)
        return pre, out

    def expr_Dict(self, e):
        return self.dict_display(e, *self.dict_entries(e))

    def dict_entries(self, e):
        """(statements, keys, values): atoms for the keys and values of the display `e`."""
        if self.pending:  # a walrus: Python evaluates each key, then its value
            pre, keys, values = [], [], []
            for key, value in zip(e.keys, e.values):
                p, k = self.atom(key)
                p2, (v,) = self.entries([value])
                pre += p + p2
                keys.append(k)
                values.append(v)
            return pre, keys, values
        pre, keys = self.atoms(e.keys)
        pre2, values = self.entries(e.values)
        return pre + pre2, keys, values

    def dict_display(self, e, pre, keys, values, result=None):
        """(statements, simple expression) for the display `e` whose keys and values the
        statements `pre` computed as the atoms `keys` and `values`: Python keeps the last
        value of equal keys, in the place of the first. Written entry by entry, the dict
        is built under the name `result` when given (`d = {k: u, j: v}`), as a
        comprehension is."""
        if None in keys or len(keys) < 2:
            return pre, gast.Dict(keys=keys, values=values)
        kept = display_keys.kept(keys)
        if kept is not None:
            return pre, gast.Dict(keys=[keys[k] for k, _ in kept], values=[values[v] for _, v in kept])
        # keys that may be equal when it runs: the display as the writes it makes, in order
        temp = result or self.namer.fresh("entries")
        self.locals.add(temp)
        writes = [syntax.located(syntax.assign(temp, syntax.dict_([], [])), e)]
        for k, v in zip(keys, values):
            writes += self.stmt(syntax.located(syntax.assign(syntax.subscript(syntax.name(temp), k), v), e))
        return pre + writes, syntax.name(temp)
