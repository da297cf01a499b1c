"""The grammar of tests/compiler_fuzz.py: random NumPy programs over two Python floats
`a`, `b`, a vector `x` (3,), a matrix `M` (2, 3) and a column `c` (3, 1).

Every value has a kind, its shape: "s" a scalar, "v" (3,), "w" (2,), "m" (2, 3), "c" (3, 1),
"q" (3, 3). An expression is drawn for a kind from operations that give it (element-wise
functions, broadcasting, reductions with axis/keepdims, matmul, slicing, cumsum/sort/
concatenate/stack, where/maximum/clip/abs, comprehensions, helper calls with keywords and
defaults, closures, lambdas, namedtuples, dicts, lists, `math` on floats). Statements
assign (squashed by sin/tanh/0.5 so values stay bounded), write into arrays the program
made (index, slice, mask, fancy index, `np.add.at`, `+=`), append to a list, write a dict,
branch, loop (`for` over ranges, arrays, `enumerate`, `zip`; `while` on data with
`break`/`continue`/`else`), and return early; tests/fuzz_risky.py, tests/fuzz_loops.py and
tests/fuzz_iterables.py and tests/fuzz_session.py add statement groups.

`Program(seed, twin)` prints the same program for the same seed whatever `twin` is; the
twin routes every comparison and every kink (maximum, abs, clip, sort, max, builtin
max/min) through `_k.*`, which records how far it was from flipping, so that programs
closer to a kink than finite differences can tell apart are skipped.
"""

import numpy as np

from fuzz_iterables import PRELUDE as ITERABLE_PRELUDE, IterableStatements
from fuzz_loops import PRELUDE as LOOP_PRELUDE, LoopStatements
from fuzz_risky import PRELUDE as RISKY_PRELUDE, RiskyStatements
from fuzz_session import PRELUDE as SESSION_PRELUDE, SessionStatements

SESSION_WEIGHT = 5  # fuzz_session statements among the choices (compiler_fuzz.py --session: 25)
KINDS = ("s", "v", "w", "m", "c", "q")
SHAPES = {"s": (), "v": (3,), "w": (2,), "m": (2, 3), "c": (3, 1), "q": (3, 3)}
SQUASH = ("np.sin({})", "np.tanh({})", "0.5 * ({})", "np.cos({})")
UNARY = ("np.sin({})", "np.cos({})", "np.tanh({})", "np.exp(np.tanh({}))", "np.log(1.5 + np.sin({}))",
         "np.sqrt(1.0 + {0} * {0})", "(({}) ** 2)", "np.arctan({})", "np.square({})", "np.sinh(np.tanh({}))")
BINARY = ("({} + {})", "({} - {})", "({} * {})", "({} / (1.5 + np.sin({})))")

PRELUDE = '''from collections import namedtuple


def helper(p, q=0.5, *, scale=1.0):
    return np.tanh(p * q) * scale


def pair(p, q):
    return np.sin(q), np.cos(p) * q


def pack(items, w=2.0):
    total = 0.0
    for t in items:
        total = total + np.tanh(t) * w
    return total


def split(d, key="p"):
    return d[key] * 0.5, np.sin(d["q"])


def nested(p, k=2):
    def inner(t, scale=0.5):
        return np.sin(t) * p * scale
    return inner(p) + k * 0.1 * inner(0.5 * p, scale=k)


def rows(A, weights=(1.0, 0.5)):
    out = []
    for row, wt in zip(A, weights):
        out.append(np.tanh(row) * wt)
    return out


P = namedtuple("P", "w b")


'''


class Program(RiskyStatements, LoopStatements, IterableStatements, SessionStatements):
    """Draws one program; `.text` (the module), `.vector_text` (the same function
    returning a (3,) vector), `.jaxable` (only jax.numpy functions, no writes and no
    control flow on data)."""

    def __init__(self, seed, twin=False):
        self.rng = np.random.default_rng(seed)
        self.twin = twin
        self.jaxable = True
        self.count = 0
        self.returns = []
        self.lines = []
        env = {k: [] for k in KINDS}
        env.update(s=["a", "b"], v=["x"], m=["M"], c=["c"])
        self.owned = set()
        self.extras = ()  # parameters after `c`, not differentiated: compiler_fuzz.passed
        self.float32 = self.chance(0.15)
        self.straight = self.chance(0.3)  # no branches, loops or writes: also checked against JAX
        body = self.body(env)
        params = ", ".join(("a", "b", "x", "M", "c") + tuple(self.extras))
        self.text = (PRELUDE + RISKY_PRELUDE + LOOP_PRELUDE + ITERABLE_PRELUDE + SESSION_PRELUDE + self.containers()
                     + f"def f({params}):\n" + body)
        self.vector_text = self.text.replace("def f(", "def f_vec(")
        for n, ret_env in enumerate(self.returns):
            self.text = self.text.replace(f"__RET{n}__", self.result(ret_env, False))
            self.vector_text = self.vector_text.replace(f"__RET{n}__", self.result(ret_env, True))

    # --- randomness ---------------------------------------------------------------------
    def r(self, n):
        return int(self.rng.integers(n))

    def pick(self, seq):
        return seq[self.r(len(seq))]

    def chance(self, p):
        return self.rng.random() < p

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    # --- kinks: the twin records the margin ---------------------------------------------
    def gt(self, left, threshold):
        return f"_k.gt({left}, {threshold})" if self.twin else f"{left} > {threshold}"

    def kink(self, name, *args):
        joined = ", ".join(args)
        return f"_k.{name}({joined})" if self.twin else f"np.{name}({joined})"

    def builtin(self, name, *args):
        joined = ", ".join(args)
        return f"_k.b{name}({joined})" if self.twin else f"{name}({joined})"

    # --- expressions ----------------------------------------------------------------------
    def expr(self, kind, env, depth):
        if depth <= 0 or self.chance(0.25):
            return self.atom(kind, env, depth)
        return getattr(self, "expr_" + kind)(env, depth - 1)

    def atom(self, kind, env, depth):
        if env[kind] and self.chance(0.85):
            return self.pick(env[kind])
        if kind == "s":
            return self.pick(["0.5", "1.3", "-0.7"])
        return getattr(self, "expr_" + kind)(env, max(depth - 1, 0))

    def elementwise(self, kind, env, depth):
        if self.chance(0.5):
            return self.pick(UNARY).format(self.expr(kind, env, depth))
        other = self.expr(kind if self.chance(0.6) else "s", env, depth)
        first, second = self.expr(kind, env, depth), other
        if self.chance(0.5):
            first, second = second, first
        template = self.pick(BINARY)
        return template.format(first, second) if template.count("{}") == 2 else template.format(first, second)

    def expr_s(self, env, d):
        e = lambda k: self.expr(k, env, d)  # noqa: E731
        choice = self.r(30)
        if choice < 6:
            return self.elementwise("s", env, d)
        options = [
            lambda: f"np.sum({e('v')})", lambda: f"np.mean({e('m')})", lambda: f"{e('v')}[{self.r(3)}]",
            lambda: f"{e('v')}[-1]", lambda: f"np.dot({e('v')}, {e('v')})", lambda: f"({e('v')} @ {e('v')})",
            lambda: f"np.prod(np.tanh({e('v')}) + 1.5)", lambda: f"np.sqrt(np.sum({e('v')} ** 2) + 1.0)",
            lambda: self.kink("max", e("v")), lambda: self.kink("min", e("w")),
            lambda: f"{e('m')}[1, {self.r(3)}]", lambda: f"np.trace({e('q')})", lambda: f"{e('c')}[1, 0]",
            lambda: f"np.var({e('v')})", lambda: f"{e('w')}.sum()", lambda: f"np.sum({e('m')}, axis=(0, 1))",
            lambda: self.math_s(env), lambda: self.builtin("max", e("s"), e("s")), lambda: f"np.sum({e('q')}[1:, :2])",
            lambda: f"sum(np.sin(t) * {e('s')} for t in {e('v')})",
            lambda: f"sum([t * {e('s')} for t in {e('w')}])",
            lambda: f"sum(t for t in {e('v')} if {self.gt('t', '0.1')})",
            lambda: f"helper({e('s')})", lambda: f"helper({e('s')}, {e('s')})",
            lambda: f"helper({e('s')}, scale=0.5)", lambda: f"helper(q={e('s')}, p={e('s')})",
            lambda: f"nested({e('s')})", lambda: f"nested({e('s')}, k=3)",
            lambda: f"pack([{e('s')}, {e('s')}])", lambda: f"pack(({e('s')}, {e('s')}), w={e('s')})",
            lambda: f"pack({e('v')})", lambda: f"split({{'p': {e('s')}, 'q': {e('s')}}})[{self.r(2)}]",
            lambda: f"split({{'p': {e('s')}, 'q': {e('s')}}}, key='q')[0]",
            lambda: f"lam({e('s')})", lambda: f"inner({e('s')})",
            lambda: f"({e('s')} if {self.gt(e('s'), '0.2')} else {e('s')})",
            lambda: f"P(w={e('v')}, b={e('s')}).b", lambda: f"np.sum(P({e('v')}, {e('s')}).w)",
            lambda: f"pair({e('s')}, {e('s')})[{self.r(2)}]", lambda: f"np.sum(rows({e('m')})[{self.r(2)}])",
            lambda: f"np.linalg.norm({e('v')} + 3.0)", lambda: f"{e('v')}.dot({e('v')})",
            lambda: f"np.einsum('i,i->', {e('v')}, {e('v')})", lambda: f"np.sum(np.diff({e('v')}))",
        ] + self.more_s(e)
        text = self.pick(options)()
        if any(word in text for word in ("sum(np.sin(t)", "sum([t", "sum(t for", "P(", "rows(", " for t in ", "pack(", "split(",
                                         "nested(", "pair(", " if ")):
            self.jaxable = self.jaxable and " if " not in text  # data-dependent Python choices
        return text

    def math_s(self, env):
        self.jaxable = False
        inner = self.expr("s", env, 1)
        return self.pick([f"math.sin({inner})", f"math.exp(math.tanh({inner}))", f"math.cos({inner}) * a",
                          f"math.sqrt(1.0 + {inner} ** 2)", f"math.log1p(math.tanh({inner}) ** 2)"])

    def expr_v(self, env, d):
        e = lambda k: self.expr(k, env, d)  # noqa: E731
        if self.chance(0.35):
            return self.elementwise("v", env, d)
        options = [
            lambda: f"{e('m')}[{self.r(2)}]", lambda: f"{e('m')}[1, :]", lambda: f"np.sum({e('m')}, axis=0)",
            lambda: f"{e('m')}.mean(axis=0)", lambda: f"np.sum({e('m')}, axis=0, keepdims=True)[0]",
            lambda: f"{e('c')}[:, 0]", lambda: f"{e('c')}.ravel()", lambda: f"{e('c')}.reshape(3)",
            lambda: f"np.squeeze({e('c')}, axis=1)", lambda: f"({e('q')} @ {e('v')})", lambda: f"({e('v')} @ {e('q')})",
            lambda: f"{e('q')}.sum(axis=0)", lambda: f"np.diag({e('q')})", lambda: f"np.cumsum({e('v')})",
            lambda: self.kink("sort", e("v")), lambda: f"{e('v')}[::-1]",
            lambda: f"np.concatenate([{e('v')}[:1], {e('v')}[1:] * {e('s')}])",
            lambda: f"np.concatenate([{e('v')}[:2], {e('w')}[:1]])", lambda: f"np.stack([{e('s')}, {e('s')}, {e('s')}])",
            lambda: f"np.array([{e('s')}, {e('s')}, {e('s')}])",
            lambda: f"np.where({self.gt(e('v'), '0.1')}, {e('v')}, {e('v')})",
            lambda: self.kink("maximum", e("v"), e("v")), lambda: self.kink("minimum", e("v"), e("s")),
            lambda: self.kink("clip", e("v"), "-0.5", "0.5"), lambda: self.kink("abs", e("v")),
            lambda: f"np.roll({e('v')}, 1)", lambda: f"({e('w')} @ {e('m')})", lambda: f"np.flip({e('v')})",
            lambda: f"{e('v')}[[2, 0, 1]]", lambda: f"{e('v')}[np.array([0, 0, 2])]",
            lambda: f"np.einsum('ij,j->i', {e('q')}, {e('v')})", lambda: f"np.dot({e('q')}, {e('v')})",
            lambda: f"np.array([np.sin(t) * {e('s')} for t in {e('v')}])",
            lambda: f"(np.tanh({e('v')}) * np.cos({e('s')}))", lambda: f"np.mean({e('q')}, axis=1)",
            lambda: f"np.cumprod(np.tanh({e('v')}) + 1.2)", lambda: self.kink("max", e("m"), "axis=0"),
            lambda: f"{e('q')}[np.arange(3), [1, 2, 0]]", lambda: f"np.hstack([{e('w')}, {e('s')}])",
        ] + self.more_v(e)
        text = self.pick(options)()
        self.jaxable = self.jaxable and " if " not in text
        return text

    def expr_w(self, env, d):
        e = lambda k: self.expr(k, env, d)  # noqa: E731
        if self.chance(0.35):
            return self.elementwise("w", env, d)
        return self.pick([
            lambda: f"({e('m')} @ {e('v')})", lambda: f"{e('m')}[:, {self.r(3)}]", lambda: f"{e('m')}.sum(axis=1)",
            lambda: f"{e('v')}[:2]", lambda: f"{e('v')}[1:]", lambda: f"np.array([{e('s')}, {e('s')}])",
            lambda: f"np.mean({e('m')}, axis=-1)", lambda: f"{e('v')}[::2]", lambda: f"np.diff({e('v')})",
            lambda: f"np.matmul({e('m')}, {e('c')})[:, 0]", lambda: f"({e('w')} @ {e('m')} @ {e('m')}.T)",
        ] + self.more_w(e))()

    def expr_m(self, env, d):
        e = lambda k: self.expr(k, env, d)  # noqa: E731
        if self.chance(0.35):
            return self.elementwise("m", env, d)
        return self.pick([
            lambda: f"np.outer({e('w')}, {e('v')})", lambda: f"np.stack([{e('v')}, {e('v')}])",
            lambda: f"np.vstack([{e('v')}, {e('v')}])", lambda: f"({e('v')} * {e('w')}[:, None])",
            lambda: f"({e('m')} * {e('v')})", lambda: f"({e('m')} + {e('s')})", lambda: f"({e('m')} * {e('c')}.T)",
            lambda: f"({e('m')} @ {e('q')})", lambda: f"{e('q')}[:2]", lambda: f"{e('q')}[1:, :]",
            lambda: f"np.transpose({e('q')})[:2]", lambda: f"{e('m')}[::-1]", lambda: f"np.cumsum({e('m')}, axis=1)",
            lambda: f"({e('m')} - np.mean({e('m')}, axis=1, keepdims=True))",
            lambda: self.kink("maximum", e("m"), e("v")), lambda: f"np.where({self.gt(e('m'), '0.0')}, {e('m')}, {e('s')})",
            lambda: f"({e('v')}.reshape(1, 3) * {e('w')}.reshape(2, 1))",
            lambda: f"np.concatenate([{e('m')}[:, :1], {e('m')}[:, 1:]], axis=1)",
            lambda: f"np.stack(rows({e('m')}))", lambda: f"{e('m')}.reshape(3, 2).T",
            lambda: f"np.swapaxes({e('m')}.reshape(1, 2, 3), 0, 1)[:, 0, :]",
        ])()

    def expr_c(self, env, d):
        e = lambda k: self.expr(k, env, d)  # noqa: E731
        if self.chance(0.3):
            return self.elementwise("c", env, d)
        return self.pick([
            lambda: f"{e('v')}[:, None]", lambda: f"{e('v')}.reshape(3, 1)", lambda: f"np.expand_dims({e('v')}, 1)",
            lambda: f"np.sum({e('q')}, axis=1, keepdims=True)", lambda: f"({e('q')} @ {e('c')})",
            lambda: f"({e('c')} * {e('s')})", lambda: f"{e('m')}.T[:, :1]", lambda: f"np.mean({e('q')}, axis=1, keepdims=True)",
            lambda: f"({e('m')}.T @ {e('w')}[:, None])", lambda: self.kink("max", e("q"), "axis=1", "keepdims=True"),
        ])()

    def expr_q(self, env, d):
        e = lambda k: self.expr(k, env, d)  # noqa: E731
        if self.chance(0.3):
            return self.elementwise("q", env, d)
        return self.pick([
            lambda: f"({e('c')} * {e('v')})", lambda: f"({e('c')} @ {e('c')}.T)", lambda: f"({e('c')} + {e('v')})",
            lambda: f"np.outer({e('v')}, {e('v')})", lambda: f"({e('m')}.T @ {e('m')})", lambda: f"{e('q')}.T",
            lambda: f"(np.tanh({e('q')}) @ np.tanh({e('q')}))", lambda: f"(np.eye(3) * {e('s')})",
            lambda: f"np.triu({e('q')})", lambda: f"np.diag({e('v')})", lambda: f"({e('q')} - {e('q')}.T)",
            lambda: self.kink("sort", e("q"), "axis=1"), lambda: f"np.tril({e('q')}, -1)",
            lambda: f"np.linalg.inv(np.eye(3) * 3.0 + np.tanh({e('q')}))",
        ])()

    # --- statements --------------------------------------------------------------------
    def squash(self, text):
        return self.pick(SQUASH).format(text)

    def body(self, env):
        self.lines = []
        pre = ["    y = np.zeros(3)", "    Y = np.zeros((2, 3))", "    L = []", "    D = {'p': 0.0, 'q': 0.5}",
               "    lam = lambda t, k=0.5: np.sin(t) * k + a", "", "    def inner(t):",
               "        return np.tanh(t * a) + np.sum(x) * 0.1", ""]
        self.lines += pre
        env["v"] = env["v"] + ["y"]
        env["m"] = env["m"] + ["Y"]
        self.owned |= {"y", "Y"}
        self.block(env, 1, [], False, top=True, count=self.r(5) + 2)
        self.lines.append(f"    return __RET{len(self.returns)}__")
        self.returns.append({k: list(v) for k, v in env.items()})
        return "\n".join(self.lines) + "\n"

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def block(self, env, indent, loop_vars, in_loop, top=False, count=None):
        size = len(self.lines)
        for _ in range(count or self.r(3) + 1):
            self.statement(env, indent, loop_vars, in_loop, top)
        if len(self.lines) == size:
            self.emit(indent, f"{self.pick(env['s'])} = {self.squash(self.expr('s', env, 1))}")

    def statement(self, env, indent, loop_vars, in_loop, top):
        depth = indent - 1
        choices = ["assign"] * 4 + ["augmented", "write", "write", "append", "dict", "tuple", "record", "risky", "risky",
                                  "looped", "looped", "swapped", "swapped", "block_def", "iterated", "iterated",
                                  "iterated"] + ["session"] * SESSION_WEIGHT
        if top:
            choices += ["new"] * 5
        if depth < 2:
            choices += ["if", "if", "for", "for", "while"]
        choices += ["jump", "jump"] if in_loop else ["return"]
        if self.straight:
            choices = [c for c in choices if c in ("new", "assign", "append", "dict", "tuple", "record")]
        kind = self.pick(choices)
        kinds = [k for k in KINDS if env[k]]
        if kind == "new":
            k = self.pick(KINDS)
            name = self.fresh(k)
            self.emit(indent, f"{name} = {self.squash(self.expr(k, env, 2 + self.r(2)))}")
            env[k] = env[k] + [name]
            if k != "s":
                self.owned.add(name)
        elif kind == "assign":
            k = self.pick(kinds)
            self.emit(indent, f"{self.pick(env[k])} = {self.squash(self.expr(k, env, 1 + self.r(2)))}")
        elif kind == "augmented":
            k = self.pick(kinds)
            names = [n for n in env[k] if k == "s" or n in self.owned]
            if names:
                op = self.pick(["+=", "-=", "*="])
                value = self.squash(self.expr(self.pick([k, "s"]), env, 2))
                self.emit(indent, f"{self.pick(names)} {op} {value}")
                self.jaxable = self.jaxable and k == "s"
        elif kind == "write":
            self.write(env, indent, loop_vars)
        elif kind == "append":
            self.emit(indent, f"L.append({self.squash(self.expr('s', env, 2))})")
        elif kind == "dict":
            key = self.pick(["p", "q"])
            op = self.pick(["=", "+="])
            self.emit(indent, f"D[{key!r}] {op} {self.squash(self.expr('s', env, 2))}")
        elif kind == "tuple":
            s = self.pick(env["s"])
            other = self.pick(env["s"])
            form = self.r(4)
            if form == 0:
                self.emit(indent, f"{s}, {other} = pair({self.expr('s', env, 2)}, {self.expr('s', env, 2)})")
            elif form == 1:
                self.emit(indent, f"T = ({self.squash(self.expr('s', env, 2))}, {self.squash(self.expr('s', env, 2))})")
                self.emit(indent, f"{s}, {other} = T[1], T[0]")
            elif form == 2:
                self.emit(indent, f"{s}, *rest = [{self.squash(self.expr('s', env, 2))}, {other}, 0.25]")
                self.emit(indent, f"{other} = {other} + 0.5 * rest[0]")
            else:
                self.emit(indent, f"{s}, {other} = {other}, {s}")
        elif kind == "risky":
            self.risky(env, indent, loop_vars)
        elif kind == "looped":
            self.looped(env, indent, loop_vars)
        elif kind in ("swapped", "block_def", "iterated", "session"):
            getattr(self, kind)(env, indent, loop_vars)
        elif kind == "record":
            v = self.pick(env["v"])
            s = self.pick(env["s"])
            self.emit(indent, f"R = P(w={self.squash(self.expr('v', env, 2))}, b={self.squash(self.expr('s', env, 2))})")
            if self.chance(0.5):
                self.emit(indent, f"R = R._replace(b=R.b * {self.squash(self.expr('s', env, 1))})")
            self.emit(indent, f"{s} = np.tanh({s} + R.b * np.sum(R.w))")
            if v in self.owned and self.chance(0.5):
                self.emit(indent, f"{v} = {v} + 0.5 * R.w")
        elif kind == "if":
            self.jaxable = False
            self.emit(indent, f"if {self.gt(self.expr('s', env, 2), self.pick(['0.0', '0.3', '-0.4']))}:")
            self.block(env, indent + 1, loop_vars, in_loop)
            if self.chance(0.5):
                self.emit(indent, "else:")
                self.block(env, indent + 1, loop_vars, in_loop)
        elif kind == "for":
            self.loop(env, indent, loop_vars)
        elif kind == "while":
            self.jaxable = False
            counter = self.fresh("n")
            self.emit(indent, f"{counter} = 0")
            cond = self.gt(self.expr("s", env, 2), self.pick(["0.0", "0.3", "-0.4"]))
            self.emit(indent, f"while {counter} < {self.r(3) + 1} and {cond}:")
            self.emit(indent + 1, f"{counter} += 1")
            self.block(env, indent + 1, loop_vars, True)
            if self.chance(0.3):
                self.emit(indent, "else:")
                self.emit(indent + 1, f"L.append({self.squash(self.expr('s', env, 1))})")
        elif kind == "jump":
            self.jaxable = False
            self.emit(indent, f"if {self.gt(self.expr('s', env, 2), self.pick(['0.0', '0.3', '-0.4']))}:")
            self.emit(indent + 1, self.pick(["break", "continue"]))
        else:  # early return
            self.jaxable = False
            self.emit(indent, f"if {self.gt(self.expr('s', env, 2), self.pick(['0.0', '0.3', '-0.4']))}:")
            self.emit(indent + 1, f"return __RET{len(self.returns)}__")
            self.returns.append({k: list(v) for k, v in env.items()})

    def loop(self, env, indent, loop_vars):
        var = "ijk"[len(loop_vars)] if len(loop_vars) < 3 else None
        form = self.r(5)
        inner = {k: list(v) for k, v in env.items()}
        if form <= 1 and var:
            stop = self.r(3) + 1
            rng = f"reversed(range({stop}))" if form else f"range({stop})"
            self.emit(indent, f"for {var} in {rng}:")
            self.block(inner, indent + 1, loop_vars + [var], True)
            return
        t = self.fresh("t")
        inner["s"] = inner["s"] + [t]
        if form == 2:
            self.emit(indent, f"for {t} in {self.expr('v', env, 1)}:")
            self.block(inner, indent + 1, loop_vars, True)
            if self.chance(0.5):  # three entries: the target keeps the last one after the loop
                env["s"].append(t)
            return
        elif form == 3:
            e = self.fresh("e")
            self.emit(indent, f"for {e}, {t} in enumerate({self.expr('w', env, 1)}):")
        else:
            t2 = self.fresh("t")
            inner["s"].append(t2)
            self.emit(indent, f"for {t}, {t2} in zip({self.expr('v', env, 1)}, {self.expr('w', env, 1)}):")
        self.block(inner, indent + 1, loop_vars, True)

    def write(self, env, indent, loop_vars):
        self.jaxable = False
        k = self.pick(["v", "m", "q", "c"])
        names = [n for n in env[k] if n in self.owned]
        if not names:
            return
        n = self.pick(names)
        e = lambda kind, d=2: self.squash(self.expr(kind, env, d))  # noqa: E731
        op = self.pick(["=", "+=", "="])
        idx = self.pick(loop_vars) if loop_vars and self.chance(0.5) else str(self.r(2))
        if k == "v":
            target = self.pick([f"[{idx}]", "[1:]", "[:2]", "[[0, 2]]", "[::2]", "mask", "at"])
            if target == "mask":
                self.emit(indent, f"{n}[{self.gt(n, '0.1')}] {op} {e('s')}")
            elif target == "at":
                self.emit(indent, f"np.add.at({n}, [0, 2, 0], {e('s')})")
            else:
                value = e("s") if target == f"[{idx}]" or self.chance(0.3) else e("w")
                self.emit(indent, f"{n}{target} {op} {value}")
        elif k == "m":
            target, kind = self.pick([(f"[{idx} % 2]", "v"), (f"[:, {idx}]", "w"), (f"[1, {idx}]", "s"), ("[:, 1:]", "s")])
            self.emit(indent, f"{n}{target} {op} {e(kind)}")
        elif k == "q":
            target, kind = self.pick([(f"[{idx}, {idx}]", "s"), (f"[{idx}]", "v"), ("[:, 2]", "v"), ("[:2, :]", "m")])
            self.emit(indent, f"{n}{target} {op} {e(kind)}")
        else:
            self.emit(indent, f"{n}[:, 0] {op} {e('v')}")

    def result(self, env, vector):
        parts = []
        for k in KINDS:
            for n in env[k]:
                if vector:
                    parts.append({"s": f"{n} * x", "v": f"np.sin({n})", "w": f"{n} @ M", "m": f"{n}.sum(axis=0)",
                                  "c": f"{n}[:, 0]", "q": f"{n}.sum(axis=1)"}[k])
                else:
                    parts.append(n if k == "s" else f"np.sum(np.sin({n}))")
        parts += ["sum(L) * x" if vector else "sum(L)", "D['p'] * x" if vector else "D['p'] * D['q']"]
        return " + ".join(parts)
