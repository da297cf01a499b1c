"""The shim's cat, stack, clamp (and clamp_min, clamp_max, clamp_), maximum, minimum,
log1p, expm1, logsumexp, cumsum, cumprod, prod, std, var, where, amax, amin, all, any,
expand, repeat and the `dtype=` of sum and mean: gradients against central differences in float64 and against the analytic answers, PyTorch's node names, result
dtypes and error messages. The last test compares with PyTorch itself when installed."""

import warnings

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences


def check(fn, *arrays, rtol=1e-6, atol=1e-8):
    """x.grad of sum(fn(*xs) * r), for every input, against central differences (float64)."""
    check_against_differences(fn, arrays, rtol=rtol, atol=atol)


RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3))
B = RNG.standard_normal((2, 3))
C = RNG.standard_normal((2, 4))
P = RNG.uniform(0.5, 1.5, (3, 4))
ONE_ZERO = np.array([[1.3, 0.0, -0.8, 1.1], [0.7, 1.2, 0.0, -1.4], [0.0, 0.9, 1.5, 0.6]])
TWO_ZEROS = np.array([[1.3, 0.0, -0.8, 0.0], [0.0, 1.2, 0.0, -1.4], [0.0, 0.0, 1.5, 0.6]])

FINITE_DIFFERENCES = {
    "cat0": (lambda a, b: torch.cat([a, b]), A, B),
    "cat1": (lambda a, c: torch.cat((a, c, a), dim=1), A, C),
    "cat-1": (lambda a, c: torch.cat([a, c], -1), A, C),
    "stack0": (lambda a, b: torch.stack([a, b]), A, B),
    "stack2": (lambda a, b: torch.stack([a, b, a], dim=2), A, B),
    "stack-2": (lambda a, b: torch.stack((a, b), -2), A, B),
    "clamp": (lambda a: a.clamp(-0.5, 0.5), A),
    "clamp_min": (lambda a: torch.clamp_min(a, 0.1), A),
    "clamp_max": (lambda a: a.clamp_max(-0.1), A),
    "clamp_tensor_bounds": (lambda a, lo, hi: torch.clamp(a, lo, hi), A, B - 0.5, B + 0.5),
    "clamp_broadcast_bound": (lambda a, lo: a.clamp(min=lo), A, B[0]),
    "clip": (lambda a: torch.clip(a, max=0.3), A),
    "maximum": (lambda a, b: torch.maximum(a, b), A, B),
    "minimum_broadcast": (lambda a, b: a.minimum(b), A, B[1]),
    "max_binary": (lambda a, b: torch.max(a, b), A, B),
    "log1p": (lambda p: torch.log1p(p), P),
    "expm1": (lambda a: a.expm1(), A),
    "logsumexp1": (lambda a: a.logsumexp(1), A),
    "logsumexp_keepdim": (lambda a: torch.logsumexp(a, 0, keepdim=True), A),
    "logsumexp_dims": (lambda p: p.logsumexp((0, -1)), P),
    "cumsum0": (lambda p: p.cumsum(0), P),
    "cumsum-1": (lambda p: torch.cumsum(p, dim=-1), P),
    "cumprod0": (lambda p: p.cumprod(0), P),
    "cumprod-1": (lambda p: torch.cumprod(p, dim=-1), P),
    "cumprod_one_zero": (lambda z: z.cumprod(1), ONE_ZERO),
    "cumprod_one_zero_dim0": (lambda z: z.cumprod(0), ONE_ZERO),
    "cumprod_two_zeros": (lambda z: torch.cumprod(z, 1), TWO_ZEROS),
    "cumprod_two_zeros_dim0": (lambda z: z.cumprod(-2), TWO_ZEROS),
    "prod": (lambda p: p.prod(), P),
    "prod1": (lambda p: torch.prod(p, 1), P),
    "prod_keepdim": (lambda p: p.prod(0, keepdim=True), P),
    "std": (lambda p: p.std(), P),
    "std1": (lambda p: torch.std(p, 1), P),
    "std_biased_keepdim": (lambda p: p.std(0, False, True), P),
    "var": (lambda p: p.var(), P),
    "var_correction2": (lambda p: p.var(dim=1, correction=2), P),
    "var_dims": (lambda p: torch.var(p, (0, 1), unbiased=False), P),
    "where": (lambda a, b: torch.where(a > 0, a, b), A, B),
    "where_broadcast": (lambda a, b: torch.where(a > 0, b[0], a), A, B),
    "where_method": (lambda a, b: a.where(b > 0, b * 0.5), A, B),
    "amax1": (lambda a: a.amax(1), A),
    "amax_all": (lambda p: torch.amax(p), P),
    "amin_dims_keepdim": (lambda p: torch.amin(p, (0, -1), keepdim=True), P),
    "sum_dtype": (lambda a: a.sum(1, dtype=torch.float64), A),
    "mean_dtype": (lambda p: torch.mean(p, dtype=torch.float64), P),
    "expand": (lambda a: a[:1].expand(4, 2, 3), A),
    "expand_keep": (lambda a: a[:, 1:2].expand(-1, 5), A),
    "expand_as": (lambda a, b: a[:, :1].expand_as(b) * b, A, B),
    "repeat": (lambda a: a.repeat(2, 1, 3), A),
}


@pytest.mark.parametrize("name", sorted(FINITE_DIFFERENCES))
def test_gradient_against_central_differences(name):
    fn, *arrays = FINITE_DIFFERENCES[name]
    check(fn, *arrays)


def _grad(fn, data, seed=None):
    x = torch.tensor(data, requires_grad=True)
    out = fn(x)
    (out.sum() if seed is None else (out * torch.tensor(seed)).sum()).backward()
    return out, x.grad


# --- analytic answers -------------------------------------------------------------------


def test_cat_and_stack_split_the_gradient_back():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    out = torch.cat([a, b])
    (out * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])).sum().backward()
    assert a.grad.tolist() == [1.0, 2.0] and b.grad.tolist() == [3.0, 4.0, 5.0]
    c = torch.zeros(2, requires_grad=True)
    s = torch.stack([a, c], dim=1)
    assert s.shape == (2, 2) and s.tolist() == [[1.0, 0.0], [1.0, 0.0]]
    (s * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert a.grad.tolist() == [2.0, 5.0] and c.grad.tolist() == [2.0, 4.0]


def test_cat_of_a_constant_and_a_leaf():
    a = torch.ones(2, 2, requires_grad=True)
    out = torch.cat([torch.zeros(1, 2), a])
    assert out.shape == (3, 2)
    out.sum().backward()
    assert a.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_clamp_passes_the_gradient_inside_the_bounds_ends_included():
    out, g = _grad(lambda x: x.clamp(0.0, 1.0), [-1.0, 0.0, 0.5, 1.0, 2.0])
    assert out.tolist() == [0.0, 0.0, 0.5, 1.0, 1.0]
    assert g.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert _grad(lambda x: x.clamp_min(0.0), [-1.0, 0.0, 2.0])[1].tolist() == [0.0, 1.0, 1.0]
    assert _grad(lambda x: x.clamp_max(0.0), [-1.0, 0.0, 2.0])[1].tolist() == [1.0, 1.0, 0.0]


def test_clamp_with_a_tensor_bound_gives_the_bound_its_gradient():
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
    lo = torch.zeros(5, requires_grad=True)
    x.clamp(lo).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 1.0]  # a tie goes to x, as in PyTorch
    assert lo.grad.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


def test_maximum_and_minimum_split_a_tie_evenly():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = torch.tensor([1.0, 1.0, 4.0], requires_grad=True)
    m = torch.maximum(a, b)
    m.sum().backward()
    assert m.tolist() == [1.0, 2.0, 4.0]
    assert a.grad.tolist() == [0.5, 1.0, 0.0] and b.grad.tolist() == [0.5, 0.0, 1.0]
    a.grad = b.grad = None
    torch.minimum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0, 1.0] and b.grad.tolist() == [0.5, 1.0, 0.0]


def test_log1p_and_expm1():
    x = np.array([-0.5, 0.0, 1e-10, 2.0])
    out, g = _grad(torch.log1p, x)
    np.testing.assert_allclose(out.detach().numpy(), np.log1p(x), rtol=1e-15)
    np.testing.assert_allclose(g.numpy(), 1.0 / (1.0 + x), rtol=1e-15)
    out, g = _grad(torch.expm1, x)
    assert out.detach().numpy()[2] == pytest.approx(1.00000000005e-10, rel=1e-14)  # exp(x) - 1 is 1.000000082740371e-10
    np.testing.assert_allclose(g.numpy(), np.exp(x), rtol=1e-15)


def test_logsumexp_gradient_is_softmax():
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 1000.0]])
    out, g = _grad(lambda t: t.logsumexp(1), x, seed=[2.0, 3.0])
    np.testing.assert_allclose(out.detach().numpy(), [3.0 + np.log(np.exp(-2.0) + np.exp(-1.0) + 1.0), 1000.0], rtol=1e-15)
    soft = np.exp(x - x.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    np.testing.assert_allclose(g.numpy(), soft * [[2.0], [3.0]], rtol=1e-14, atol=1e-300)


def test_cumsum_gradient_is_the_reversed_running_sum():
    out, g = _grad(lambda t: t.cumsum(0), [1.0, 2.0, 3.0], seed=[1.0, 10.0, 100.0])
    assert out.tolist() == [1.0, 3.0, 6.0] and g.tolist() == [111.0, 110.0, 100.0]
    out, g = _grad(lambda t: t.cumsum(1), [[1.0, 2.0], [3.0, 4.0]])
    assert out.tolist() == [[1.0, 3.0], [3.0, 7.0]] and g.tolist() == [[2.0, 1.0], [2.0, 1.0]]
    out, g = _grad(lambda t: t.cumsum(0), 3.0)  # a 0-d tensor is its own running sum
    assert out.shape == () and out.item() == 3.0 and g.item() == 1.0


def test_cumprod_gradient_also_at_zeros():
    out, g = _grad(lambda t: t.cumprod(0), [2.0, 3.0, 4.0], seed=[1.0, 10.0, 100.0])
    # d/dx0 = 1 + 10 * 3 + 100 * 12, d/dx1 = 10 * 2 + 100 * 8, d/dx2 = 100 * 6
    assert out.tolist() == [2.0, 6.0, 24.0] and g.tolist() == [1231.0, 820.0, 600.0]
    # one zero: entries after it get nothing, the zero gets the products that skip it
    out, g = _grad(lambda t: t.cumprod(0), [2.0, 0.0, 3.0, 4.0], seed=[1.0, 10.0, 100.0, 1000.0])
    assert out.tolist() == [2.0, 0.0, 0.0, 0.0] and g.tolist() == [1.0, 20.0 + 600.0 + 24000.0, 0.0, 0.0]
    # two zeros: only the first zero has a gradient, the product of the entries before it
    out, g = _grad(lambda t: t.cumprod(0), [2.0, 0.0, 3.0, 0.0], seed=[1.0, 10.0, 100.0, 1000.0])
    assert g.tolist() == [1.0, 20.0 + 600.0, 0.0, 0.0]
    out, g = _grad(lambda t: t.cumprod(1), [[0.0, 0.0, 5.0], [1.0, 2.0, 3.0]])
    assert g.tolist() == [[1.0, 0.0, 0.0], [9.0, 4.0, 2.0]]
    out, g = _grad(lambda t: t.cumprod(0), 3.0)  # a 0-d tensor is its own running product
    assert out.shape == () and out.item() == 3.0 and g.item() == 1.0


def test_prod_gradient_is_the_product_of_the_others_also_at_zeros():
    out, g = _grad(lambda t: t.prod(), [2.0, 3.0, 4.0])
    assert out.item() == 24.0 and g.tolist() == [12.0, 8.0, 6.0]
    assert _grad(lambda t: t.prod(), [2.0, 0.0, 3.0])[1].tolist() == [0.0, 6.0, 0.0]
    assert _grad(lambda t: t.prod(), [0.0, 0.0, 3.0])[1].tolist() == [0.0, 0.0, 0.0]
    out, g = _grad(lambda t: t.prod(1), [[2.0, 0.0, 3.0], [1.0, 2.0, 5.0]])
    assert out.tolist() == [0.0, 10.0] and g.tolist() == [[0.0, 6.0, 0.0], [10.0, 5.0, 2.0]]


def test_std_and_var_gradients():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    centered = x - x.mean()
    out, g = _grad(lambda t: t.var(), x)
    assert out.item() == pytest.approx(centered @ centered / 3, rel=1e-15)
    np.testing.assert_allclose(g.numpy(), 2 * centered / 3, rtol=1e-15)
    out, g = _grad(lambda t: t.var(unbiased=False), x)
    np.testing.assert_allclose(g.numpy(), 2 * centered / 4, rtol=1e-15)
    out, g = _grad(lambda t: t.std(correction=2), x)
    sd = np.sqrt(centered @ centered / 2)
    assert out.item() == pytest.approx(sd, rel=1e-15)
    np.testing.assert_allclose(g.numpy(), centered / (2 * sd), rtol=1e-14)
    # all equal: std is 0 and, as in PyTorch, so is its gradient (not nan)
    out, g = _grad(lambda t: t.std(), [2.0, 2.0, 2.0])
    assert out.item() == 0.0 and g.tolist() == [0.0, 0.0, 0.0]


def test_std_signatures():
    x = torch.tensor([[1.0, 2.0, 4.0], [0.0, 3.0, 9.0]])
    n1 = np.std(x.numpy(), 1, ddof=1)
    n0 = np.std(x.numpy(), 1, ddof=0)
    np.testing.assert_allclose(x.std(1).numpy(), n1, rtol=1e-6)
    np.testing.assert_allclose(x.std(1, True).numpy(), n1, rtol=1e-6)
    np.testing.assert_allclose(x.std(1, False).numpy(), n0, rtol=1e-6)
    np.testing.assert_allclose(x.std(1, correction=0).numpy(), n0, rtol=1e-6)
    assert x.std(1, False, True).shape == (2, 1) and x.std(dim=1, keepdim=True).shape == (2, 1)
    assert x.std(False).item() == pytest.approx(np.std(x.numpy()), rel=1e-6)  # std(unbiased)
    assert x.var([0, 1]).item() == pytest.approx(np.var(x.numpy(), ddof=1), rel=1e-6)


def test_where_sends_the_gradient_to_the_chosen_side():
    a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)
    out = torch.where(a > 0, a, b)
    (out * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert out.tolist() == [1.0, 20.0, 3.0]
    assert a.grad.tolist() == [1.0, 0.0, 3.0] and b.grad.tolist() == [0.0, 2.0, 0.0]
    rows, cols = torch.where(torch.tensor([[True, False], [False, True]]))
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1] and rows.dtype == torch.int64


def test_amax_and_amin_share_the_gradient_between_ties():
    out, grad = _grad(lambda x: x.amax(1), [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    assert out.tolist() == [3.0, 2.0] and grad.tolist() == [[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]
    out, grad = _grad(lambda x: torch.amin(x), [[1.0, 0.0, 3.0], [0.0, 2.0, 0.0]])
    third = float(np.float32(1 / 3))
    assert out.shape == () and grad.tolist() == [[0.0, third, 0.0], [third, 0.0, third]]
    out = torch.tensor([[1.0, 5.0], [3.0, 2.0]]).amax((0, 1), keepdim=True)
    assert out.shape == (1, 1) and out.item() == 5.0
    i = torch.tensor([[1, 5], [3, 2]])
    assert i.amax(1).dtype == torch.int64 and i.amax(1).tolist() == [5, 3] and i.amin(0).tolist() == [1, 2]
    assert torch.ones(0, 3).amax(1).shape == (0,)


def test_sum_and_mean_dtype_cast_inside_their_one_node():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    for out, name in [(x.sum(1, dtype=torch.float64), "SumBackward1"), (x.sum(dtype=torch.float16), "SumBackward0"),
                      (torch.mean(x, 0, dtype=torch.float64), "MeanBackward1"), (x.mean(dtype=torch.float64), "MeanBackward0")]:
        assert type(out.grad_fn).__name__ == name
        assert type(out.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"  # no ToCopyBackward0
    out = x.sum(1, keepdim=True, dtype=torch.float64)
    assert out.dtype == torch.float64 and out.shape == (2, 1) and out.tolist() == [[3.0], [7.0]]
    (out * torch.tensor([[1.0], [2.0]], dtype=torch.float64)).sum().backward()
    assert x.grad.dtype == torch.float32 and x.grad.tolist() == [[1.0, 1.0], [2.0, 2.0]]
    assert x.mean(dtype=torch.float16).dtype == torch.float16 and x.mean(dtype=torch.float16).item() == 2.5
    i = torch.tensor([[1, 2], [3, 4]])
    assert torch.sum(i, 0, dtype=torch.int32).dtype == torch.int32 and i.sum(dtype=torch.int8).dtype == torch.int8
    assert i.mean(1, dtype=torch.float32).tolist() == [1.5, 3.5] and i.mean(dtype=torch.float64).dtype == torch.float64
    halves = torch.tensor([1.5, 2.5])
    assert halves.sum(dtype=torch.int64).item() == 3  # each element cast first, as in PyTorch
    assert torch.tensor([True, False, True]).sum(dtype=torch.float32).item() == 2.0


def test_all_and_any_along_a_dim():
    x = torch.tensor([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]])
    assert x.all(1).tolist() == [False, False] and x.any(0).tolist() == [True, False, True]
    assert x.all(1).dtype == torch.bool and x.all(1, keepdim=True).shape == (2, 1)
    assert torch.any(x, dim=0, keepdim=True).shape == (1, 3) and torch.all(x, -1).tolist() == [False, False]
    assert x.all((0, 1)).shape == () and x.any(()).tolist() == [[True, False, True], [False, False, True]]
    assert x.all(keepdim=True).shape == (1, 1) and not torch.all(x).item() and torch.any(x).item()
    u = torch.tensor([[1, 2], [0, 3]], dtype=torch.uint8)
    assert u.all(1).dtype == torch.uint8 and u.all(1).tolist() == [1, 0] and u.any().dtype == torch.uint8
    assert torch.tensor(2).all(0).item() and torch.ones(0).all(0).item() and torch.zeros(2, 0).all(1).tolist() == [True, True]
    assert not torch.ones(2, requires_grad=True).all(0).requires_grad


def test_expand_and_repeat_add_the_copies_gradients():
    x = torch.tensor([[1.0], [2.0]], requires_grad=True)
    out = x.expand(3, -1, 4)
    assert out.shape == (3, 2, 4) and out.tolist()[2][1] == [2.0] * 4
    out.sum().backward()
    assert x.grad.tolist() == [[12.0], [12.0]]
    x.grad = None
    out = x.repeat(2, 3, 2)
    assert out.shape == (2, 6, 2) and out[0, :, 0].tolist() == [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]
    (out * torch.arange(24.0).reshape(2, 6, 2)).sum().backward()
    assert x.grad.tolist() == [[126.0], [150.0]]
    assert x.expand((2, 3)).shape == (2, 3) and x.expand(torch.Size([2, 2])).shape == (2, 2)
    assert x.expand_as(torch.ones(3, 2, 4)).shape == (3, 2, 4) and x.repeat((2, 2)).shape == (4, 2)
    assert torch.tensor(1.0).expand(2, 3).tolist() == [[1.0] * 3] * 2 and x.repeat(0, 2).shape == (0, 2)
    i = torch.tensor([1, 2])
    assert i.repeat(2).tolist() == [1, 2, 1, 2] and i.repeat(2).dtype == torch.int64
    r = torch.ones(2).repeat(3)
    r[0] = 5.0  # a copy: the source is untouched
    assert torch.ones(2).tolist() == [1.0, 1.0] and r.tolist()[:2] == [5.0, 1.0]


def test_softmax_log_softmax_and_logsumexp_over_an_empty_dim():
    e = torch.ones(0, requires_grad=True)
    for out, name in [(e.softmax(0), "SoftmaxBackward0"), (torch.nn.functional.log_softmax(e, dim=0), "LogSoftmaxBackward0")]:
        assert out.shape == (0,) and type(out.grad_fn).__name__ == name
        out.sum().backward()
        assert e.grad.shape == (0,)
    out = e.logsumexp(0)
    assert out.shape == () and out.item() == -np.inf and type(out.grad_fn).__name__ == "LogsumexpBackward0"
    out.backward()
    assert e.grad.shape == (0,)
    assert torch.ones(2, 0).softmax(1).shape == (2, 0) and torch.ones(0, 3).log_softmax(1).shape == (0, 3)
    assert torch.ones(2, 0).logsumexp(1).tolist() == [-np.inf, -np.inf] and torch.ones(2, 0).logsumexp(0).shape == (0,)
    assert torch.ones(2, 0).logsumexp(1, keepdim=True).shape == (2, 1)
    assert torch.ones(0, dtype=torch.float64).logsumexp(0).dtype == torch.float64


# --- node names, saved values, dtypes --------------------------------------------------

NAMES = {
    "CatBackward0": lambda x: torch.cat([x, x]),
    "StackBackward0": lambda x: torch.stack([x, x]),
    "ClampBackward1": lambda x: x.clamp(0, 1),
    "ClampBackward0": lambda x: x.clamp(torch.zeros(3)),
    "ClampMinBackward0": lambda x: x.clamp_min(0),
    "ClampMinBackward1": lambda x: x.clamp_min(torch.zeros(3)),
    "ClampMaxBackward0": lambda x: x.clamp_max(1),
    "ClampMaxBackward1": lambda x: torch.clamp_max(x, torch.zeros(3)),
    "MaximumBackward0": lambda x: torch.maximum(x, torch.zeros(3)),
    "MinimumBackward0": lambda x: x.min(torch.zeros(3)),
    "Log1PBackward0": lambda x: x.log1p(),
    "Expm1Backward0": lambda x: torch.expm1(x),
    "LogsumexpBackward0": lambda x: x.logsumexp(0),
    "CumsumBackward0": lambda x: x.cumsum(0),
    "CumprodBackward0": lambda x: torch.cumprod(x, 0),
    "ProdBackward0": lambda x: x.prod(),
    "ProdBackward1": lambda x: x.prod(0),
    "StdBackward0": lambda x: x.std(),
    "VarBackward0": lambda x: torch.var(x, 0),
    "WhereBackward0": lambda x: torch.where(x > 0, x, 0.0),
    "PowBackward2": lambda x: torch.pow(2, x),
    "AmaxBackward0": lambda x: x.amax(),
    "AminBackward0": lambda x: torch.amin(x, 0),
    "ExpandBackward0": lambda x: x.expand(2, 3),
    "RepeatBackward0": lambda x: x.repeat(2),
}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_node_names(name):
    out = NAMES[name](torch.tensor([0.5, -1.0, 2.0], requires_grad=True))
    assert type(out.grad_fn).__name__ == name and out.grad_fn.name() == name
    assert repr(out).endswith(f"grad_fn=<{name}>)")


def test_nodes_that_save_nothing_run_backward_twice_and_the_others_refuse():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    for fn in (lambda: torch.cat([x, x]), lambda: torch.stack([x, x]), lambda: x.cumsum(0)):
        out = fn().sum()
        out.backward()
        out.backward()
    assert x.grad.tolist() == [14.0, 12.0, 10.0]  # (2 + 2 + (3, 2, 1)) twice
    for fn in (lambda: x.clamp(0, 1), lambda: x.log1p(), lambda: x.prod(), lambda: x.std(), lambda: x.logsumexp(0),
               lambda: x.cumprod(0)):
        out = fn().sum()
        out.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            out.backward()


FLOAT32 = {
    "cat": lambda x: torch.cat([x, x]),
    "stack": lambda x: torch.stack([x, x], 1),
    "clamp": lambda x: x.clamp(-0.5, 0.5),
    "maximum": lambda x: torch.maximum(x, x * 0.5),
    "log1p": lambda x: (x * x).log1p(),
    "expm1": lambda x: x.expm1(),
    "logsumexp": lambda x: x.logsumexp(1),
    "cumsum": lambda x: x.cumsum(1),
    "cumprod": lambda x: x.cumprod(1),
    "prod": lambda x: x.prod(0),
    "std": lambda x: x.std(1),
    "var": lambda x: x.var(),
    "where": lambda x: torch.where(x > 0, x, 0.5),
}


@pytest.mark.parametrize("name", sorted(FLOAT32))
def test_float32_stays_float32(name):
    data = np.array([[0.25, -1.5, 2.0], [1.0, 0.5, -0.75]], dtype=np.float32)
    x = torch.tensor(data, requires_grad=True)
    out = FLOAT32[name](x)
    assert out.dtype == torch.float32 and out.numpy(force=True).dtype == np.float32
    out.sum().backward()
    assert x.grad.dtype == torch.float32
    # the float64 computation agrees to float32 precision
    x64 = torch.tensor(data.astype(np.float64), requires_grad=True)
    out64 = FLOAT32[name](x64)
    out64.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), out64.detach().numpy(), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), x64.grad.numpy(), rtol=2e-5, atol=1e-5)


def test_result_dtypes_follow_pytorch():
    i = torch.tensor([1, 2, 3])
    b = torch.tensor([True, False, True])
    assert i.prod().dtype == torch.int64 and i.prod().item() == 6
    assert b.prod().dtype == torch.int64 and b.cumsum(0).tolist() == [1, 1, 2]
    assert torch.tensor([1, 2], dtype=torch.int32).cumsum(0).dtype == torch.int64
    assert i.cumsum(0).dtype == torch.int64
    assert i.cumprod(0).dtype == torch.int64 and i.cumprod(0).tolist() == [1, 2, 6]
    assert b.cumprod(0).dtype == torch.int64 and b.cumprod(0).tolist() == [1, 0, 0]
    assert i.clamp(0, 2).dtype == torch.int64 and i.clamp(0, 2).tolist() == [1, 2, 2]
    assert i.clamp(0.5, 2.5).dtype == torch.float32 and i.clamp(0.5, 2.5).tolist() == [1.0, 2.0, 2.5]
    for fn in (torch.log1p, torch.expm1, torch.exp, torch.log, torch.sqrt, torch.sin, torch.tanh, torch.sigmoid):
        assert fn(i).dtype == torch.float32, fn.__name__
    assert torch.logsumexp(i, 0).dtype == torch.float32
    assert torch.abs(i).dtype == torch.int64
    x32, x64 = torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64)
    assert torch.cat([x32, x64]).dtype == torch.float64
    assert torch.stack([torch.ones(3), i]).dtype == torch.float32
    assert torch.maximum(x32, x64).dtype == torch.float64
    assert x32.clamp(torch.zeros(3, dtype=torch.float64)).dtype == torch.float64
    assert x32.cumsum(0, dtype=torch.float64).dtype == torch.float64
    assert x32.prod(dtype=torch.float64).dtype == torch.float64
    assert torch.cumprod(x32, 1, dtype=torch.float64).dtype == torch.float64


def test_mixed_dtypes_give_each_input_its_own_gradient_dtype():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, dtype=torch.float64, requires_grad=True)
    out = torch.cat([a, b])
    assert out.dtype == torch.float64
    (out * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
    assert a.grad.dtype == torch.float32 and a.grad.tolist() == [1.0, 2.0]
    assert b.grad.dtype == torch.float64 and b.grad.tolist() == [3.0, 4.0]
    x = torch.ones(3, requires_grad=True)
    x.cumsum(0, dtype=torch.float64).sum().backward()
    assert x.grad.dtype == torch.float32 and x.grad.tolist() == [3.0, 2.0, 1.0]


def test_clamp_in_place():
    w = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    w.data.clamp_(-1, 1)  # weight clipping, untracked
    assert w.tolist() == [-1.0, 0.5, 1.0] and w.grad_fn is None
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        w.clamp_(0, 1)
    with torch.no_grad():
        assert w.clamp_(0, 1) is w
    assert w.tolist() == [0.0, 0.5, 1.0]
    y = w * 2
    assert y.clamp_(max=1.5) is y and type(y.grad_fn).__name__ == "ClampBackward1"
    y.sum().backward()
    assert y.tolist() == [0.0, 1.0, 1.5] and w.grad.tolist() == [2.0, 2.0, 0.0]
    i = torch.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.clamp_(0.5)


# --- errors ----------------------------------------------------------------------------

ERRORS = [
    (lambda x: torch.cat([x, x], dim=2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x: torch.stack([x, x], dim=-4), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.cumsum(2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x: x.cumprod(-3), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda x: x.prod(-3), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda x: x.logsumexp(5), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda x: x.std(2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x: x.var((0, 3)), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    (lambda x: torch.cat([]), ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    (lambda x: torch.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    (lambda x: torch.cat(x), TypeError, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    (lambda x: torch.cat([x, 1.0]), TypeError, "expected Tensor as element 1 in argument 0, but got float"),
    (lambda x: torch.cat([x, torch.tensor(1.0)]), RuntimeError, "zero-dimensional tensor (at position 1) cannot be concatenated"),
    (lambda x: torch.cat([x, torch.ones(3)]), RuntimeError, "Tensors must have same number of dimensions: got 2 and 1"),
    (lambda x: torch.cat([x, torch.ones(3, 2)], -1), RuntimeError,
     "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list."),
    (lambda x: torch.stack([x, torch.ones(3, 2)]), RuntimeError,
     "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1"),
    (lambda x: x.clamp(), RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None"),
    (lambda x: torch.maximum(x, 1.0), TypeError, "maximum(): argument 'other' (position 2) must be Tensor, not float"),
    (lambda x: torch.maximum(x, torch.ones(2)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    (lambda x: x + torch.ones(4, 1, 2), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 2"),
    (lambda x: torch.tensor([1, 2]).std(), RuntimeError, "std and var only support floating point and complex dtypes"),
    (lambda x: torch.where(x, x, 0.0), RuntimeError,
     "where expected condition to be a boolean tensor, but got a tensor with dtype Float"),
    (lambda x: x.all(2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x: x.amax(-3), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda x: torch.ones(2, 0).amax(), RuntimeError,
     "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."),
    (lambda x: torch.ones(2, 0).amax((0, 1)), IndexError, "amax(): Expected reduction dim 1 to have non-zero size."),
    (lambda x: torch.ones(3, 0).amin(-1), IndexError, "amin(): Expected reduction dim -1 to have non-zero size."),
    (lambda x: x.sum(dtype=torch.int64), RuntimeError, "Autograd not support dtype: Long"),
    (lambda x: x.sum(0, dtype=torch.bool), RuntimeError, "Autograd not support dtype: Bool"),
    (lambda x: torch.tensor([1, 2]).mean(dtype=torch.int64), RuntimeError,
     "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: Long"),
    (lambda x: x.expand(3, 3), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  "
     "Target sizes: [3, 3].  Tensor sizes: [2, 3]"),
    (lambda x: x.expand(3), RuntimeError,
     "expand(srcgrad.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to "
     "the number of dimensions in the tensor (2)"),
    (lambda x: x.expand(-1, 2, 3), RuntimeError,
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    (lambda x: x.repeat(2), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"),
    (lambda x: x.repeat(-1, 2), RuntimeError, "Trying to create tensor with negative dimension -2: [-2, 6]"),
    (lambda x: x.repeat(), TypeError, 'repeat() missing 1 required positional arguments: "repeats"'),
]


@pytest.mark.parametrize("fn,kind,message", ERRORS, ids=[m[:40] for _, _, m in ERRORS])
def test_errors(fn, kind, message):
    x = torch.ones(2, 3, requires_grad=True)
    with pytest.raises(kind) as info:
        fn(x)
    assert str(info.value) == message


def test_too_few_degrees_of_freedom_warn_as_pytorch():
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
        out = torch.tensor([1.0]).std()
    assert np.isnan(out.item())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.tensor([1.0, 2.0]).var()


# --- PyTorch as the oracle ---------------------------------------------------------------

ORACLE = {
    "cat": lambda t, x, y: t.cat([x, y, x], 1),
    "stack": lambda t, x, y: t.stack([x, y], -1),
    "clamp": lambda t, x, y: x.clamp(-0.3, 0.4) * y,
    "clamp_tensor": lambda t, x, y: t.clamp(x, max=y),
    "clamp_min": lambda t, x, y: x.clamp_min(0.1) + y.clamp_max(-0.2),
    "maximum": lambda t, x, y: t.maximum(x, y) - t.minimum(x, y * 0.5),
    "log1p_expm1": lambda t, x, y: (x * x).log1p() * y.expm1(),
    "logsumexp": lambda t, x, y: x.logsumexp(1) + t.logsumexp(y * 3, (0, 1), keepdim=True),
    "cumsum": lambda t, x, y: x.cumsum(0) * y.cumsum(-1),
    "cumprod": lambda t, x, y: x.cumprod(0) + t.cumprod(y, -1),
    "cumprod_zeros": lambda t, x, y: (x * (x.abs() > 0.5)).cumprod(1) * t.cumprod(y * (y > 0), 0),
    "prod": lambda t, x, y: x.prod(1) + y.prod(),
    "std": lambda t, x, y: x.std(1, keepdim=True) + y.std(0, keepdim=True) + x.std(correction=0),
    "var": lambda t, x, y: x.var(0, unbiased=False) + t.var(y, 1).sum(),
    "where": lambda t, x, y: t.where(x > y, x * 2, y),
    "amax_amin": lambda t, x, y: x.amax(1, keepdim=True) * t.amin(y, 0, keepdim=True),
    "sum_mean_dtype": lambda t, x, y: x.sum(1, keepdim=True, dtype=t.float64) + t.mean(y, 0, dtype=t.float64),
    "expand_repeat": lambda t, x, y: x[:, :1].expand(-1, 4) * y.repeat(1, 2)[:, 1:5] + x[:1].expand_as(y),
}


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_against_pytorch(name):
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    data = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2)]
    results = []
    for lib in (real, torch):
        x, y = (lib.tensor(d, requires_grad=True) for d in data)
        out = ORACLE[name](lib, x, y)
        weight = lib.tensor(np.linspace(-1, 1, out.numel(), dtype=np.float32).reshape(tuple(out.shape)))
        (out * weight).sum().backward()
        results.append((type(out.grad_fn).__name__, str(out.dtype).split(".")[1], out.detach().numpy(),
                        x.grad.numpy(), y.grad.numpy()))
    (name_t, dtype_t, *arrays_t), (name_s, dtype_s, *arrays_s) = results
    assert (name_s, dtype_s) == (name_t, dtype_t)
    for a_t, a_s in zip(arrays_t, arrays_s):
        assert a_s.dtype == a_t.dtype
        np.testing.assert_allclose(a_s, a_t, rtol=1e-5, atol=1e-5)
