"""The activation rules the shim added to the registry (srcgrad/rules/activations.py):
reverse and forward rules against central differences, in float64."""

import numpy as np
import pytest

from srcgrad.rules import activations, lookup

EPS = 1e-6
X = np.array([[-30.0, -2.0, -0.3, 0.4], [1.5, 3.0, 25.0, 0.7]])
Y = np.array([[0.0, 1.0, 0.2, 1.0], [0.0, 0.5, 1.0, 1.0]])
P = np.array([[0.01, 0.3, 0.5, 0.9], [0.6, 0.2, 0.99, 0.45]])

CASES = {
    "sigmoid": (activations.sigmoid, (X,), {}),
    "relu": (activations.relu, (X,), {}),
    "softplus": (activations.softplus, (X,), {}),
    "logsigmoid": (activations.logsigmoid, (X,), {}),
    "softmax": (activations.softmax, (X,), {"axis": 1}),
    "softmax0": (activations.softmax, (X,), {"axis": 0}),
    "log_softmax": (activations.log_softmax, (X,), {"axis": -1}),
    "logsumexp": (activations.logsumexp, (X,), {"axis": 1}),
    "logsumexp_all": (activations.logsumexp, (X,), {}),
    "logsumexp_keepdims": (activations.logsumexp, (X,), {"axis": -1, "keepdims": True}),
    "logsumexp_axes": (activations.logsumexp, (X,), {"axis": (0, 1)}),
    "bce_with_logits": (activations.binary_cross_entropy_with_logits, (X, Y), {}),
    "bce_with_logits_sum": (activations.binary_cross_entropy_with_logits, (X, Y), {"reduction": "sum"}),
    "bce_with_logits_none": (activations.binary_cross_entropy_with_logits, (X, Y), {"reduction": "none"}),
    "bce": (activations.binary_cross_entropy, (P, Y), {}),
    "bce_sum": (activations.binary_cross_entropy, (P, Y), {"reduction": "sum"}),
    "bce_none": (activations.binary_cross_entropy, (P, Y), {"reduction": "none"}),
    "mse": (activations.mse_loss, (X, Y), {}),
    "mse_sum": (activations.mse_loss, (X, Y), {"reduction": "sum"}),
    "mse_none": (activations.mse_loss, (X, Y), {"reduction": "none"}),
    "mse_broadcast": (activations.mse_loss, (X, Y[0]), {}),
    "gelu": (activations.gelu, (X,), {}),
    "gelu_tanh": (activations.gelu, (X,), {"approximate": "tanh"}),
    "silu": (activations.silu, (X,), {}),
    "leaky_relu": (activations.leaky_relu, (X,), {"negative_slope": 0.2}),
    "elu": (activations.elu, (X,), {"alpha": 2.0}),
    "erf": (activations.erf, (X / 10,), {}),
    "erfc": (activations.erfc, (X / 10,), {}),
    "rsqrt": (activations.rsqrt, (P,), {}),
    "frac": (activations.frac, (X + 0.25,), {}),
    "smooth_l1": (activations.smooth_l1_loss, (X, Y), {}),
    "smooth_l1_beta_none": (activations.smooth_l1_loss, (X, Y), {"beta": 0.5, "reduction": "none"}),
    "smooth_l1_broadcast": (activations.smooth_l1_loss, (X, Y[0]), {"reduction": "sum"}),
    "huber": (activations.huber_loss, (X, Y), {"delta": 0.4}),
    "huber_none": (activations.huber_loss, (X, Y[0]), {"reduction": "none"}),
}


def _numeric_jacobian_product(fn, args, kwargs, i, direction):
    up = list(args)
    down = list(args)
    up[i] = args[i] + EPS * direction
    down[i] = args[i] - EPS * direction
    return (fn(*up, **kwargs) - fn(*down, **kwargs)) / (2 * EPS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_reverse_and_forward_rules(name):
    fn, args, kwargs = CASES[name]
    rule = lookup(fn)
    assert rule is not None and set(rule.vjps) == set(rule.jvps)
    ans = fn(*args, **kwargs)
    rng = np.random.default_rng(0)
    for i, param in enumerate(rule.params[: len(args)]):
        t = rng.standard_normal(args[i].shape)
        g = rng.standard_normal(np.shape(ans))
        numeric = _numeric_jacobian_product(fn, args, kwargs, i, t)
        forward = rule.jvp(param, t, ans, *args, **kwargs)
        np.testing.assert_allclose(forward, numeric, rtol=1e-6, atol=1e-8)
        reverse = rule.vjp(param, g, ans, *args, **kwargs)
        assert reverse.shape == args[i].shape
        # <g, J t> == <J^T g, t>
        np.testing.assert_allclose(np.sum(g * numeric), np.sum(reverse * t), rtol=1e-6, atol=1e-8)


def test_float32_stays_float32_and_nothing_overflows():
    x = np.array([-200.0, -20.0, 0.0, 20.0, 200.0], dtype=np.float32)
    for fn in (activations.sigmoid, activations.softplus, activations.logsigmoid, activations.softmax):
        out = fn(x)
        assert out.dtype == np.float32 and np.all(np.isfinite(out))
    assert activations.sigmoid(x)[0] == 0.0 and activations.sigmoid(x)[-1] == 1.0
    loss = activations.binary_cross_entropy_with_logits(x, np.zeros(5, np.float32), "none")
    assert loss.dtype == np.float32 and np.all(np.isfinite(loss))


def test_relu_gradient_at_zero_is_zero():
    rule = lookup(activations.relu)
    x = np.array([-1.0, 0.0, 2.0])
    assert rule.vjp("x", np.ones(3), activations.relu(x), x).tolist() == [0.0, 0.0, 1.0]


def test_node_names():
    names = {f: lookup(f).name for f in (activations.sigmoid, activations.relu, activations.softplus,
                                          activations.logsigmoid, activations.softmax, activations.log_softmax,
                                          activations.logsumexp)}
    assert sorted(names.values()) == ["LogSigmoid", "LogSoftmax", "Logsumexp", "Relu", "Sigmoid", "Softmax", "Softplus"]


def test_logsumexp_values_and_infinities():
    x = np.array([[-1.0, 0.0, 0.5], [1.0, 2.0, 3.0]])
    np.testing.assert_allclose(activations.logsumexp(x, 1), np.log(np.exp(x).sum(1)), rtol=1e-15)
    assert activations.logsumexp(np.array([1000.0, 1000.0])) == 1000.0 + np.log(2.0)  # no overflow
    with np.errstate(divide="ignore"):
        assert activations.logsumexp(np.array([-np.inf, -np.inf])) == -np.inf
    assert activations.logsumexp(np.array([np.inf, 1.0])) == np.inf
    out = activations.logsumexp(x.astype(np.float32), 0, keepdims=True)
    assert out.dtype == np.float32 and out.shape == (1, 3)
