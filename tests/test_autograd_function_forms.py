"""Custom autograd.Functions in PyTorch's other forms: forward without ctx plus
`setup_context`, several outputs (one node, a gradient per output, zeros for an output
that got none unless the ctx does not materialize them, a value that is no Tensor),
`mark_non_differentiable`, saved outputs of a tuple under create_graph and in version
errors. Expected values and messages are PyTorch 2.13's for the same code."""

import numpy as np
import pytest

import srcgrad as torch

F64 = torch.float64


class _Exp(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, g):
        (result,) = ctx.saved_tensors
        return g * result


class _ProductAndSum(torch.autograd.Function):
    seen = []

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b, a + b, 3

    @staticmethod
    def backward(ctx, g_product, g_sum, g_three):
        _ProductAndSum.seen = [g_product, g_sum, g_three]
        a, b = ctx.saved_tensors
        return g_product * b + g_sum, g_product * a + g_sum


class _NotMaterialized(_ProductAndSum):
    @staticmethod
    def forward(ctx, a, b):
        ctx.set_materialize_grads(False)
        return a * b, a + b, 3

    @staticmethod
    def backward(ctx, g_product, g_sum, g_three):
        _NotMaterialized.seen = [g_product, g_sum, g_three]
        return g_product, g_product


class _Marked(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        doubled = a * 2
        ctx.mark_non_differentiable(doubled)
        return doubled, a * 3

    @staticmethod
    def backward(ctx, g_doubled, g_tripled):
        _Marked.seen = [g_doubled, g_tripled]
        return g_tripled * 3


class _SinCos(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s, c = x.sin(), x.cos()
        ctx.save_for_backward(s, c)
        return s, c

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        s, c = ctx.saved_tensors
        return g_sin * c - g_cos * s


def test_forward_without_ctx_and_setup_context():
    x = torch.tensor([0.5, 1.0], dtype=F64, requires_grad=True)
    y = _Exp.apply(x)
    assert type(y.grad_fn).__name__ == "_ExpBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.0]), rtol=1e-15)


def test_several_outputs_share_one_node_and_get_a_gradient_each():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    p, s, three = _ProductAndSum.apply(a, b)
    assert p.grad_fn is s.grad_fn and p.grad_fn.name() == "_ProductAndSumBackward" and three == 3
    assert not p.is_leaf and p.tolist() == [3.0, 8.0] and s.tolist() == [4.0, 6.0]
    p.sum().backward()
    g_product, g_sum, g_three = _ProductAndSum.seen
    assert g_product.tolist() == [1.0, 1.0] and g_sum.tolist() == [0.0, 0.0] and g_three is None
    assert a.grad.tolist() == [3.0, 4.0] and b.grad.tolist() == [1.0, 2.0]
    a.grad = b.grad = None
    p, s, _ = _ProductAndSum.apply(a, b)
    (p.sum() + 2 * s.sum()).backward()
    assert a.grad.tolist() == [5.0, 6.0] and b.grad.tolist() == [3.0, 4.0]


def test_gradients_not_materialized_stay_none():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    p, _, _ = _NotMaterialized.apply(a, b)
    p.sum().backward()
    g_product, g_sum, g_three = _NotMaterialized.seen
    assert g_product.tolist() == [1.0, 1.0] and g_sum is None and g_three is None


def test_non_differentiable_outputs():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    doubled, tripled = _Marked.apply(a)
    assert not doubled.requires_grad and doubled.grad_fn is None and tripled.grad_fn.name() == "_MarkedBackward"
    tripled.sum().backward()
    assert _Marked.seen[0].tolist() == [0.0, 0.0] and a.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        doubled.sum().backward()


def test_saved_outputs_of_a_tuple_under_create_graph_and_in_version_errors():
    x = torch.tensor([0.3, 1.2], dtype=F64, requires_grad=True)
    s, c = _SinCos.apply(x)
    (g,) = torch.autograd.grad((s * s + c).sum(), x, create_graph=True)
    v = np.array([0.3, 1.2])
    np.testing.assert_allclose(g.detach().numpy(), 2 * np.sin(v) * np.cos(v) - np.sin(v), rtol=1e-15)
    (h,) = torch.autograd.grad(g.sum(), x)  # PyTorch: [0.6953, -1.8371]
    np.testing.assert_allclose(h.numpy(), 2 * np.cos(2 * v) - np.cos(v), rtol=1e-14)
    s, c = _SinCos.apply(x)
    with torch.no_grad():
        s.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[srcgrad.DoubleTensor \[2\]\], which is output 0 of _SinCos, is at "
                                           r"version 1; expected version 0 instead"):
        s.sum().backward()


def test_wrong_count_of_gradients_is_pytorchs_error():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1, g2

    u, v = Bad.apply(torch.tensor([1.0], requires_grad=True))
    with pytest.raises(RuntimeError, match=r"function BadBackward returned an incorrect number of gradients "
                                           r"\(expected 1, got 2\)"):
        (u + v).sum().backward()


def test_post_accumulate_grad_hooks_step_an_optimizer_in_backward():
    """PyTorch's optimizer-in-backward pattern: each parameter's hook steps its own
    optimizer and zeroes its gradient; the losses are PyTorch 2.13's."""
    rs = np.random.RandomState(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rs.standard_normal(tuple(p.shape))))
    optimizers = {p: torch.optim.Adam([p], lr=0.05) for p in model.parameters()}
    calls = []

    def hook(p):
        calls.append(tuple(p.shape))
        optimizers[p].step()
        optimizers[p].zero_grad()

    handles = [p.register_post_accumulate_grad_hook(hook) for p in model.parameters()]
    x, y = torch.tensor(rs.standard_normal((5, 3))), torch.tensor(rs.standard_normal((5, 2)))
    losses = []
    for _ in range(3):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        losses.append(loss.item())
        assert all(p.grad is None for p in model.parameters())
    np.testing.assert_allclose(losses, [6.743056260287, 5.794344608769, 4.934354663086], rtol=1e-12)
    assert sorted(calls) == sorted([(2,), (2, 4), (4,), (4, 3)] * 3)
    for handle in handles:
        handle.remove()
    ((model(x) - y) ** 2).mean().backward()
    assert len(calls) == 12 and model[0].bias.grad is not None


def test_post_accumulate_grad_hooks_under_create_graph_and_their_errors():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (w ** 3).sum().backward(create_graph=True)
    assert seen[0].tolist() == [3.0, 12.0] and w.grad.requires_grad
    (g,) = torch.autograd.grad((w * 2).sum(), w)  # autograd.grad accumulates nothing: no hook
    assert g.tolist() == [2.0, 2.0] and len(seen) == 1
    assert type((w * 2).grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (w * 2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        torch.ones(2).register_post_accumulate_grad_hook(print)
