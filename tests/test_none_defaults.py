"""The `None`-default idiom for a parameter holding a function (compiler/none_defaults.py):
`if act is None: act = np.tanh`, `act = act or np.tanh`, `act = np.tanh if act is None
else act`, for a positional and a keyword-only parameter, called with the parameter left
out, given None and given a function, differentiated directly and as a callee, in every
transform; and the same idiom for non-function defaults (`axis`, `eps`)."""

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad


def relu_sq(v):
    return np.maximum(v, 0.0) ** 2


def layer_if(x, W, act=None):
    if act is None:
        act = np.tanh
    return np.sum(act(x @ W))


def layer_or(x, W, act=None):
    act = act or np.tanh
    return np.sum(act(x @ W))


def layer_ifexp(x, W, act=None):
    act = np.tanh if act is None else act
    return np.sum(act(x @ W))


def layer_ifexp_not(x, W, act=None):
    act = act if act is not None else np.tanh
    return np.sum(act(x @ W))


def layer_keyword(x, W, *, act=None):
    """A docstring before the idiom."""
    if act is None:
        act = np.tanh
    return np.sum(act(x @ W))


def layer_global_default(x, W, act=None):
    if act is None:
        act = relu_sq
    return np.sum(act(x @ W))


def calls_layer(x, W):
    return 2.0 * layer_if(x, W) + layer_if(x, W, np.sin) + layer_keyword(x, W, act=None)


X = np.array([0.3, -0.7, 1.1])
W = np.array([[0.5, -0.2], [0.4, 0.9], [-0.6, 0.3]])


def _analytic(x, W, act):
    """d/dx, d/dW of sum(act(x @ W)) for act in tanh, sin, relu_sq."""
    z = x @ W
    d = {np.tanh: 1.0 - np.tanh(z) ** 2, np.sin: np.cos(z), relu_sq: 2.0 * np.maximum(z, 0.0)}[act]
    return W @ d, np.outer(x, d)


def _analytic_hessian_x(x, W, act):
    z = x @ W
    dd = {np.tanh: -2.0 * np.tanh(z) * (1.0 - np.tanh(z) ** 2), np.sin: -np.sin(z),
          relu_sq: 2.0 * (z > 0)}[act]
    return W @ np.diag(dd) @ W.T


def _check_every_transform(fn, call, act, gx, gW, hxx):
    """`fn` called as `call(transformed, x, W)` in grad, value_and_grad, vjp, jvp,
    jacobian (both modes) and hessian, against central differences and `gx`, `gW`, `hxx`."""
    value = call(fn, X, W)
    f_x = lambda x: call(fn, x, W)  # noqa: E731 - the differences only
    f_W = lambda w: call(fn, X, w)  # noqa: E731
    np.testing.assert_allclose(gx, numerical_grad(f_x, (X,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gW, numerical_grad(f_W, (W,), 0), rtol=1e-6, atol=1e-8)

    dx, dW = call(srcgrad.grad(fn, wrt=(0, 1)), X, W)
    assert dx.dtype == np.float64 and dx.shape == X.shape and dW.shape == W.shape
    np.testing.assert_allclose(dx, gx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dW, gW, rtol=1e-12, atol=1e-12)

    v, (dx, dW) = call(srcgrad.value_and_grad(fn, wrt=(0, 1)), X, W)
    assert v == pytest.approx(value, rel=1e-14)
    np.testing.assert_allclose(dx, gx, rtol=1e-12, atol=1e-12)

    out, pullback = srcgrad.vjp(lambda a, b: call(fn, a, b), X, W)  # `fn` a callee of the lambda
    assert out == pytest.approx(value, rel=1e-14)
    got = pullback(2.0)
    np.testing.assert_allclose(got[0], 2.0 * gx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[1], 2.0 * gW, rtol=1e-12, atol=1e-12)

    tx, tW = np.array([1.0, -2.0, 0.5]), np.full(W.shape, 0.25)
    out, out_dot = call(lambda x, w, *rest, **k: srcgrad.jvp(lambda a, b: call(fn, a, b), (x, w), (tx, tW)), X, W)
    assert out == pytest.approx(value, rel=1e-14)
    assert out_dot == pytest.approx(gx @ tx + np.sum(gW * tW), rel=1e-12)

    for mode in ("forward", "reverse"):
        J = call(srcgrad.jacobian(fn, wrt=0, mode=mode), X, W)
        np.testing.assert_allclose(J, gx, rtol=1e-12, atol=1e-12)

    H = call(srcgrad.hessian(fn, wrt=0), X, W)
    assert H.shape == (3, 3)
    np.testing.assert_allclose(H, hxx, rtol=1e-10, atol=1e-12)


CALLS = {
    "omitted": (lambda f, x, w: f(x, w), np.tanh),
    "None": (lambda f, x, w: f(x, w, None), np.tanh),
    "np.sin": (lambda f, x, w: f(x, w, np.sin), np.sin),
    "relu_sq": (lambda f, x, w: f(x, w, relu_sq), relu_sq),
}
KEYWORD_CALLS = {
    "omitted": (lambda f, x, w: f(x, w), np.tanh),
    "act=None": (lambda f, x, w: f(x, w, act=None), np.tanh),
    "act=np.sin": (lambda f, x, w: f(x, w, act=np.sin), np.sin),
}


@pytest.mark.parametrize("fn", [layer_if, layer_or, layer_ifexp, layer_ifexp_not], ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", list(CALLS))
def test_positional_none_default_in_every_transform(fn, how):
    call, act = CALLS[how]
    gx, gW = _analytic(X, W, act)
    _check_every_transform(fn, call, act, gx, gW, _analytic_hessian_x(X, W, act))
    given = () if how == "omitted" else (None if how == "None" else act,)
    out, pullback = srcgrad.vjp(fn, X, W, *given)  # `fn` itself
    assert out == pytest.approx(call(fn, X, W), rel=1e-14)
    got = pullback(1.0)
    np.testing.assert_allclose(got[0], gx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[1], gW, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("how", list(KEYWORD_CALLS))
def test_keyword_only_none_default_in_every_transform(how):
    call, act = KEYWORD_CALLS[how]
    gx, gW = _analytic(X, W, act)
    _check_every_transform(layer_keyword, call, act, gx, gW, _analytic_hessian_x(X, W, act))


def test_default_that_is_a_global_python_function():
    call, act = CALLS["omitted"]
    gx, gW = _analytic(X, W, relu_sq)
    _check_every_transform(layer_global_default, call, act, gx, gW, _analytic_hessian_x(X, W, relu_sq))
    call, act = CALLS["np.sin"]
    gx, gW = _analytic(X, W, np.sin)
    _check_every_transform(layer_global_default, call, act, gx, gW, _analytic_hessian_x(X, W, np.sin))


def test_callee_with_none_default_called_from_a_differentiated_function():
    tanh_x, tanh_W = _analytic(X, W, np.tanh)
    sin_x, sin_W = _analytic(X, W, np.sin)
    gx, gW = 3.0 * tanh_x + sin_x, 3.0 * tanh_W + sin_W
    hxx = 3.0 * _analytic_hessian_x(X, W, np.tanh) + _analytic_hessian_x(X, W, np.sin)
    _check_every_transform(calls_layer, lambda f, x, w: f(x, w), None, gx, gW, hxx)


def test_generated_code_reads_as_the_function_chosen():
    def code(fn):  # the generated statements, without the comments quoting the user's lines
        return "\n".join(line for line in srcgrad.source(fn).splitlines() if not line.strip().startswith("#"))

    dlayer = srcgrad.grad(layer_if)
    dlayer(X, W)
    text = code(dlayer)
    assert "tanh_x_at_W = np.tanh(x_at_W)" in text and " is None" not in text and "act(" not in text
    dlayer(X, W, np.sin)
    text = code(dlayer)
    assert "(act = np.sin)" in text and "act_x_at_W = act(x_at_W)" in text and " is None" not in text
    dlayer(X, W, None)
    assert "np.tanh(x_at_W)" in code(dlayer)


def test_none_and_a_function_alternate_between_calls():
    dlayer = srcgrad.grad(layer_or)
    for act in (None, np.sin, None, relu_sq, np.tanh, None):
        np.testing.assert_allclose(dlayer(X, W, act), _analytic(X, W, act or np.tanh)[0], rtol=1e-12, atol=1e-12)


def normalized(x, axis=None, eps=None):
    if axis is None:
        axis = -1
    if eps is None:
        eps = 1e-8
    return np.sum(x / np.sqrt(np.sum(x * x, axis=axis, keepdims=True) + eps))


def _normalized_grad(x, axis, eps):
    s = np.sqrt(np.sum(x * x, axis=axis, keepdims=True) + eps)
    return 1.0 / s - x * np.sum(x, axis=axis, keepdims=True) / s ** 3


NUMBER_CALLS = {
    "omitted": (lambda v: normalized(v), {}, -1, 1e-8),
    "axis=0": (lambda v: normalized(v, axis=0), {"axis": 0}, 0, 1e-8),
    "None, eps=0.5": (lambda v: normalized(v, None, eps=0.5), {"axis": None, "eps": 0.5}, -1, 0.5),
}


@pytest.mark.parametrize("how", list(NUMBER_CALLS))
def test_none_default_of_a_number(how):
    wrapped, kwargs, axis, eps = NUMBER_CALLS[how]
    x = np.array([[1.0, -2.0, 0.5], [0.3, 0.8, -1.2]])
    expected = _normalized_grad(x, axis, eps)
    np.testing.assert_allclose(numerical_grad(wrapped, (x,), 0), expected, rtol=1e-6)
    np.testing.assert_allclose(srcgrad.grad(wrapped)(x), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(normalized)(x, **kwargs), expected, rtol=1e-12, atol=1e-12)
    t = np.ones_like(x)
    _, out_dot = srcgrad.jvp(wrapped, (x,), (t,))
    assert out_dot == pytest.approx(np.sum(expected), rel=1e-12)
    np.testing.assert_allclose(srcgrad.jacobian(wrapped, mode="forward")(x), expected, rtol=1e-12, atol=1e-12)
    H = srcgrad.hessian(wrapped)(x)
    numeric = np.stack([numerical_grad(lambda v: srcgrad.grad(wrapped)(v)[k], (x,), 0)
                        for k in np.ndindex(x.shape)]).reshape(x.shape + x.shape)
    np.testing.assert_allclose(H, numeric, rtol=1e-5, atol=1e-6)


def lambda_default(x, act=None):
    if act is None:
        act = lambda v: v * 2.0  # noqa: E731
    return np.sum(act(x))


def assigned_again(x, act=None):
    if act is None:
        act = np.tanh
    act = np.sin
    return np.sum(act(x))


def read_before(x, act=None):
    y = x if act is None else x * 2.0
    if act is None:
        act = np.tanh
    return np.sum(act(y))


def with_else(x, act=None):
    if act is None:
        act = np.tanh
    else:
        act = np.sin
    return np.sum(act(x))


def test_a_default_that_is_no_named_function_is_refused_at_its_line():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"replaces `None` in its parameter `act` by "
                       r"`lambda v: v \* 2.0`") as info:
        srcgrad.grad(lambda_default)(X)
    assert info.value.lineno == lambda_default.__code__.co_firstlineno + 2
    assert info.value.filename.endswith("test_none_defaults.py")


@pytest.mark.parametrize("fn", [assigned_again, read_before, with_else], ids=lambda f: f.__name__)
def test_assignments_that_are_no_idiom_stay_refused(fn):
    refused = "calls its parameter `act`|cannot find the function called in"
    with pytest.raises(srcgrad.NotDifferentiableError, match=refused) as info:
        srcgrad.grad(fn)(X)
    assert info.value.filename.endswith("test_none_defaults.py")
    assert info.value.text.strip().startswith("return np.sum(act(")  # the call's line
    with pytest.raises(srcgrad.NotDifferentiableError, match=refused):
        srcgrad.grad(fn)(X, np.cos)


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, v):
        return self.k * v


def test_or_with_a_callable_object_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="which may be false"):
        srcgrad.grad(layer_or)(X, W, Scale(2.0))
    g = srcgrad.grad(layer_if)(X, W, Scale(2.0))  # `is None` is exact for any object
    np.testing.assert_allclose(g, W @ np.full(2, 2.0), rtol=1e-12)


def cumulative(x, axis=None):
    if axis is None:
        axis = 0
    return np.cumsum(x, axis=axis)


def calls_cumulative(x):
    return np.sum(cumulative(x, None) ** 2) + np.sum(cumulative(x) * x)


def test_callee_given_none_for_a_number_keeps_its_branch():
    x = np.array([0.5, -1.0, 2.0])
    c = np.cumsum(x)
    expected = 2.0 * np.cumsum((2.0 * c)[::-1])[::-1] / 2.0 + np.cumsum(x[::-1])[::-1] + c
    np.testing.assert_allclose(numerical_grad(calls_cumulative, (x,), 0), expected, rtol=1e-6)
    np.testing.assert_allclose(srcgrad.grad(calls_cumulative)(x), expected, rtol=1e-12, atol=1e-12)
    _, out_dot = srcgrad.jvp(calls_cumulative, (x,), (np.ones(3),))
    assert out_dot == pytest.approx(np.sum(expected), rel=1e-12)
