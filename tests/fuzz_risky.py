"""Statements of tests/fuzz_grammar.py where NumPy's semantics are easy to get wrong:
writes through views and aliases (a second name, a list, a dict or a namedtuple holding
the array, a helper writing its argument, `out=`), in-place operations whose operands
overlap, fancy-index writes with repeated indices, swaps of rows (views) and of elements,
data-dependent indices, `try`/`except`, recursion. Each must give NumPy's values and
their derivatives, or be refused."""

PRELUDE = '''

def bump(arr, s):
    arr[0] += s
    return arr


def rec(p, n):
    return p if n == 0 else rec(np.sin(p) * 1.1, n - 1)


G = np.array([0.5, -1.0, 2.0])


'''


class RiskyStatements:
    """A mixin of fuzz_grammar.Program: `risky` emits one such statement."""

    def risky(self, env, indent, loop_vars):
        self.jaxable = False
        owned = {k: [n for n in env[k] if n in self.owned] for k in ("v", "m", "q")}
        v = self.pick(owned["v"]) if owned["v"] else None
        m = self.pick(owned["m"]) if owned["m"] else None
        s = self.pick(env["s"])
        S = lambda: self.squash(self.expr("s", env, 1))  # noqa: E731
        V = lambda: self.squash(self.expr("v", env, 1))  # noqa: E731
        W = lambda: self.squash(self.expr("w", env, 1))  # noqa: E731
        emit = lambda text: self.emit(indent, text)  # noqa: E731
        form = self.r(30)
        if v is None or m is None:
            emit(f"{s} = rec({S()}, {self.r(3)})")
        elif form == 0:
            emit(f"{v}[1:] += {v}[:-1] * 0.5")
        elif form == 1:
            emit(f"{v} += {v}[::-1] * 0.5")
        elif form == 2:
            emit(f"{m}[0] += {m}[1] * 0.5")
        elif form == 3:
            emit(f"{v}[[0, 0, 2]] += {S()}")
        elif form == 4:
            emit(f"{v}[[0, 0, 2]] = np.array([{S()}, {S()}, {S()}])")
        elif form == 5:
            emit(f"r = {m}[0]")
            emit(f"r[1] = {S()}")
        elif form == 6:
            emit(f"r = {m}[0]")
            emit(f"{m}[0, 1] = {S()}")
            emit(f"{s} = {s} + 0.5 * np.sum(r)")
        elif form == 7:
            emit(f"{m}.T[{self.r(3)}] = {W()}")
        elif form == 8:
            emit(f"r = {v}[::2]")
            emit(f"r *= {S()}")
        elif form == 9:
            emit(f"z = {v}")
            emit(f"z[{self.r(3)}] = {S()}")
        elif form == 10:
            emit(f"z = {v}")
            emit(f"z += {V()}")
        elif form == 11:
            emit(f"L2 = [{v}, 1.0]")
            emit(f"L2[0][1] = {S()}")
        elif form == 12:
            emit(f"D['arr'] = {v}")
            emit(f"D['arr'][2] += {S()}")
        elif form == 13:
            emit(f"R = P(w={v}, b={S()})")
            emit(f"R.w[0] += R.b")
        elif form == 14:
            emit(f"bump({v}, {S()})")
        elif form == 15:
            emit(f"{s} = np.tanh(np.sum(bump({v}, {S()})))")
        elif form == 16:
            emit(self.pick([f"np.cumsum({v}, out={v})", f"np.tanh({v}, out={v})", f"np.multiply({v}, {S()}, out={v})"]))
        elif form == 17:
            emit(self.pick([f"{v}[:] = np.sin({v})", f"{v}[...] = {V()}", f"np.copyto({v}, {V()})"]))
        elif form == 18:
            emit(f"{v}[int({self.gt(self.expr('s', env, 1), '0.0')})] = {S()}")
        elif form == 19:
            emit(f"{s} = {v}[{self.kink('argmax', v)}] * 0.5")
        elif form == 20:
            emit(f"z = {self.pick([f'{m}.copy()', f'np.copy({m})', f'np.array({m})'])}")
            emit(f"z[1] += {V()}")
            emit(f"{s} = {s} + 0.5 * np.sum(np.sin(z))")
        elif form == 21:
            emit("if L:")
            emit(f"    L[-1] *= {S()}")
        elif form == 22:
            emit("try:")
            emit(f"    {s} = D['missing'] * {S()}")
            emit("except KeyError:")
            emit(f"    {s} = {S()}")
        elif form == 23:
            emit(f"np.add.at({m}, (0, [1, 1]), {S()})")
        elif form == 24:
            emit(f"{m}[{self.gt(m, '0.0')}] += {S()}")
        elif form == 25:
            emit(f"{m}[:, [0, 2]] = np.stack([{W()}, {W()}], axis=1)")
        elif form == 26:
            emit(f"{v}[0] = {v}[1] = {S()}")
        elif form == 27:
            emit(f"{v}[0], {v}[2] = {v}[2], {v}[0]")
        elif form == 28:
            emit(f"{m}[0], {m}[1] = {m}[1], {m}[0]")
        else:
            emit(self.pick([f"{v}[::-1] = {v}", f"{v} *= G", f"{s} = {s} + np.sum({v} * G)"]))
