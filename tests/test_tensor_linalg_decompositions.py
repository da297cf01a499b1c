"""srcgrad.linalg's solves, factorizations and matrix functions (tensor/decompositions.py,
solves.py, matrix_functions.py) and the rules they added (rules/matrix_exponential.py,
decompositions.symmetric_eigh): values against NumPy and closed forms, gradients against
central differences in float64 (eigh and svd through losses that do not depend on the
eigenvectors' signs, eigh along symmetric perturbations), dtypes, and PyTorch 2.13's node
names, result types and error messages, written in. No PyTorch needed; where it is
installed, `test_against_pytorch` compares the same cases with it."""

import warnings

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.rules.decompositions import symmetric_eigh, symmetric_eigvalsh
from srcgrad.rules.matrix_exponential import matrix_exp
from srcgrad.testing import check_grad

_rng = np.random.default_rng(11)
A = _rng.normal(size=(3, 3)) + 3 * np.eye(3)
W = _rng.normal(size=(4, 3))
B = _rng.normal(size=(3, 2))
b = _rng.normal(size=3)
C = _rng.normal(size=(4, 2))
AB = _rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
BB = _rng.normal(size=(2, 3, 2))
WB = _rng.normal(size=(2, 4, 3))
S = A @ A.T + np.eye(3)
SB = AB @ AB.transpose(0, 2, 1) + np.eye(3)
LOW = np.linalg.cholesky(S)
L = torch.linalg
INF = float("inf")


def _weights(shape):
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape)


def _loss(out):
    """A fixed weighted sum of the floating outputs."""
    outs = out if isinstance(out, tuple) else (out,)
    total = 0.0
    for o in outs:
        if o.is_floating_point():
            total = total + (o * torch.tensor(_weights(tuple(o.shape)))).sum()
    return total


def _central(f, arrays, i, eps=1e-6, direction=None):
    """Central differences of the scalar f(*arrays) in arrays[i], per element, or along
    `direction` only (a number)."""
    def value(x):
        args = list(arrays)
        args[i] = x
        with torch.no_grad():
            return float(f(*[torch.tensor(a) for a in args]))

    x = arrays[i]
    if direction is not None:
        return (value(x + eps * direction) - value(x - eps * direction)) / (2 * eps)
    grad = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = eps
        grad[k] = (value(x + e) - value(x - e)) / (2 * eps)
    return grad


def _grads(f, arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    f(*ts).backward()
    return [t.grad.numpy() for t in ts]


# (label, function of the tensors giving the output, inputs, PyTorch's node names of the outputs)
CASES = [
    ("solve", lambda a, bb: L.solve(a, bb), (A, B), ["LinalgSolveExBackward0"]),
    ("solve vector", lambda a, v: L.solve(a, v), (A, b), ["LinalgSolveExBackward0"]),
    ("solve batch broadcast", lambda a, bb: L.solve(a, bb), (AB, B), ["LinalgSolveExBackward0"]),
    ("solve batch vectors", lambda a, v: L.solve(a, v), (AB, BB[..., 0]), ["LinalgSolveExBackward0"]),
    ("solve right", lambda a, bb: L.solve(a, bb, left=False), (A, B.T.copy()), ["LinalgSolveExBackward0"]),
    ("qr tall", lambda a: L.qr(a), (W,), ["LinalgQrBackward0"] * 2),
    ("qr wide", lambda a: L.qr(a), (W.T.copy(),), ["LinalgQrBackward0"] * 2),
    ("qr batch", lambda a: L.qr(a), (WB,), ["LinalgQrBackward0"] * 2),
    ("qr complete square", lambda a: L.qr(a, mode="complete"), (A,), ["LinalgQrBackward0"] * 2),
    ("svdvals", lambda a: L.svdvals(a), (W,), ["LinalgSvdBackward0"]),
    ("svdvals batch", lambda a: L.svdvals(a), (WB,), ["LinalgSvdBackward0"]),
    ("pinv", lambda a: L.pinv(a), (W,), ["LinalgPinvBackward0"]),
    ("pinv batch", lambda a: L.pinv(a), (WB,), ["LinalgPinvBackward0"]),
    ("pinverse", lambda a: torch.pinverse(a), (W,), ["LinalgPinvBackward0"]),
    ("lstsq", lambda a, c: L.lstsq(a, c).solution, (W, C), ["LinalgLstsqBackward0"]),
    ("lstsq vector", lambda a, c: L.lstsq(a, c).solution, (W, C[:, 0].copy()), ["LinalgLstsqBackward0"]),
    ("lstsq wide", lambda a, c: L.lstsq(a, c).solution, (W.T.copy(), B), ["LinalgLstsqBackward0"]),
    ("matrix_norm fro", lambda a: L.matrix_norm(a), (W,), ["LinalgVectorNormBackward0"]),
    ("matrix_norm nuc", lambda a: L.matrix_norm(a, "nuc"), (W,), ["SumBackward1"]),
    ("matrix_norm inf", lambda a: L.matrix_norm(a, INF), (W,), ["AmaxBackward0"]),
    ("matrix_norm -inf", lambda a: L.matrix_norm(a, -INF), (W,), ["AminBackward0"]),
    ("matrix_norm 1", lambda a: L.matrix_norm(a, 1), (W,), ["AmaxBackward0"]),
    ("matrix_norm -1", lambda a: L.matrix_norm(a, -1), (W,), ["AminBackward0"]),
    ("matrix_norm 2", lambda a: L.matrix_norm(a, 2), (W,), ["AmaxBackward0"]),
    ("matrix_norm -2", lambda a: L.matrix_norm(a, -2), (W,), ["AminBackward0"]),
    ("matrix_norm dims keepdim", lambda a: L.matrix_norm(a, 1, dim=(0, 2), keepdim=True), (WB,), ["AmaxBackward0"]),
    ("matrix_norm nuc keepdim", lambda a: L.matrix_norm(a, "nuc", keepdim=True), (WB,), ["PermuteBackward0"]),
    ("norm", lambda a: L.norm(a), (WB,), ["LinalgVectorNormBackward0"]),
    ("norm matrix ord", lambda a: L.norm(a, 2), (W,), ["AmaxBackward0"]),
    ("norm vector ord", lambda a: L.norm(a, 3), (b,), ["LinalgVectorNormBackward0"]),
    ("norm dim", lambda a: L.norm(a, dim=1), (W,), ["LinalgVectorNormBackward0"]),
    ("matrix_power 0", lambda a: L.matrix_power(a, 0), (A,), ["CopyBackwards"]),
    ("matrix_power 1", lambda a: L.matrix_power(a, 1), (A,), ["CloneBackward0"]),
    ("matrix_power 3", lambda a: L.matrix_power(a, 3), (A,), ["MmBackward0"]),
    ("matrix_power 6", lambda a: L.matrix_power(a, 6), (A,), ["MmBackward0"]),
    ("matrix_power -1", lambda a: L.matrix_power(a, -1), (A,), ["LinalgInvExBackward0"]),
    ("matrix_power -3", lambda a: a.matrix_power(-3), (A,), ["MmBackward0"]),
    ("matrix_exp", lambda a: L.matrix_exp(a), (A,), ["LinalgMatrixExpBackward0"]),
    ("matrix_exp scaled", lambda a: torch.matrix_exp(4 * a), (A,), ["LinalgMatrixExpBackward0"]),
    ("matrix_exp batch", lambda a: a.matrix_exp(), (AB,), ["LinalgMatrixExpBackward0"]),
    ("multi_dot", lambda x, y, z: L.multi_dot([x, y, z]), (W, A, B), ["ViewBackward0"]),
    ("multi_dot vectors", lambda x, y, z: L.multi_dot([x, y, z]), (b, A, b), ["ViewBackward0"]),
    ("solve_triangular", lambda a, bb: L.solve_triangular(a, bb, upper=True), (A, B), ["LinalgSolveTriangularBackward0"]),
    ("solve_triangular unit right", lambda a, bb: L.solve_triangular(a, bb, upper=False, left=False, unitriangular=True),
     (A, B.T.copy()), ["LinalgSolveTriangularBackward0"]),
    ("cond", lambda a: L.cond(a), (A,), ["SqueezeBackward1"]),
    ("cond -2", lambda a: L.cond(a, -2), (A,), ["SqueezeBackward1"]),
    ("cond fro", lambda a: L.cond(a, "fro"), (A,), ["NanToNumBackward0"]),
    ("cond nuc", lambda a: L.cond(a, "nuc"), (A,), ["MulBackward0"]),
    ("cond 1", lambda a: L.cond(a, 1), (A,), ["NanToNumBackward0"]),
    ("vecdot", lambda x, y: L.vecdot(x, y), (W, W[:1].copy()), ["SumBackward1"]),
    ("diagonal", lambda a: L.diagonal(a, offset=1), (WB,), ["DiagonalBackward0"]),
    ("cholesky_solve", lambda bb, low: torch.cholesky_solve(bb, low), (B, LOW), ["CholeskySolveBackward0"]),
    ("cholesky_inverse", lambda low: torch.cholesky_inverse(low), (LOW,), ["CholeskyInverseBackward0"]),
    ("cholesky_inverse upper", lambda up: torch.cholesky_inverse(up, upper=True), (LOW.T.copy(),), ["CholeskyInverseBackward0"]),
    ("inverse method", lambda a: a.inverse(), (A,), ["LinalgInvExBackward0"]),
]


@pytest.mark.parametrize("label, f, arrays, names", CASES, ids=[c[0] for c in CASES])
def test_gradient_against_central_differences(label, f, arrays, names):
    got = _grads(lambda *ts: _loss(f(*ts)), arrays)
    for i, g in enumerate(got):
        want = _central(lambda *ts: _loss(f(*ts)), arrays, i)
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("label, f, arrays, names", CASES, ids=[c[0] for c in CASES])
def test_node_names_and_dtypes(label, f, arrays, names):
    for dt in (torch.float64, torch.float32):
        ts = [torch.tensor(a, dtype=dt, requires_grad=True) for a in arrays]
        out = f(*ts)
        outs = out if isinstance(out, tuple) else (out,)
        assert [type(o.grad_fn).__name__ for o in outs] == names
        assert all(o.dtype == dt for o in outs)


def test_inputs_not_mutated():
    for label, f, arrays, _ in CASES:
        copies = [a.copy() for a in arrays]
        _loss(f(*[torch.tensor(a, requires_grad=True) for a in arrays])).backward()
        for a, c in zip(arrays, copies):
            np.testing.assert_array_equal(a, c, err_msg=label)


def test_values_against_numpy():
    t = torch.tensor
    np.testing.assert_allclose(L.solve(t(A), t(b)).numpy(), np.linalg.solve(A, b), rtol=1e-12)
    np.testing.assert_allclose(L.solve(t(AB), t(B)).numpy(), np.linalg.solve(AB, np.broadcast_to(B, (2, 3, 2))), rtol=1e-12)
    np.testing.assert_allclose(L.solve(t(A), t(B.T), left=False).numpy() @ A, B.T, atol=1e-12)
    q, r = L.qr(t(WB))
    np.testing.assert_allclose((q @ r).numpy(), WB, atol=1e-12)
    assert q.shape == (2, 4, 3) and r.shape == (2, 3, 3)
    q, r = L.qr(t(W), mode="complete")
    assert q.shape == (4, 4) and r.shape == (4, 3)
    np.testing.assert_allclose(L.qr(t(W), mode="r").R.numpy(), np.linalg.qr(W, mode="r"), atol=1e-12)
    assert L.qr(t(W), mode="r").Q.shape == (0,)
    w, v = L.eigh(t(SB))
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(SB), rtol=1e-12)
    np.testing.assert_allclose(((v * w.unsqueeze(-2)) @ v.mT).numpy(), SB, atol=1e-10)
    upper = np.triu(S) + np.triu(S, 1).T
    np.testing.assert_allclose(L.eigvalsh(t(np.triu(S)), UPLO="U").numpy(), np.linalg.eigvalsh(upper), rtol=1e-12)
    u, s, vh = L.svd(t(W))
    assert (u.shape, s.shape, vh.shape) == ((4, 4), (3,), (3, 3))
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(W, compute_uv=False), rtol=1e-12)
    u, s, v = torch.svd(t(W))
    np.testing.assert_allclose(((u * s) @ v.mT).numpy(), W, atol=1e-12)
    np.testing.assert_allclose(L.pinv(t(WB)).numpy(), np.linalg.pinv(WB), atol=1e-12)
    np.testing.assert_allclose(L.pinv(t(np.diag([2.0, 1.0, 0.1])), atol=0.5).numpy(), np.diag([0.5, 1.0, 0.0]))
    np.testing.assert_allclose(L.pinv(t(np.diag([2.0, 1.0, 0.1])), rtol=0.3).numpy(), np.diag([0.5, 1.0, 0.0]))
    np.testing.assert_allclose(L.lstsq(t(W), t(C)).solution.numpy(), np.linalg.lstsq(W, C, rcond=None)[0], atol=1e-12)
    np.testing.assert_allclose(L.matrix_power(t(A), -3).numpy(), np.linalg.matrix_power(A, -3), rtol=1e-10)
    np.testing.assert_allclose(L.matrix_power(t(AB), 7).numpy(), np.linalg.matrix_power(AB, 7), rtol=1e-12)
    np.testing.assert_array_equal(L.matrix_power(t(np.ones((2, 2), np.int64)), 2).numpy(), [[2, 2], [2, 2]])
    np.testing.assert_allclose(L.multi_dot([t(W), t(A), t(B)]).numpy(), W @ A @ B, rtol=1e-12)
    for ord in ("fro", "nuc", INF, -INF, 1, -1, 2, -2):
        np.testing.assert_allclose(L.matrix_norm(t(W), ord).numpy(), np.linalg.norm(W, ord), rtol=1e-12)
        np.testing.assert_allclose(L.cond(t(A), ord).numpy(), np.linalg.cond(A, ord), rtol=1e-10)
    assert L.matrix_norm(t(WB), 2, keepdim=True).shape == (2, 1, 1)
    np.testing.assert_allclose(L.norm(t(WB), keepdim=True).numpy(), np.full((1, 1, 1), np.linalg.norm(WB)))
    np.testing.assert_allclose(L.vecdot(t(W), t(W), dim=0).numpy(), np.sum(W * W, axis=0))
    np.testing.assert_allclose(torch.cholesky_solve(t(B), t(LOW)).numpy(), np.linalg.solve(S, B), rtol=1e-10)
    np.testing.assert_allclose(torch.cholesky_inverse(t(LOW)).numpy(), np.linalg.inv(S), rtol=1e-10)
    tri = np.triu(A)
    np.testing.assert_allclose(L.solve_triangular(t(A), t(B), upper=True).numpy(), np.linalg.solve(tri, B), rtol=1e-12)


def test_matrix_exp_closed_forms():
    # a diagonalizable matrix: V exp(D) V^-1; a nilpotent one: I + N; a rotation generator
    d = np.array([0.3, -1.2, 2.5])
    v = _rng.normal(size=(3, 3)) + 2 * np.eye(3)
    m = v @ np.diag(d) @ np.linalg.inv(v)
    np.testing.assert_allclose(L.matrix_exp(torch.tensor(m)).numpy(), v @ np.diag(np.exp(d)) @ np.linalg.inv(v), rtol=1e-11)
    n = np.triu(np.ones((3, 3)), 1) * 7.0
    np.testing.assert_allclose(matrix_exp(n), np.eye(3) + n + n @ n / 2, rtol=1e-13)
    theta = 40.0
    rot = matrix_exp(np.array([[0.0, -theta], [theta, 0.0]]))
    np.testing.assert_allclose(rot, [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]], atol=1e-10)
    out = L.matrix_exp(torch.tensor(m, dtype=torch.float32))
    assert out.dtype == torch.float32


def test_eigh_gradient_is_symmetric_and_matches_symmetric_perturbations():
    # functions of the eigenvalues and of V diag(f(w)) V^T are sign-independent
    losses = [
        lambda a: (L.eigvalsh(a) ** 3).sum(),
        lambda a: (lambda w, v: ((v * v).sum(0) * w.exp()).sum())(*L.eigh(a)),
        lambda a: (lambda w, v: ((v * w.sin()) @ v.mT * torch.tensor(_weights((3, 3)))).sum())(*L.eigh(a)),
        lambda a: (lambda w, v: ((v * w ** 2) @ v.mT).sum())(*L.eigh(a, UPLO="U")),
    ]
    for loss in losses:
        x = torch.tensor(S, requires_grad=True)
        loss(x).backward()
        g = x.grad.numpy()
        np.testing.assert_allclose(g, g.T, atol=1e-12)
        for _ in range(3):
            e = _rng.normal(size=(3, 3))
            e = e + e.T
            np.testing.assert_allclose(np.sum(g * e), _central(loss, (S,), 0, direction=e), rtol=1e-6)


def test_eigvalsh_gradient_closed_form():
    # d(sum w)/dA = I; d(sum w^2)/dA = 2A for symmetric A (PyTorch's symmetric gradient)
    x = torch.tensor(S, requires_grad=True)
    (L.eigvalsh(x) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * S, rtol=1e-10)
    x = torch.tensor(SB, requires_grad=True)
    L.eigvalsh(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12)


def test_svd_gauge_invariant_gradients():
    losses = [
        lambda a: (lambda u, s, vh: ((u * s ** 2) @ vh * torch.tensor(_weights((4, 3)))).sum())(*L.svd(a, full_matrices=False)),
        lambda a: (lambda u, s, vh: ((u[:, :3] * s) @ vh).sum())(*L.svd(a)),  # full U: its extra columns are ignored
        lambda a: (lambda u, s, v: ((u * s.exp()) @ v.mT).sum())(*torch.svd(a)),
        lambda a: L.svd(a)[1].sum() * 2,
    ]
    for loss in losses:
        x = torch.tensor(W, requires_grad=True)
        loss(x).backward()
        np.testing.assert_allclose(x.grad.numpy(), _central(loss, (W,), 0), rtol=1e-6, atol=1e-7)
    # the nuclear norm's gradient is U Vh
    x = torch.tensor(W, requires_grad=True)
    L.svdvals(x).sum().backward()
    u, _, vh = np.linalg.svd(W, full_matrices=False)
    np.testing.assert_allclose(x.grad.numpy(), u @ vh, atol=1e-12)


def test_result_types_and_reprs():
    t = torch.tensor(np.eye(2))
    q = L.qr(t)
    assert type(q).__name__ == "linalg_qr" and q.Q is q[0] and q.R is q[1]
    assert repr(q).startswith("srcgrad.return_types.linalg_qr(\nQ=tensor(") and "\nR=tensor(" in repr(q)
    assert L.eigh(t)._fields == ("eigenvalues", "eigenvectors")
    assert L.svd(t)._fields == ("U", "S", "Vh") and type(L.svd(t)).__name__ == "linalg_svd"
    assert torch.svd(t)._fields == ("U", "S", "V") and type(torch.svd(t)).__name__ == "svd"
    r = L.lstsq(torch.tensor(W), torch.tensor(C))
    assert r._fields == ("solution", "residuals", "rank", "singular_values")
    assert r.residuals.shape == (0,) and r.singular_values.shape == (0,) and r.rank.item() == 3
    assert r.rank.dtype == torch.int64
    r = L.lstsq(torch.tensor(W), torch.tensor(C), driver="gelsd")
    np.testing.assert_allclose(r.residuals.numpy(), np.linalg.lstsq(W, C, rcond=None)[1], rtol=1e-10)
    np.testing.assert_allclose(r.singular_values.numpy(), np.linalg.svd(W, compute_uv=False), rtol=1e-12)
    ex = L.solve_ex(torch.tensor(A), torch.tensor(B))
    assert type(ex).__name__ == "linalg_solve_ex" and ex.info.dtype == torch.int32 and ex.info.item() == 0
    ex = L.solve_ex(torch.tensor(np.zeros((3, 3))), torch.tensor(b))
    assert ex.info.item() == 1 and np.isnan(ex.result.numpy()).all()
    assert L.matrix_rank(torch.tensor(np.ones((3, 3)))).item() == 1
    np.testing.assert_array_equal(L.matrix_rank(torch.tensor(WB)).numpy(), [3, 3])
    assert L.matrix_rank(torch.tensor(np.diag([2.0, 1.0, 3.0])), atol=1.5).item() == 2
    assert L.matrix_rank(torch.tensor(np.ones((3, 3))), hermitian=True).item() == 1
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        ts = torch.triangular_solve(torch.tensor(B), torch.tensor(A))
    assert type(ts).__name__ == "triangular_solve"
    np.testing.assert_allclose(ts.solution.numpy(), np.linalg.solve(np.triu(A), B), rtol=1e-12)
    np.testing.assert_array_equal(ts.cloned_coefficient.numpy(), A)


@pytest.mark.parametrize("call, error, message", [
    (lambda: L.solve(torch.tensor(W), torch.tensor(b)), RuntimeError,
     "linalg.solve: A must be batches of square matrices, but they are 4 by 3 matrices"),
    (lambda: L.solve(torch.zeros(3, 3, dtype=torch.float64), torch.tensor(b)), L.LinAlgError,
     "torch.linalg.solve: The solver failed because the input matrix is singular."),
    (lambda: L.solve(torch.tensor(np.stack([np.eye(3), np.zeros((3, 3))])), torch.tensor(BB[..., 0])), L.LinAlgError,
     "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular."),
    (lambda: L.solve(torch.tensor(A), torch.tensor(C)), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x2)"),
    (lambda: L.solve(torch.tensor(b), torch.tensor(b)), RuntimeError,
     "linalg.solve: The input tensor A must have at least 2 dimensions."),
    (lambda: L.solve(torch.ones(3, 3, dtype=torch.int64), torch.ones(3, dtype=torch.int64)), RuntimeError,
     "linalg.solve: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: L.solve(torch.ones(3, 3), torch.tensor(b)), RuntimeError,
     "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type Double instead"),
    (lambda: L.qr(torch.tensor(W), mode="x"), RuntimeError,
     "qr received unrecognized mode 'x' but expected one of 'reduced' (default), 'r', or 'complete'"),
    (lambda: L.eigh(torch.tensor(W)), RuntimeError,
     "linalg.eigh: A must be batches of square matrices, but they are 4 by 3 matrices"),
    (lambda: L.eigh(torch.tensor(A), UPLO="X"), RuntimeError, "Expected UPLO argument to be 'L' or 'U', but got X"),
    (lambda: L.svd(torch.tensor(b)), RuntimeError, "linalg.svd: The input tensor A must have at least 2 dimensions."),
    (lambda: L.pinv(torch.tensor(b)), RuntimeError,
     "linalg.pinv(Double{[3]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types"),
    (lambda: L.matrix_exp(torch.tensor(W)), RuntimeError,
     "linalg.matrix_exp: A must be batches of square matrices, but they are 4 by 3 matrices"),
    (lambda: L.matrix_power(torch.tensor(W), 2), RuntimeError,
     "linalg.matrix_power: A must be batches of square matrices, but they are 4 by 3 matrices"),
    (lambda: L.matrix_power(torch.zeros(3, 3, dtype=torch.float64), -1), L.LinAlgError,
     "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular."),
    (lambda: L.multi_dot([torch.tensor(A)]), RuntimeError, "multi_dot(): expected at least 2 tensors but got 1"),
    (lambda: L.multi_dot([torch.tensor(WB), torch.tensor(A)]), RuntimeError,
     "multi_dot(): the first tensor must be 1D or 2D but got 3D"),
    (lambda: L.multi_dot([torch.tensor(W), torch.tensor(W)]), RuntimeError,
     "multi_dot(): tensors 0 and 1 with shapes [4, 3] and [4, 3] cannot be multiplied"),
    (lambda: L.matrix_norm(torch.tensor(W), ord=3), RuntimeError, "linalg.matrix_norm: Order 3 not supported."),
    (lambda: L.matrix_norm(torch.tensor(b)), RuntimeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    (lambda: L.norm(torch.tensor(WB), 2), RuntimeError,
     "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
    (lambda: L.solve_triangular(torch.tensor(A), torch.tensor(b), upper=True), RuntimeError,
     "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."),
    (lambda: L.lstsq(torch.tensor(W), torch.tensor(B)), RuntimeError,
     "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"),
    (lambda: L.cond(torch.tensor(W), "fro"), RuntimeError,
     "linalg.cond(ord=fro): A must be batches of square matrices, but they are 4 by 3 matrices"),
    (lambda: torch.cholesky_solve(torch.tensor(b), torch.tensor(LOW)), RuntimeError,
     "b should have at least 2 dimensions, but has 1 dimensions instead"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_cond_of_singular_matrix():
    zero = torch.zeros(3, 3, dtype=torch.float64)
    assert np.isnan(L.cond(zero).item())
    assert L.cond(zero, "fro").item() == INF


def test_saved_output_written_in_place_refuses_backward():
    x = torch.tensor(S, requires_grad=True)
    w, v = L.eigh(x)
    with torch.no_grad():
        v.mul_(2)
    with pytest.raises(RuntimeError) as info:
        w.sum().backward()
    assert "[srcgrad.DoubleTensor [3, 3]], which is output 1 of LinalgEigh, is at version 1; expected version 0" in str(info.value)


def test_unused_outputs_and_repeated_backward():
    x = torch.tensor(W, requires_grad=True)
    q, r = L.qr(x)
    r.sum().backward(retain_graph=True)
    first = x.grad.numpy().copy()
    np.testing.assert_allclose(first, _central(lambda a: L.qr(a)[1].sum(), (W,), 0), rtol=1e-6, atol=1e-7)
    q.sum().backward()
    np.testing.assert_allclose(x.grad.numpy() - first, _central(lambda a: L.qr(a)[0].sum(), (W,), 0), rtol=1e-6, atol=1e-7)


def test_tensor_methods():
    x = torch.tensor(A)
    np.testing.assert_allclose(x.matrix_exp().numpy(), matrix_exp(A))
    np.testing.assert_allclose(x.matrix_power(2).numpy(), A @ A)
    np.testing.assert_allclose(x.pinverse().numpy(), np.linalg.pinv(A), rtol=1e-10)
    np.testing.assert_allclose(x.svd().S.numpy(), np.linalg.svd(A, compute_uv=False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        q, r = x.qr()
    assert "torch.qr is deprecated" in str(caught[0].message)
    np.testing.assert_allclose((q @ r).numpy(), A, atol=1e-12)


# --- the rules ---------------------------------------------------------------------


def _matrix_exp_loss(x):
    return np.sum(matrix_exp(x) * np.cos(np.arange(9.0)).reshape(3, 3))


def _eigh_loss(x):
    w, v = symmetric_eigh(x)
    return np.sum(w ** 3) + np.sum((v * v) @ np.exp(w))


def test_matrix_exp_rule_through_the_compiler():
    check_grad(_matrix_exp_loss, A)
    check_grad(_matrix_exp_loss, 3 * A)


def test_matrix_exp_forward_rule():
    from srcgrad.rules import lookup

    rule = lookup(matrix_exp)
    t = _rng.normal(size=(2, 3, 3))
    eps = 1e-6
    want = (matrix_exp(AB + eps * t) - matrix_exp(AB - eps * t)) / (2 * eps)
    np.testing.assert_allclose(rule.jvps["x"].fn(t, matrix_exp(AB), AB), want, rtol=1e-6, atol=1e-8)
    g = _rng.normal(size=(2, 3, 3))
    np.testing.assert_allclose(np.sum(rule.vjps["x"].fn(g, None, AB) * t), np.sum(g * want), rtol=1e-6)


def test_symmetric_eigh_rules():
    import srcgrad

    g = srcgrad.grad(_eigh_loss)(S)
    np.testing.assert_allclose(g, g.T, atol=1e-12)
    for _ in range(3):
        e = _rng.normal(size=(3, 3))
        e = e + e.T
        eps = 1e-6
        fd = (_eigh_loss(S + eps * e) - _eigh_loss(S - eps * e)) / (2 * eps)
        np.testing.assert_allclose(np.sum(g * e), fd, rtol=1e-6)
    from srcgrad.rules import lookup

    e = _rng.normal(size=(3, 3))
    e = e + e.T
    jvp = lookup(symmetric_eigvalsh).jvps["x"].fn(e, None, S)
    np.testing.assert_allclose(jvp, (np.linalg.eigvalsh(S + 1e-6 * e) - np.linalg.eigvalsh(S - 1e-6 * e)) / 2e-6, rtol=1e-6)


def test_against_pytorch():
    real = pytest.importorskip("torch")
    for label, f, arrays, names in CASES:
        if label.startswith(("cond 1", "cond fro")):
            continue  # PyTorch 2.13's backward of these raises its own version error
        for lib in (real, torch):
            ts = [lib.tensor(a, requires_grad=True) for a in arrays]
            out = f.__globals__ and _call_with(lib, f, ts)
            _loss_with(lib, out).backward()
            if lib is real:
                want = [t.grad.numpy() for t in ts]
                want_out = [o.detach().numpy() for o in (out if isinstance(out, tuple) else (out,))]
        got = [t.grad.numpy() for t in ts]
        got_out = [o.detach().numpy() for o in (out if isinstance(out, tuple) else (out,))]
        for a, c in zip(want_out, got_out):
            np.testing.assert_allclose(c, a, rtol=1e-8, atol=1e-10, err_msg=label)
        for a, c in zip(want, got):
            np.testing.assert_allclose(c, a, rtol=1e-7, atol=1e-9, err_msg=label)


def _call_with(lib, f, ts):
    """f with `torch`, `L` bound to `lib` (the real PyTorch or the shim)."""
    import types

    scope = dict(f.__globals__, torch=lib, L=lib.linalg)
    return types.FunctionType(f.__code__, scope, closure=f.__closure__)(*ts)


def _loss_with(lib, out):
    outs = out if isinstance(out, tuple) else (out,)
    return sum((o * lib.tensor(_weights(tuple(o.shape)))).sum() for o in outs if o.is_floating_point())
