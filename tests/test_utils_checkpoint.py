"""srcgrad.utils.checkpoint as torch.utils.checkpoint: the same values and gradients as
the function run plainly (and as central differences), the reentrant form's node,
recomputation with the same random draws, PyTorch's warnings and errors."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.utils.checkpoint import checkpoint, checkpoint_sequential

nn = torch.nn
X = np.random.default_rng(0).standard_normal((2, 3))


def model():
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape))))
    return m


def plain_gradients():
    m, x = model(), torch.tensor(X, requires_grad=True)
    m(x).pow(2).sum().backward()
    return x.grad.numpy(), m[0].weight.grad.numpy()


@pytest.mark.parametrize("reentrant", [True, False])
def test_gradients_equal_the_plain_runs_and_central_differences(reentrant):
    m, x = model(), torch.tensor(X, requires_grad=True)
    y = checkpoint(m, x, use_reentrant=reentrant)
    assert y.grad_fn.name() == ("CheckpointFunctionBackward" if reentrant else "AddmmBackward0")
    np.testing.assert_array_equal(y.detach().numpy(), model()(torch.tensor(X)).detach().numpy())
    y.pow(2).sum().backward()
    gx, gw = plain_gradients()
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-14)
    np.testing.assert_allclose(m[0].weight.grad.numpy(), gw, rtol=1e-14)

    def loss(v):
        with torch.no_grad():
            return float(model()(torch.tensor(v)).pow(2).sum())

    numeric = np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        step = np.zeros_like(X)
        step[idx] = 1e-6
        numeric[idx] = (loss(X + step) - loss(X - step)) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6)


def test_sequential_segments_and_the_default_warning():
    m, x = model(), torch.tensor(X, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = checkpoint_sequential(m, 2, x)
    assert y.grad_fn.name() == "AddmmBackward0"  # the last segment runs as it is
    y.pow(2).sum().backward()
    gx, gw = plain_gradients()
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-14)
    np.testing.assert_allclose(m[0].weight.grad.numpy(), gw, rtol=1e-14)


def test_the_recomputation_meets_the_same_random_draws():
    d = nn.Sequential(nn.Linear(3, 50), nn.Dropout(0.5), nn.Linear(50, 1)).double()
    x = torch.tensor(X, requires_grad=True)
    torch.manual_seed(3)
    y = checkpoint(d, x, use_reentrant=True)
    torch.rand(7)  # draws between forward and backward do not change the recomputed mask
    y.sum().backward()
    checkpointed = x.grad.numpy().copy()
    x.grad = None
    torch.manual_seed(3)
    plain = d(x)
    plain.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), plain.detach().numpy())
    np.testing.assert_array_equal(checkpointed, x.grad.numpy())


def test_pytorchs_pitfall_and_errors():
    m = model()
    with pytest.warns(UserWarning, match="^None of the inputs have requires_grad=True. Gradients will be None$"):
        y = checkpoint(m, torch.tensor(X), use_reentrant=True)
    assert not y.requires_grad  # the parameters get no gradient, as in PyTorch
    x = torch.tensor(X, requires_grad=True)
    y = checkpoint(m, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match=re.escape("When use_reentrant=True, torch.utils.checkpoint is incompatible "
                                                     "with .grad() or passing an `inputs` parameter to .backward().")):
        torch.autograd.grad(y.sum(), x)
    assert m[0].weight.grad is None  # nothing accumulated on the way
    with pytest.raises(ValueError, match="^Passing `context_fn` or `debug` is only supported when use_reentrant=False.$"):
        checkpoint(m, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: b$"):
        checkpoint(lambda a, b=1: a, x, use_reentrant=True, b=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert checkpoint(lambda a, b=1: a * b, x, use_reentrant=False, b=2).grad_fn.name() == "MulBackward0"
