"""Statements of tests/fuzz_grammar.py built from tuple assignments into arrays, `def`s
inside blocks and loops over converted and combined sequences:

- element swaps `v[i], v[j] = v[j], v[i]` (constant and loop-variable indices, one pass of
  a bubble sort), swaps of rows and columns (NumPy reads views: both end up equal to the
  old second one), swaps between two arrays, tuples of other values;
- a `def` inside an `if` or a loop body, called in the block, later, or after the enclosing
  variables changed (late binding), with a default binding the loop variable;
- loops and comprehensions over `v.tolist()`, `list(v)`, `tuple(v)`, `sorted(...)`,
  `list(m)` (rows that are views), `zip(d.keys(), d.values())`, `enumerate(d.values())`,
  `reversed(d.values())`, `itertools.combinations`/`combinations_with_replacement`/
  `permutations`/`product`, `np.ndenumerate(m)`, sometimes writing the array they iterate.
"""

PRELUDE = '''
import itertools
from itertools import combinations, product


'''


class IterableStatements:
    """A mixin of fuzz_grammar.Program: `swapped`, `block_def` and `iterated` each emit one
    statement group."""

    def _tools(self, env, indent):
        S = lambda d=1: self.squash(self.expr("s", env, d))  # noqa: E731
        emit = lambda text, more=0: self.emit(indent + more, text)  # noqa: E731
        owned = {k: [n for n in env[k] if n in self.owned] for k in ("v", "m", "q")}
        return S, emit, owned

    def swapped(self, env, indent, loop_vars):
        self.jaxable = False
        S, emit, owned = self._tools(env, indent)
        s = self.pick(env["s"])
        if not owned["v"] or not owned["m"]:
            emit(f"{s}, {self.pick(env['s'])} = {self.pick(env['s'])}, {s}")
            return
        v, m = self.pick(owned["v"]), self.pick(owned["m"])
        var = self.pick(loop_vars) if loop_vars else None
        form = self.r(13)
        if form == 0:
            i, j = self.pick([(0, 1), (0, 2), (1, 2), (2, 0), (-1, 0)])
            emit(f"{v}[{i}], {v}[{j}] = {v}[{j}], {v}[{i}]")
        elif form == 1 and var:
            emit(f"{v}[{var}], {v}[({var} + 1) % 3] = {v}[({var} + 1) % 3], {v}[{var}]")
        elif form == 1 or form == 2:
            u = self.fresh("u")
            emit(f"for {u} in range({self.pick(['2', 'len(' + v + ') - 1'])}):")
            emit(f"if {self.gt(f'{v}[{u}]', f'{v}[{u} + 1]')}:", 1)
            emit(f"{v}[{u}], {v}[{u} + 1] = {v}[{u} + 1], {v}[{u}]", 2)
        elif form == 3:
            emit(f"{m}[0], {m}[1] = {m}[1], {m}[0]")
        elif form == 4:
            i, j = self.pick([(0, 2), (1, 0), (2, 1)])
            emit(f"{m}[:, {i}], {m}[:, {j}] = {m}[:, {j}], {m}[:, {i}]")
        elif form == 5:
            emit(f"{v}[0], {v}[1] = {v}[1] * {self.pick(['2.0', s])}, {v}[0]")
        elif form == 6:
            emit(f"{v}[{self.r(3)}], {v}[{self.r(3)}] = {S()}, {v}[{self.r(3)}]")
        elif form == 7:
            other = self.pick(owned["v"])
            emit(f"{v}[{self.r(3)}], {other}[{self.r(3)}] = {other}[{self.r(3)}], {v}[{self.r(3)}]")
        elif form == 8:
            emit(f"{m}[0, {self.r(3)}], {m}[1, {self.r(3)}] = {m}[1, {self.r(3)}], {m}[0, {self.r(3)}]")
        elif form == 9:
            emit(f"{v}[{self.r(3)}], {s} = {s}, {v}[{self.r(3)}]")
        elif form == 10 and owned["q"]:
            q = self.pick(owned["q"])
            emit(f"{q}[{self.r(3)}], {q}[{self.r(3)}] = {q}[{self.r(3)}], {q}[{self.r(3)}]")
        elif form == 11 and var:
            emit(f"{m}[{var} % 2, {var}], {m}[1 - {var} % 2, {var}] = {m}[1 - {var} % 2, {var}], {m}[{var} % 2, {var}]")
        else:
            emit(f"{v}[1:], {v}[0] = {v}[:2] * {self.pick(['0.5', s])}, {v}[2]")

    def block_def(self, env, indent, loop_vars):
        self.jaxable = False
        S, emit, owned = self._tools(env, indent)
        s, s2 = self.pick(env["s"]), self.pick(env["s"])
        g = self.fresh("g")
        form = self.r(7)
        if form == 6 and owned["v"]:
            v, u = self.pick(owned["v"]), self.fresh("u")
            emit(f"for {u} in range({self.r(2) + 2}):")
            emit(f"def {g}(t):", 1)
            emit(f"return t * {v}[{u}] + np.sin({v}[({u} + 1) % 3])", 2)
            emit(f"{v}[{u}] = {g}({S()})", 1)
            emit(f"{s} = {s} + 0.5 * {g}({s2})")
        elif form == 0:
            emit(f"if {self.gt(self.expr('s', env, 1), self.pick(['0.0', '0.3']))}:")
            emit(f"def {g}(t):", 1)
            emit(f"return np.sin(t) * {s2}", 2)
            emit("else:")
            emit(f"def {g}(t):", 1)
            emit(f"return t * t + {self.pick(env['s'])}", 2)
            emit(f"{s} = {s} + 0.5 * np.sum({g}({self.expr(self.pick(['s', 'v']), env, 1)}))")
        elif form == 1:
            u = self.fresh("u")
            emit(f"for {u} in range({self.r(3) + 1}):")
            emit(f"def {g}(t):", 1)
            emit(f"return np.tanh(t * {u} + {s2})", 2)
            emit(f"{s} = {s} + 0.5 * {g}({S()})", 1)
            if self.chance(0.5):
                emit(f"{s} = {s} + 0.25 * {g}({self.pick(env['s'])})")
        elif form == 2:
            t = self.fresh("t")
            emit(f"for {t} in {self.expr('v', env, 1)}:")
            emit(f"def {g}(p):", 1)  # (a default reading `{t}` is refused)
            emit(f"return np.sin(p * {t}) + {t}", 2)
            emit(f"{s} = {s} + 0.3 * {g}({s2})", 1)
        elif form == 3:
            c = self.fresh("c")
            u = self.fresh("u")
            emit(f"{c} = {S()}")
            emit(f"for {u} in range(2):")
            emit(f"def {g}(t):", 1)
            emit(f"return t * {c}", 2)
            emit(f"{c} = np.tanh({c} + {s2})", 1)
            emit(f"{s} = {s} + 0.5 * {g}({s2})", 1)
        elif form == 4 and owned["v"]:
            v = self.pick(owned["v"])
            emit(f"if {self.gt(self.expr('s', env, 1), '0.0')}:")
            emit(f"def {g}(t):", 1)
            emit(f"return np.sum(t * {v})", 2)
            emit("else:")
            emit(f"def {g}(t):", 1)
            emit(f"return np.sum(np.cos({v})) * t", 2)
            emit(f"{v}[{self.r(3)}] = {S()}")
            emit(f"{s} = {s} + 0.5 * {g}({s2})")
        else:
            u = self.fresh("u")
            emit(f"for {u}, t in enumerate({self.expr('w', env, 1)}):")
            emit(f"if {self.gt('t', '0.0')}:", 1)
            emit(f"def {g}(p):", 2)
            emit(f"return p * t", 3)
            emit("else:", 1)
            emit(f"def {g}(p):", 2)
            emit(f"return np.sin(p) * {u}", 3)
            emit(f"{s} = {s} + 0.5 * {g}({s2})", 1)

    def iterated(self, env, indent, loop_vars):
        self.jaxable = False
        S, emit, owned = self._tools(env, indent)
        s = self.pick(env["s"])
        V = lambda: self.expr("v", env, 1)  # noqa: E731
        t, t2 = self.fresh("t"), self.fresh("t")
        inner = {k: list(v) for k, v in env.items()}
        inner["s"] = inner["s"] + [t]
        Si = lambda d=1: self.squash(self.expr("s", inner, d))  # noqa: E731
        v = self.pick(owned["v"]) if owned["v"] else None
        m = self.pick(owned["m"]) if owned["m"] else None
        form = self.r(19)
        if form == 0:
            other = self.pick(env["s"])
            seq = self.pick([f"{V()}.tolist()", f"list({V()})", f"tuple({V()})", self.builtin("sorted", V() + ".tolist()"),
                             self.builtin("sorted", f"[{S()}, {S()}, {other}]")])
            emit(f"for {t} in {seq}:")
            emit(f"{s} = {Si()} + 0.5 * {s}", 1)
        elif form == 1:
            u = self.fresh("u")
            emit(f"for {u}, {t} in enumerate({self.pick([V() + '.tolist()', f'list({V()})'])}):")
            if v and self.chance(0.6):
                emit(f"{v}[({u} + {self.r(3)}) % 3] = {t} * {self.pick(env['s'])} + 0.5 * {v}[{u}]", 1)
            else:
                emit(f"{s} = {s} + np.sin({t} * {u})", 1)
        elif form == 2:
            emit(f"{s} = {s} + 0.5 * {self.pick(['sum', 'np.sum'])}([{Si()} for {t} in {self.pick([V() + '.tolist()', f'tuple({V()})'])}])")
        elif form == 3:
            rows = self.expr("m", env, 1)
            emit(f"for row in {self.pick([rows + '.tolist()', f'list({rows})'])}:")
            emit(f"{s} = {s} + 0.3 * np.tanh(row[0] * row[{self.r(3)}])", 1)
        elif form == 4 and m:
            emit(f"for row in {self.pick([f'list({m})', f'tuple({m})', m])}:")
            emit(f"{m}[{self.r(2)}] = {m}[{self.r(2)}] * 0.5 + np.sin(row) * {self.pick(env['s'])}", 1)
        elif form == 5:
            dd = self.fresh("DD")
            emit(f"{dd} = {{'p': {V()}, 'qq': {S()}}}")
            emit(f"for k, {t} in zip({dd}.keys(), {dd}.values()):")
            emit(f"{s} = {s} + 0.5 * np.sum(np.tanh({t})) * len(k)", 1)
        elif form == 6:
            dd = self.fresh("DD")
            emit(f"{dd} = {{'p': {v or V()}, 'q': {S()}}}")
            if v and self.chance(0.5):
                emit(f"{v}[{self.r(3)}] = {S()}")
            emit(f"for u, {t} in enumerate({self.pick([f'{dd}.values()', f'reversed({dd}.values())'])}):")
            emit(f"{s} = np.sin({s} + np.sum({t}) * (u + 1))", 1)
        elif form == 7:
            dd = self.fresh("DD")
            emit(f"{dd} = {{'p': {S()}, 'q': {V()}}}")
            emit(f"{s} = {s} + 0.3 * sum([np.sum({t} * {t}) for {t} in {dd}.values()])")
        elif form == 8:
            fn = self.pick(["itertools.combinations", "combinations", "itertools.combinations_with_replacement",
                            "itertools.permutations"])
            other = self.pick(env["s"])
            emit(f"for {t}, {t2} in {fn}({self.pick([V(), f'[a, b, {other}]', 'L'])}, 2):")
            emit(f"{s} = {s} + 0.3 * np.tanh({t} * {t2})", 1)
        elif form == 9:
            emit(f"for {t}, {t2} in {self.pick(['product', 'itertools.product'])}({self.expr('w', env, 1)}, {V()}):")
            emit(f"{s} = np.sin({s} + {t} * {t2})", 1)
        elif form == 10:
            mm = m if m and self.chance(0.5) else self.expr("m", env, 1)
            emit(f"for (i1, j1), {t} in np.ndenumerate({mm}):")
            if mm == m and self.chance(0.6):
                emit(f"{m}[(i1 + 1) % 2, j1] = {m}[(i1 + 1) % 2, j1] * 0.5 + np.sin({t}) * {self.pick(env['s'])}", 1)
            else:
                emit(f"{s} = {s} + 0.2 * np.tanh({t}) * (i1 + j1)", 1)
        elif form == 11 and v:
            emit(f"for {t}, {t2} in combinations({v}, 2):")
            emit(f"{v}[{self.r(3)}] = {v}[{self.r(3)}] * 0.5 + {t} * {t2}", 1)
        elif form == 12 and m:
            emit(f"for r1, r2 in itertools.combinations({m}, 2):")
            emit(f"{m}[{self.r(2)}] = np.sin(r1 + r2) * {self.pick(env['s'])}", 1)
        elif form == 13:
            emit(f"{s} = {s} + 0.2 * sum({t} * {t2} for {t}, {t2} in itertools.combinations({V()}, 2))")
        elif form == 14:
            emit(f"for {t} in {self.pick(['L', 'list(L)', 'tuple(L)'])}:")
            emit(f"{s} = {s} + 0.5 * np.sin({t})", 1)
        elif form == 15:
            emit(f"for {t}, {t2} in zip({V()}.tolist(), list({V()})):")
            emit(f"{s} = np.tanh({s} + {t} * {t2})", 1)
        elif form == 17:
            emit(f"for {t}, {t2} in {self.builtin('sorted', f'zip({V()}.tolist(), {V()})', 'key=lambda p: p[0]')}:")
            emit(f"{s} = np.sin({s} * {t2} + {t})", 1)
        elif form == 16 and v:
            emit(f"for {t} in {v}.tolist():")
            emit(f"{v}[{self.r(3)}] = {v}[{self.r(3)}] + {t} * 0.5", 1)
        else:
            emit(f"for {t}, {t2} in itertools.product({self.pick(['[a, b]', V() + '[:2]'])}, {self.pick(['[0.5, 1.5]', V()])}):")
            emit(f"{s} = {s} + 0.2 * np.tanh({t} * {t2})", 1)
