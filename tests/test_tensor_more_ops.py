"""The Tensor shim's elementwise, special, linear-algebra, rearranging, scatter and
order-statistic functions (pointwise_more.py, linalg_functions.py, rearrangements.py,
scatters.py, order_statistics.py): values against NumPy or closed forms, first
derivatives against central differences in float64, second derivatives (create_graph)
against central differences of the first, dtypes, and PyTorch 2.13's node names, written
in. No PyTorch needed; where it is installed, `test_against_pytorch` compares every
case with it too."""

import math
import re
import warnings

import numpy as np
import pytest

import srcgrad as torch

_rng = np.random.default_rng(7)


def U(shape, lo=-2.0, hi=2.0):
    return _rng.uniform(lo, hi, size=shape)


def _spd(n):
    a = _rng.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def _cross_last(a, b):
    return np.cross(a, b, axis=-1)


def _logcumsumexp(a, axis):
    return np.logaddexp.accumulate(a, axis=axis)


def _lgamma(a):
    return np.vectorize(math.lgamma)(a)


def _scatter(a, dim, index, src):
    out = a.copy()
    np.put_along_axis(out, index, src[tuple(slice(0, s) for s in index.shape)], axis=dim)
    return out


def _scatter_add(a, dim, index, src):
    out = a.copy()
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    np.add.at(out, tuple(grid), src)
    return out


_I = np.array([[0, 2], [1, 0]])
_J = np.array([[0, 0], [1, 2]])

# (label, expression of T and a0, a1, ..., inputs, NumPy's value of the inputs' arrays, PyTorch's node, smooth)
CASES = [
    ("logaddexp", "T.logaddexp(a0, a1)", [U((2, 3)), U((3,))], np.logaddexp, "LogaddexpBackward0", True),
    ("logaddexp2", "a0.logaddexp2(a1)", [U((2, 3)), U((2, 3))], np.logaddexp2, "Logaddexp2Backward0", True),
    ("hypot", "T.hypot(a0, a1)", [U((2, 3)), U((2, 3))], np.hypot, "HypotBackward0", True),
    ("xlogy", "T.xlogy(a0, a1)", [U((2, 3)), U((2, 3), 0.2, 3)], lambda x, y: x * np.log(y), "XlogyBackward0", True),
    ("xlogy number", "T.xlogy(a0, 2.5)", [U((2, 3))], lambda x: x * np.log(2.5), "XlogyBackward2", True),
    ("xlogy number self", "T.xlogy(2.5, a0)", [U((2, 3), 0.2, 3)], lambda y: 2.5 * np.log(y), "XlogyBackward1", True),
    ("fmod", "T.fmod(a0, a1)", [U((2, 3)), U((2, 3), 0.5, 1.5)], np.fmod, "FmodBackward1", True),
    ("fmod number", "a0.fmod(0.7)", [U((2, 3))], lambda x: np.fmod(x, 0.7), "FmodBackward0", True),
    ("copysign", "T.copysign(a0, a1)", [U((2, 3)), U((2, 3))], np.copysign, "CopysignBackward0", True),
    ("copysign number", "T.copysign(a0, -1.0)", [U((2, 3))], lambda x: -np.abs(x), "CopysignBackward1", True),
    ("float_power", "T.float_power(a0, a1)", [U((2, 3), 0.2, 2), U((2, 3))], np.power, "PowBackward1", True),
    ("float_power number", "T.float_power(a0, 3)", [U((2, 3))], lambda x: x**3, "PowBackward0", True),
    ("sinc", "T.sinc(a0)", [U((2, 3))], np.sinc, "SincBackward0", True),
    ("logit", "T.logit(a0)", [U((2, 3), 0.05, 0.95)], lambda x: np.log(x / (1 - x)), "LogitBackward0", True),
    ("logit eps", "a0.logit(eps=0.2)", [U((2, 3), 0.05, 0.95)],
     lambda x: np.log(np.clip(x, 0.2, 0.8) / (1 - np.clip(x, 0.2, 0.8))), "LogitBackward0", True),
    ("lgamma", "T.lgamma(a0)", [U((2, 3), -2.9, 4)], _lgamma, "LgammaBackward0", True),
    ("digamma", "T.digamma(a0)", [U((2, 3), 0.2, 4)], None, "DigammaBackward0", True),
    ("polygamma", "T.polygamma(2, a0)", [U((2, 3), 0.2, 4)], None, "PolygammaBackward0", True),
    ("erfinv", "T.erfinv(a0)", [U((2, 3), -0.95, 0.95)], None, "ErfinvBackward0", True),
    ("addcmul", "T.addcmul(a0, a1, a2, value=0.5)", [U((2, 3)), U((2, 3)), U((3,))], lambda a, b, c: a + 0.5 * b * c,
     "AddcmulBackward0", True),
    ("addcdiv", "a0.addcdiv(a1, a2, value=0.5)", [U((2, 3)), U((2, 3)), U((3,), 0.5, 2)], lambda a, b, c: a + 0.5 * b / c,
     "AddcdivBackward0", True),
    ("nansum", "T.nansum(a0, 1)", [U((2, 3))], lambda a: np.nansum(a, 1), "NansumBackward0", True),
    ("det", "T.det(a0)", [U((3, 3))], np.linalg.det, "LinalgDetBackward0", True),
    ("linalg.det", "T.linalg.det(a0)", [U((2, 3, 3))], np.linalg.det, "LinalgDetBackward0", True),
    ("inverse", "a0.inverse()", [U((3, 3)) + 3 * np.eye(3)], np.linalg.inv, "LinalgInvExBackward0", True),
    ("logdet", "T.logdet(a0)", [_spd(3)], lambda a: np.log(np.linalg.det(a)), "WhereBackward0", True),
    ("slogdet", "T.slogdet(a0)[1]", [U((3, 3))], lambda a: np.linalg.slogdet(a)[1], "LinalgSlogdetBackward0", True),
    ("linalg.slogdet", "T.linalg.slogdet(a0).logabsdet", [U((2, 3, 3))], lambda a: np.linalg.slogdet(a)[1],
     "LinalgSlogdetBackward0", True),
    ("linalg.cholesky", "T.linalg.cholesky(a0 @ a0.mT + 3 * T.eye(3, dtype=a0.dtype))", [U((3, 3))],
     lambda a: np.linalg.cholesky(a @ a.T + 3 * np.eye(3)), "LinalgCholeskyExBackward0", True),
    ("cholesky upper", "T.cholesky(a0 @ a0.mT + 3 * T.eye(3, dtype=a0.dtype), upper=True)", [U((3, 3))],
     lambda a: np.linalg.cholesky(a @ a.T + 3 * np.eye(3)).T, "CholeskyBackward0", True),
    ("einsum ij,jk", "T.einsum('ij,jk->ik', a0, a1)", [U((2, 3)), U((3, 4))], np.matmul, "ViewBackward0", True),
    ("einsum three", "T.einsum('ij,jk,kl->il', a0, a1, a2)", [U((2, 3)), U((3, 4)), U((4, 2))],
     lambda a, b, c: a @ b @ c, "ViewBackward0", True),
    ("einsum sum", "T.einsum('ij->', a0)", [U((2, 3))], np.sum, "SumBackward1", True),
    ("einsum ellipsis", "T.einsum('...j,kj->...k', a0, a1)", [U((2, 2, 3)), U((4, 3))], lambda a, b: a @ b.T,
     "ViewBackward0", True),
    ("einsum diagonal", "T.einsum('ii,ij->j', a0, a1)", [U((3, 3)), U((3, 2))], lambda a, b: np.einsum("ii,ij->j", a, b),
     "ViewBackward0", True),
    ("einsum trace", "T.einsum('ii', a0)", [U((3, 3))], np.trace, "SumBackward1", True),
    ("kron", "T.kron(a0, a1)", [U((2, 3)), U((2, 2))], np.kron, "UnsafeViewBackward0", True),
    ("cross", "T.cross(a0, a1, dim=1)", [U((2, 3)), U((2, 3))], _cross_last, "LinalgCrossBackward0", True),
    ("linalg.cross", "T.linalg.cross(a0, a1)", [U((2, 3)), U((1, 3))], _cross_last, "LinalgCrossBackward0", True),
    ("inner", "T.inner(a0, a1)", [U((2, 3)), U((4, 3))], np.inner, "ViewBackward0", True),
    ("dist", "T.dist(a0, a1)", [U((2, 3)), U((3,))], lambda a, b: np.linalg.norm(a - b), "DistBackward0", True),
    ("dist p3", "a0.dist(a1, 3)", [U((2, 3)), U((3,))], lambda a, b: (np.abs(a - b) ** 3).sum() ** (1 / 3),
     "DistBackward0", True),
    ("cdist", "T.cdist(a0, a1)", [U((2, 3)), U((4, 3))], lambda a, b: np.linalg.norm(a[:, None] - b[None], axis=-1),
     "CdistBackward0", True),
    ("baddbmm", "T.baddbmm(a0, a1, a2, beta=0.5, alpha=2)", [U((2, 2, 2)), U((2, 2, 3)), U((2, 3, 2))],
     lambda a, b, c: 0.5 * a + 2 * b @ c, "BaddbmmBackward0", True),
    ("rot90", "T.rot90(a0, 1, (0, 1))", [U((2, 3))], np.rot90, "Rot90Backward0", True),
    ("tile", "T.tile(a0, (2, 1, 2))", [U((2, 3))], lambda a: np.tile(a, (2, 1, 2)), "RepeatBackward0", True),
    ("movedim", "T.movedim(a0, (0, 1), (2, 0))", [U((2, 3, 4))], lambda a: np.moveaxis(a, (0, 1), (2, 0)),
     "PermuteBackward0", True),
    ("permute", "T.permute(a0, (2, 0, 1))", [U((2, 3, 4))], lambda a: a.transpose(2, 0, 1), "PermuteBackward0", True),
    ("unflatten", "a0.unflatten(1, (2, -1))", [U((2, 6))], lambda a: a.reshape(2, 2, 3), "ViewBackward0", True),
    ("repeat_interleave", "T.repeat_interleave(a0, 2, dim=1)", [U((2, 3))], lambda a: np.repeat(a, 2, 1),
     "ViewBackward0", True),
    ("repeat_interleave counts", "a0.repeat_interleave(T.tensor([1, 0, 2]), dim=1)", [U((2, 3))],
     lambda a: np.repeat(a, [1, 0, 2], 1), "IndexSelectBackward0", True),
    ("take_along_dim", "T.take_along_dim(a0, T.tensor([[0, 2], [1, 1]]), dim=1)", [U((2, 3))],
     lambda a: np.take_along_axis(a, np.array([[0, 2], [1, 1]]), 1), "GatherBackward0", True),
    ("masked_select", "T.masked_select(a0, T.tensor([True, False, True]))", [U((2, 3))], lambda a: a[:, [0, 2]].ravel(),
     "MaskedSelectBackward0", True),
    ("scatter", "T.scatter(a0, 1, T.tensor(_I), a1)", [U((2, 3)), U((2, 2))], lambda a, s: _scatter(a, 1, _I, s),
     "ScatterBackward0", True),
    ("scatter value", "a0.scatter(0, T.tensor([[1, 0, 1]]), 2.5)", [U((2, 3))],
     lambda a: np.where([[True, False, True], [False, True, False]], a, 2.5), "ScatterBackward1", True),
    ("scatter_add", "T.scatter_add(a0, 1, T.tensor(_J), a1)", [U((2, 3)), U((2, 2))], lambda a, s: _scatter_add(a, 1, _J, s),
     "ScatterAddBackward0", True),
    ("scatter_", "(a0 * 1).scatter_(1, T.tensor(_I), a1)", [U((2, 3)), U((2, 2))], lambda a, s: _scatter(a, 1, _I, s),
     "ScatterBackward0", True),
    ("cummax", "T.cummax(a0, 1).values", [U((2, 5))], lambda a: np.maximum.accumulate(a, 1), "CummaxBackward0", True),
    ("cummin", "a0.cummin(0)[0]", [U((4, 3))], lambda a: np.minimum.accumulate(a, 0), "CumminBackward0", True),
    ("logcumsumexp", "T.logcumsumexp(a0, 1)", [U((2, 5))], lambda a: _logcumsumexp(a, 1), "LogcumsumexpBackward0", True),
    ("kthvalue", "T.kthvalue(a0, 2, 1)[0]", [U((2, 5))], lambda a: np.sort(a, 1)[:, 1], "KthvalueBackward0", True),
    ("kthvalue keepdim", "a0.kthvalue(3, 0, True).values", [U((4, 3))], lambda a: np.sort(a, 0)[2:3], "KthvalueBackward0",
     True),
    ("mode", "T.mode(a0)[0]", [np.array([[1.0, 2, 2, 1, 3], [0, 0, 5, 5, 5]])], lambda a: np.array([1.0, 5.0]),
     "ModeBackward0", True),
]
_IDS = [c[0] for c in CASES]
# mode's value jumps where a difference step breaks its ties: its gradient is checked on its own
CONTINUOUS = [c for c in CASES if c[0] != "mode"]
SMOOTH = [c for c in CONTINUOUS if c[5]]


def _inputs(arrays, dtype=torch.float64):
    return [torch.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]


def _call(expr, args, T=torch):
    env = {"T": T, "_I": _I, "_J": _J, **{f"a{i}": a for i, a in enumerate(args)}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.cholesky's deprecation
        return eval(expr, env)


def _weights(shape):
    return np.random.default_rng(1).uniform(0.5, 1.5, size=shape)


def _loss_and_grads(expr, arrays, create_graph=False):
    args = _inputs(arrays)
    out = _call(expr, args)
    loss = (out * torch.tensor(_weights(tuple(out.shape)))).sum()
    grads = torch.autograd.grad(loss, args, create_graph=create_graph, allow_unused=True)
    return args, out, loss, grads


def _central(f, arrays, eps=1e-6):
    """d f(arrays) / d arrays[i], each by central differences."""
    out = []
    for i, a in enumerate(arrays):
        d = np.zeros_like(a)
        for k in np.ndindex(a.shape):
            up, down = [x.copy() for x in arrays], [x.copy() for x in arrays]
            up[i][k] += eps
            down[i][k] -= eps
            d[k] = (f(up) - f(down)) / (2 * eps)
        out.append(d)
    return out


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", CASES, ids=_IDS)
def test_values_and_node_names(label, expr, arrays, numpy_value, node, smooth):
    out = _call(expr, _inputs(arrays))
    assert type(out.grad_fn).__name__ == node
    assert out.dtype == torch.float64
    if numpy_value is not None:
        np.testing.assert_allclose(out.detach().numpy(), numpy_value(*arrays), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_first_derivatives_match_central_differences(label, expr, arrays, numpy_value, node, smooth):
    _, out, _, grads = _loss_and_grads(expr, arrays)
    w = _weights(tuple(out.shape))

    def loss(values):
        return float((_call(expr, [torch.tensor(v, dtype=torch.float64) for v in values]).numpy() * w).sum())

    for got, want in zip(grads, _central(loss, arrays)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", SMOOTH, ids=[c[0] for c in SMOOTH])
def test_second_derivatives_match_central_differences(label, expr, arrays, numpy_value, node, smooth):
    """d/dx of sum(g * g), g the gradient recorded with create_graph, against central
    differences of that sum computed from first derivatives."""
    args, _, _, grads = _loss_and_grads(expr, arrays, create_graph=True)
    live = [g for g in grads if g is not None and g.requires_grad]
    if live:  # else the op is linear: the gradient is a constant, and the check below wants zeros
        second = torch.autograd.grad(sum((g * g).sum() for g in live), args, allow_unused=True)
    else:
        second = [None] * len(args)

    def squared_gradient(values):
        return float(sum((g.detach().numpy() ** 2).sum() for g in _loss_and_grads(expr, values)[3] if g is not None))

    for got, want in zip(second, _central(squared_gradient, arrays, eps=1e-5)):
        got = np.zeros_like(want) if got is None else got.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", CASES, ids=_IDS)
def test_float32_stays_float32(label, expr, arrays, numpy_value, node, smooth):
    args = _inputs(arrays, torch.float32)
    out = _call(expr, args)
    assert out.dtype == (torch.float64 if "float_power" in label else torch.float32)
    for a, g in zip(args, torch.autograd.grad(out.sum(), args, allow_unused=True)):
        assert g is None or (g.dtype == torch.float32 and g.shape == a.shape)


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", CASES, ids=_IDS)
def test_inputs_are_not_mutated(label, expr, arrays, numpy_value, node, smooth):
    args = _inputs(arrays)
    before = [a.detach().numpy().copy() for a in args]
    _call(expr, args).sum().backward()
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a.detach().numpy(), b)


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", CASES, ids=_IDS)
def test_against_pytorch(label, expr, arrays, numpy_value, node, smooth):
    real_torch = pytest.importorskip("torch")
    mine = _loss_and_grads(expr, arrays)
    args = [real_torch.tensor(a, dtype=real_torch.float64, requires_grad=True) for a in arrays]
    out = _call(expr, args, real_torch)
    loss = (out * real_torch.tensor(_weights(tuple(out.shape)))).sum()
    grads = real_torch.autograd.grad(loss, args, allow_unused=True)
    assert type(out.grad_fn).__name__ == type(mine[1].grad_fn).__name__
    np.testing.assert_allclose(mine[1].detach().numpy(), out.detach().numpy(), rtol=1e-12, atol=1e-12)
    for got, want in zip(mine[3], grads):
        assert (got is None) == (want is None)
        if got is not None:  # PyTorch's trigamma (digamma's derivative) is off by 4e-10 relative
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9, atol=1e-12)


# --- special values ------------------------------------------------------------------------


def test_special_functions_at_known_points():
    euler = 0.5772156649015329
    x = torch.tensor([1.0, 0.5, 2.0], dtype=torch.float64)
    np.testing.assert_allclose(torch.lgamma(x).numpy(), [0.0, math.log(math.sqrt(math.pi)), 0.0], atol=1e-15)
    np.testing.assert_allclose(torch.digamma(x).numpy(), [-euler, -euler - 2 * math.log(2), 1 - euler], rtol=1e-14)
    np.testing.assert_allclose(torch.polygamma(1, x).numpy()[0], math.pi**2 / 6, rtol=1e-14)
    poles = torch.tensor([0.0, -0.0, -1.0], dtype=torch.float64)
    assert torch.lgamma(poles).tolist() == [math.inf] * 3
    assert torch.digamma(poles).tolist()[:2] == [-math.inf, math.inf] and math.isnan(torch.digamma(poles)[2].item())


def test_erfinv_inverts_erf_to_the_last_digits():
    y = np.concatenate([np.linspace(-0.999, 0.999, 2001), 1 - np.logspace(-15.5, -1, 30), [1e-300, -1e-200]])
    x = torch.erfinv(torch.tensor(y, dtype=torch.float64)).numpy()
    back = np.array([math.erf(v) for v in x])
    far = np.abs(y) > 0.5
    np.testing.assert_allclose(back[~far], y[~far], rtol=4e-16, atol=0)
    # near +-1 compare 1 - y, which erfc gives accurately
    np.testing.assert_allclose(np.array([math.erfc(v) for v in x[far]]), 1 - y[far], rtol=1e-13)
    edges = torch.erfinv(torch.tensor([1.0, -1.0, 1.5, float("nan")])).tolist()
    assert edges[:2] == [math.inf, -math.inf] and all(math.isnan(v) for v in edges[2:])


def test_xlogy_is_zero_where_x_is_zero_unless_y_is_nan():
    x = torch.tensor([0.0, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([0.0, float("nan"), 3.0], dtype=torch.float64, requires_grad=True)
    out = torch.xlogy(x, y)
    assert out[0].item() == 0.0 and math.isnan(out[1].item()) and out[2].item() == pytest.approx(2 * math.log(3))
    out[2].backward()
    assert x.grad.tolist()[2] == pytest.approx(math.log(3)) and y.grad.tolist()[2] == pytest.approx(2 / 3)


def test_logit_gradient_outside_its_range():
    x = torch.tensor([0.1, 0.5, 0.95, 1.2], dtype=torch.float64, requires_grad=True)
    torch.logit(x, eps=0.2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 4.0, 0.0, 0.0])
    x.grad = None
    torch.logit(x).sum().backward()
    assert math.isnan(x.grad[3].item()) and x.grad[1].item() == 4.0


def test_logcumsumexp_where_log_cumsum_exp_would_underflow():
    x = torch.tensor([-1000.0, 0.0, 1.0], requires_grad=True)
    out = torch.logcumsumexp(x, 0)
    np.testing.assert_allclose(out.detach().numpy(), [-1000.0, 0.0, np.logaddexp(0.0, 1.0)], rtol=1e-6)
    assert out.dtype == torch.float32


def test_running_extrema_indices_follow_pytorch_ties_and_nan():
    values, indices = torch.cummax(torch.tensor([1.0, 1.0, 0.0, 1.0]), 0)
    assert values.tolist() == [1.0] * 4 and indices.tolist() == [0, 1, 1, 3]
    _, indices = torch.cummin(torch.tensor([1.0, 1.0, 2.0, 1.0]), 0)
    assert indices.tolist() == [0, 1, 1, 3]
    values, indices = torch.cummax(torch.tensor([1.0, float("nan"), 5.0]), 0)
    assert math.isnan(values[2].item()) and indices.tolist() == [0, 1, 1]


def test_mode_picks_the_smallest_most_frequent_value_at_its_last_place():
    result = torch.mode(torch.tensor([[1.0, 2, 2, 1, 3]]))
    assert result.values.tolist() == [1.0] and result.indices.tolist() == [3]
    assert repr(result).startswith("srcgrad.return_types.mode(\nvalues=")
    x = torch.tensor([[1.0, 2, 2, 1, 3], [0, 0, 5, 5, 5]], requires_grad=True)
    torch.mode(x).values.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]]


def test_scatter_gradients_go_to_the_written_places():
    x = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    src = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    out = torch.scatter(x, 1, torch.tensor([[0, 2], [1, 0]]), src)
    assert out.tolist() == [[1.0, 0.0, 2.0], [4.0, 3.0, 0.0]]
    (out * torch.arange(6.0, dtype=torch.float64).reshape(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 5.0]]
    assert src.grad.tolist() == [[0.0, 2.0], [4.0, 3.0]]


def test_heaviside_has_no_derivative():
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    out = torch.heaviside(x, torch.tensor([0.5, 0.5, 0.5]))
    assert out.tolist() == [0.0, 0.5, 1.0] and type(out.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        out.sum().backward()


def test_slogdet_of_a_negative_determinant_and_logdet_nan():
    a = torch.tensor([[0.0, 2.0], [1.0, 0.0]], dtype=torch.float64, requires_grad=True)
    sign, logabsdet = torch.slogdet(a)
    assert sign.item() == -1.0 and logabsdet.item() == pytest.approx(math.log(2))
    assert math.isnan(torch.logdet(a).item())
    assert repr(torch.linalg.slogdet(a)).startswith("srcgrad.return_types.linalg_slogdet(\nsign=")


# --- errors ---------------------------------------------------------------------------------

ERRORS = [
    ("T.logaddexp(T.ones(2), 1.0)", TypeError, "argument 'other' (position 2) must be Tensor, not float"),
    ("T.logaddexp(T.tensor([1, 2]), T.tensor([1, 2]))", NotImplementedError, "\"logaddexp_cpu\" not implemented for 'Long'"),
    ("T.hypot(T.ones(2, 3), T.ones(2, 2))", RuntimeError, "The size of tensor a (3) must match the size of tensor b (2)"),
    ("T.fmod(T.tensor([1, 2]), 0)", RuntimeError, "ZeroDivisionError"),
    ("T.heaviside(T.tensor([1, 2]), T.tensor([1.0, 2]))", RuntimeError, "different dtypes"),
    ("T.polygamma(-1, T.ones(2))", RuntimeError, "does not support negative n"),
    ("T.det(T.ones(2, 3))", RuntimeError, "A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("T.inverse(T.zeros(3, 3))", RuntimeError, "The diagonal element 1 is zero"),
    ("T.linalg.cholesky(-T.eye(3))", torch.linalg.LinAlgError, "the leading minor of order 1 is not positive-definite"),
    ("T.linalg.cross(T.ones(2, 2), T.ones(2, 2))", RuntimeError, "inputs dimension -1 must have length 3. Got 2 and 2"),
    ("T.inner(T.ones(2, 3), T.ones(2))", RuntimeError, "the last dimension must match"),
    ("T.cdist(T.ones(3), T.ones(3))", RuntimeError, "cdist only supports at least 2D tensors, X1 got: 1D"),
    ("T.cdist(T.ones(2, 3), T.ones(2, 4))", RuntimeError, "X1 and X2 must have the same number of columns. X1: 3 X2: 4"),
    ("T.rot90(T.ones(3))", RuntimeError, "expected total dims >= 2, but got total dims = 1"),
    ("T.rot90(T.ones(2, 3), 1, (0, 0))", RuntimeError, "expected rotation dims to be different"),
    ("T.tile(T.ones(2), 2)", TypeError, "argument 'dims' (position 2) must be tuple of ints, not int"),
    ("T.movedim(T.ones(2, 3), (0, 1), (1,))", RuntimeError, "should contain the same number of dims"),
    ("T.ones(2, 3).unflatten(1, (2, 2))", RuntimeError, "don't multiply up to the size of dim 1 (3)"),
    ("T.repeat_interleave(T.ones(2, 3), T.tensor([1, 2]))", RuntimeError, "repeats must have the same size as input"),
    ("T.masked_select(T.ones(2, 3), T.tensor([1, 0, 1]))", RuntimeError, "expected BoolTensor for mask"),
    ("T.scatter(T.ones(2, 3), 1, T.tensor([[0], [5]]), 2.0)", RuntimeError, "index 5 is out of bounds for dimension 1"),
    ("T.kthvalue(T.ones(3), 4)", RuntimeError, "selected number k out of range for dimension 0"),
    ("T.einsum('ij,jk->ik', T.ones(2, 3), T.ones(2, 3))", RuntimeError, "subscript j has size 2 for operand 1"),
    ("T.einsum('ijk->ij', T.ones(2, 3))", RuntimeError, "does not match the number of dimensions (2) for operand 0"),
]


@pytest.mark.parametrize("expr, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_pytorchs_error(expr, kind, message):
    with pytest.raises(kind, match=re.escape(message)):
        _call(expr, [])
