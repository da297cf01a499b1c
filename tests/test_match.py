"""`match` statements desugared into `if`/`elif` (compiler/matches.py): literal, value,
capture, wildcard, `|`, guarded, sequence (with `*rest`), mapping and class patterns, the
subject evaluated once, first match wins, no match runs nothing, captures bound before a
guard that fails; gradients in every transform against central differences and the
analytic answer; what is not desugared exactly refused at the case's line."""

import dataclasses
import enum

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad


class Mode(enum.Enum):
    FAST = 1
    SLOW = 2


@dataclasses.dataclass
class Point:
    x: float
    y: float


X = np.array([0.4, -1.3, 0.9])


def modes(x, mode):
    match mode:
        case "square":
            return np.sum(x * x)
        case Mode.FAST | "cube":
            return np.sum(x * x * x)
        case int(n) if n > 1:
            return np.sum(x ** n)
        case None:
            return np.sum(np.exp(x))
        case _:
            return np.sum(np.sin(x))


MODES = {  # mode: (gradient, Hessian) at X
    "square": (2.0 * X, 2.0 * np.eye(3)),
    Mode.FAST: (3.0 * X ** 2, np.diag(6.0 * X)),
    "cube": (3.0 * X ** 2, np.diag(6.0 * X)),
    4: (4.0 * X ** 3, np.diag(12.0 * X ** 2)),
    None: (np.exp(X), np.diag(np.exp(X))),
    1: (np.cos(X), np.diag(-np.sin(X))),  # `int(n)` matches, its guard fails: the wildcard
    Mode.SLOW: (np.cos(X), np.diag(-np.sin(X))),
}


def _check_every_transform(fn, args, gx, hxx):
    """The gradient of `fn(*args)` in its first argument, `X`, in grad, value_and_grad,
    vjp, jvp, jacobian (both modes) and hessian, against differences and `gx`, `hxx`."""
    rest = args[1:]
    value = fn(*args)
    np.testing.assert_allclose(numerical_grad(lambda v: fn(v, *rest), (X,), 0), gx, rtol=1e-6, atol=1e-8)
    g = srcgrad.grad(fn)(*args)
    assert g.dtype == np.float64 and g.shape == X.shape
    np.testing.assert_allclose(g, gx, rtol=1e-12, atol=1e-12)
    v, g = srcgrad.value_and_grad(fn)(*args)
    assert v == pytest.approx(value, rel=1e-14)
    np.testing.assert_allclose(g, gx, rtol=1e-12, atol=1e-12)
    of_x = _of_x(fn, rest)
    out, pullback = srcgrad.vjp(of_x, X)
    assert out == pytest.approx(value, rel=1e-14)
    np.testing.assert_allclose(pullback(3.0)[0], 3.0 * gx, rtol=1e-12, atol=1e-12)
    t = np.array([1.0, 0.5, -2.0])
    out, out_dot = srcgrad.jvp(fn, args, (t,) + (None,) * len(rest))
    assert out == pytest.approx(value, rel=1e-14)
    assert out_dot == pytest.approx(gx @ t, rel=1e-12)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(srcgrad.jacobian(fn, mode=mode)(*args), gx, rtol=1e-12, atol=1e-12)
    H = srcgrad.hessian(fn)(*args)
    assert H.shape == (3, 3)
    np.testing.assert_allclose(H, hxx, rtol=1e-10, atol=1e-12)


def _of_x(fn, rest):
    """`fn` of its first argument alone, the others read from a closure."""
    if not rest:
        return fn
    if len(rest) == 1:
        (r0,) = rest
        return lambda v: fn(v, r0)
    r0, r1 = rest
    return lambda v: fn(v, r0, r1)


@pytest.mark.parametrize("mode", list(MODES), ids=repr)
def test_literal_value_singleton_guarded_and_wildcard_patterns(mode):
    _check_every_transform(modes, (X, mode), *MODES[mode])


def shapes(x, shape):
    y = x
    match shape:
        case (a, b):
            y = a * x + b * x * x
        case [first, *rest, last]:
            y = first * x * x * x + last * x + len(rest)
        case [first, *_]:
            y = first * np.sin(x)
    return np.sum(y)


SHAPES = {
    "(2.0, 3.0)": ((2.0, 3.0), 2.0 + 6.0 * X, np.diag(np.full(3, 6.0))),
    "[2.0, 3.0]": ([2.0, 3.0], 2.0 + 6.0 * X, np.diag(np.full(3, 6.0))),
    "(2.0, 7, 7, 5.0)": ((2.0, 7, 7, 5.0), 6.0 * X ** 2 + 5.0, np.diag(12.0 * X)),
    "(1.5,)": ((1.5,), 1.5 * np.cos(X), np.diag(-1.5 * np.sin(X))),
    "() no match": ((), np.ones(3), np.zeros((3, 3))),
    "'ab' no sequence": ("ab", np.ones(3), np.zeros((3, 3))),
    "range(2)": (range(2), 1.0 * 2 * X, np.diag(np.full(3, 2.0))),  # a Sequence too: a=0, b=1
}


@pytest.mark.parametrize("case", list(SHAPES))
def test_sequence_patterns(case):
    shape, gx, hxx = SHAPES[case]
    _check_every_transform(shapes, (X, shape), gx, hxx)


def guarded(x, k):
    match k:
        case v if v > 10:
            scale = 0.5
        case _:
            scale = 2.0
    return np.sum(x * x) * scale * v  # `v` is bound even where the guard failed, as in Python


@pytest.mark.parametrize("k, factor", [(3.0, 2.0 * 3.0), (20.0, 0.5 * 20.0)])
def test_a_capture_stays_bound_after_its_guard_fails(k, factor):
    assert guarded(X, k) == pytest.approx(np.sum(X * X) * factor)
    _check_every_transform(guarded, (X, k), 2.0 * factor * X, 2.0 * factor * np.eye(3))


def records(x, p, cfg):
    match p:
        case Point(x=0.0, y=yy):
            s = yy
        case Point(x=xx):
            s = 2.0 * xx
        case float(v) if v > 1.0:
            s = v
        case _:
            s = 1.0
    match cfg:
        case {"scale": sc, "kind": "lin"}:
            out = sc * x
        case {"kind": "sq"}:
            out = x * x
        case _:
            out = np.sin(x)
    return np.sum(out) * s


RECORDS = {
    "Point(0, 3), lin": ((Point(0.0, 3.0), {"scale": 2.0, "kind": "lin"}), np.full(3, 6.0), np.zeros((3, 3))),
    "Point(1.5, 0), sq": ((Point(1.5, 0.0), {"kind": "sq", "x": 1}), 6.0 * X, 6.0 * np.eye(3)),
    "2.5, other": ((2.5, {"kind": "lin"}), 2.5 * np.cos(X), np.diag(-2.5 * np.sin(X))),
    "0.5, list": ((0.5, ["kind"]), np.cos(X), np.diag(-np.sin(X))),
}


@pytest.mark.parametrize("case", list(RECORDS))
def test_class_and_mapping_patterns(case):
    rest, gx, hxx = RECORDS[case]
    _check_every_transform(records, (X,) + rest, gx, hxx)


def params_model(params, x):
    match params:
        case (w, b):
            return np.sum(np.tanh(w * x + b))
        case [w]:
            return np.sum(np.tanh(w * x))


def test_a_differentiated_tuple_as_subject():
    w, b = np.array([0.3, -0.2, 0.5]), np.array([0.1, 0.0, -0.4])
    d = 1.0 - np.tanh(w * X + b) ** 2
    gw, gb = srcgrad.grad(params_model)((w, b), X)
    np.testing.assert_allclose(gw, d * X, rtol=1e-12)
    np.testing.assert_allclose(gb, d, rtol=1e-12)
    np.testing.assert_allclose(gw, numerical_grad(lambda v: params_model((v, b), X), (w,), 0), rtol=1e-6)
    (gw,) = srcgrad.grad(params_model)((w,), X)
    np.testing.assert_allclose(gw, (1.0 - np.tanh(w * X) ** 2) * X, rtol=1e-12)
    gx = srcgrad.grad(params_model, wrt=1)((w, b), X)
    np.testing.assert_allclose(gx, d * w, rtol=1e-12)


def counted(x, k):
    total = 0.0
    for i in range(k):
        match i % 3:
            case 0:
                total = total + np.sum(x * x)
            case 1:
                total = total + np.sum(np.sin(x))
    return total


def test_match_in_a_loop_with_an_expression_subject_evaluated_once():
    gx = 2.0 * (2.0 * X) + 2.0 * np.cos(X)  # i = 0, 1, 3, 4 of range(5)
    _check_every_transform(counted, (X, 5), gx, 4.0 * np.eye(3) + 2.0 * np.diag(-np.sin(X)))
    text = srcgrad.source(srcgrad.grad(counted))
    assert text.count("i % 3") == 1 and "match" not in text.split('"""')[2]


def calls_modes(x):
    return modes(x, "square") + 2.0 * modes(x, Mode.FAST)


def test_match_in_a_callee():
    _check_every_transform(calls_modes, (X,), 2.0 * X + 6.0 * X ** 2, 2.0 * np.eye(3) + np.diag(12.0 * X))


def test_generated_code_reads_as_if_elif():
    text = srcgrad.source(srcgrad.grad(shapes))
    assert "matches_sequence(shape, 2)" in text and "a = shape[0]" in text and "rest = list(shape_part)" in text
    assert "last = shape[-1]" in text and "matches_sequence(shape, 2, True)" in text
    text = srcgrad.source(srcgrad.grad(modes))
    assert "mode == 'square'" in text and "mode is None" in text and "isinstance(mode, int)" in text


def alternatives_binding(x, s):
    match s:
        case (a, 1) | [1, a]:
            return x * a
    return x


def positional_class(x, p):
    match p:
        case Point(0.0, y):
            return x * y
    return x


def mapping_rest(x, cfg):
    match cfg:
        case {"scale": sc, **others}:
            return x * sc
    return x


@pytest.mark.parametrize("fn, message", [
    (alternatives_binding, "an `|` alternative that binds a name in a `match` is not supported"),
    (positional_class, "a class pattern with positional sub-patterns in a `match` is not supported"),
    (mapping_rest, r"a mapping pattern's `\*\*others` in a `match` is not supported"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_patterns_not_desugared_exactly_are_refused_at_their_line(fn, message):
    with pytest.raises(srcgrad.SrcGradError, match=message) as info:
        srcgrad.grad(fn)(1.0, (1, 2))
    assert info.value.filename.endswith("test_match.py")
    assert info.value.lineno == fn.__code__.co_firstlineno + 2
    assert info.value.text.strip().startswith("case ")


def walrus_guard(x, k):
    match k:
        case 1 if (k := 5) > 10:
            return np.sum(x) * 100.0
        case 1:
            return np.sum(x * x) * k  # the subject was 1; `k` is 5 after the guard
        case _:
            return np.sum(x)


def test_a_guard_rebinding_the_subject_name_leaves_the_subject_as_it_was():
    assert walrus_guard(X, 1) == pytest.approx(5.0 * np.sum(X * X))
    _check_every_transform(walrus_guard, (X, 1), 10.0 * X, 10.0 * np.eye(3))
    assert "subject = k" in srcgrad.source(srcgrad.grad(walrus_guard))


def _match_in_try(x, k):
    try:
        match k:
            case 1:
                y = x
            case _:
                y = 2.0 * x
    except ValueError:
        y = x
    return np.sum(y)


def test_a_match_inside_a_try_block_is_refused_under_its_own_name():
    with pytest.raises(srcgrad.SrcGradError, match=r"a `match` statement inside a `try` block") as info:
        srcgrad.grad(_match_in_try)(np.ones(3), 1)
    assert "test_match.py, line" in str(info.value)
