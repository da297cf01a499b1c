"""Python constructs a user expects to be differentiated: loops over
`zip(..., strict=True)`, over `itertools.accumulate`, `chain` and `islice`, and the
rest this file's sections name. Each form against central differences and the analytic
answer in reverse mode, forward mode against the gradient, the arguments left as they
were, a Hessian where one means something, and `srcgrad.source` run on its own; the
near forms that cannot be differentiated exactly are refused at their line."""

import importlib.util
import itertools

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

X = np.array([0.5, -1.25, 2.0])
W = np.array([1.5, 0.25, -0.75])
_MODULES = itertools.count()


def run_source(df, *args, tmp_path):
    """`srcgrad.source(df)` imported from a file as a module of its own, its derivative
    called with `args`."""
    text = srcgrad.source(df)
    name = f"srcgrad_constructs_{next(_MODULES)}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    defined = text.split("\ndef ", 1)[1].split("(", 1)[0] if not text.startswith("def ") else text[4:].split("(", 1)[0]
    return getattr(module, defined)(*args)


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


def test_strict_zip_under_try_is_refused():
    with pytest.raises(srcgrad.SrcGradError, match=r"loop over `zip\(..., strict=...\)` inside a `try` block") as e:
        srcgrad.grad(strict_under_try)(X)
    assert e.value.filename == __file__ and e.value.lineno == strict_under_try.__code__.co_firstlineno + 3


def test_strict_zip_of_a_value_known_at_run_time_only_is_refused():
    with pytest.raises(srcgrad.SrcGradError, match=r"`zip\(x, w, strict=flag\)` is not supported") as e:
        srcgrad.grad(strict_of_a_parameter)(X, W)
    assert e.value.lineno == strict_of_a_parameter.__code__.co_firstlineno + 2
