"""Statements of tests/fuzz_grammar.py built from lists, tuples and dicts of functions
passed as arguments, closure factories and partials made in the function, branches and
loops inside `try` blocks, loops over sorted sequences, nested tuple targets, writes into
the arrays array methods make, and custom rules in JAX's spelling:

- `for g in fs: h = g(h)`, `enumerate(fs)`, `zip(fs, v)`, `fs[-1](h)`, `fd['p'](h)`,
  `for k in fd`, `fd.items()`, `len(fs)`, `range(len(fs))`, a comprehension over `ft`,
  `apply_all(fs, h)`; the program's parameters `fs`, `ft`, `fd` (`extras`) are the
  module's `FS`, `FT`, `FD`, drawn per seed from functions, a lambda, partials, callable
  objects and bound methods;
- `g = make(k); g(h)` of a nested factory (a def or a lambda), `functools.partial` of a
  nested def or of a module function, made in a block or a loop;
- `if`/`for`/`while` inside `try` with handlers for ZeroDivisionError (a Python float
  divided by an int reaching 0), IndexError (reading past a vector or a list),
  ValueError (raised by the program on data) and FloatingPointError (`np.log` under
  `np.errstate(all="raise")`), with `else` and `finally`;
- loops and comprehensions over `sorted(zip(...), key=...)`, `sorted(enumerate(...),
  key=...)`, `reverse=True`, `reversed(sorted(...))`, with constant keys that tie;
- nested targets `v[0], (v[1], v[2]) = v[2], (v[0], v[1])`;
- writes into what `repeat`, `clip`, `cumsum`, `take`, `round` return;
- `custom_vjp` rules given by `defvjp(fwd, bwd)` and `custom_jvp` rules taking
  `(primals, tangents)`, called in loops.
"""

PRELUDE = '''
import functools

import srcgrad


def sq(t):
    return 0.5 * t * t


def scale(t, k=1.0):
    return k * np.tanh(t)


class Layer:
    def __init__(self, s):
        self.s = s

    def lin(self, t):
        return self.s * t

    def __call__(self, t):
        return np.sin(self.lin(t))

    def forward(self, t):
        return np.tanh(self.lin(t)) + 0.1 * t


def apply_all(fs, t):
    for g in fs:
        t = g(t)
    return t


@srcgrad.custom_vjp
def soft(p, q):
    return np.tanh(p) * q


def soft_fwd(p, q):
    t = np.tanh(p)
    return t * q, (t, q)


def soft_bwd(res, g):
    t, q = res
    return g * (1.0 - t * t) * q, g * t


soft.defvjp(soft_fwd, soft_bwd)


@srcgrad.custom_vjp(nondiff_argnums=(1,))
def power(p, n):
    return p ** n


power.defvjp(lambda p, n: (p ** n, p), lambda n, p, g: (g * n * p ** (n - 1),))


@srcgrad.custom_jvp
def sint(p, q):
    return np.sin(p) * q


@sint.defjvp
def sint_jvp(primals, tangents):
    p, q = primals
    p_dot, q_dot = tangents
    return sint(p, q), np.cos(p) * p_dot * q + np.sin(p) * q_dot


@srcgrad.custom_jvp(nondiff_argnums=(0,))
def stanh(k, p):
    return np.tanh(k * p)


@stanh.defjvp
def stanh_jvp(k, primals, tangents):
    (p,), (p_dot,) = primals, tangents
    out = np.tanh(k * p)
    return out, k * (1.0 - out ** 2) * p_dot


'''

CALLABLES = ("np.sin", "np.tanh", "sq", "functools.partial(scale, k=0.5)", "Layer(0.7)", "Layer(1.3).forward",
             "lambda t: np.cos(t) * 0.5", "functools.partial(scale, k=-1.5)")
EXTRAS = ("fs", "ft", "fd")


class SessionStatements:
    """A mixin of fuzz_grammar.Program: `session` emits one statement group; `containers`
    prints the module's `FS`, `FT`, `FD` (drawn after the body, so a seed gives the same
    program whether or not it is the twin)."""

    def containers(self):
        def some(low, high):
            return [self.pick(CALLABLES) for _ in range(low + self.r(high - low + 1))]
        fs, ft, fd = some(1, 4), some(2, 3), some(2, 2)
        return (f"FS = [{', '.join(fs)}]\nFT = ({', '.join(ft)},)\n"
                f"FD = {{'p': {fd[0]}, 'q': {fd[1]}}}\n\n\n")

    def session(self, env, indent, loop_vars):
        self.jaxable = False
        emit = lambda text, more=0: self.emit(indent + more, text)  # noqa: E731
        S = lambda d=1: self.squash(self.expr("s", env, d))  # noqa: E731
        V = lambda: self.expr("v", env, 1)  # noqa: E731
        s, s2 = self.pick(env["s"]), self.pick(env["s"])
        owned = {k: [n for n in env[k] if n in self.owned] for k in ("v", "m")}
        v = self.pick(owned["v"]) if owned["v"] else None
        m = self.pick(owned["m"]) if owned["m"] else None
        g, t, t2, u = self.fresh("g"), self.fresh("t"), self.fresh("t"), self.fresh("u")
        form = self.r(18)
        kind = ("containers" if form <= 7 else "made" if form <= 9 else "try" if form <= 13 else
                ("sorted", "nested targets", "new arrays", "custom rules")[min(form - 14, 3)])
        self.sessions = getattr(self, "sessions", ()) + (kind,)
        if form <= 7:
            self.extras = EXTRAS
            self.passed_containers(form, emit, S, V, s, s2, v, g, t, u)
        elif form <= 9:
            self.made_functions(form, emit, S, s, s2, g, u)
        elif form <= 13:
            self.attempts(form, emit, S, V, s, s2, v, u, env)
        elif form == 14:
            self.sorted_loop(emit, S, V, s, v, t, t2, u)
        elif form == 15:
            self.nested_targets(emit, S, s, v, m)
        elif form == 16:
            self.fresh_results(emit, S, V, s, env if indent == 1 else None, u)
        else:
            self.custom_rules(emit, S, V, s, s2, t, u)

    def passed_containers(self, form, emit, S, V, s, s2, v, g, t, u):
        h = v if v and self.chance(0.4) else s
        if form == 0:
            emit(f"for {g} in {self.pick(['fs', 'ft', 'fs[1:]', 'reversed(fs)'])}:")
            emit(f"{h} = {g}({h})", 1)
            if h == s:
                emit(f"{s} = np.sin({s})")
        elif form == 1:
            emit(f"for {u}, {g} in enumerate({self.pick(['fs', 'ft', 'fd.values()'])}):")
            emit(f"{s} = {s} + 0.5 * {g}({S()}) * ({u} + 1)", 1)
            emit(f"{s} = np.tanh({s})")
        elif form == 2:
            emit(f"for {g}, {t} in zip({self.pick(['fs', 'ft'])}, {self.pick([V(), f'[{S()}, {s2}]'])}):")
            emit(f"{s} = np.tanh({s} + {t} * {g}({s2}))", 1)
        elif form == 3:
            read = self.pick(["fs[-1]", "fs[0]", "ft[1]", "ft[-2]"])
            if v and self.chance(0.5):
                emit(f"{v} = 0.5 * {read}({v}) + 0.5 * {v}")
            else:
                emit(f"{s} = {s} + 0.5 * np.sum({read}({self.pick([S(), V()])}))")
        elif form == 4:
            which = self.r(4)
            if which == 0:
                emit(f"{s} = np.tanh({s} + fd['p']({S()}) * fd['q']({s2}))")
            elif which == 1:
                emit(f"for {u} in fd:")
                emit(f"{s} = np.sin({s} + fd[{u}]({S()}))", 1)
            elif which == 2:
                emit(f"for {u}, {g} in fd.items():")
                emit(f"{s} = np.sin({s} + {g}({s2}) * len({u}))", 1)
            else:
                emit(f"for {g} in fd.values():")
                emit(f"{h} = {g}({h})", 1)
        elif form == 5:
            if self.chance(0.5):
                emit(f"{s} = {s} * (1.0 + 0.1 * len({self.pick(['fs', 'ft', 'fd'])}))")
            else:
                emit(f"for {u} in range(len(fs)):")
                emit(f"{h} = fs[{u}]({h})", 1)
                emit(f"{s} = np.tanh({s})")
        elif form == 6:
            if self.chance(0.5):
                emit(f"{s} = {s} + 0.3 * sum([{g}({S()}) for {g} in {self.pick(['fs', 'ft'])}])")
            else:
                emit(f"{s} = {s} + 0.3 * np.sum(np.array([{g}({V()}) for {g} in ft]))")
        else:
            emit(f"{h} = apply_all({self.pick(['fs', 'ft'])}, {h})")
            emit(f"{s} = np.sin({s})")

    def made_functions(self, form, emit, S, s, s2, g, u):
        mk = self.fresh("make")
        in_loop = self.chance(0.3)
        more = 1 if in_loop else 0
        if in_loop:
            emit(f"for {u} in range({self.r(2) + 1}):")
        if form == 8:
            emit(f"def {mk}(k, p=2.0):", more)
            if self.chance(0.5):
                emit(f"def {g}(t):", more + 1)
                emit("return np.tanh(t * k) + 0.1 * a * p", more + 2)
                emit(f"return {g}", more + 1)
            else:
                emit("return lambda t: np.sin(t) * k + 0.1 * p", more + 1)
            made = self.fresh("h")
            emit(f"{made} = {mk}({S()}{self.pick(['', ', p=3.0', ', 0.5'])})", more)
            emit(f"{s} = {s} + 0.5 * {made}({s2})", more)
        else:
            made = self.fresh("h")
            if self.chance(0.5):
                emit(f"def {g}(t, k):", more)
                emit("return np.sin(t) * k", more + 1)
                emit(f"{made} = functools.partial({g}, k={S()})", more)
            else:
                emit(f"{made} = functools.partial(scale, k={S()})", more)
            emit(f"{s} = {s} + 0.5 * {made}({s2})", more)

    def attempts(self, form, emit, S, V, s, s2, v, u, env):
        if form == 13:  # FloatingPointError under np.errstate(all="raise")
            y = self.fresh("v")
            emit('with np.errstate(all="raise"):')
            emit("try:", 1)
            emit(f"if {self.gt(s, '0.0')}:", 2)
            emit(f"{y} = np.log({V()} + 0.5)", 3)  # raises where an entry is below -0.5
            emit("else:", 2)
            emit(f"{y} = np.sqrt({V()} + 0.7) * {s}", 3)
            emit("except FloatingPointError:", 1)
            emit(f"{y} = {V()} * {s2}", 2)
            emit(f"{s} = {s} + 0.5 * np.sum(np.tanh({y}))")
            return
        emit("try:")
        if form == 10:  # ZeroDivisionError: a Python float divided by an int reaching 0
            n = self.r(4) + 1
            if self.chance(0.6):
                emit(f"for {u} in range(3):", 1)
                emit(f"{s} = {s} + {S()} * (1.0 / ({n} - {u}))", 2)
                if self.chance(0.4):
                    emit(f"if {self.gt(s, '0.5')}:", 2)
                    emit(f"{s} = 0.5 * {s}", 3)
            else:
                emit(f"{u} = 0", 1)
                emit(f"while {u} < 3 and {self.gt(S(), '-0.8')}:", 1)
                emit(f"{u} += 1", 2)
                emit(f"{s} = {s} * (1.0 / ({n} - {u})) + {s2}", 2)
            handled = "ZeroDivisionError"
        elif form == 11:  # ValueError raised by the program
            emit(f"if {self.gt(S(), self.pick(['0.0', '0.3']))}:", 1)
            emit("raise ValueError('large')", 2)
            emit(f"{s} = np.sin({s} + {S()})", 1)
            handled = "ValueError"
        else:  # IndexError: reading past a vector or a list
            seq = self.pick([V(), f"[{S()}, {s2}]", v or V()])
            emit(f"for {u} in range({self.pick(['3', '4'])}):", 1)
            emit(f"{s} = np.tanh({s} + 0.5 * {seq}[{u}])", 2)
            handled = "IndexError"
        emit(f"except {handled}:")
        emit(f"{s} = {self.pick([f'0.5 * {s}', S(), f'{s} + {s2}'])}", 1)
        if self.chance(0.4):
            emit("else:")
            emit(f"{s} = np.tanh({s} * {S()})", 1)
        if self.chance(0.3):
            emit("finally:")
            emit(f"{s2} = np.sin({s2} + 0.5 * {s})", 1)

    def sorted_loop(self, emit, S, V, s, v, t, t2, u):
        data_key = self.chance(0.4)
        reverse = ", reverse=True" if self.chance(0.3) else ""
        if self.chance(0.5):
            seq, key = f"zip({V()}, {self.pick(['[1.0, 0.5, 1.0]', '[0.5, 0.5, 0.5]', '(2.0, -1.0, 0.3)'])})", "p[1]"
            if data_key:
                seq, key = f"zip({V()}, {V()})", self.pick(["p[0]", "p[1]", "p[0] * p[1]"])
            names = f"{t}, {t2}"
            body = f"{s} = np.sin({s} * {t2} + {t})"
        else:
            seq, key = f"enumerate({V()})", self.pick(["p[0] % 2", "-(p[0] % 2)", "1"])
            if data_key:
                key = self.pick(["p[1]", "-p[1]"])
            names = f"{u}, {t}"
            body = f"{s} = np.tanh({s} + {t} * ({u} + 1))"
        if data_key:
            ordered = self.builtin("sorted", seq, f"key=lambda p: {key}" + reverse)
        else:
            ordered = f"sorted({seq}, key=lambda p: {key}{reverse})"
        if self.chance(0.25):
            ordered = f"reversed({ordered})"
        if self.chance(0.3):
            emit(f"{s} = {s} + 0.3 * sum([{body.split(' = ')[1]} for {names} in {ordered}])")
        else:
            emit(f"for {names} in {ordered}:")
            emit(body, 1)

    def nested_targets(self, emit, S, s, v, m):
        if v is None:
            emit(f"{s}, ({self.pick(['a', 'b'])}, {s}) = {S()}, ({s}, {S()})")
            return
        form = self.r(4)
        if form == 0:
            emit(f"{v}[0], ({v}[1], {v}[2]) = {v}[2], ({v}[0], {v}[1])")
        elif form == 1:
            emit(f"({v}[0], {v}[1]), {v}[2] = ({S()}, {v}[2]), {v}[0]")
        elif form == 2:
            emit(f"{v}[{self.r(3)}], ({s}, {v}[{self.r(3)}]) = {S()}, (0.5 * {s}, {v}[{self.r(3)}] * 2.0)")
        elif m is not None:
            emit(f"{m}[0], ({m}[1, {self.r(3)}], {s}) = {m}[1], ({S()}, {m}[0, {self.r(3)}])")
        else:
            emit(f"({v}[2], {v}[0]), {v}[1] = ({v}[0], {v}[1]), {v}[2]")

    def fresh_results(self, emit, S, V, s, env, u):
        """Writes into a new array; it joins `env` (None inside a block: the name is not
        assigned on every path) or is read at once."""
        r = self.fresh("r")
        form = self.r(6)
        if form == 0:
            emit(f"{r} = {V()}.reshape(1, 3).repeat(2, axis=0)")
            emit(f"{r}[{self.r(2)}] *= {S()}")
            kind = "m"
        elif form == 1:
            made = f"_k.clip({V()}, -0.5, 0.5)" if self.twin else f"{V()}.clip(-0.5, 0.5)"
            emit(f"{r} = {made}")
            emit(f"{r}[0] = {r}[0] * {S()}")
            kind = "v"
        elif form == 2:
            emit(f"{r} = {V()}.cumsum()")
            emit(f"{r}[-1] += {S()}")
            kind = "v"
        elif form == 3:
            emit(f"{r} = {self.pick(['M', 'np.sin(M)', '(M * a)'])}.cumsum(axis={self.r(2)})")
            emit(f"{r}[1, {self.r(3)}] = {S()}")
            kind = "m"
        elif form == 4:
            emit(f"{r} = {V()}.take({self.pick(['[2, 0, 1]', '[1, 1, 0]', '[0, 2, 2]'])})")
            emit(f"{r}[{self.r(3)}] *= {S()}")
            kind = "v"
        else:
            made = f"_k.round({V()} * 2.0, 3)" if self.twin else f"({V()} * 2.0).round(3)"
            emit(f"{r} = {made}")
            emit(f"{r}[{self.r(3)}] = {S()}")
            kind = "v"
        if self.chance(0.5) and env is not None:
            env[kind] = env[kind] + [r]
            self.owned.add(r)
        else:
            emit(f"{s} = {s} + 0.3 * np.sum(np.sin({r}))")

    def custom_rules(self, emit, S, V, s, s2, t, u):
        form = self.r(4)
        if form == 0:
            emit(f"for {u} in range(1, {self.r(2) + 2}):")
            emit(f"{s} = {s} + 0.5 * soft({S()} * {u}, {s2})", 1)
        elif form == 1:
            emit(f"for {t} in {V()}:")
            emit(f"{s} = np.tanh({s} + power({t}, {self.r(3) + 1}))", 1)
        elif form == 2:
            emit(f"for {u} in range({self.r(2) + 1}):")
            emit(f"{s} = {s} + 0.5 * np.sum(sint({V()}, {V()}))", 1)
        else:
            emit(f"for {t} in {V()}:")
            emit(f"{s} = np.sin({s} + stanh({self.pick(['2.0', '0.5'])}, {t} * {s2}))", 1)
