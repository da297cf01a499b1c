"""A nested function writing into a list or dict passed to it (`def put(o, k, v): o[k] =
v; return o`): the write is one into the caller's object, a new key included, as where
the function is defined at module level. Each against central differences, the analytic
answer and forward mode, twice (the second call runs the specialized code)."""

import numpy as np
import pytest

import srcgrad

X = np.array([0.3, -0.7, 1.2])


def _differences(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def new_keys_returned(x):
    def put(o, k, v):
        o[k] = v
        return o

    out = {}
    out = put(out, "a", x[0] * 2)
    out = put(out, "b", x[1] * x[2])
    return out["a"] * out["b"]


def new_key_beside_another(x):
    def put(o, k, v):
        o[k] = v
        return o

    out = {"b": x[2]}
    out = put(out, "a", x[0] * 2)
    return out["a"] * out["b"]


def written_not_returned(x):
    def put(o, k, v):
        o[k] = v

    out = {"a": 1.0}
    put(out, "a", x[0] * 2)
    put(out, "b", x[1] * x[2])
    return out["a"] * out["b"]


def into_a_list(x):
    def put(o, i, v):
        o[i] = v * o[i]
        return o

    ys = [x[0], x[1], 1.0]
    ys = put(ys, 2, x[2])
    ys = put(ys, 0, x[1])
    return ys[0] + ys[1] * ys[2]


a, b, c = X
EXACT = {
    # 2 a b c
    new_keys_returned: np.array([2 * b * c, 2 * a * c, 2 * a * b]),
    written_not_returned: np.array([2 * b * c, 2 * a * c, 2 * a * b]),
    # 2 a c
    new_key_beside_another: np.array([2 * c, 0.0, 2 * a]),
    # a b + b c
    into_a_list: np.array([b, a + c, b]),
}


@pytest.mark.parametrize("f", list(EXACT), ids=lambda f: f.__name__)
def test_gradient(f):
    x = X.copy()
    df = srcgrad.grad(f)
    for _ in range(2):
        g = df(x)
        np.testing.assert_allclose(g, EXACT[f], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, _differences(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, X)
    t = np.array([0.5, -1.0, 2.0])
    value, tangent = srcgrad.jvp(f, (X.copy(),), (t,))
    assert value == pytest.approx(f(X.copy()), rel=1e-15)
    assert tangent == pytest.approx(float(EXACT[f] @ t), rel=1e-12, abs=1e-14)
