"""A copy of a global, closure or attribute array (`M.copy()`, `M.astype(float)`,
`np.copy(M)`, `np.array(M)`) is a new array the function may change in place, as a copy
of an argument is. Everything that may share memory stays refused: another name for it
(`B = A`), a view (`A[0]`, `.view()`, `.reshape`, `.ravel`, `np.asarray`), and
`np.array(x, copy=False)` / `copy=None` or `.astype(t, copy=False)`, which return `x`
itself when they can.

Gradients are checked against the analytic answer and float64 central differences.
"""

import numpy as np
import pytest

import srcgrad

EPS = 1e-6
M = np.arange(12.0).reshape(3, 4)
M_SAVED = M.copy()
SCALED = 2.0 * np.sum(M[:, :3] ** 2)  # d/dx of sum(A ** 2) where A[:, :3] = M[:, :3] * x, over x


def _central(f, x):
    return (f(x + EPS) - f(x - EPS)) / (2 * EPS)


def _defined(src, namespace):
    """The function `f` that `src` defines, compiled under a file name of its own (srcgrad
    keeps the text given as `source=` in linecache under the function's file name)."""
    exec(compile(src, f"<test_copies {len(_NAMES)}>", "exec"), namespace)
    _NAMES.append(src)
    return namespace["f"]


_NAMES = []


def _made(copy):
    src = (f"def f(x):\n    A = {copy}\n    A[:, :3] = A[:, :3] * x\n    return np.sum(A ** 2)\n")
    return _defined(src, {"np": np, "M": M}), src


@pytest.mark.parametrize("copy", [
    "M.copy()", "M.copy(order='F')", "M.astype(float)", "M.astype(np.float64, copy=True)", "M.flatten().reshape(3, 4).copy()",
    "np.copy(M)", "np.array(M)", "np.array(M, copy=True)",
])
def test_a_copy_of_a_global_is_a_new_array(copy):
    f, src = _made(copy)
    g = srcgrad.grad(f, source=src)(2.0)
    assert type(g) is float
    assert g == pytest.approx(2.0 * SCALED, rel=1e-12)
    assert g == pytest.approx(_central(f, 2.0), rel=1e-7)
    out, out_dot = srcgrad.jvp(f, (2.0,), (1.0,))
    assert out == pytest.approx(f(2.0), rel=1e-14) and out_dot == pytest.approx(2.0 * SCALED, rel=1e-12)
    np.testing.assert_array_equal(M, M_SAVED)


def test_a_copy_of_a_global_transpose():
    def f(x):
        A = M.T.copy()
        A[1:] = A[1:] * x
        return np.sum(A ** 2)

    expected = 2.0 * 1.5 * np.sum(M.T[1:] ** 2)
    assert srcgrad.grad(f)(1.5) == pytest.approx(expected, rel=1e-12)
    assert srcgrad.grad(f)(1.5) == pytest.approx(_central(f, 1.5), rel=1e-7)
    np.testing.assert_array_equal(M, M_SAVED)


def test_a_copy_of_a_closure_array_and_of_an_attribute():
    K = M * 0.5

    def f(x):
        A = K.copy()
        A[0] = A[0] * x
        return np.sum(np.sin(A))

    g = srcgrad.grad(f)(0.7)
    assert g == pytest.approx(np.sum(np.cos(K[0] * 0.7) * K[0]), rel=1e-12)
    assert g == pytest.approx(_central(f, 0.7), rel=1e-7)

    class Model:
        def __init__(self):
            self.W0 = M

        def loss(self, x):
            A = self.W0.copy()
            A[:, 1] = A[:, 1] * x
            return np.sum(A ** 2)

    model = Model()
    assert srcgrad.grad(model.loss)(3.0) == pytest.approx(2.0 * 3.0 * np.sum(M[:, 1] ** 2), rel=1e-12)
    assert srcgrad.grad(model.loss)(3.0) == pytest.approx(_central(model.loss, 3.0), rel=1e-7)
    np.testing.assert_array_equal(M, M_SAVED)


def test_hessian_through_a_changed_copy_of_a_global():
    def f(x):
        A = M.copy()
        A[:, :3] = A[:, :3] * x
        return np.sum(A ** 3)

    x = np.array([0.5, -1.0, 2.0])
    H = srcgrad.hessian(f)(x)
    assert H.shape == (3, 3) and H.dtype == np.float64
    np.testing.assert_allclose(H, np.diag(6.0 * x * np.sum(M[:, :3] ** 3, axis=0)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shared", [
    "M", "M[0:2]", "M.view()", "M.reshape(3, 4)", "M.ravel().reshape(3, 4)", "np.asarray(M)", "np.ascontiguousarray(M)",
    "np.array(M, copy=False)", "np.array(M, copy=None)", "M.astype(float, copy=False)",
])
def test_what_may_share_a_global_stays_refused(shared):
    f, src = _made(shared)
    with pytest.raises(srcgrad.NotDifferentiableError, match="may share memory with another value"):
        srcgrad.grad(f, source=src)(2.0)
    np.testing.assert_array_equal(M, M_SAVED)


@pytest.mark.parametrize("shared", ["np.array(y, copy=False)", "np.array(y, copy=None)", "np.asarray(y)", "y.view()"])
def test_what_may_share_an_argument_stays_refused(shared):
    """`np.array(y, copy=False)` was taken for a new array: the derivative ran while the
    function itself changes the caller's `y`."""
    src = f"def f(x, y):\n    A = {shared}\n    A[0] = A[0] * x\n    return np.sum(A ** 2)\n"
    f = _defined(src, {"np": np})
    y = np.arange(6.0).reshape(2, 3)
    with pytest.raises(srcgrad.NotDifferentiableError, match="may share memory with another value"):
        srcgrad.grad(f, source=src)(2.0, y)
    np.testing.assert_array_equal(y, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("body", [
    "A = M.copy()\n    B = A\n    B[0] = B[0] * x\n    return np.sum(A ** 2) + np.sum(B)",
    "A = M.copy()\n    B = A\n    A[0] = A[0] * x\n    return np.sum(B ** 2)",
    "A = M.copy()\n    v = A[0]\n    A[0] = A[0] * x\n    return np.sum(v ** 2)",
    "A = M.copy()\n    R = A.reshape(12)\n    A[0] = A[0] * x\n    return np.sum(R ** 2)",
    "A = M.copy()\n    R = A.ravel()\n    R[0] = R[0] * x\n    return np.sum(A ** 2)",
])
def test_aliases_of_a_copy_of_a_global_stay_refused(body):
    src = f"def f(x):\n    {body}\n"
    f = _defined(src, {"np": np, "M": M})
    with pytest.raises(srcgrad.NotDifferentiableError, match="may share memory|makes another name or a view|that shares its memory"):
        srcgrad.grad(f, source=src)(2.0)
    np.testing.assert_array_equal(M, M_SAVED)
