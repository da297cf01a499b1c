"""Python programs as a demanding user writes them, differentiated whole: integer and
bool arguments beside floats, 0-d arrays, recursion, comprehensions and generators,
while loops with data-dependent trip counts, try/except, early returns inside loops,
dict and list state changed in loops, closures over loop variables and late binding,
class methods, properties and dataclass attributes, globals, functools.partial,
lambdas, math mixed with NumPy, keyword-only arguments, *args and **kwargs, `or`
defaults, for/while-else, and custom rules; then the programs srcgrad refuses, each
with an error naming the construct, the file and the line.

Each is checked by `program_checks.check_program` (the gradient of every float argument
against central differences in float64 and typed like it, the second call,
value_and_grad, vjp and jvp agreeing, the arguments unchanged, the Hessian block of the
first argument, float32 arrays keeping float32 gradients).

- `f(**opts)` of `opts = dict(scale=2.0, shift=x[1])` was refused: the call `dict(...)`
  is read as the display it makes before `**opts` is spelled out.
- `f = np.vectorize(lambda t: ...)`, then `f(x)`, was refused as a lambda not assigned to
  a name: a name bound once to an `np.vectorize` and only called is the call of it.
- `b = a[:]` (or `a[1:]`) of a list, then `b[0] = v` or `b.append(v)`, was refused as a
  change of a value the list `a` holds: a slice of a list is a new list (a write into
  one of its entries, shared with `a`, stays refused).
- `math.modf` and `np.modf` had no derivative rule (the fractional part's derivative is 1,
  the integral part's 0).
- `L['out'] = h` in `for L in layers` was refused as a change of a value the function
  does not make; it is refused naming the loop and the rewrite that works.
"""

import copy
import dataclasses
import functools
import itertools
import math

import numpy as np
import pytest

import srcgrad
from program_checks import check_program

rng = np.random.default_rng(21)
V = rng.normal(size=4)
M = rng.normal(size=(3, 3))


# --- arguments of several kinds ----------------------------------------------------------


def ints_and_bools_beside_floats(x, n, flag):
    y = x * n + flag
    if flag:
        y = y * 2
    return (y ** 2).sum() / n


def zero_d_arrays_and_numpy_scalars(x, s):
    t = np.asarray(s) * x
    return float(t.sum()) + np.sum(np.float64(2.0) * s ** 2)


def keyword_only(x, *, w=2.0):
    return (w * x ** 2).sum()


def calls_with_keyword_only(x):
    return keyword_only(x, w=x[0]) + keyword_only(x)


def sum_of_squares(*xs):
    return sum(t ** 2 for t in xs)


def calls_with_star_args(a, b):
    args = (a, b * 2.0)
    return sum_of_squares(a, b, a * b) + sum_of_squares(*args)


def affine(x, scale=1.0, shift=0.0):
    return np.tanh(x * scale + shift)


def calls_with_a_dict_of_keywords(x):
    opts = dict(scale=2.0, shift=x[1])
    return affine(x, **opts).sum()


def defaults_by_or(x):
    s = (x[0] * 0.0) or x[1]
    t = x[2] or 5.0
    return s * t + (x[3] and x[0])


# --- recursion, comprehensions, generators -----------------------------------------------


def horner(x, n):
    if n == 0:
        return np.ones_like(x)
    return 1.0 + x * horner(x, n - 1) / n


def recursive_series(x):
    return horner(x, 4).sum()


def ping(x, n):
    return x if n == 0 else pong(x * 1.5, n - 1)


def pong(x, n):
    return np.sin(x) if n == 0 else ping(x + 0.1, n - 1)


def mutual_recursion(x):
    return ping(x, 3).sum()


def comprehensions_and_generator_expressions(x):
    terms = [xi ** k for k, xi in enumerate(x)]
    squares = {i: x[i] ** 2 for i in range(4) if i != 2}
    return sum(terms) + sum(t * t for t in x if t > 0) + sum(squares.values()) * squares[0]


def squares_of(v):
    for t in v:
        yield t * t


def generator_function(x):
    return sum(squares_of(x)) * max(v ** 2 for v in x)


def product_of_ranges(x):
    s = 0.0
    for i, j in itertools.product(range(2), range(2)):
        s = s + x[i] * x[2 + j]
    return s


# --- loops with data-dependent exits ------------------------------------------------------


def halley_cube_root(a):
    y, steps = 1.0, 0
    while abs(y ** 3 - a) > 1e-13 and steps < 50:
        y = y * (y ** 3 + 2.0 * a) / (2.0 * y ** 3 + a)
        steps += 1
    return y


def grows_until_a_threshold(x):
    s = x[0] ** 2
    k = 0
    while s < 20.0:
        s = s * (1.0 + x[1] ** 2) + x[2]
        k += 1
    return s * k


def fixed_point(c):
    z, it = 0.0, 0
    while True:
        z_new = np.cos(z) * c
        if abs(z_new - z) < 1e-13 or it > 200:
            break
        z = z_new
        it += 1
    return z_new


def early_return_in_a_loop(x):
    s = 0.0
    for v in x:
        s = s + v * v
        if s > 2.0:
            return s * 3.0
    return s


def early_return_in_nested_loops(a):
    for i in range(3):
        for j in range(3):
            if a[i, j] > 1.0:
                return a[i, j] ** 3 * (i + j)
    return a.sum()


def for_else(x):
    s = 0.0
    for v in x:
        if v > 5.0:
            break
        s = s + v
    else:
        s = s * 2.0
    return s


def while_else(a):
    y, n = a, 0
    while n < 10:
        y = y * 0.9 + 0.1
        n += 1
        if y < 0.5:
            break
    else:
        y = y * 10.0
    return y


def bubble_sort(x):
    a = x.copy()
    for i in range(4):
        for j in range(3 - i):
            if a[j] > a[j + 1]:
                t = a[j]
                a[j] = a[j + 1]
                a[j + 1] = t
    return (a * np.arange(1.0, 5.0)).sum()


def loop_variable_after_the_loop(x):
    s = 0.0
    for i in range(3):
        s = s + x[i]
    return s * i + x[i]


# --- try/except ---------------------------------------------------------------------------


def cholesky_or_fallback(a):
    try:
        L = np.linalg.cholesky(a)
        return np.log(np.diag(L)).sum()
    except np.linalg.LinAlgError:
        return 0.0


def division_guarded(a, b):
    try:
        r = 1.0 / (a - b)
    except ZeroDivisionError:
        r = 0.0
    return r * a


def raise_and_catch_in_a_loop(x):
    total = 0.0
    for i in range(4):
        try:
            if x[i] < 0:
                raise ValueError("negative")
            total = total + np.sqrt(x[i])
        except ValueError:
            total = total - x[i] ** 2
    return total


# --- dict and list state -------------------------------------------------------------------


def dict_state_in_a_loop(x):
    d = {"a": 0.0, "b": 1.0}
    for i in range(3):
        d["a"] = d["a"] + x[i] * d["b"]
        d["b"] = d["b"] * x[i]
    return d["a"] + d["b"]


def list_grown_in_a_loop(x):
    acc = [x[0], x[1]]
    for i in range(3):
        acc.append(acc[-1] * acc[-2] + x[i])
    return acc[-1]


def add_into(d, v):
    d["s"] = d["s"] + v


def append_doubled(acc, v):
    acc.append(v * 2.0)


def helpers_changing_a_dict_and_a_list(x):
    d, acc = {"s": 0.0}, []
    for i in range(3):
        add_into(d, x[i] ** 2)
        append_doubled(acc, x[i])
    return d["s"] * sum(acc) * acc[0]


def layers_as_a_list_of_dicts(x):
    layers = [{"w": x[0], "b": x[1]}, {"w": x[2], "b": x[3]}]
    h = 0.5
    for i in range(len(layers)):
        h = np.tanh(layers[i]["w"] * h + layers[i]["b"])
        layers[i] = {**layers[i], "out": h}
    return layers[0]["out"] * layers[1]["out"]


def list_slices_are_new_lists(x):
    a = [x[0], x[1], x[3]]
    b = a[:]
    b[0] = x[2] ** 2
    c = a[1:]
    c.append(x[2] * 3.0)
    c[0] = c[0] * 2.0
    return a[0] + b[0] * a[1] + sum(c) * a[2]


def tuple_state(x):
    state = (x[0], x[1])
    for _ in range(3):
        a, b = state
        state = (a * b, a + b)
    return state[0] + state[1]


def list_entries_augmented(x):
    acc = [0.0, 0.0]
    for i in range(4):
        acc[i % 2] += x[i] ** 2
    return acc[0] * acc[1]


# --- closures, partials, lambdas ------------------------------------------------------------


def closure_over_the_loop_variable(x):
    total = 0.0
    for i in range(3):
        def g(v):
            return v * i
        total = total + g(x[i])
    return total


def closure_reads_late(x):
    k = 2.0
    def g(t):
        return t * k
    a = g(x[0])
    k = x[1]
    return a + g(x[2])


def lambda_reads_late(x):
    k = x[0]
    f = lambda t: t * k
    k = x[1] ** 2
    return f(x[2])


def vectorized_lambda_by_name(x):
    f = np.vectorize(lambda t: t * t if t > 0 else -t)
    k = x[1]
    g = np.vectorize(lambda t: t * k)
    k = x[2]  # read when g is called, as Python's closure reads it
    return f(x).sum() + f(x * 2.0).sum() + g(x).sum()


def vectorized_def_by_name(x):
    def v(t, s):
        return np.sin(t) * s if t > 0 else t * s
    g = np.vectorize(v)
    return g(x, x[0]).sum()


def power_sum(x, p):
    return (np.abs(x) ** p).sum()


def partial_and_lambda(x):
    cube_sum = functools.partial(power_sum, p=3.0)
    sq = lambda t: t * t
    return cube_sum(x) + sq(x).sum() + sq(x[0])


def three(a, b, c):
    return a * b ** 2 + np.exp(c) * a


def partial_of_a_positional(x):
    f = functools.partial(three, x[0])
    return f(x[1] * x[2], c=x[3])


# --- classes, dataclasses, globals ------------------------------------------------------------


@dataclasses.dataclass
class Linear:
    w: np.ndarray
    b: float

    def __call__(self, x):
        return self.w @ x + self.b


LINEAR = Linear(np.array([1.0, -2.0, 0.5, 3.0]), 0.1)


def dataclass_called(x):
    return np.tanh(LINEAR(x)) ** 2


class Model:
    def __init__(self, w):
        self.w = w

    @property
    def w2(self):
        return self.w ** 2

    @staticmethod
    def act(t):
        return np.tanh(t)

    def __call__(self, x):
        return self.act(self.w2 @ x)


MODEL = Model(np.array([0.5, -1.0, 2.0, 0.1]))


def property_and_static_method(x):
    return MODEL(x) ** 2


class Poly:
    def __init__(self, c):
        self.c = c

    def __getitem__(self, i):
        return self.c[i]

    def __call__(self, x):
        return sum(self[i] * x ** i for i in range(len(self.c)))


POLY = Poly([1.0, -2.0, 0.5, 0.25])


def object_with_getitem(x):
    return POLY(x).sum()


SCALE = 3.0


def global_constants(x):
    return (SCALE * x ** 2).sum() + math.pi * x[0]


# --- math with numpy, custom rules, nested derivatives ---------------------------------------


def math_and_numpy(a, b):
    return math.exp(a) * np.sin(b) + math.sqrt(a * a + 1.0) + math.log1p(b * b)


def math_reductions(x):
    return math.fsum(x) + math.prod(x[:2]) + math.hypot(x[0], x[1]) + math.dist(x[:2], x[2:])


def math_module_zoo(a, b):
    frac, whole = math.modf(a * 3.0)
    return (math.fmod(a * 5, 1.3) + math.copysign(a, b) * b + math.atan2(a, b) + math.erf(a) + math.gamma(b + 2.0)
            + math.lgamma(a + 3.0) + math.pow(a, 3) + pow(b, 2) + frac * b + whole * a + math.floor(a * 3) * a
            + divmod(b * 7, 2.0)[1] + abs(b) + math.tanh(a) * math.cosh(b) + math.degrees(a) + math.radians(b)
            + math.expm1(a) + math.log(b + 2, 3) + math.log2(a + 1) + math.log10(b + 2) + math.asinh(a)
            + math.erfc(b) + np.modf(np.array([a, b]) * 2.5)[0].sum())


def selections_by_key(x):
    s = sorted(x, key=lambda v: -v)
    return max(x, key=abs) + min(range(4), key=lambda i: x[i]) * x[0] + s[0] * 2.0 + s[-1]


@srcgrad.custom_vjp
def scaled(x, s=2.0):
    return x * s


@scaled.defvjp
def _scaled_vjp(g, ans, x, s=2.0):
    return g * s, (g * x).sum()


def custom_rule_with_a_default(x, t):
    return (scaled(x) + scaled(x, s=t)).sum() * t


@srcgrad.custom_vjp
def softplus(x):
    return np.log1p(np.exp(x))


def _softplus_fwd(x):
    return np.log1p(np.exp(x)), x


def _softplus_bwd(x, g):
    return (g / (1.0 + np.exp(-x)),)


softplus.defvjp(_softplus_fwd, _softplus_bwd)


@srcgrad.custom_vjp
def norm2(v):
    return np.sqrt((v ** 2).sum())


@norm2.defvjp
def _norm2_vjp(g, ans, v):
    return g * v / ans


@norm2.defjvp
def _norm2_jvp(primals, tangents):
    (v,), (t,) = primals, tangents
    n = np.sqrt((v ** 2).sum())
    return n, (v * t).sum() / n


def custom_rules_in_a_comprehension(x):
    return sum(norm2(x[i:i + 2]) for i in range(3)) + softplus(x * 3.0).sum() + norm2(x * x) ** 3


def inner_loss(w, x):
    return ((w * x - 1.0) ** 2).sum()


def one_inner_gradient_step(w, x):
    w2 = w - 0.1 * srcgrad.grad(inner_loss)(w, x)
    return inner_loss(w2, x * 2.0)


def kalman_filter(q, r, ys):
    m, P, nll = 0.0, 1.0, 0.0
    for y in ys:
        P = P + q
        S = P + r
        K = P / S
        nll = nll + 0.5 * (math.log(2 * math.pi * S) + (y - m) ** 2 / S)
        m = m + K * (y - m)
        P = (1 - K) * P
    return nll


PROGRAMS = [
    (ints_and_bools_beside_floats, (V, 3, True), {}),
    (zero_d_arrays_and_numpy_scalars, (V, 1.5), {}),
    (calls_with_keyword_only, (V,), {}),
    (calls_with_star_args, (0.4, -1.3), {}),
    (calls_with_a_dict_of_keywords, (V,), {}),
    (defaults_by_or, (np.array([0.3, -1.2, 0.7, 0.9]),), {}),
    (recursive_series, (V,), {}),
    (mutual_recursion, (V,), {}),
    (comprehensions_and_generator_expressions, (V,), {}),
    (generator_function, (V,), {}),
    (product_of_ranges, (V,), {}),
    (halley_cube_root, (2.0,), {}),
    (grows_until_a_threshold, (np.array([1.0, 0.5, 0.3]),), {}),
    (fixed_point, (0.8,), {}),
    (early_return_in_a_loop, (V,), {}),
    (early_return_in_nested_loops, (M,), {}),
    (for_else, (V,), {}),
    (while_else, (0.9,), {}),
    (while_else, (3.0,), {}),
    (bubble_sort, (V,), {}),
    (loop_variable_after_the_loop, (V,), {}),
    (cholesky_or_fallback, (M @ M.T + np.eye(3),), {}),
    (division_guarded, (0.3, 1.2), {}),
    (raise_and_catch_in_a_loop, (np.array([1.0, -0.5, 2.0, -1.5]),), {}),
    (dict_state_in_a_loop, (V,), {}),
    (list_grown_in_a_loop, (V,), {}),
    (helpers_changing_a_dict_and_a_list, (V,), {}),
    (layers_as_a_list_of_dicts, (np.array([0.5, 0.2, -1.0, 0.3]),), {}),
    (list_slices_are_new_lists, (V,), {}),
    (tuple_state, (V,), {}),
    (list_entries_augmented, (V,), {}),
    (closure_over_the_loop_variable, (V,), {}),
    (closure_reads_late, (V,), {}),
    (lambda_reads_late, (V,), {}),
    (partial_and_lambda, (V,), {}),
    (vectorized_lambda_by_name, (np.array([0.5, -1.5, 2.0]),), {}),
    (vectorized_def_by_name, (np.array([0.5, -1.5, 2.0]),), {}),
    (partial_of_a_positional, (V,), {}),
    (dataclass_called, (V,), {}),
    (property_and_static_method, (V,), {}),
    (object_with_getitem, (V,), {}),
    (global_constants, (V,), {}),
    (math_and_numpy, (0.3, 1.1), {}),
    (math_reductions, (V,), dict(float32=False)),
    (math_module_zoo, (0.37, 0.81), {}),
    (selections_by_key, (V,), {}),
    (custom_rule_with_a_default, (V, 1.5), dict(hessian=False, forward=False)),
    (custom_rules_in_a_comprehension, (V,), dict(hessian=False, forward=False)),
    (one_inner_gradient_step, (V, V[::-1].copy()), dict(hessian=False)),
    (kalman_filter, (0.3, 0.5, rng.normal(size=5)), {}),
]


@pytest.mark.parametrize("fn, args, options", PROGRAMS, ids=[f"{p[0].__name__}-{i}" for i, p in enumerate(PROGRAMS)])
def test_program(fn, args, options):
    check_program(fn, args, **options)


def test_exact_gradients():
    assert srcgrad.grad(defaults_by_or)(np.array([0.3, -1.2, 0.7, 0.9])).tolist() == [1.0, 0.7, -1.2, 0.0]
    assert srcgrad.grad(closure_reads_late)(V).tolist() == [2.0, V[2], V[1], 0.0]
    np.testing.assert_allclose(srcgrad.grad(halley_cube_root)(2.0), 2.0 ** (-2.0 / 3.0) / 3.0, rtol=1e-10)


# --- refused, with the construct, file and line ----------------------------------------------


def view_changed_in_place(x):
    a = x.copy()
    b = a[::2]
    b *= 2.0
    return (a * x).sum()


def alias_written(x):
    a = np.zeros(3)
    b = a
    b[0] = x[0] ** 2
    return (a * x[:3]).sum()


def chained_assignment_changed_in_place(x):
    a = b = x * 2.0
    a += 1.0
    return (b * x).sum()


def rows_of_one_list(x):
    m = [[0.0] * 2] * 2
    m[0][0] = x[0]
    return m[1][0] * x[1]


def loop_variable_appended_to(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    for r in rows:
        r.append(r[0] * r[1])
    return rows[0][2] + rows[1][2] ** 2


def entry_of_a_list_slice_written(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    c = rows[:]  # a new list holding the rows of `rows`
    c[0][0] = 5.0
    return rows[0][0] * x[1]


def shallow_copy(x):
    rows = [x[:2] * 1.0, x[2:] * 1.0]
    c = copy.copy(rows)
    c[0][0] = 10.0
    return rows[0].sum() * x[0]


REFUSED = [
    (view_changed_in_place, srcgrad.NotDifferentiableError, 3,
     "`b *= 2.0` (", ") changes the array `b` in place, and `b` shares memory with `a` (line {}: `b = a[::2]`)"),
    (alias_written, srcgrad.NotDifferentiableError, 3,
     "`b[0] = x[0] ** 2` changes an array in place that may share memory with another value (it is made at "
     "line {}: `b = a`; in `alias_written`)", ""),
    (chained_assignment_changed_in_place, srcgrad.NotDifferentiableError, 2,
     "`a += 1.0` (", ") changes `a` in place, and it may share memory with `b` (line {}: `a = b = x * 2.0`)"),
    (rows_of_one_list, srcgrad.NotDifferentiableError, 2,
     "`m[0][0] = x[0]` changes in place a value (a list or an array) held by the list `m` (in `rows_of_one_list`), "
     "which srcgrad does not differentiate where another name or entry may hold the same row", ""),
    (loop_variable_appended_to, srcgrad.NotDifferentiableError, 3,
     "`r.append(r[0] * r[1])` changes in place `r`, the loop variable of `for ... in rows` (line {}), an entry of "
     "what the loop reads (in `loop_variable_appended_to`)", ""),
    (entry_of_a_list_slice_written, srcgrad.NotDifferentiableError, 3,
     "`c[0][0] = 5.0` changes an array in place that may share memory with another value", ""),
    (shallow_copy, srcgrad.NotDifferentiableError, 2,
     "`copy.copy` of a differentiated value is not supported by srcgrad", ""),
]


@pytest.mark.parametrize("fn, error, offset, first, second", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_refused_with_its_line(fn, error, offset, first, second):
    line = fn.__code__.co_firstlineno + offset
    with pytest.raises(error) as caught:
        srcgrad.grad(fn)(V)
    message = str(caught.value)
    assert message.startswith(first.format(line - 1)), message
    assert second.format(line - 1) in message, message
    assert message.endswith(f"(test_programs_python.py, line {line})"), message


def test_a_second_derivative_through_a_gradient_call_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="differentiate a function that calls a gradient once "
                       r"\(grad, jvp, vjp, jacobian\), not twice \(hessian, grad of its gradient\)"):
        srcgrad.hessian(one_inner_gradient_step)(V, V[::-1].copy())


def scaled_norm(x, *, w):
    return (x * w).sum() ** 2


def scaled_by_keywords(x, **options):
    return x * options["a"] ** 2


def test_wrt_naming_a_keyword_only_parameter_or_a_collected_keyword():
    line = scaled_norm.__code__.co_firstlineno
    with pytest.raises(TypeError) as caught:
        srcgrad.grad(scaled_norm, wrt="w")(np.ones(2), w=np.array([1.0, 2.0]))
    assert str(caught.value) == (
        f"wrt='w' names no parameter of `scaled_norm` at {__file__}:{line}; its parameters are ('x',); `w` is "
        "keyword-only, and srcgrad differentiates with respect to positional parameters: give `w` a position "
        "(`def scaled_norm(..., w, ...)`), or differentiate a function that passes it on "
        "(`lambda ..., w: scaled_norm(..., w=w)`)")
    with pytest.raises(TypeError, match=r"wrt='a' names no parameter of `scaled_by_keywords` at .*; its parameters "
                       r"are \('x',\); srcgrad does not differentiate with respect to the keyword arguments that "
                       r"`\*\*options` collects$"):
        srcgrad.grad(scaled_by_keywords, wrt="a")(2.0, a=3.0)
    np.testing.assert_allclose(srcgrad.grad(scaled_norm)(np.ones(2), w=np.array([1.0, 2.0])), [6.0, 12.0])
