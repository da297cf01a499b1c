"""srcgrad.distributions as torch.distributions: densities against NumPy's closed forms,
gradients against central differences in float64, reprs and errors as PyTorch 2.13."""

import math

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.distributions import Bernoulli, Categorical, Exponential, Normal, Uniform, kl_divergence

D64 = dict(dtype=torch.float64)


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def _grad(f, x):
    t = torch.tensor(x, requires_grad=True)
    f(t).backward()
    return t.grad.numpy()


def test_normal_densities_and_gradients():
    loc, scale, v = np.array([0.3, -1.0]), np.array([1.5, 0.5]), np.array([1.0, 0.0])
    n = Normal(torch.tensor(loc), torch.tensor(scale))
    expected = -((v - loc) ** 2) / (2 * scale**2) - np.log(scale) - 0.5 * np.log(2 * np.pi)
    assert np.allclose(n.log_prob(torch.tensor(v)).numpy(), expected, rtol=1e-14)
    assert np.allclose(n.entropy().numpy(), 0.5 + 0.5 * np.log(2 * np.pi) + np.log(scale), rtol=1e-14)
    erf = np.vectorize(math.erf)
    assert np.allclose(n.cdf(torch.tensor(v)).numpy(), 0.5 * (1 + erf((v - loc) / scale / np.sqrt(2))), rtol=1e-14)
    assert np.allclose(n.icdf(n.cdf(torch.tensor(v))).numpy(), v, rtol=1e-12)

    def objective(s):
        return (Normal(torch.tensor(loc), s).log_prob(torch.tensor(v)).sum() + Normal(torch.tensor(loc), s).entropy().sum()
                + kl_divergence(Normal(torch.tensor(loc), s), Normal(0.0, 1.0)).sum())

    numeric = _fd(lambda s: objective(torch.tensor(s)).item(), scale)
    assert np.allclose(_grad(objective, scale), numeric, rtol=1e-7)


def test_rsample_is_reparameterized_and_sample_is_not():
    torch.manual_seed(0)
    loc = torch.tensor([0.5], requires_grad=True)
    scale = torch.tensor([2.0], requires_grad=True)
    draw = Normal(loc, scale).rsample((4000,))
    assert tuple(draw.shape) == (4000, 1) and type(draw.grad_fn).__name__ == "AddBackward0"
    draw.mean().backward()
    assert loc.grad.item() == pytest.approx(1.0)
    assert scale.grad.item() == pytest.approx(((draw.detach() - 0.5) / 2.0).mean().item(), rel=1e-5)
    assert not Normal(loc, scale).sample().requires_grad
    x = Normal(torch.zeros(3, **D64), torch.ones(3, **D64)).sample((20000,)).numpy()
    assert x.dtype == np.float64 and np.allclose(x.mean(0), 0, atol=0.03) and np.allclose(x.std(0), 1, atol=0.03)


def test_categorical_and_bernoulli():
    logits = np.array([0.1, 2.0, -1.0])
    p = np.exp(logits) / np.exp(logits).sum()
    c = Categorical(logits=torch.tensor(logits))
    assert np.allclose(c.probs.numpy(), p, rtol=1e-14)
    assert c.log_prob(torch.tensor(1)).item() == pytest.approx(np.log(p[1]), rel=1e-14)
    assert c.entropy().item() == pytest.approx(-(p * np.log(p)).sum(), rel=1e-14)

    def objective(lg):
        return Categorical(logits=lg).log_prob(torch.tensor(1)) + Categorical(logits=lg).entropy() + \
            Bernoulli(logits=lg).log_prob(torch.tensor([1.0, 0.0, 1.0], **D64)).sum()

    assert np.allclose(_grad(objective, logits), _fd(lambda lg: objective(torch.tensor(lg)).item(), logits), rtol=1e-7)
    b = Bernoulli(probs=torch.tensor([0.3], **D64))
    assert b.log_prob(torch.tensor([1.0], **D64)).item() == pytest.approx(np.log(0.3), rel=1e-12)
    assert b.entropy().item() == pytest.approx(-(0.3 * np.log(0.3) + 0.7 * np.log(0.7)), rel=1e-12)
    assert repr(Bernoulli(torch.tensor([0.5, 0.2])).mode) == "tensor([nan, 0.])"
    torch.manual_seed(1)
    draws = Categorical(torch.tensor([0.2, 0.3, 0.5])).sample((20000,))
    assert draws.dtype == torch.int64 and np.allclose(np.bincount(draws.numpy()) / 20000, [0.2, 0.3, 0.5], atol=0.015)
    assert tuple(Categorical(logits=torch.zeros(2, 3)).sample((5,)).shape) == (5, 2)
    assert repr(Categorical(logits=torch.zeros(2, 3)).enumerate_support()) == "tensor([[0, 0],\n        [1, 1],\n        [2, 2]])"


def test_uniform_and_exponential():
    u = Uniform(0.0, 2.0)
    assert repr(u) == "Uniform(low: 0.0, high: 2.0)"
    assert [u.log_prob(torch.tensor(1.0)).item(), u.entropy().item(), u.mean.item()] == pytest.approx([-math.log(2), math.log(2), 1.0])
    assert Uniform(0.0, 2.0, validate_args=False).log_prob(torch.tensor(3.0)).item() == -math.inf
    e = Exponential(torch.tensor([2.0], **D64))
    assert e.log_prob(torch.tensor([1.0], **D64)).item() == pytest.approx(math.log(2) - 2, rel=1e-14)
    assert e.cdf(torch.tensor([1.0], **D64)).item() == pytest.approx(1 - math.exp(-2), rel=1e-14)
    assert e.icdf(torch.tensor([0.5], **D64)).item() == pytest.approx(math.log(2) / 2, rel=1e-14)
    torch.manual_seed(2)
    assert Exponential(torch.tensor([2.0], **D64)).sample((20000,)).mean().item() == pytest.approx(0.5, abs=0.02)


def test_kl_divergences_against_closed_forms():
    def normal_kl(m1, s1, m2, s2):
        return np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5

    assert kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0)).item() == pytest.approx(normal_kl(0, 1, 1, 2), rel=1e-6)
    p, q = np.array([0.2, 0.3, 0.5]), np.array([1 / 3] * 3)
    kl = kl_divergence(Categorical(torch.tensor(p)), Categorical(logits=torch.zeros(3, **D64))).item()
    assert kl == pytest.approx((p * np.log(p / q)).sum(), rel=1e-12)
    kl = kl_divergence(Bernoulli(torch.tensor(0.3, **D64)), Bernoulli(torch.tensor(0.6, **D64))).item()
    assert kl == pytest.approx(0.3 * np.log(0.3 / 0.6) + 0.7 * np.log(0.7 / 0.4), rel=1e-12)
    assert repr(kl_divergence(Bernoulli(torch.tensor([0.0, 1.0])), Bernoulli(torch.tensor([0.5, 0.5])))) == "tensor([0.6931, 0.6931])"
    assert repr(kl_divergence(Categorical(torch.tensor([0.5, 0.5])), Categorical(torch.tensor([1.0, 0.0])))) == "tensor(inf)"
    assert kl_divergence(Uniform(0.0, 1.0), Uniform(-1.0, 2.0)).item() == pytest.approx(math.log(3))
    assert kl_divergence(Uniform(0.0, 1.0), Uniform(0.5, 2.0)).item() == math.inf
    assert kl_divergence(Normal(0.0, 1.0), Exponential(1.0)).item() == math.inf
    with pytest.raises(NotImplementedError, match="^No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Bernoulli$"):
        kl_divergence(Normal(0.0, 1.0), Bernoulli(0.5))


@pytest.mark.parametrize("call,message", [
    (lambda: Normal(torch.tensor([0.0]), torch.tensor([-1.0])),
     "Expected parameter scale (Tensor of shape (1,)) of distribution Normal(loc: tensor([0.]), scale: tensor([-1.])) "
     "to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1.])"),
    (lambda: Categorical(probs=torch.tensor([0.2, -0.3])),
     "Expected parameter probs (Tensor of shape (2,)) of distribution Categorical(probs: srcgrad.Size([2])) to satisfy "
     "the constraint Simplex(), but found invalid values:\ntensor([-2.0000,  3.0000])"),
    (lambda: Categorical(torch.tensor([0.2, 0.3]), torch.tensor([0.0, 0.0])),
     "Either `probs` or `logits` must be specified, but not both."),
    (lambda: Bernoulli(torch.tensor([1.5])),
     "Expected parameter probs (Tensor of shape (1,)) of distribution Bernoulli(probs: tensor([1.5000])) to satisfy "
     "the constraint Interval(lower_bound=0.0, upper_bound=1.0), but found invalid values:\ntensor([1.5000])"),
    (lambda: Uniform(2.0, 1.0),
     "Expected parameter low (Tensor of shape ()) of distribution Uniform(low: 2.0, high: 1.0) to satisfy the "
     "constraint LessThan(upper_bound=1.0), but found invalid values:\n2.0"),
    (lambda: Uniform(0.0, 2.0).log_prob(torch.tensor(3.0)),
     "Expected value argument (Tensor of shape ()) to be within the support (Interval(lower_bound=0.0, "
     "upper_bound=2.0)) of the distribution Uniform(low: 0.0, high: 2.0), but found invalid values:\n3.0"),
    (lambda: Categorical(torch.tensor([0.2, 0.3, 0.5])).log_prob(torch.tensor(1.5)),
     "Expected value argument (Tensor of shape ()) to be within the support (IntegerInterval(lower_bound=0, "
     "upper_bound=2)) of the distribution Categorical(probs: srcgrad.Size([3])), but found invalid values:\n1.5"),
    (lambda: Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])).log_prob(torch.tensor([1.0, 2.0, 3.0])),
     "Value is not broadcastable with batch_shape+event_shape: srcgrad.Size([3]) vs srcgrad.Size([2])."),
    (lambda: Normal(0.0, 1.0).log_prob([1.0, 2.0]), "The value argument to log_prob must be a Tensor"),
])
def test_errors(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_reprs_and_shapes():
    n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
    assert repr(n) == "Normal(loc: srcgrad.Size([2]), scale: srcgrad.Size([2]))"
    assert repr(Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert (n.batch_shape, n.event_shape) == ((2,), ())
    c = Categorical(logits=torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
    assert repr(c) == "Categorical(logits: srcgrad.Size([2, 3]))"
    assert (c.batch_shape, c.event_shape, c.param_shape) == ((2,), (), (2, 3))
    c.probs  # made from the logits when first read, then part of the repr, as PyTorch's lazy property
    assert repr(c) == "Categorical(probs: srcgrad.Size([2, 3]), logits: srcgrad.Size([2, 3]))"
    assert repr(Bernoulli(logits=torch.tensor([0.3]))) == "Bernoulli(logits: tensor([0.3000]))"
    assert repr(torch.Size([2]) + torch.Size([3])) == "srcgrad.Size([2, 3])"
