"""Every Tensor-shim operation: reverse-mode gradients against central finite
differences in float64, and float32 in, float32 out (values and gradients)."""

import re

import numpy as np
import pytest

import srcgrad as torch
import srcgrad.nn.functional as F
from tensor_checks import check_against_differences


def _inputs(shapes, positive, seed):
    rng = np.random.default_rng(seed)
    if positive:
        return [rng.uniform(0.5, 1.5, s) for s in shapes]
    return [rng.standard_normal(s) for s in shapes]


def check(fn, *shapes, positive=False, seed=0, rtol=1e-5, atol=1e-7):
    """Compare x.grad of sum(fn(*xs) * r) with central differences, for every input."""
    check_against_differences(fn, _inputs(shapes, positive, seed), seed, rtol, atol)


# --- arithmetic, with broadcasting -------------------------------------------------------

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
}
SHAPES = [((3,), (3,)), ((3,), ()), ((), (3,)), ((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 1), (1, 3))]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary(op, shapes):
    check(BINARY[op], *shapes, positive=op in ("div", "pow"))


@pytest.mark.parametrize(
    "fn",
    [lambda a: a + 2, lambda a: 2 + a, lambda a: a - 1, lambda a: 2 - a, lambda a: a * 3,
     lambda a: 2 * a, lambda a: a / 2, lambda a: 2 / a, lambda a: a ** 2, lambda a: a ** 0.5,
     lambda a: a ** -1.5, lambda a: 2 ** a, lambda a: -a, lambda a: +a * 1, lambda a: a * a * 3],
    ids=["add", "radd", "sub", "rsub", "mul", "rmul", "div", "rdiv", "square", "sqrt-pow",
         "neg-pow", "rpow", "neg", "pos", "chain"],
)
def test_with_python_scalars(fn):
    check(fn, (2, 3), positive=True)


# --- reductions -----------------------------------------------------------------------

@pytest.mark.parametrize(
    "fn",
    [lambda a: a.sum(), lambda a: a.sum(0), lambda a: a.sum(1, keepdim=True), lambda a: a.sum((0, 1)),
     lambda a: a.mean(), lambda a: a.mean(1), lambda a: a.mean(0, keepdim=True), lambda a: a.norm(),
     lambda a: a.norm(dim=1), lambda a: a.max(), lambda a: a.min(), lambda a: a.max(1)[0],
     lambda a: torch.sum(a), lambda a: torch.mean(a)],
    ids=["sum", "sum0", "sum1k", "sum01", "mean", "mean1", "mean0k", "norm", "norm1", "max", "min",
         "max1", "torch.sum", "torch.mean"],
)
def test_reductions(fn):
    check(fn, (3, 4))


def test_max_and_min_along_a_dim_send_the_gradient_to_the_returned_index():
    m = np.array([[1.0, 3.0, 3.0], [5.0, 5.0, 5.0]])
    a = torch.tensor(m, requires_grad=True)
    values, indices = a.max(dim=1)
    assert values.grad_fn.name() == "MaxBackward0" and indices.dtype == torch.int64 and indices.tolist() == [1, 0]
    values.sum().backward()
    assert a.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]  # PyTorch's: the first of tied entries only
    b = torch.tensor(np.array([[2.0, 1.0, 0.0], [2.0, 4.0, 0.0]]), requires_grad=True)
    low = b.min(0, keepdim=True)
    assert low.values.grad_fn.name() == "MinBackward0" and low.values.shape == (1, 3)
    assert low.indices.tolist() == [[0, 0, 0]]
    (low.values * torch.tensor(np.array([[1.0, 2.0, 3.0]]))).sum().backward()
    assert b.grad.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    c = torch.tensor(m, requires_grad=True)
    whole = c.max()
    whole.backward()  # the full reduction shares the gradient among ties, as in PyTorch
    assert whole.grad_fn.name() == "MaxBackward1"
    np.testing.assert_allclose(c.grad.numpy(), [[0.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-15)
    s = torch.tensor(3.0, requires_grad=True)
    top, at = s.max(0)
    top.backward()
    assert (top.shape, at.item(), s.grad.item()) == ((), 0, 1.0)
    check(lambda x: x.max(-1, keepdim=True)[0] + x.min(1).values.unsqueeze(1)[..., :1], (2, 3, 4))


@pytest.mark.parametrize("dim", [(), []])
def test_sum_and_mean_over_an_empty_dim_list_reduce_everything(dim):
    a = torch.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    total, mean = a.sum(dim=dim), a.mean(dim=dim)
    assert (total.shape, total.item(), total.grad_fn.name()) == ((), 15.0, "SumBackward1")
    assert (mean.shape, mean.item(), mean.grad_fn.name()) == ((), 2.5, "MeanBackward1")
    assert a.sum(dim, keepdim=True).shape == (1, 1) and a.mean(dim, keepdim=True).shape == (1, 1)
    (total + mean).backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((2, 3), 1 + 1 / 6), rtol=1e-15)


def test_norm_of_a_vector():
    check(lambda a: a.norm(), (5,))


@pytest.mark.parametrize("p", [1, 3, 2.5, float("inf"), "fro"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (1, False), (0, True), ((0, 1), False)])
def test_p_norms(p, dim, keepdim):
    def norm(a):
        return a.norm(p=p) if dim is None else a.norm(p=p, dim=dim, keepdim=keepdim)

    check(norm, (3, 4))
    data = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]])
    expected = np.linalg.norm(data.ravel(), ord=2 if p == "fro" else p) if dim is None else None
    out = norm(torch.tensor(data))
    assert out.grad_fn is None and out.dtype == torch.float64
    if expected is not None:
        assert out.item() == pytest.approx(expected, rel=1e-12)  # a vector norm of all elements, for a matrix too


@pytest.mark.parametrize("p", [1, 3, float("inf")])
def test_p_norm_gradients_at_zero_and_at_ties(p):
    x = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    x.norm(p=p).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]  # PyTorch's choice, not NaN
    x = torch.tensor([3.0, -3.0, 1.0], dtype=torch.float64, requires_grad=True)
    x.norm(p=p).backward()
    expected = {1: [1.0, -1.0, 1.0], 3: list(np.sign([3.0, -3.0, 1.0]) * np.array([9.0, 9.0, 1.0]) / 55.0 ** (2 / 3)),
                float("inf"): [0.5, -0.5, 0.0]}[p]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
    assert x.norm(p=p).grad_fn.name() == "LinalgVectorNormBackward0"


def test_norms_below_one_are_refused():
    with pytest.raises(NotImplementedError, match="p >= 1 or inf; got p=0.5"):
        torch.ones(3).norm(p=0.5)


def test_add_and_sub_with_alpha():
    check(lambda a, b: a.add(b, alpha=2.5) + torch.sub(a, b, alpha=-0.5) + a.sub(b) + torch.add(a, 3.0, alpha=2), (2, 3), (3,))
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    assert a.add(b, alpha=2).tolist() == [7.0, 10.0] and a.sub(b, alpha=0.5).tolist() == [-0.5, 0.0]


# --- matmul ---------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                                    ((2, 2, 3), (3, 4)), ((2, 2, 3), (2, 3, 4))], ids=str)
def test_matmul(shapes):
    check(torch.matmul, *shapes)
    check(lambda a, b: a @ b, *shapes, seed=3)


# --- elementwise functions ------------------------------------------------------------

UNARY = {
    "exp": lambda a: a.exp(), "log": lambda a: a.log(), "sqrt": lambda a: a.sqrt(),
    "abs": lambda a: (a - 1).abs(), "sin": lambda a: a.sin(), "cos": lambda a: a.cos(),
    "tanh": lambda a: a.tanh(), "sigmoid": lambda a: a.sigmoid(), "relu": lambda a: (a - 1).relu(),
    "F.relu": lambda a: F.relu(a - 1), "F.sigmoid": F.sigmoid, "F.tanh": F.tanh,
    "softplus": F.softplus, "softplus-beta": lambda a: F.softplus(a, beta=2.0), "logsigmoid": F.logsigmoid,
    "torch.exp": torch.exp, "torch.sigmoid": torch.sigmoid, "torch.tanh": torch.tanh,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    check(UNARY[name], (2, 3), positive=True)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax(dim):
    check(lambda a: F.softmax(a, dim), (3, 4))
    check(lambda a: F.log_softmax(a, dim=dim), (3, 4))
    check(lambda a: a.softmax(dim), (3, 4))


# --- shapes and indexing ----------------------------------------------------------------

SHAPE_OPS = {
    "reshape": lambda a: a.reshape(4, 3), "view": lambda a: a.view(-1), "flatten": lambda a: a.flatten(),
    "t": lambda a: a.t(), "T": lambda a: a.T, "transpose": lambda a: a.transpose(0, 1),
    "permute": lambda a: a.permute(1, 0), "unsqueeze": lambda a: a.unsqueeze(1),
    "squeeze": lambda a: a.unsqueeze(0).squeeze(), "squeeze0": lambda a: a.unsqueeze(0).squeeze(0),
    "select": lambda a: a[1], "slice": lambda a: a[1:, ::2], "column": lambda a: a[:, 2],
    "fancy": lambda a: a[[0, 2, 0]], "mask": lambda a: a[a.detach() > 0],
    "tensor-index": lambda a: a[torch.tensor([2, 1])], "clone": lambda a: a.clone(),
}


def test_dtype_conversion_passes_gradients_through():
    a = torch.tensor([1.5, 2.5], requires_grad=True)
    b = a.double()
    assert type(b.grad_fn).__name__ == "ToCopyBackward0" and b.dtype == torch.float64
    assert a.double() is not a and a.float() is a
    (b * torch.tensor([2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert a.grad.dtype == torch.float32 and a.grad.tolist() == [2.0, 3.0]
    assert not a.long().requires_grad


@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_ops(name):
    check(SHAPE_OPS[name], (3, 4))


def test_squeeze_and_unsqueeze_check_the_dim_range():
    """A dim outside the range is PyTorch's IndexError; it never wraps around to squeeze
    another dim ((1, 3).squeeze(2) kept (1, 3) only by luck, (1, 3).squeeze(-3) and
    (1, 3).squeeze(2) picked dim 0)."""
    a = torch.ones(1, 3, requires_grad=True)
    for bad, message in [(lambda: a.squeeze(2), "[-2, 1], but got 2"), (lambda: a.squeeze(-3), "[-2, 1], but got -3"),
                         (lambda: a.unsqueeze(3), "[-3, 2], but got 3"), (lambda: a.unsqueeze(-4), "[-3, 2], but got -4"),
                         (lambda: torch.tensor(1.0).squeeze(1), "[-1, 0], but got 1")]:
        with pytest.raises(IndexError, match=re.escape(f"Dimension out of range (expected to be in range of {message})")):
            bad()
    assert a.squeeze(-2).shape == (3,) and a.squeeze(1).shape == (1, 3) and a.unsqueeze(-3).shape == (1, 1, 3)
    b = torch.ones(1, 3, 1, requires_grad=True)
    both = b.squeeze((0, 2))
    assert both.shape == (3,) and type(both.grad_fn).__name__ == "SqueezeBackward2"
    assert b.squeeze([0, 1]).shape == (3, 1) and b.squeeze(()).shape == (1, 3, 1)
    (both * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert b.grad.shape == (1, 3, 1) and b.grad.flatten().tolist() == [1.0, 2.0, 3.0]


def test_t_of_a_vector_is_a_node_and_flatten_of_a_vector_is_itself():
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    assert v.flatten() is v
    for u in (v.t(), torch.tensor(3.0, requires_grad=True).t()):
        assert type(u.grad_fn).__name__ == "TBackward0" and not u.is_leaf
    (v.t() * torch.tensor([3.0, 4.0])).sum().backward()
    assert v.grad.tolist() == [3.0, 4.0]
    with pytest.raises(RuntimeError, match=re.escape("t() expects a tensor with <= 2 dimensions, but self is 3D")):
        torch.ones(2, 2, 2).t()


def test_where():
    check(lambda a, b: torch.where(a > 0, a, b * 2), (3, 4), (3, 4))


def test_in_place_on_non_leaf():
    def fn(a, b):
        y = a * 1
        y *= b
        y += a
        y -= 2
        y /= b
        return y

    check(fn, (2, 3), (2, 3), positive=True)


def test_function_of_shared_subexpressions():
    check(lambda a: (a * a) * (a + 1) / (a.sum() + 10), (4,), positive=True)


# --- losses ---------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits(reduction):
    y = torch.tensor(np.array([0.0, 1.0, 0.3, 1.0]))
    check(lambda z: F.binary_cross_entropy_with_logits(z, y, reduction=reduction), (4,))
    check(lambda z, t: F.binary_cross_entropy_with_logits(z, t, reduction=reduction), (4,), (4,))


def test_bce_with_logits_weights():
    y = torch.tensor(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]]))
    w = torch.tensor(np.array([0.5, 2.0, 1.0]))
    check(lambda z: F.binary_cross_entropy_with_logits(z, y, weight=w), (2, 3))
    check(lambda z: F.binary_cross_entropy_with_logits(z, y, pos_weight=w), (2, 3))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_mse_l1(reduction):
    y = torch.tensor(np.array([0.0, 1.0, 0.3, 1.0]))
    check(lambda p: F.binary_cross_entropy(p.sigmoid(), y, reduction=reduction), (4,))
    check(lambda a, b: F.mse_loss(a, b, reduction=reduction), (4,), (4,))
    check(lambda a, b: F.l1_loss(a, b, reduction=reduction), (4,), (4,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_target_and_weight(reduction):
    p = torch.tensor(np.array([0.2, 0.9, 0.5, 0.7])).sigmoid().detach()
    w = torch.tensor(np.array([0.5, 2.0, 1.0, 3.0]))
    check(lambda t: F.binary_cross_entropy(p, t.sigmoid(), reduction=reduction), (4,))
    check(lambda q: F.binary_cross_entropy(q.sigmoid(), p, weight=w, reduction=reduction), (4,))


def test_bce_at_probabilities_zero_and_one_is_finite():
    """PyTorch divides by p (1 - p) floored at 1e-12: at p = 0 or 1 the gradient is
    (p - y) / 1e-12 / n, large and finite (differentiating the clamped logs gives nan);
    the target's gradient is -logit(p), infinite there."""
    p = torch.tensor([0.0, 1.0, 0.5], requires_grad=True)
    y = torch.tensor([1.0, 0.0, 1.0], requires_grad=True)
    loss = F.binary_cross_entropy(p, y)
    assert loss.item() == pytest.approx((100 + 100 + np.log(2)) / 3, rel=1e-6)
    loss.backward()
    assert p.grad.dtype == torch.float32 and y.grad.dtype == torch.float32
    np.testing.assert_allclose(p.grad.numpy(), [-1e12 / 3, 1e12 / 3, -2 / 3], rtol=1e-6)
    assert y.grad.numpy().tolist()[:2] == [np.inf, -np.inf] and y.grad.numpy()[2] == 0
    w = torch.tensor([2.0, 3.0, 4.0])
    q = torch.tensor([0.0, 1.0, 0.5], requires_grad=True)
    F.binary_cross_entropy(q, y.detach(), weight=w, reduction="sum").backward()
    np.testing.assert_allclose(q.grad.numpy(), [-2e12, 3e12, -8.0], rtol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy(reduction):
    target = torch.tensor([0, 2, 1])
    check(lambda a: F.cross_entropy(a, target, reduction=reduction), (3, 4))
    weight = torch.tensor(np.array([1.0, 2.0, 0.5, 1.0]))
    check(lambda a: F.cross_entropy(a, target, weight=weight, reduction=reduction), (3, 4))
    check(lambda a: F.cross_entropy(a, torch.tensor([0, -100, 1]), reduction=reduction), (3, 4))
    probs = torch.tensor(np.array([[0.2, 0.8, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.25, 0.25, 0.25, 0.25]]))
    check(lambda a: F.cross_entropy(a, probs, reduction=reduction), (3, 4))
    check(lambda a: F.nll_loss(F.log_softmax(a, 1), target, reduction=reduction), (3, 4))


def test_cross_entropy_single_sample():
    check(lambda a: F.cross_entropy(a, torch.tensor(2)), (4,))


# PyTorch's numbers (torch 2.x, float64) for cross_entropy with probability targets and a weight
X_CE = np.array([[0.2, -1.0, 0.5], [1.5, 0.3, -0.2]])
P_CE = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
W_CE = np.array([0.2, 1.0, 3.0])
TORCH_CE_MEAN = 1.912977889162856
TORCH_CE_MEAN_GRAD = [[0.2515901925413014, -0.1681986059944395, -0.0833915865468618],
                      [0.31738958300081427, 0.06366755803580484, -0.3810571410366192]]
TORCH_CE_NONE = [1.7339379747559263, 2.0920178035697856]


def _log_softmax(x, axis):
    return x - np.log(np.exp(x).sum(axis, keepdims=True))


def test_cross_entropy_probability_targets_use_the_weight():
    x = torch.tensor(X_CE, requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor(P_CE), weight=torch.tensor(W_CE))
    loss.backward()
    assert loss.grad_fn.name() == "DivBackward1"
    assert loss.item() == pytest.approx(TORCH_CE_MEAN, rel=1e-13)  # mean over samples, not over weights
    np.testing.assert_allclose(x.grad.numpy(), TORCH_CE_MEAN_GRAD, rtol=1e-12)
    none = F.cross_entropy(torch.tensor(X_CE), torch.tensor(P_CE), weight=torch.tensor(W_CE), reduction="none")
    np.testing.assert_allclose(none.numpy(), TORCH_CE_NONE, rtol=1e-13)
    single = F.cross_entropy(torch.tensor(X_CE[1]), torch.tensor(P_CE[1]), weight=torch.tensor(W_CE))
    assert single.item() == pytest.approx(TORCH_CE_NONE[1], rel=1e-13)
    check(lambda a: F.cross_entropy(a, torch.tensor(P_CE), weight=torch.tensor(W_CE), reduction="sum"), (2, 3))


# PyTorch's numbers (torch 2.13, float64) for label smoothing: class indices with a weight and
# an ignored target ('mean'), and probability targets ('sum')
X_LS = np.array([[0.2, -1.0, 0.5], [1.5, 0.3, -0.2], [0.1, 0.4, -0.3]])
TORCH_LS_MEAN = 1.9508803361451197
TORCH_LS_MEAN_GRAD = [[-0.020612473258152582, 0.0009446380563278487, 0.01966783520182475],
                      [0.5960117647259929, 0.16972611504186333, -0.7657378797678563], [0.0, 0.0, 0.0]]
TORCH_LS_PROBS_SUM = 3.429931732784521
TORCH_LS_PROBS_GRAD = [[0.14387526741847417, -0.3447202861033882, 0.20084501868491417],
                       [0.14057663631097794, 0.04464444887346106, -0.18522108518443908],
                       [0.24777288536102082, -0.3863866877855732, 0.13861380242455262]]


def test_cross_entropy_label_smoothing_matches_pytorch():
    x = torch.tensor(X_LS, requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor([0, 2, -100]), weight=torch.tensor(W_CE), label_smoothing=0.1)
    loss.backward()
    assert loss.grad_fn.name() == "AddBackward0"
    assert loss.item() == pytest.approx(TORCH_LS_MEAN, rel=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), TORCH_LS_MEAN_GRAD, rtol=1e-12, atol=1e-16)
    x = torch.tensor(X_LS, requires_grad=True)
    probs = torch.tensor(np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.0, 1.0, 0.0]]))
    loss = F.cross_entropy(x, probs, label_smoothing=0.25, reduction="sum")
    loss.backward()
    assert loss.grad_fn.name() == "NegBackward0"
    assert loss.item() == pytest.approx(TORCH_LS_PROBS_SUM, rel=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), TORCH_LS_PROBS_GRAD, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_label_smoothing(reduction, weighted):
    """(1 - e) nll + e / C * sum_c w_c (-logp_c), zero at ignored targets; 'mean' divides
    both parts by the summed weights of the kept targets."""
    rng = np.random.default_rng(5)
    x, t = rng.standard_normal((2, 3, 4)), np.array([[0, 2, -100, 1], [1, 1, 0, 2]])
    w = W_CE if weighted else np.ones(3)
    weight = {"weight": torch.tensor(W_CE)} if weighted else {}
    logp, keep = _log_softmax(x, 1), t != -100
    picked = np.take_along_axis(logp, np.where(keep, t, 0)[:, None], 1)[:, 0]
    nll = -picked * w[np.where(keep, t, 0)] * keep
    smooth = -(logp * w[:, None]).sum(1) * keep
    parts = {"none": (nll, smooth), "sum": (nll.sum(), smooth.sum())}
    kept = w[t[keep]].sum()
    parts["mean"] = (nll.sum() / kept, smooth.sum() / kept)
    expected = 0.8 * parts[reduction][0] + 0.2 / 3 * parts[reduction][1]
    target = torch.tensor(t)
    out = F.cross_entropy(torch.tensor(x), target, reduction=reduction, label_smoothing=0.2, **weight)
    assert out.shape == np.shape(expected) and out.dtype == torch.float64
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    check(lambda a: F.cross_entropy(a, target, reduction=reduction, label_smoothing=0.2, **weight), (2, 3, 4))
    check(lambda a: F.cross_entropy(a, torch.tensor(2), label_smoothing=0.2, **weight), (3,))
    probs = torch.tensor(rng.dirichlet(np.ones(3), (2, 4)).transpose(0, 2, 1))
    check(lambda a: F.cross_entropy(a, probs, reduction=reduction, label_smoothing=0.2, **weight), (2, 3, 4))


def test_cross_entropy_label_smoothing_float32_and_range():
    x = torch.tensor(X_LS.astype(np.float32), requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor([0, 2, 1]), label_smoothing=0.3)
    loss.backward()
    assert loss.dtype == torch.float32 and x.grad.dtype == torch.float32
    with pytest.raises(RuntimeError, match=r"^label_smoothing must be between 0.0 and 1.0. Got: 1.5$"):
        F.cross_entropy(x, torch.tensor([0, 2, 7]), label_smoothing=1.5)  # before the target's check, as in PyTorch
    plain = F.cross_entropy(x, torch.tensor([0, 2, 1]), label_smoothing=-0.1)  # PyTorch: no smoothing
    assert plain.grad_fn.name() == "NllLossBackward0"


@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_probability_targets_over_extra_dims(weighted):
    """(N, C, d): 'mean' divides by N * d, the number of per-position losses."""
    rng = np.random.default_rng(3)
    x, p = rng.standard_normal((2, 3, 5)), rng.random((2, 3, 5))
    weight = {"weight": torch.tensor(W_CE)} if weighted else {}
    terms = -(p * (W_CE if weighted else np.ones(3))[:, None] * _log_softmax(x, 1))
    for reduction, expected in [("mean", terms.sum() / 10), ("sum", terms.sum()), ("none", terms.sum(1))]:
        out = F.cross_entropy(torch.tensor(x), torch.tensor(p), reduction=reduction, **weight)
        assert out.shape == np.shape(expected)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    check(lambda a: F.cross_entropy(a, torch.tensor(p), **weight), (2, 3, 5))


def test_cross_entropy_with_every_target_ignored():
    """PyTorch's numbers: the mean is 0/0 = nan, yet ignored samples get gradient 0;
    kept samples whose weights sum to 0 get nan."""
    x = torch.tensor(X_CE, requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor([1, 1]), ignore_index=1)
    loss.backward()
    assert np.isnan(loss.item()) and loss.grad_fn.name() == "NllLossBackward0"
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    x = torch.tensor(np.vstack([X_CE, X_CE]), requires_grad=True)
    zero_weights = torch.tensor(np.array([0.0, 0.0, 1.0]))
    loss = F.cross_entropy(x, torch.tensor([0, 1, 0, 2]), weight=zero_weights, ignore_index=2)
    loss.backward()
    assert np.isnan(loss.item())
    assert np.isnan(x.grad.numpy()[:3]).all() and x.grad.numpy()[3].tolist() == [0.0, 0.0, 0.0]
    x = torch.tensor(X_CE, requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor([1, 1]), ignore_index=1, reduction="sum")
    loss.backward()
    assert loss.item() == 0.0 and x.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


# PyTorch's numbers (torch 2.13, float64) for cross_entropy with class indices over (N, C, d)
X_ND = np.array([[[0.2, -1.0], [0.5, 1.5], [0.3, -0.2]], [[-0.7, 0.9], [1.1, 0.0], [-0.4, 2.0]]])
T_ND = np.array([[0, 2], [1, -100]])
TORCH_ND_MEAN = 1.5192396422318826
TORCH_ND_MEAN_GRAD = [[[-0.033836518552654064, 0.04635800213475431], [0.018604468250943605, 0.564756081036923],
                       [0.015232050301710463, -0.6111140831716773]],
                      [[0.028346337318569396, 0.0], [-0.06660989041056063, 0.0], [0.03826355309199125, 0.0]]]
TORCH_ND_NONE = [[0.24796621216889203, 5.804667358227364], [0.32817292697765116, 0.0]]


def test_cross_entropy_class_indices_over_extra_dims_match_pytorch():
    x = torch.tensor(X_ND, requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor(T_ND), weight=torch.tensor(W_CE))
    loss.backward()
    assert loss.grad_fn.name() == "NllLoss2DBackward0"
    assert loss.item() == pytest.approx(TORCH_ND_MEAN, rel=1e-14)  # weighted mean over the kept positions
    np.testing.assert_allclose(x.grad.numpy(), TORCH_ND_MEAN_GRAD, rtol=1e-13, atol=1e-16)
    none = F.cross_entropy(torch.tensor(X_ND), torch.tensor(T_ND), weight=torch.tensor(W_CE), reduction="none")
    assert none.shape == (2, 2)
    np.testing.assert_allclose(none.numpy(), TORCH_ND_NONE, rtol=1e-14)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 2, 3), (2, 3, 2, 1, 2)], ids=str)
def test_nll_and_cross_entropy_over_extra_dims(shape, reduction):
    """(N, C, d1, ...) with targets (N, d1, ...): every position is a sample."""
    rng = np.random.default_rng(7)
    indices = rng.integers(0, 3, shape[:1] + shape[2:])
    indices.flat[::5] = -100  # ignored positions get no gradient
    target, class_2_ignored = torch.tensor(indices), torch.tensor(np.where(indices < 0, 2, indices))
    weight = torch.tensor(np.array([0.5, 2.0, 1.0]))
    check(lambda a: F.cross_entropy(a, target, reduction=reduction), shape)
    check(lambda a: F.cross_entropy(a, target, weight=weight, reduction=reduction), shape)
    check(lambda a: F.nll_loss(F.log_softmax(a, 1), target, weight=weight, reduction=reduction), shape)
    check(lambda a: F.nll_loss(a, class_2_ignored, weight=weight, ignore_index=2, reduction=reduction), shape)
    out = F.nll_loss(torch.tensor(np.ones(shape), requires_grad=True), target, reduction=reduction)
    assert out.shape == (target.shape if reduction == "none" else ())
    # PyTorch's nodes: NllLoss2D, seen through a View where it reshapes to 4-D and back
    view = reduction == "none" and len(shape) != 4
    assert out.grad_fn.name() == ("ViewBackward0" if view else "NllLoss2DBackward0")


def test_softplus_is_the_identity_above_the_threshold():
    x = torch.tensor(np.array([3.0, 2.0, -1.0, 25.0]), requires_grad=True)
    y = F.softplus(x, beta=2.0, threshold=5.0)
    y.sum().backward()
    assert y.grad_fn.name() == "SoftplusBackward0"
    # PyTorch's numbers: x where beta * x > threshold, else log1p(exp(beta * x)) / beta
    np.testing.assert_allclose(y.detach().numpy(), [3.0, 2.0090749639589047, 0.06346400552148625, 25.0], rtol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 0.9820137900379085, 0.11920292202211755, 1.0], rtol=1e-14)
    z = torch.tensor(np.array([25.0, 19.0]), requires_grad=True)
    w = F.softplus(z)  # the default threshold, 20
    w.sum().backward()
    assert w.detach().numpy()[0] == 25.0 and z.grad.numpy()[0] == 1.0
    assert w.detach().numpy()[1] == pytest.approx(19.000000005602796, rel=1e-15)
    check(lambda a: F.softplus(a, beta=2.0, threshold=1.0) + F.softplus(a, threshold=0.5), (8,))


# --- float32 by default -----------------------------------------------------------------

FLOAT32_OPS = [
    lambda a: a + 2, lambda a: a * 0.5, lambda a: a / 3, lambda a: 2 - a, lambda a: a ** 2,
    lambda a: a.mean(), lambda a: a.sum(), lambda a: a.norm(), lambda a: a.exp(), lambda a: a.sigmoid(),
    lambda a: torch.matmul(a, torch.ones(3, 2)), lambda a: F.softmax(a, 1),
    lambda a: F.binary_cross_entropy_with_logits(a, torch.zeros(2, 3)), lambda a: F.mse_loss(a, torch.zeros(2, 3)),
    lambda a: F.cross_entropy(a, torch.tensor([0, 1])), lambda a: a[0], lambda a: a.T,
]


@pytest.mark.parametrize("fn", FLOAT32_OPS)
def test_float32_values_and_gradients(fn):
    a = torch.randn(2, 3, requires_grad=True)
    out = fn(a)
    assert out.dtype == torch.float32
    out.sum().backward()
    assert a.grad.dtype == torch.float32 and a.grad.shape == a.shape


def test_float32_gradients_match_float64_closely():
    data = np.random.default_rng(5).standard_normal((4, 3))
    grads = []
    for dt in (torch.float32, torch.float64):
        w = torch.tensor(data, dtype=dt, requires_grad=True)
        F.binary_cross_entropy_with_logits(torch.matmul(torch.ones(4, dtype=dt), w), torch.zeros(3, dtype=dt)).backward()
        grads.append(w.grad.numpy().astype(np.float64))
    np.testing.assert_allclose(grads[0], grads[1], rtol=2e-6)


def test_spec_worked_values():
    x = torch.ones(2, 2, requires_grad=True)
    (3 * (x + 2) ** 2).mean().backward()
    assert repr(x.grad) == "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"
    x1, w1, w2 = (torch.tensor(v, requires_grad=True) for v in (2.0, 5.0, 6.0))
    (10 - x1 * w1 * w2).backward()
    assert (x1.grad.item(), w1.grad.item(), w2.grad.item()) == (-30.0, -12.0, -10.0)


def test_pow_edge_values():
    x = torch.tensor([0.0, 4.0], requires_grad=True)
    (x ** 0.5).sum().backward()
    assert x.grad.tolist() == [float("inf"), 0.25]


def test_pow_zero_exponent_has_zero_gradient():
    x = torch.tensor([0.0, 2.0], requires_grad=True)
    (x ** 0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_pow_zero_exponent_gradient_is_zero_whatever_reaches_it():
    """PyTorch 2.13 gives the base a zero gradient where the exponent is 0, also where the
    incoming gradient is nan or infinite (the rule's g * 0 would be nan)."""
    g = torch.tensor([float("nan"), 1.0, float("inf")])
    x = torch.tensor([1.0, 2.0, 0.0], requires_grad=True)
    e = torch.tensor([0.0, 1.0, 0.0], requires_grad=True)
    (x ** e).backward(g)
    assert repr(x.grad) == "tensor([0., 1., 0.])" and repr(e.grad) == "tensor([   nan, 1.3863,    nan])"
    x.grad = None
    (x ** 0).backward(g)
    assert repr(x.grad) == "tensor([0., 0., 0.])"
    x.grad = None
    (x ** 2).backward(g)
    assert repr(x.grad) == "tensor([nan, 4., nan])"
    y = torch.tensor(-5.12, requires_grad=True)
    with pytest.warns(UserWarning, match="degrees of freedom"):
        spread = ((y ** 0) - 1e-3).std()
    spread.backward()  # std of one element: nan gradient, masked by the power
    assert repr(y.grad) == "tensor(0.)"


def test_soft_target_cross_entropy_of_no_sample():
    x = torch.tensor([[0.21, 1.4]], dtype=torch.float64, requires_grad=True)
    loss = F.cross_entropy(x[:0], x[:0].detach().softmax(1))
    assert repr(loss) == "tensor(nan, dtype=srcgrad.float64, grad_fn=<NegBackward0>)"
