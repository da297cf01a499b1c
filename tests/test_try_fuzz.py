"""Random `try` statements whose blocks hold branches, `for` and `while` loops, appends and
`raise`, over Python floats whose divisions raise ZeroDivisionError at chosen turns
(compiler/attempts.py), and `return` in them: for each program and several points, the value, the gradient
(against central differences at two steps, skipped where they disagree: a kink), the
second call and jvp's tangent (the dot-product test). Seeded: the same programs each run."""

import linecache
import random

import numpy as np
import pytest

import srcgrad


def _index(rng, loop_vars):
    return f"{rng.choice(loop_vars)} % 3" if loop_vars and rng.random() < 0.5 else str(rng.randint(0, 2))


def _block(rng, depth, loop_vars, indent):
    return [line for _ in range(rng.randint(1, 3)) for line in _statement(rng, depth, loop_vars, indent)]


def _statement(rng, depth, loop_vars, indent):
    p, r = " " * indent, rng.random()
    if depth < 2 and r < 0.2:
        body, orelse = _block(rng, depth + 1, loop_vars, indent + 4), _block(rng, depth + 1, loop_vars, indent + 4)
        return [f"{p}if t > {rng.choice(['0.5', '1.0', '-0.3', '2.0'])}:"] + body + [f"{p}else:"] + orelse
    if depth < 2 and r < 0.35:
        v = f"i{depth}"
        body = _block(rng, depth + 1, loop_vars + [v], indent + 4)
        if rng.random() < 0.3:
            body += [f"{p}    if t > 3.0:", f"{p}        break"]
        return [f"{p}for {v} in range({rng.randint(1, 3)}):"] + body
    if depth < 2 and r < 0.45:
        v = f"k{depth}"
        body = _block(rng, depth + 1, loop_vars + [v], indent + 4)
        return [f"{p}{v} = 0", f"{p}while {v} < {rng.randint(1, 3)}:"] + body + [f"{p}    {v} = {v} + 1"]
    if r < 0.6:
        return [f"{p}t = t + x[{_index(rng, loop_vars)}] * (1.0 / (c - {rng.randint(0, 4)}.0))"]
    if r < 0.7:
        return [f"{p}ys.append(t * x[{_index(rng, loop_vars)}])"]
    if r < 0.72:
        return [f"{p}if t > 2.5:", f"{p}    raise ValueError('large')"]
    if r < 0.75:
        return [f"{p}if t > 2.8:", f"{p}    return t * x[{_index(rng, loop_vars)}] * (1.0 / (c - {rng.randint(0, 4)}.0))"]
    if r < 0.85:
        return [f"{p}u = np.sin(x[{_index(rng, loop_vars)}]) * t", f"{p}t = u + x[{_index(rng, loop_vars)}] ** 2"]
    return [f"{p}t = t * x[{_index(rng, loop_vars)}] + 0.5"]


def _program(rng, name):
    lines = [f"def {name}(x, c):", "    t = 0.1", "    ys = []", "    try:"] + _block(rng, 0, [], 8)
    lines += ["    except ZeroDivisionError:", "        t = t * 2.0 + x[0]", "    except ValueError:", "        t = t - x[1] * x[2]"]
    if rng.random() < 0.4:
        lines += ["    else:", "        t = t * x[1]"]
    if rng.random() < 0.3 and not any("return" in line for line in lines):  # refused with `finally`
        lines += ["    finally:", "        t = t + 0.25 * x[2]"]
    return "\n".join(lines + ["    return t + sum(ys)"]) + "\n"


def _differences(f, x, c, h):
    g = np.zeros(3)
    for i in range(3):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        g[i] = (f(up, c) - f(down, c)) / (2 * h)
    return g


@pytest.mark.parametrize("seed", range(40))
def test_random_try_blocks(seed):
    rng = random.Random(seed)
    name = f"try_program_{seed}"
    text = _program(rng, name)
    filename = f"<try fuzz {seed}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - the program made above
    f = namespace[name]
    checked = 0
    for c in (0.0, 1.0, 2.0, 3.0, 4.0, 0.5):
        x = np.array([rng.uniform(-1.5, 1.5) for _ in range(3)])
        try:
            value = f(x, c)
        except ValueError:  # raised where no handler takes it (in an `else` or `finally`)
            continue
        with np.errstate(all="ignore"):
            got, g = srcgrad.value_and_grad(f)(x, c)
            again = srcgrad.grad(f)(x, c)
            _, tangent = srcgrad.jvp(f, (x, c), (np.ones(3), 0.0))
            near, far = _differences(f, x, c, 1e-6), _differences(f, x, c, 1e-5)
        assert got == pytest.approx(value, rel=1e-12, abs=1e-12), text
        np.testing.assert_array_equal(again, g)
        assert tangent == pytest.approx(np.sum(g), rel=1e-8, abs=1e-10), text
        if np.allclose(near, far, rtol=1e-4, atol=1e-6):
            np.testing.assert_allclose(g, near, rtol=1e-5, atol=1e-6, err_msg=text)
            checked += 1
    assert checked >= 3
