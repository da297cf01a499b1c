"""Statements and expressions of tests/fuzz_grammar.py built from loops over Python
containers: recurrences writing `out[i] = f(out[i - 1])` (into an array or a list), dicts
built in a loop and read back (by key, by `.values()`, by `.items()`), tuple-returning
helpers unpacked in a loop, `for` over `zip`/`enumerate` of lists and arrays (with `start=`,
nested tuple targets), comprehensions with conditions feeding `np.array`, `np.select` and
`np.where` on data, reductions over axis tuples, matmul of vectors and matrices,
constants in the arguments' dtype (for float32 programs), and range loops whose target
also holds a differentiated value (assigned before, rebound in the body or by a nested
loop, read after)."""

PRELUDE = '''

def stats(v):
    return np.mean(v), np.sum(v * v) * 0.5


def step2(p, q, h=0.1):
    return p + h * np.sin(q), q - h * np.tanh(p)


'''


class LoopStatements:
    """A mixin of fuzz_grammar.Program: `looped` emits one such statement group, and
    `more_s`/`more_v`/`more_w` add expression options."""

    def looped(self, env, indent, loop_vars):
        self.jaxable = False
        s = self.pick(env["s"])
        s2 = self.pick(env["s"])
        S = lambda d=1: self.squash(self.expr("s", env, d))  # noqa: E731
        emit = lambda text, more=0: self.emit(indent + more, text)  # noqa: E731
        u = self.fresh("u")
        t = self.fresh("t")
        inner = {k: list(v) for k, v in env.items()}
        inner["s"] = inner["s"] + [t]
        Si = lambda d=1: self.squash(self.expr("s", inner, d))  # noqa: E731
        V = lambda: self.expr("v", env, 1)  # noqa: E731
        form = self.r(16)
        owned_v = [n for n in env['v'] if n in self.owned]
        owned_m = [n for n in env['m'] if n in self.owned]
        if form == 0:
            out = self.fresh("cum")
            emit(f"{out} = {self.pick(['np.zeros(3)', 'np.zeros_like(x)', 'np.empty(3)', 'x.copy()'])}")
            emit(f"{out}[0] = {S()}")
            emit(f"for {u} in range(1, 3):")
            f = self.pick(["np.sin({p}) * {s}", "{p} + 0.5 * np.tanh({p} * {s})", "np.cos({p}) + {v}[{u}]",
                           "0.5 * {p} * {p} + {v}[{u} - 1]"])
            emit(f"{out}[{u}] = " + f.format(p=f"{out}[{u} - 1]", s=s, v=self.expr('v', env, 1), u=u), 1)
            emit(f"{s} = {s} + 0.5 * np.sum(np.tanh({out}))")
        elif form == 1:
            acc = self.fresh("acc")
            emit(f"{acc} = [{S()}]")
            emit(f"for {t} in {V()}:")
            emit(f"{acc}.append(np.tanh({acc}[-1] * {t} + {self.pick(env['s'])}))", 1)
            emit(f"{s} = {s} + 0.3 * {self.pick([f'sum({acc})', f'{acc}[-1]', f'np.sum(np.array({acc}))', f'{acc}[1] * {acc}[2]'])}")
        elif form == 2:
            dd = self.fresh("DD")
            emit(f"{dd} = {{}}")
            emit(f"for {u}, {t} in enumerate({V()}):")
            emit(f"{dd}[{u}] = {Si()}", 1)
            read = self.pick([f"{dd}[0] - {dd}[2]", f"sum({dd}.values())", f"{dd}[1] * {dd}.get(2, 0.0)",
                              f"np.sum(np.array(list({dd}.values())))"])
            emit(f"{s} = {s} + 0.5 * ({read})")
        elif form == 3:
            dd = self.fresh("DD")
            emit(f"{dd} = {{'p': {S()}}}")
            emit(f"for {t} in {V()}:")
            emit(f"{dd}['p'] = np.sin({dd}['p'] + {t})", 1)
            emit(f"{dd}[{t!r}] = {dd}.get({t!r}, 0.0) + {t}", 1)
            emit(f"for key, val in {dd}.items():")
            emit(f"{s} = {s} + 0.25 * np.tanh(val)", 1)
        elif form == 4:
            emit(f"for {t} in {V()}:")
            emit(f"{s}, {s2} = pair({t} * {s}, {s2})" if s != s2 else f"{s}, _ = pair({t}, {s})", 1)
        elif form == 5:
            emit(f"for {u}, row in enumerate({self.expr('m', env, 1)}):")
            emit(f"mu, sq = stats(row)", 1)
            emit(f"{s} = {s} + 0.2 * np.tanh(mu * sq + {u})", 1)
        elif form == 6:
            p, q = self.fresh("p"), self.fresh("q")
            emit(f"{p}, {q} = {S()}, {S()}")
            emit(f"for {u} in range({self.r(3) + 1}):")
            emit(f"{p}, {q} = step2({p}, {q}{self.pick(['', ', h=0.2', ', 0.05'])})", 1)
            emit(f"{s} = {s} + {p} * {q}")
        elif form == 7:
            emit(f"for {u}, ({t}, r) in enumerate(zip({V()}, [{S()}, {S()}, {S()}]){self.pick(['', ', start=1', ', 2'])}):")
            emit(f"{s} = np.sin({s} + {t} * r * {u})", 1)
        elif form == 8:
            emit(f"for {t}, r in zip({self.pick(['L', '[a, b]', 'L[-2:]', f'list({V()})'])}, {V()}):")
            emit(f"{s} = np.tanh({s} + {t} * r)", 1)
        elif form == 9:
            emit(f"for {t} in {self.pick(['L', 'L[::-1]', 'reversed(L)', '[a, b, a * b]'])}:")
            emit(f"{s} = {s} + 0.5 * np.sin({t} * {self.pick(env['s'])})", 1)
        elif form == 10:
            z = self.fresh("z")
            emit(f"{z} = np.array([{Si()} if {self.gt(t, '0.1')} else {t} * {s} for {t} in {V()}])")
            emit(f"{s} = {s} + 0.5 * np.sum(np.sin({z}))")
        elif form == 11:
            # a range loop's target that also holds a differentiated value: assigned before
            # the loop, rebound in the body, rebound by a nested loop over values, read after
            trips = self.r(4)
            before = trips == 0 or self.chance(0.5)
            if before:
                emit(f"{u} = {S()}")
            emit(f"for {u} in range({trips}):")
            emit(f"{s} = {self.squash(f'{s} * {u} + {S()}')}", 1)
            rebind = self.r(3)
            if rebind == 1:
                emit(f"{u} = {u} * {s}", 1)
            elif rebind == 2:
                emit(f"for {u} in [a, {s}]:", 1)
                emit(f"{s} = {self.squash(f'{s} * {u} + {S()}')}", 2)
            if self.chance(0.7):  # defined: assigned before, or at least one trip
                emit(f"{s} = {s} + 0.3 * {u}")
        elif form == 12 and owned_v:
            v = self.pick(owned_v)
            emit(f"for {u} in range(1, 3):")
            emit(f"{v}[{u}] {self.pick(['=', '+='])} np.sin({v}[{u} - 1]) * {s} + {self.pick([f'{v}[{u}]', '0.5'])}", 1)
        elif form == 13 and owned_m:
            m = self.pick(owned_m)
            emit(f"for {u}, row in enumerate({m}[:-1]):")
            emit(f"{m}[{u} + 1] = np.tanh(row) * {s} + 0.5 * {m}[{u} + 1]", 1)
        elif form == 14:
            dd = self.fresh("DD")
            emit(f"{dd} = {{}}")
            emit(f"for {u} in range(2):")
            emit(f"{dd}[{u}] = np.sin({V()}) * ({u} + {s})", 1)
            emit(f"{s} = {s} + 0.5 * np.sum({dd}[0] * {dd}[1])")
        elif form == 15:
            rs = self.fresh("rs")
            emit(f"{rs} = [np.sin(r) for r in {self.expr('m', env, 1)}]")
            emit(f"{rs}[0] = {rs}[0] + {rs}[1] * {s}")
            emit(f"{s} = {s} + 0.3 * np.sum(np.stack({rs}))")
        else:
            emit(f"for row in {self.expr('m', env, 1)}.T:")
            emit(f"{s} = {s} + 0.3 * np.tanh(row[0] * row[1])", 1)

    def more_s(self, e):
        return [
            lambda: f"np.sum(np.array([t * {e('s')} for t in {e('v')} if {self.gt('t', '0.0')}] + [0.25]))",
            lambda: f"np.sum({e('m')}, axis=(-2, -1))", lambda: f"np.mean({e('q')}, axis=(0, 1))",
            lambda: f"np.sum({e('q')}, axis=(0, 1), keepdims=True)[0, 0]",
            lambda: f"np.prod(np.tanh({e('m')}) + 1.5, axis=(0, 1))", lambda: f"({e('v')} @ {e('q')} @ {e('v')})",
            lambda: f"np.inner({e('v')}, {e('v')})", lambda: f"np.vdot({e('v')}, {e('v')})",
            lambda: f"np.sum({e('v')}[:, None] * {e('m')}.T, axis=(0, 1))",
        ]

    def more_v(self, e):
        return [
            lambda: f"np.array([np.sin(t) if {self.gt('t', '0.2')} else t * {e('s')} for t in {e('v')}])",
            lambda: f"np.select([{self.gt(e('v'), '0.3')}, {self.gt(e('v'), '-0.4')}], [{e('v')}, {e('v')}], "
                    f"default={e('v')})",
            lambda: f"np.where({self.gt(e('v'), '0.1')}, {e('s')}, {e('v')})",
            lambda: f"np.where({self.gt(e('s'), '0.0')}, {e('v')}, -{e('v')})",
            lambda: f"np.mean({e('q')}[None] * {e('w')}[:, None, None], axis=(0, 2))",
            lambda: f"np.matmul({e('v')}, {e('q')})", lambda: f"({e('w')} @ {e('m')})",
            lambda: f"({e('v')} * {self.pick(['x.dtype.type(0.5)', 'np.float32(1.5)', '0.25'])})",
            lambda: f"(np.ones_like(x) * {e('s')} + np.full(3, 0.5, dtype=x.dtype))",
            lambda: f"np.array([{e('s')} * k for k in range(3)])",
        ]

    def more_w(self, e):
        return [
            lambda: f"np.sum({e('m')}[:, :, None] * {e('c')}.T[None], axis=(1, 2))",
            lambda: f"np.tensordot({e('m')}, {e('v')}, axes=1)", lambda: f"({e('v')} @ {e('m')}.T)",
            lambda: f"np.array([np.sum(r) for r in {e('m')} if True])",
        ]
