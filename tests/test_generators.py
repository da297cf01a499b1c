"""Generator functions of the user's (module-level, a `def` in the differentiated function,
a method) read whole where they are called: computed as the list of what they yield
(generator_lists.py, generator_calls.py). Each program against central differences and
its analytic gradient, forward mode, vjp, jacobian, the Hessian and the second call;
each refusal by its message."""

import re

import numpy as np
import pytest

import srcgrad
from program_checks import check_every_transform
from srcgrad.errors import SrcGradError

X = np.array([0.3, 1.2, -0.7])
SCALE = 3.0


def pairs(v):
    for i in range(len(v) - 1):
        yield v[i], v[i + 1]


def squares(v):
    for e in v:
        yield e * e


def energy(x):
    return sum((b - a) ** 2 for a, b in pairs(x))


def energy_expected(x):
    d = np.diff(x)
    g = np.zeros_like(x)
    g[:-1] -= 2 * d
    g[1:] += 2 * d
    return g


def total(x):
    s = 0.0
    for q in squares(x):
        s += q
    return s + sum(squares(x[:2])) + max(squares(x)) + list(squares(x))[0]


def total_expected(x):
    g = 2 * x
    g[:2] += 2 * x[:2]
    k = int(np.argmax(x * x))
    g[k] += 2 * x[k]
    g[0] += 2 * x[0]
    return g


def chained(v, w):
    yield from v
    yield from squares(w)
    yield SCALE * v[0]


def yield_from(x):
    return sum(chained(x[:2], x[1:]))


def yield_from_expected(x):
    g = np.zeros_like(x)
    g[:2] += 1.0
    g[1:] += 2 * x[1:]
    g[0] += SCALE
    return g


def first_two(v):
    for i, e in enumerate(v):
        if i == 2:
            return
        yield np.sin(e)


def stops_with_return(x):
    return sum(first_two(x)) * x[2]


def stops_with_return_expected(x):
    return np.array([np.cos(x[0]) * x[2], np.cos(x[1]) * x[2], np.sin(x[0]) + np.sin(x[1])])


def counted(v, n=2):
    i = 0
    while i < n:
        yield v[i] * v[i + 1]
        i += 1


def bounded_while(x):
    return sum(counted(x)) + sum(counted(x, n=1))


def bounded_while_expected(x):
    return np.array([2 * x[1], 2 * x[0] + x[2], x[1]])


def nested_def(x):
    scale = x[2]

    def weighted(v):
        for k, e in enumerate(v):
            yield scale * e * (k + 1)

    out = 0.0
    for w in weighted(x[:2]):
        out += w ** 2
    return out + sum(weighted(x))


def nested_def_expected(x):
    a, b, c = x
    # sum over the first two of (c*e*(k+1))^2, plus c*(a + 2b + 3c)
    return np.array([2 * c * c * a + c, 8 * c * c * b + 2 * c, 2 * c * (a * a + 4 * b * b) + a + 2 * b + 6 * c])


def unpacked_and_zipped(x):
    a, b, c = squares(x)
    first, *rest = squares(x)
    t = 0.0
    for k, (q, e) in enumerate(zip(squares(x), x)):
        t += (k + 1) * q * e
    return a * b + c + first * sum(rest) + t


def unpacked_and_zipped_expected(x):
    a, b, c = x
    return np.array([2 * a * b * b + 3 * a * a + 2 * a * (b * b + c * c),
                     2 * b * a * a + 2 * 3 * b * b + 2 * b * a * a,
                     2 * c + 3 * 3 * c * c + 2 * c * a * a])


def comprehensions(x):
    rows = [x[:2], x[1:]]
    flat = [q for r in rows for q in squares(r)]
    ordered = sorted(squares(x))
    return sum(flat) + ordered[0] * tuple(squares(x))[2] + sum({k: q for k, q in enumerate(squares(x))}.values())


def comprehensions_expected(x):
    g = np.array([2 * x[0], 4 * x[1], 2 * x[2]]) + 2 * x
    k = int(np.argmin(x * x))
    g[k] += 2 * x[k] * x[2] ** 2
    g[2] += 2 * x[2] * x[k] ** 2
    return g


def shifted(v):
    for q in squares(v):
        yield q + 1.0


class Chain:
    def __init__(self, weights):
        self.weights = weights

    def terms(self, v):
        for w, e in zip(self.weights, v):
            yield w * np.tanh(e)

    def energy(self, v):
        return sum(self.terms(v))


CHAIN = Chain(np.array([0.5, -2.0, 1.5]))


def method_and_generator_of_generator(x):
    return CHAIN.energy(x) + sum(CHAIN.terms(x)) + sum(shifted(x))


def method_and_generator_of_generator_expected(x):
    return 2 * CHAIN.weights * (1 - np.tanh(x) ** 2) + 2 * x


def _made(scale):
    def scaled(v):
        for e in v:
            yield scale * e * e

    return scaled


SCALED = _made(2.0)  # reads a closure cell: its listing is not spliced, the call goes through its pullback


def through_a_pullback(x):
    s = 0.0
    for q in SCALED(x):
        s += q
    return s + sum(SCALED(x[:2])) + sum(q * x[0] for q in SCALED(x))


def through_a_pullback_expected(x):
    g = 4.0 * x
    g[:2] += 4.0 * x[:2]
    g += 4.0 * x * x[0]
    g[0] += 2.0 * np.sum(x * x)
    return g


def nested_def_in_comprehensions(x):
    def doubled(v):
        for e in v:
            yield 2.0 * e

    rows = [x[:2], x[1:]]
    return sum(q * q for q in doubled(x)) + sum([q for r in rows for q in doubled(r)])


def nested_def_in_comprehensions_expected(x):
    return 8.0 * x + np.array([2.0, 4.0, 2.0])


def weighted(v, *ws, scale=1.0):
    for e, w in zip(v, ws):
        yield scale * w * e


def walk(v, depth):
    if depth == 0:
        yield v[0]
        return
    yield v[depth] * 2.0
    yield from walk(v, depth - 1)


def sorted_enumerated_zipped(x):
    t = sum(sorted(squares(x), key=lambda q: -q)[:2]) + min(squares(x), default=0.0)
    for k, q in enumerate(squares(x), start=1):
        t += k * q
    for a, b in zip(squares(x), squares(x[::-1])):
        t += a * b
    return t


def sorted_enumerated_zipped_expected(x):
    a, b, c = x
    return 2 * x + np.array([2 * a + 4 * a * c * c, 4 * b + 4 * b ** 3, 6 * c + 4 * c * a * a])


def varargs_and_recursion(x):
    return sum(weighted(x, 1.0, 2.0, 3.0, scale=0.5)) + sum(walk(x, 2)) * x[0]


def varargs_and_recursion_expected(x):
    inner = x[0] + 2 * x[1] + 2 * x[2]
    return np.array([0.5, 1.0, 1.5]) + np.array([inner + x[0], 2 * x[0], 2 * x[0]])


def builds_its_own_list(x):
    out = []
    total = 0.0
    for k, q in enumerate(squares(x)):
        out.append(q * (k + 1))
        total += q
    acc = np.zeros(2)
    for q in squares(x[:2]):
        acc[0] += q
        acc[1] = acc[0] * 0.5
    return np.sum(np.array(out)) * total + np.sum(acc)


def builds_its_own_list_expected(x):
    w = np.arange(1, 4)
    return 2 * x * w * np.sum(x * x) + np.sum(w * x * x) * 2 * x + np.r_[2 * x[:2] * 1.5, 0.0]


PROGRAMS = [
    (energy, energy_expected), (total, total_expected), (yield_from, yield_from_expected),
    (stops_with_return, stops_with_return_expected), (bounded_while, bounded_while_expected),
    (nested_def, nested_def_expected), (unpacked_and_zipped, unpacked_and_zipped_expected),
    (comprehensions, comprehensions_expected),
    (method_and_generator_of_generator, method_and_generator_of_generator_expected),
    (through_a_pullback, through_a_pullback_expected),
    (nested_def_in_comprehensions, nested_def_in_comprehensions_expected),
    (sorted_enumerated_zipped, sorted_enumerated_zipped_expected),
    (varargs_and_recursion, varargs_and_recursion_expected),
    (builds_its_own_list, builds_its_own_list_expected),
]


@pytest.mark.parametrize("fn, expected", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_generator_read_whole(fn, expected):
    check_every_transform(fn, X.copy(), expected(X))
    y = np.array([-0.4, 0.8, 1.1])
    np.testing.assert_allclose(srcgrad.grad(fn)(y), expected(y), rtol=1e-12, atol=1e-12)  # the second call


def test_the_derivative_reads_as_list_building_code():
    text = srcgrad.source(srcgrad.grad(energy))
    made = re.search(r"\n    (\w+) = \[\]\n", text)
    assert made and f"        {made.group(1)}.append(part)\n" in text  # `pairs_list_x.append(part)`
    assert "yield " not in text and "pairs_list(" not in text  # spliced: no call of the listing left


def test_a_listing_computes_the_list_the_generator_yields_at_the_users_lines():
    from srcgrad.compiler import frontend, generator_lists

    listed = generator_lists.listing(walk, frontend.load(walk))
    assert listed(X, 2) == list(walk(X, 2)) and listed(X, 0) == [X[0]]
    assert listed.__code__.co_filename == walk.__code__.co_filename
    assert listed.__code__.co_firstlineno == walk.__code__.co_firstlineno and listed.__name__ == "walk"
    assert generator_lists.generator_of(listed) == (walk, "yielded")
    assert generator_lists.listing(walk, frontend.load(walk)) is listed  # made once


def forever(v):
    k = 0
    while True:
        yield v[k % len(v)]
        k += 1


def stops_forever(x):
    s = 0.0
    for q in forever(x):
        s += q
        if s > 1.0:
            break
    return s


def until_small(v):
    e = v[0]
    while e > 0.1:
        yield e
        e = e * 0.5


def reads_until_small(x):
    return sum(until_small(x))


def breaks_out(x):
    s = 0.0
    for q in squares(x):
        if q > 1.0:
            break
        s += q
    return s


def continues_then_breaks(x):
    s = 0.0
    for q in squares(x):
        if q < 0.1:
            continue
        if q > 1.0:
            break
        s += q
    return s


def returns_from_loop(x):
    for q in squares(x):
        if q > 1.0:
            return q
    return 0.0


def changes_the_argument(x):
    v = x.copy()
    s = 0.0
    for q in squares(v):
        v[2] = 0.0
        s += q
    return s


def rebinds_the_closure(x):
    scale = 1.0

    def scaled(v):
        for e in v:
            yield scale * e

    s = 0.0
    for q in scaled(x):
        s += q
        scale = 2.0
    return s


def changes_an_alias(x):
    v = x.copy()
    w = v
    s = 0.0
    for q in squares(v):
        w[2] = 0.0
        s += q
    return s


def rows_of(vs):
    for v in vs:
        yield np.sum(v * v)


def changes_what_a_list_holds(x):
    v = x.copy()
    rows = [v, x]
    s = 0.0
    for q in rows_of(rows):
        v[0] = 0.0
        s += q
    return s


def zero_last(a):
    a[-1] = 0.0


def calls_a_function_changing_it(x):
    v = x.copy()
    s = 0.0
    for q in squares(v):
        zero_last(v)
        s += q
    return s


def bump():
    global SCALE
    SCALE = SCALE + 1.0


def calls_a_function_rebinding_a_global(x):
    s = 0.0
    for q in chained(x[:2], x[1:]):
        bump()
        s += q
    return s


def advanced_with_next(x):
    it = squares(x)
    first = next(it)
    return first + sum(it)


def sent_into(x):
    return squares(x).send(None)


def short_circuits(x):
    return float(any(q > 1.0 for q in squares(x))) * x[0]


def first(it):
    for v in it:
        return v


def given_to_a_function(x):
    return first(squares(x)) * 2.0


def as_an_array(x):
    return np.sum(np.array(squares(x)))


def receives(v):
    for e in v:
        got = yield e
        if got:
            break


def reads_receives(x):
    return sum(receives(x))


def guarded(v):
    with np.errstate(all="ignore"):
        for e in v:
            yield e


def reads_guarded(x):
    return sum(guarded(x))


def appends_to(v, log):
    for e in v:
        log.append(e)
        yield e


def reads_appends_to(x):
    log = []
    return sum(appends_to(x, log)) + len(log)


def generator_expression_twice(x):
    g = (e * e for e in x)
    a = sum(g)
    b = sum(g)
    return a + 2.0 * b


def generator_expression_in_a_loop(x):
    g = (e * e for e in x)
    s = 0.0
    for k in range(2):
        s += sum(g)
    return s


REFUSED = [
    (stops_forever, r"`while True` in the generator `forever` is not supported: srcgrad computes a generator .* may go on past"),
    (reads_until_small, r"a `while` loop in the generator `until_small` is not supported"),
    (breaks_out, r"the generator call `squares\(x\)` \(in `breaks_out`\) is read by a `for` loop with a `break` \(line \d+\), "
                 r"which may stop before the generator ends"),
    (continues_then_breaks, r"read by a `for` loop with a `break`"),
    (returns_from_loop, r"read by a `for` loop with a `return`"),
    (changes_the_argument, r"read by a loop whose body changes `v` in place, which the generator reads"),
    (rebinds_the_closure, r"read by a loop whose body rebinds `scale`, which the generator reads"),
    (changes_an_alias, r"read by a loop whose body changes `w` in place, which the generator may read \(it is not a list, "
                       r"dict or array made in `changes_an_alias` that nothing else holds\)"),
    (changes_what_a_list_holds, r"read by a loop whose body changes `v` in place, which the generator may read"),
    (calls_a_function_changing_it, r"read by a loop whose body calls `zero_last`, which changes an argument in place "
                                   r"\(given `v`\)"),
    (calls_a_function_rebinding_a_global, r"read by a loop whose body calls `bump`, which rebinds a variable outside it"),
    (advanced_with_next, r"the generator call `squares\(x\)` \(in `advanced_with_next`\) is stored in `it`"),
    (sent_into, r"is used through `.send`: srcgrad computes a generator only as the list"),
    (given_to_a_function, r"is given to `first`, which may read it in part"),
    (as_an_array, r"given to `np.array`, which makes an array holding the generator object itself"),
    (reads_receives, r"`yield` used as a value in the generator `receives` is not supported"),
    (reads_guarded, r"`yield` inside `with` in the generator `guarded` is not supported"),
    (reads_appends_to, r"a change of `log` in the generator `appends_to` is not supported"),
    (generator_expression_twice, r"the generator expression stored in `g` \(line \d+\) is read again here \(in "
                                 r"`generator_expression_twice`\): Python's first pass over a generator uses it up"),
    (generator_expression_in_a_loop, r"the generator expression stored in `g` \(line \d+\) is read in a loop here"),
]


@pytest.mark.parametrize("fn, message", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_generator_refused(fn, message):
    for transform in (srcgrad.grad, lambda f: (lambda x: srcgrad.jvp(f, (x,), (np.ones(3),)))):
        with pytest.raises(SrcGradError, match=message) as info:
            transform(fn)(X.copy())
        assert info.value.filename == __file__


def test_a_generator_expression_read_once_still_works():
    def once(x):
        g = (e * e for e in x)
        return sum(g)

    check_every_transform(once, X.copy(), 2 * X)


def fibonacci_indices():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


def indices_from_an_endless_generator(x):
    s = 0.0
    for i in fibonacci_indices():
        if i >= len(x):
            break
        s += x[i] ** 2
    return s


@pytest.mark.parametrize("fn, expected", [
    (indices_from_an_endless_generator, lambda x: np.array([2 * x[0], 2 * 2 * x[1], 2 * x[2]])),
    (short_circuits, lambda x: np.array([float(np.any(x * x > 1.0)), 0.0, 0.0])),
], ids=["endless_indices", "short_circuits"])
def test_a_generator_no_derivative_flows_through_runs_as_python_runs_it(fn, expected):
    # not read whole (or endless): left a call, which Python runs lazily, as before generators were listed
    check_every_transform(fn, X.copy(), expected(X))
