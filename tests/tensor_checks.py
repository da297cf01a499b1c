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


def check_second_against_differences(fn, arrays, seed=0, rtol=1e-4, atol=1e-6):
    """The second derivatives a create_graph pass gives: the gradient of sum(g * v), g
    every input's gradient of sum(fn(*xs) * r), against central differences of that
    first gradient (r, v drawn from `seed`)."""
    rng = np.random.default_rng(seed + 2)
    with torch.no_grad():
        shape = fn(*[torch.tensor(a) for a in arrays]).shape
    r = rng.standard_normal(shape)
    vs = [rng.standard_normal(a.shape) for a in arrays]

    def first(xs, create_graph):
        tensors = [torch.tensor(x, requires_grad=True) for x in xs]
        grads = torch.autograd.grad((fn(*tensors) * torch.tensor(r)).sum(), tensors, create_graph=create_graph,
                                    allow_unused=True)
        return tensors, grads

    tensors, grads = first(arrays, True)
    terms = [(g * torch.tensor(v)).sum() for g, v in zip(grads, vs) if g is not None and g.requires_grad]
    second = torch.autograd.grad(sum(terms), tensors, allow_unused=True) if terms else [None] * len(tensors)

    def value(xs):
        return sum(float((g.detach().numpy() * v).sum()) for g, v in zip(first(xs, False)[1], vs) if g is not None)

    for i, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            up, down = [x.copy() for x in arrays], [x.copy() for x in arrays]
            up[i][idx] += EPS
            down[i][idx] -= EPS
            numeric[idx] = (value(up) - value(down)) / (2 * EPS)
        got = np.zeros_like(a) if second[i] is None else second[i].numpy()
        np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol, err_msg=f"input {i}")
