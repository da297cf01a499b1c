"""The Tensor shim's gradients against central differences, shared by the tensor test
files: x.grad of sum(fn(*xs) * r) for a random r, for every input, in float64."""

import numpy as np

import srcgrad as torch

EPS = 1e-6


def check_against_differences(fn, arrays, seed=0, rtol=1e-5, atol=1e-7):
    """Every input's .grad (float64, its shape) against central differences of
    sum(fn(*xs) * r), r drawn from `seed` + 1."""
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    assert all(t.dtype == torch.float64 for t in tensors)
    out = fn(*tensors)
    assert out.dtype == torch.float64 and out.requires_grad and out.grad_fn is not None
    r = np.random.default_rng(seed + 1).standard_normal(out.shape)
    (out * torch.tensor(r)).sum().backward()

    def value(xs):
        with torch.no_grad():
            return float((fn(*[torch.tensor(x) for x in xs]).numpy() * r).sum())

    for i, (a, t) in enumerate(zip(arrays, tensors)):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            up, down = [x.copy() for x in arrays], [x.copy() for x in arrays]
            up[i][idx] += EPS
            down[i][idx] -= EPS
            numeric[idx] = (value(up) - value(down)) / (2 * EPS)
        assert t.grad is not None, f"input {i} got no gradient"
        assert t.grad.shape == t.shape and t.grad.dtype == torch.float64
        np.testing.assert_allclose(t.grad.numpy(), numeric, rtol=rtol, atol=atol, err_msg=f"input {i}")
