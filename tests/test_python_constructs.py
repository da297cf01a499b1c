"""Python constructs a user expects to be differentiated: loops over
`zip(..., strict=True)`, over `itertools.accumulate`, `chain` and `islice`, and the
rest this file's sections name. Each form against central differences and the analytic
answer in reverse mode, forward mode against the gradient, the arguments left as they
were, a Hessian where one means something, and `srcgrad.source` run on its own; the
near forms that cannot be differentiated exactly are refused at their line."""

import collections
import itertools
import math
import operator
import re

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian
from test_standalone_source import _defined as defined_name
from test_standalone_source import _load as module_namespace

X = np.array([0.5, -1.25, 2.0])
W = np.array([1.5, 0.25, -0.75])


def run_source(df, *args, tmp_path):
    """`srcgrad.source(df)` imported from a file as a module of its own, its derivative
    called with `args`."""
    text = srcgrad.source(df)
    return module_namespace(text, tmp_path)[defined_name(text)](*args)


# --- zip(..., strict=True) -------------------------------------------------------------


def strict_dot(x, w):
    s = 0.0
    for a, b in zip(x, w, strict=True):
        s = s + a * b * a
    return s


def strict_with_break(x, w):
    s = 0.0
    for a, b in zip(x, w, strict=True):
        s = s + np.sin(a) * b
        if b < 0.0:
            break
    return s


def strict_enumerated(x):
    s = 0.0
    z = zip(x, [1.0, 2.0, 3.0], strict=True)
    for k, (a, b) in enumerate(z):
        s = s + (k + 1) * a * a * b
    return s


def strict_comprehension(x, w):
    return sum([a * np.exp(b) for a, b in zip(x, w, strict=True)])


def strict_listed(x, w):
    pairs = list(zip(x, w, strict=True))
    return sum([a * a * b for a, b in pairs])


def strict_of_a_parameter(x, w, flag=True):
    s = 0.0
    for a, b in zip(x, w, strict=flag):
        s = s + a * b
    return s


def strict_three(x, w):
    s = 0.0
    for a, b, c in zip(x, w, [2.0, 3.0, 4.0], strict=True):
        s = s + a * b * c
    return s


def test_strict_zip_differentiated_like_zip(tmp_path):
    check(strict_dot, X, W, expected=[2 * X * W, X * X])
    check(strict_with_break, X, W, expected=[np.cos(X) * W, np.sin(X)])
    early = np.array([1.5, -0.5, 2.0])  # leaves the loop after its second turn
    check(strict_with_break, X, early, expected=[np.array([np.cos(X[0]) * 1.5, np.cos(X[1]) * -0.5, 0.0]),
                                                 np.array([np.sin(X[0]), np.sin(X[1]), 0.0])])
    check(strict_enumerated, X, expected=[2 * X * np.array([1.0, 4.0, 9.0])])
    check(strict_comprehension, X, W, expected=[np.exp(W), X * np.exp(W)])
    check(strict_listed, X, W, expected=[2 * X * W, X * X])
    check(strict_three, X, W, expected=[W * [2.0, 3.0, 4.0], X * [2.0, 3.0, 4.0]])
    check_hessian(strict_dot, (X, W), 0, expected=np.diag(2 * W))
    np.testing.assert_allclose(run_source(srcgrad.grad(strict_dot), X, W, tmp_path=tmp_path), 2 * X * W)


@pytest.mark.parametrize("fn, args, message", [
    (strict_dot, (X, W[:2]), "zip() argument 2 is shorter than argument 1"),
    (strict_dot, (X[:2], W), "zip() argument 2 is longer than argument 1"),
    (strict_three, (X, W[:2]), "zip() argument 2 is shorter than argument 1"),
    (strict_enumerated, (X[:2],), "zip() argument 2 is longer than argument 1"),
    (strict_comprehension, (X, W[:1]), "zip() argument 2 is shorter than argument 1"),
    (strict_listed, (X[:1], W), "zip() argument 2 is longer than argument 1"),
    (strict_three, (X, W, ), None),
])
def test_strict_zip_of_unequal_lengths_raises_as_python_does(fn, args, message):
    if message is None:  # the third argument, a list of 3, is the one that differs
        args, message = (X[:2], W[:2]), "zip() argument 3 is longer than arguments 1-2"
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        fn(*args)
    for transform in (srcgrad.grad(fn, wrt=tuple(range(len(args)))), lambda *a: srcgrad.jvp(fn, a, a)):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            transform(*args)


def test_strict_zip_left_by_break_checks_nothing():
    # Python checks the lengths only where the loop runs out: the `break` at w[1] < 0 comes first
    x, w = X, np.array([1.0, -1.0])
    assert strict_with_break(x, w) == np.sin(x[0]) - np.sin(x[1])
    gx, gw = srcgrad.grad(strict_with_break, wrt=(0, 1))(x, w)
    np.testing.assert_allclose(gx, [np.cos(x[0]), -np.cos(x[1]), 0.0], rtol=1e-12)
    np.testing.assert_allclose(gw, np.sin(x[:2]), rtol=1e-12)


def strict_under_try(x):
    s = 0.0
    try:
        for a, b in zip(x, [1.0, 2.0], strict=True):
            s = s + a * b
    except ValueError:
        s = s * 10.0
    return s


def stored_strict_under_try(x):
    s = 0.0
    z = zip(x, [1.0, 2.0], strict=True)
    try:
        for k, (a, b) in enumerate(z):
            s = s + a * b
    except ValueError:
        s = s * 10.0
    return s


@pytest.mark.parametrize("fn, line", [(strict_under_try, 3), (stored_strict_under_try, 4)])
def test_strict_zip_under_try_is_refused(fn, line):
    # Python's handler catches the ValueError at the loop's end; srcgrad's check would come after the `try` block
    assert fn(X) == pytest.approx(10 * (X[0] + 2 * X[1]))
    with pytest.raises(srcgrad.SrcGradError, match=r"loop over `zip\(..., strict=...\)` inside a `try` block") as e:
        srcgrad.grad(fn)(X)
    assert e.value.filename == __file__ and e.value.lineno == fn.__code__.co_firstlineno + line


def test_strict_zip_of_a_value_known_at_run_time_only_is_refused():
    with pytest.raises(srcgrad.SrcGradError, match=r"`zip\(x, w, strict=flag\)` is not supported") as e:
        srcgrad.grad(strict_of_a_parameter)(X, W)
    assert e.value.lineno == strict_of_a_parameter.__code__.co_firstlineno + 2


# --- itertools.accumulate, chain, islice -----------------------------------------------


def running_sums(x):
    s = 0.0
    for v in itertools.accumulate([x, x * x, 3.0]):
        s = s + v * v
    return s


def running_products(xs):
    s = 0.0
    for v in itertools.accumulate(xs, operator.mul):
        s = s + v
    return s


def running_blend(x):
    s = 0.0
    for k, v in enumerate(itertools.accumulate([x, x * x, 3.0], lambda a, b: a * 0.5 + np.sin(b), initial=1.0)):
        s = s + v * (k + 1)
    return s


def running_maxima_listed(xs):
    return sum(list(itertools.accumulate(xs))) + np.sum(np.array(list(itertools.accumulate(xs, func=np.maximum))))


def running_sums_of_rows(X):
    total = 0.0
    for r in itertools.accumulate(X):
        total = total + np.sum(r * r)
    return total


def chained(x, w):
    s = 0.0
    for v in itertools.chain(x, [w[0], 2.0 * w[1]]):
        s = s + v * v * v
    return s


def chained_rows(X):
    return sum(np.sum(r * r) for r in itertools.chain(X, X[:1]))


def sliced(x):
    return sum(v * v for v in itertools.islice(x, 1, None, 2)) + sum(list(itertools.islice(x, 2)))


def sliced_by(x, n=2):
    s = 0.0
    for v in itertools.islice(x, n):
        s = s + np.exp(v)
    return s


def _running_blend_gradient(x):
    # v0 = 1, v1 = 0.5 + sin x, v2 = 0.5 v1 + sin(x^2), v3 = 0.5 v2 + sin 3; s = sum (k + 1) v_k
    d1 = np.cos(x)
    d2 = 0.5 * d1 + 2 * x * np.cos(x * x)
    return 2 * d1 + 3 * d2 + 4 * 0.5 * d2


def test_accumulate(tmp_path):
    x = 1.5
    # s = x^2 + (x + x^2)^2 + (x + x^2 + 3)^2
    check(running_sums, x, expected=[2 * x + 2 * (x + x * x) * (1 + 2 * x) + 2 * (x + x * x + 3) * (1 + 2 * x)])
    check_hessian(running_sums, (x,), 0, expected=2 + 2 * ((1 + 2 * x) ** 2 + 2 * (x + x * x))
                  + 2 * ((1 + 2 * x) ** 2 + 2 * (x + x * x + 3)))
    a, b, c = X  # a + ab + abc
    check(running_products, X, expected=[np.array([1 + b + b * c, a + a * c, a * b])])
    check_hessian(running_products, (X,), 0)
    check(running_blend, x, expected=[_running_blend_gradient(x)])
    check_hessian(running_blend, (x,), 0)
    # sums: 3a + 2b + c; running maxima of (0.5, -1.25, 2.0): (a, a, c)
    check(running_maxima_listed, X, expected=[np.array([5.0, 2.0, 2.0])])
    M = np.array([[1.0, 2.0], [-0.5, 0.25], [3.0, -1.0]])
    r0, r1, r2 = M[0], M[0] + M[1], M.sum(0)  # the running sums of the rows
    check(running_sums_of_rows, M, expected=[2 * np.stack([r0 + r1 + r2, r1 + r2, r2])])
    np.testing.assert_allclose(run_source(srcgrad.grad(running_blend), x, tmp_path=tmp_path), _running_blend_gradient(x))
    np.testing.assert_allclose(run_source(srcgrad.grad(running_products), X, tmp_path=tmp_path), [1 + b + b * c, a + a * c, a * b])


def test_accumulate_of_nothing():
    assert srcgrad.grad(running_products)(np.zeros(0)).shape == (0,)
    assert srcgrad.grad(lambda_free_initial_only)(2.0) == 2.0


def lambda_free_initial_only(x):
    return sum(itertools.accumulate([], initial=x * x)) / 2.0


def test_chain_and_islice(tmp_path):
    w = np.array([1.0, 3.0])
    check(chained, X, w, expected=[3 * X * X, np.array([3.0, 2.0 * 3 * (2.0 * w[1]) ** 2])])
    check_hessian(chained, (X, w), 0, expected=np.diag(6 * X))
    M = np.array([[1.0, 2.0], [-0.5, 0.25]])
    check(chained_rows, M, expected=[np.array([4 * M[0], 2 * M[1]])])
    check(sliced, X, expected=[np.array([1.0, 1.0 + 2 * X[1], 0.0])])
    check(sliced_by, X, expected=[np.array([np.exp(X[0]), np.exp(X[1]), 0.0])])
    np.testing.assert_allclose(srcgrad.grad(sliced_by)(X, 0), np.zeros(3))
    np.testing.assert_allclose(run_source(srcgrad.grad(sliced_by), X, 2, tmp_path=tmp_path), [np.exp(X[0]), np.exp(X[1]), 0.0])
    np.testing.assert_allclose(run_source(srcgrad.grad(chained), X, w, tmp_path=tmp_path), 3 * X * X)


@pytest.mark.parametrize("n, message", [
    (-1, "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."),
    (1.5, "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."),
])
def test_islice_bounds_refused_as_islice_refuses_them(n, message):
    with pytest.raises(ValueError) as python:
        sliced_by(X, n)
    with pytest.raises(ValueError) as derivative:
        srcgrad.grad(sliced_by)(X, n)
    assert str(python.value) == str(derivative.value) == message


def accumulated_next_floats(xs):
    s = 0.0
    for v in itertools.accumulate(xs, math.nextafter):
        s = s + v
    return s


def accumulated_by_a_lambda_with_a_default(xs):
    s = 0.0
    for v in itertools.accumulate(xs, lambda a, b, c=1.0: a * b * c):
        s = s + v
    return s


def counted_positions(xs):
    s = 0.0
    for k in itertools.islice(itertools.count(), 2):
        s = s + xs[k] * xs[k]
    return s


def sliced_generator(xs):
    s = 0.0
    for v in itertools.islice((2.0 * v for v in xs), 2):
        s = s + v
    return s


def chained_while_appending(xs):
    s = 0.0
    ys = [xs[0], xs[1]]
    for v in itertools.chain(ys, xs):
        s = s + v
        if len(ys) < 4:
            ys.append(v)
    return s


def test_iterators_it_does_not_read_as_lists():
    # an iterator of constants that never ends still runs as Python runs it
    check(counted_positions, X, expected=[np.array([2 * X[0], 2 * X[1], 0.0])])
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"no derivative rule for .*nextafter"):
        srcgrad.grad(accumulated_next_floats)(X)
    with pytest.raises(srcgrad.SrcGradError, match="lambda"):
        srcgrad.grad(accumulated_by_a_lambda_with_a_default)(X)
    # a generator expression is no list: the call stays, and is refused as an iterable carrying a derivative
    with pytest.raises(srcgrad.SrcGradError, match="islice"):
        srcgrad.grad(sliced_generator)(X)
    # the body changes `ys`, which `chain` reads item by item: refused, not read as the list made first
    assert chained_while_appending(X) == X[0] + X[1] + X[0] + X[1] + X.sum()
    with pytest.raises(srcgrad.SrcGradError) as e:
        srcgrad.grad(chained_while_appending)(X)
    assert e.value.lineno in range(chained_while_appending.__code__.co_firstlineno,
                                   chained_while_appending.__code__.co_firstlineno + 7)


# --- params[k] += vel[k]: entries of dicts and lists the function made ------------------


def momentum_step(w):
    params = {"w": w.copy()}
    vel = {"w": 0.1 * w}
    for k in params:
        params[k] += vel[k]
    return np.sum(params["w"] ** 2)


def momentum_descent(w, b):
    params = {"w": w.copy(), "b": b.copy()}
    vel = {k: np.zeros_like(v) for k, v in params.items()}
    for step in range(3):
        for k in params:
            vel[k] = 0.9 * vel[k] + 0.1 * params[k]
            params[k] += vel[k]
    return np.sum(params["w"] ** 2) + np.sum(np.sin(params["b"]))


def list_momentum(w):
    params = [w.copy(), 2.0 * w]
    vel = [0.1 * w, 0.2 * w]
    for k in range(2):
        params[k] += vel[k]
    return np.sum(params[0] ** 2) + np.sum(np.exp(params[1]))


def momentum_float32(w):
    params = {"w": w.astype(np.float32)}
    vel = {"w": 0.1 * w}
    for k in params:
        params[k] += vel[k]
    return params["w"]


def velocity_is_the_parameter(w):
    params = {"w": w.copy()}
    vel = {"w": params["w"]}
    for k in params:
        params[k] += vel[k]
    return np.sum(params["w"] ** 2) + np.sum(vel["w"])


def two_names_for_one_array(w):
    a = w.copy()
    params = {"w": a, "v": a}
    vel = {"w": 0.1 * w, "v": 0.2 * w}
    for k in params:
        params[k] += vel[k]
    return np.sum(params["w"] ** 2)


def entries_of_the_argument(w):
    params = {"w": w}
    vel = {"w": 0.1 * w}
    for k in params:
        params[k] += vel[k]
    return np.sum(params["w"] ** 2)


def test_entry_updated_in_place(tmp_path):
    check(momentum_step, X, expected=[2 * 1.1 ** 2 * X])
    check_hessian(momentum_step, (X,), 0, expected=2 * 1.1 ** 2 * np.eye(3))
    # each step: v <- 0.9 v + 0.1 p, p <- p + v; linear in the start: p = c * p0 with c from the recursion
    c, v = 1.0, 0.0
    for _ in range(3):
        v = 0.9 * v + 0.1 * c
        c = c + v
    b = np.array([0.3, -0.7])
    check(momentum_descent, X, b, expected=[2 * c * c * X, c * np.cos(c * b)])
    check_hessian(momentum_descent, (X, b), 1, expected=np.diag(-c * c * np.sin(c * b)))
    check(list_momentum, X, expected=[2 * 1.1 ** 2 * X + 2.2 * np.exp(2.2 * X)])
    np.testing.assert_allclose(run_source(srcgrad.grad(momentum_step), X, tmp_path=tmp_path), 2 * 1.1 ** 2 * X)


def test_entry_updated_in_place_keeps_its_dtype():
    # NumPy writes the float64 sum into the float32 entry
    out, out_dot = srcgrad.jvp(momentum_float32, (X,), (np.ones(3),))
    assert out.dtype == np.float32 and momentum_float32(X).dtype == np.float32
    np.testing.assert_allclose(out_dot, 1.1 * np.ones(3), rtol=1e-6)


@pytest.mark.parametrize("fn, line", [(velocity_is_the_parameter, 4), (two_names_for_one_array, 5),
                                      (entries_of_the_argument, 4)])
def test_entry_shared_with_another_value_is_refused(fn, line):
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"changes the value that `params` holds in place") as e:
        srcgrad.grad(fn)(X)
    assert e.value.filename == __file__ and e.value.lineno == fn.__code__.co_firstlineno + line


# --- collections.defaultdict and OrderedDict as local accumulators ----------------------


def squares_by_key(x):
    d = collections.defaultdict(float)
    for k, v in zip(["a", "b", "a"], x):
        d[k] += v * v
    return d["a"] + 2.0 * d["b"] + d["c"] * 5.0


def products_by_key(x):
    d = collections.defaultdict(lambda: 1.0)
    for k, v in zip([0, 1, 0], x):
        d[k] *= v
    return d[0] * 3.0 + d[1] + d[2]


def counted_keys(x):
    d = collections.defaultdict(int)
    for k, v in zip(["a", "b", "a"], x):
        d[k] += 1
    return x[0] * d["a"] + x[1] * len(d)


def ordered_entries(x):
    d = collections.OrderedDict()
    d["b"] = x[0]
    d["a"] = x[1] * x[2]
    s = 0.0
    for k, v in d.items():
        s = s + v * v
    return s + sum(d.values())


def length_read_with_a_default(x):
    d = collections.defaultdict(float)
    d["a"] = 2.0 * x
    y = len(d) + d["b"]  # Python reads len(d) before d["b"] stores its default: 1
    return y * x + d["a"]


def default_dict_returned(x):
    d = collections.defaultdict(float)
    d["a"] += x
    return d


def test_default_and_ordered_dicts(tmp_path):
    a, b, c = X
    check(squares_by_key, X, expected=[np.array([2 * a, 4 * b, 2 * c])])
    check_hessian(squares_by_key, (X,), 0, expected=np.diag([2.0, 4.0, 2.0]))
    check(products_by_key, X, expected=[np.array([3 * c, 1.0, 3 * a])])
    check(counted_keys, X, expected=[np.array([2.0, 2.0, 0.0])])
    check(ordered_entries, X, expected=[np.array([2 * a + 1, 2 * b * c * c + c, 2 * b * b * c + b])])
    np.testing.assert_allclose(run_source(srcgrad.grad(squares_by_key), X, tmp_path=tmp_path), [2 * a, 4 * b, 2 * c])


def test_default_dicts_it_cannot_make_plain_stay_refused():
    # a read of d besides its keys in the statement reading a missing key: the default would go in too early
    assert length_read_with_a_default(1.5) == 1.5 + 3.0
    for fn in (length_read_with_a_default, default_dict_returned):
        with pytest.raises(srcgrad.NotDifferentiableError, match="collections.defaultdict") as e:
            srcgrad.grad(fn)(1.5)
        assert e.value.filename == __file__


# --- global and nonlocal declarations of names the function reads ----------------------

SCALE = 2.0
CALLS = 0


def scaled_by_a_global(x):
    global SCALE
    return np.sum(np.sin(x) * SCALE)


def _closure_reading(c):
    def scaled(x):
        nonlocal c
        return np.sum(x * x) * c
    return scaled


def counted(x):
    global CALLS
    CALLS = CALLS + 1
    return np.sum(x * x)


def global_receives_a_derivative(x):
    global SCALE
    SCALE = np.sum(x)
    return SCALE * 2.0


def _closure_writing():
    total = 0.0

    def add(x):
        nonlocal total
        total = total + np.sum(x)
        return total * 2.0
    return add


def test_declarations_of_names_only_read(tmp_path):
    check(scaled_by_a_global, X, expected=[SCALE * np.cos(X)])
    check_hessian(scaled_by_a_global, (X,), 0, expected=np.diag(-SCALE * np.sin(X)))
    np.testing.assert_allclose(run_source(srcgrad.grad(scaled_by_a_global), X, tmp_path=tmp_path), SCALE * np.cos(X))
    closure = _closure_reading(3.0)
    check(closure, X, expected=[6.0 * X])
    check_hessian(closure, (X,), 0, expected=6.0 * np.eye(3))


@pytest.mark.parametrize("fn, line, written", [
    (counted, 2, "CALLS = CALLS + 1"), (global_receives_a_derivative, 2, "SCALE = np.sum(x)"),
])
def test_a_global_assigned_is_refused_at_its_declaration(fn, line, written):
    before = CALLS
    with pytest.raises(srcgrad.SrcGradError, match=r"assigns `\w+`, a global \(line \d+: `" + re.escape(written)) as e:
        srcgrad.grad(fn)(X)
    assert e.value.filename == __file__ and e.value.lineno == fn.__code__.co_firstlineno + 1
    assert CALLS == before and SCALE == 2.0


def test_a_nonlocal_assigned_is_refused_at_its_declaration():
    add = _closure_writing()
    with pytest.raises(srcgrad.SrcGradError, match=r"`nonlocal total` .* assigns `total`, a variable of the function") as e:
        srcgrad.grad(add)(X)
    assert e.value.lineno == add.__code__.co_firstlineno + 1


# --- np.put into an array the function made ---------------------------------------------


def put_into_zeros(x):
    y = np.zeros(3)
    np.put(y, [0, 2], x[:2])
    return np.sum(y * y)


def put_repeated_and_negative(x):
    y = np.ones((2, 3))
    np.put(y, [-1, 0, 0, 4], x[:2] * 3.0)  # values repeated: 3a, 3b, 3a, 3b; place 0 keeps the last, 3a
    return np.sum(np.sin(y))


def put_wrapped(x):
    y = np.ones(4)
    np.put(y, [5, -6], x[0], mode="wrap")
    return np.sum(y ** 3)


def put_out_of_range(x):
    y = np.zeros(3)
    np.put(y, [7], x[0])
    return np.sum(y)


def put_into_the_argument(x):
    np.put(x, [0], 1.0)
    return np.sum(x)


def test_np_put(tmp_path):
    a, b, c = X
    check(put_into_zeros, X, expected=[np.array([2 * a, 2 * b, 0.0])])
    check_hessian(put_into_zeros, (X,), 0, expected=np.diag([2.0, 2.0, 0.0]))
    # places 5 and 4 get 3a and 3b; place 0 gets 3a (written last)
    check(put_repeated_and_negative, X, expected=[np.array([6 * np.cos(3 * a), 3 * np.cos(3 * b), 0.0])])
    check_hessian(put_repeated_and_negative, (X,), 0)
    check(put_wrapped, X, expected=[np.array([6 * a * a, 0.0, 0.0])])  # places 1 and 2 both get a
    np.testing.assert_allclose(run_source(srcgrad.grad(put_into_zeros), X, tmp_path=tmp_path), [2 * a, 2 * b, 0.0])


def test_np_put_refusals():
    with pytest.raises(IndexError) as numpy_error:
        put_out_of_range(X)
    with pytest.raises(IndexError) as derivative_error:
        srcgrad.grad(put_out_of_range)(X)
    assert str(numpy_error.value) == str(derivative_error.value) == "index 7 is out of bounds for axis 0 with size 3"
    with pytest.raises(srcgrad.NotDifferentiableError) as e:
        srcgrad.grad(put_into_the_argument)(X.copy())
    assert e.value.lineno == put_into_the_argument.__code__.co_firstlineno + 1


def accumulate_left_early(x):
    s = 0.0
    for v in itertools.accumulate([x, 0.0, 2.0], lambda a, b: a / b):
        if v < 10.0:
            break
        s = s + v
    return s + x


def test_accumulate_in_a_loop_that_may_leave_early_stays_lazy():
    # Python never divides by the 0.0: the loop leaves at the first item; the derivative must not either
    assert accumulate_left_early(1.5) == 1.5
    with pytest.raises(srcgrad.SrcGradError, match="accumulate"):
        srcgrad.grad(accumulate_left_early)(1.5)


# --- writes through .T of an array the function made -------------------------------------


def write_through_transpose(x):
    M = np.zeros((2, 3))
    M.T[0] = x[:2]
    return np.sum(M ** 2)


def writes_through_transpose_slices(x):
    M = np.ones((3, 2)) * x[2]
    M.T[1, 1:] = x[:2] * 3.0
    M.T[:, 0] = np.sin(x[:2])
    return np.sum(np.sin(M) * np.arange(6.0).reshape(3, 2))


def write_through_transpose_repeated(x):
    M = np.ones((3, 3))
    M.T[[0, 0]] = np.stack([x, 2.0 * x])  # row 0 of M.T gets 2x, written last
    return np.sum(M ** 3)


def write_through_transpose_of_the_argument(x):
    x.T[0] = 1.0
    return np.sum(x)


def write_through_reshape(x):
    M = np.zeros((2, 2))
    M.reshape(4)[1] = x[0]
    return np.sum(M * M)


def test_writes_through_transpose(tmp_path):
    a, b, c = X
    check(write_through_transpose, X, expected=[np.array([2 * a, 2 * b, 0.0])])
    check_hessian(write_through_transpose, (X,), 0, expected=np.diag([2.0, 2.0, 0.0]))
    # M = [[sin a, sin b], [c, 3a], [c, 3b]] weighted by [[0, 1], [2, 3], [4, 5]]
    check(writes_through_transpose_slices, X, expected=[np.array([
        9 * np.cos(3 * a), np.cos(np.sin(b)) * np.cos(b) + 15 * np.cos(3 * b), 6 * np.cos(c)])])
    check_hessian(writes_through_transpose_slices, (X,), 0)
    check(write_through_transpose_repeated, X, expected=[3 * (2 * X) ** 2 * 2])
    np.testing.assert_allclose(run_source(srcgrad.grad(write_through_transpose), X, tmp_path=tmp_path), [2 * a, 2 * b, 0.0])


def test_writes_through_views_it_cannot_follow_stay_refused():
    # an argument's `.T` writes into the caller's array; `.reshape(...)` is a view or a copy by the array's layout
    for fn in (write_through_transpose_of_the_argument, write_through_reshape):
        with pytest.raises(srcgrad.NotDifferentiableError) as e:
            srcgrad.grad(fn)(X.copy())
        assert e.value.lineno == fn.__code__.co_firstlineno + (1 if fn is write_through_transpose_of_the_argument else 2)


def accumulate_under_try(x):
    s = 0.0
    try:
        for v in itertools.accumulate([x, 2.0, 0.0, 3.0], lambda a, b: a / b):
            s = s + v * x
    except ZeroDivisionError:
        s = s * 10.0
    return s


def test_accumulate_in_a_loop_under_try_stays_lazy():
    # Python runs the turns for x and x / 2 before the division by 0.0 is caught: s = 10 (x^2 + x^2 / 2)
    assert accumulate_under_try(1.5) == pytest.approx(10 * 1.5 * 1.5 * 1.5)
    with pytest.raises(srcgrad.SrcGradError, match="accumulate"):
        srcgrad.grad(accumulate_under_try)(1.5)
