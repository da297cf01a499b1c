"""Module hooks (forward pre/post, full backward pre/post) and the Module helpers
get_submodule / get_parameter / get_buffer, as PyTorch 2.13; a custom Function's
node has an edge per Tensor argument only."""

import numpy as np
import pytest

import srcgrad as torch


def _linear():
    torch.manual_seed(0)
    return torch.nn.Linear(2, 1)


def test_forward_hooks_see_and_replace_inputs_and_outputs():
    lin, log = _linear(), []
    h1 = lin.register_forward_pre_hook(lambda m, args: log.append(("pre", type(m).__name__, len(args))))
    h2 = lin.register_forward_hook(lambda m, args, out: log.append(("fwd", tuple(out.shape))))
    lin(torch.ones(3, 2))
    assert log == [("pre", "Linear", 1), ("fwd", (3, 1))]
    assert type(h1).__name__ == "RemovableHandle" and len(lin._forward_pre_hooks) == len(lin._forward_hooks) == 1
    h1.remove()
    h2.remove()
    h2.remove()  # again: nothing
    assert len(lin._forward_pre_hooks) == len(lin._forward_hooks) == 0
    x = torch.ones(1, 2)
    with lin.register_forward_hook(lambda m, a, o: o * 2):
        doubled = lin(x)
    assert np.allclose(doubled.detach().numpy(), 2 * lin(x).detach().numpy())
    with lin.register_forward_pre_hook(lambda m, a: a[0] * 0):  # not a tuple: the one new argument
        assert np.allclose(lin(x).detach().numpy(), lin.bias.detach().numpy())
    seen = []
    with lin.register_forward_hook(lambda m, args, kwargs, out: seen.append(sorted(kwargs)), with_kwargs=True):
        lin(input=x)
    assert seen == [["input"]]
    order = []
    lin.register_forward_hook(lambda *a: order.append(1))
    lin.register_forward_hook(lambda *a: order.append(2), prepend=True)
    lin(x)
    assert order == [2, 1]


def test_full_backward_hooks():
    lin, log = _linear(), []
    w = lin.weight.detach().numpy().copy()
    handle = lin.register_full_backward_hook(
        lambda m, gi, go: log.append(([None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
    x = torch.ones(3, 2, requires_grad=True)
    y = lin(x)
    assert type(y.grad_fn).__name__ == "BackwardHookFunctionBackward"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AddmmBackward0"]
    y.sum().backward()
    assert log == [([(3, 2)], [(3, 1)])]
    assert np.allclose(x.grad.numpy(), np.tile(w, (3, 1)))
    log.clear()
    with pytest.warns(UserWarning, match="^Full backward hook is firing when gradients are computed with respect to module outputs"):
        lin(torch.ones(3, 2)).sum().backward()
    assert log == [([None], [(3, 1)])]
    handle.remove()
    with lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,)):
        x = torch.ones(1, 2, requires_grad=True)
        lin(x).sum().backward()
    assert np.allclose(x.grad.numpy(), 10 * w)
    lin.zero_grad()
    with lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,)):
        x = torch.ones(1, 2, requires_grad=True)
        lin(x).sum().backward()
    assert np.allclose(x.grad.numpy(), 3 * w)
    assert lin.weight.grad.tolist() == [[3.0, 3.0]] and lin.bias.grad.tolist() == [3.0]
    with torch.no_grad(), lin.register_full_backward_hook(lambda *a: None):
        assert lin(torch.ones(1, 2)).grad_fn is None


def test_hooks_over_a_network_collect_activations_and_gradients():
    seq = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
    acts, grads = {}, []
    for name, mod in seq.named_children():
        mod.register_forward_hook(lambda m, a, o, name=name: acts.__setitem__(name, tuple(o.shape)))
    seq[1].register_full_backward_hook(lambda m, gi, go: grads.append((gi[0].detach().numpy(), go[0].detach().numpy())))
    x = torch.randn(4, 2, dtype=torch.float32)
    seq(x).sum().backward()
    assert acts == {"0": (4, 3), "1": (4, 3), "2": (4, 1)}
    h = seq[0](x).detach().numpy()
    grad_out = np.tile(seq[2].weight.detach().numpy(), (4, 1))
    assert np.allclose(grads[0][1], grad_out) and np.allclose(grads[0][0], grad_out * (1 - np.tanh(h) ** 2), atol=1e-6)


def test_submodules_parameters_and_buffers_by_path():
    lin = torch.nn.Linear(2, 2)
    lin.register_buffer("rb", torch.zeros(2))
    seq = torch.nn.Sequential(torch.nn.Linear(2, 2), lin)
    assert seq.get_submodule("1") is lin and seq.get_submodule("") is seq
    assert seq.get_parameter("0.bias") is seq[0].bias and seq.get_buffer("1.rb").tolist() == [0.0, 0.0]
    for call, message in [(lambda: seq.get_buffer("0.weight"), "`weight` is not a buffer"),
                          (lambda: seq.get_parameter("1.rb"), "`rb` is not an nn.Parameter"),
                          (lambda: seq.get_submodule("0.weight"), "`weight` is not an nn.Module"),
                          (lambda: seq.get_submodule("0.x.y"), "Linear has no attribute `x`"),
                          (lambda: seq.get_submodule("5"), "Sequential has no attribute `5`")]:
        with pytest.raises(AttributeError) as info:
            call()
        assert str(info.value) == message
    assert lin.half().weight.dtype == torch.float16 and lin.type(torch.float64).weight.dtype == torch.float64
    assert lin.cpu() is lin
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        lin.cuda()


class _Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k, y):
        ctx.k = k
        return x * k + y

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None, g


def test_function_edges_are_its_tensor_arguments():
    x, y = torch.ones(2, requires_grad=True), torch.ones(2)
    out = _Scale.apply(x, 3.0, y)
    assert [type(n).__name__ if n is not None else None for n, _ in out.grad_fn.next_functions] == ["AccumulateGrad", None]
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]

    class _Wrong(_Scale):
        @staticmethod
        def backward(ctx, g):
            return g, g, None

    with pytest.raises(RuntimeError, match="^function _WrongBackward returned a gradient different than None at position 2, "
                                           "but the corresponding forward input was not a Variable$"):
        _Wrong.apply(x, 3.0, y).sum().backward()
