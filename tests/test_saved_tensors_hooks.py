"""srcgrad.autograd.graph.saved_tensors_hooks and save_on_cpu: which tensors are packed
when a node is recorded, in which order, and that backward computes from what the
unpack hook gives back (orders and counts checked in PyTorch 2.13)."""

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.autograd.graph import save_on_cpu, saved_tensors_hooks

A = np.array([[1.0, 2.0], [3.0, 4.0]])
B = np.array([[0.5, 1.5], [2.5, 3.5]])


def _logged(build):
    """The pack/unpack log of `build(a, b)` and one backward: the saved tensors named
    `A`, `B` or by their grad_fn."""
    a = torch.tensor(A, requires_grad=True)
    b = torch.tensor(B, requires_grad=True)
    log = []

    def name(t):
        return "A" if t is a else "B" if t is b else type(t.grad_fn).__name__ if t.grad_fn is not None else "leaf"

    with saved_tensors_hooks(lambda t: (log.append("p:" + name(t)), t)[1], lambda t: (log.append("u:" + name(t)), t)[1]):
        y = build(a, b)
    y.sum().backward()
    return log


# as PyTorch 2.13 logs them
@pytest.mark.parametrize("build, expected", [
    (lambda a, b: a * b, ["p:B", "p:A", "u:B", "u:A"]),
    (lambda a, b: a / b, ["p:B", "p:A", "u:B", "u:A"]),
    (lambda a, b: a @ b, ["p:B", "p:A", "u:B", "u:A"]),
    (lambda a, b: a ** b, ["p:B", "p:A", "p:PowBackward1", "u:B", "u:A", "u:PowBackward1"]),
    (lambda a, b: a ** 2, ["p:A", "u:A"]),
    (lambda a, b: a.exp(), ["p:ExpBackward0", "u:ExpBackward0"]),
    (lambda a, b: a.sin(), ["p:A", "u:A"]),
    (lambda a, b: a.tanh(), ["p:TanhBackward0", "u:TanhBackward0"]),
    (lambda a, b: a.sum(), []),
    (lambda a, b: a.softmax(1), ["p:SoftmaxBackward0", "u:SoftmaxBackward0"]),
    (lambda a, b: torch.nn.functional.mse_loss(a, b), ["p:A", "p:B", "u:A", "u:B"]),
    (lambda a, b: a * b.detach(), ["p:leaf", "u:leaf"]),
    (lambda a, b: a @ b[0], ["p:A", "p:SelectBackward0", "u:A", "u:SelectBackward0"]),
    (lambda a, b: a.max(), ["p:A", "p:MaxBackward1", "u:A", "u:MaxBackward1"]),
    (lambda a, b: torch.cat([a, b]), []),
    (lambda a, b: a.relu(), ["p:ReluBackward0", "u:ReluBackward0"]),
])
def test_pack_and_unpack_order_as_pytorch(build, expected):
    assert _logged(build) == expected


def test_addmm_packs_its_operands_in_the_shims_order():
    # PyTorch's AddmmBackward0 packs mat1 before mat2; the shim's composite node packs as its mm
    assert _logged(lambda a, b: torch.nn.functional.linear(a, b, b[0])) == [
        "p:TBackward0", "p:A", "u:TBackward0", "u:A"]


def _mlp_log(hooks=True):
    rng = np.random.default_rng(0)
    lin1, lin2 = torch.nn.Linear(4, 5), torch.nn.Linear(5, 3)
    with torch.no_grad():
        for p in (lin1.weight, lin1.bias, lin2.weight, lin2.bias):
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)), dtype=torch.float32))
    x = torch.tensor(rng.standard_normal((2, 4)), dtype=torch.float32)
    log = []

    def pack(t):
        log.append(("pack", tuple(t.shape), "x" if t is x else type(t.grad_fn).__name__ if t.grad_fn else None))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t

    def loss():
        return torch.nn.functional.cross_entropy(lin2(torch.relu(lin1(x))), torch.tensor([0, 2]))

    if hooks:
        with saved_tensors_hooks(pack, unpack):
            out = loss()
    else:
        out = loss()
    out.backward()
    return log, [p.grad.numpy().copy() for p in (lin1.weight, lin1.bias, lin2.weight, lin2.bias)]


def test_small_mlp():
    log, grads = _mlp_log()
    _, plain = _mlp_log(hooks=False)
    for g, p in zip(grads, plain):
        np.testing.assert_array_equal(g, p)
    packs = [entry for entry in log if entry[0] == "pack"]
    unpacks = [entry for entry in log if entry[0] == "unpack"]
    # PyTorch packs 8 (its NllLossBackward0 also keeps the log-probabilities); the first four as here
    # but for mat1/mat2 of the second addmm, whose order is swapped
    assert packs[:4] == [("pack", (2, 4), "x"), ("pack", (2, 5), "ReluBackward0"), ("pack", (5, 3), "TBackward0"),
                         ("pack", (2, 5), "ReluBackward0")]
    assert len(packs) == 7 and len(unpacks) == 7
    assert log.index(("unpack", (2, 4))) == len(log) - 1  # the first layer's input: read last
    assert [e[1] for e in unpacks[-4:]] == [(5, 3), (2, 5), (2, 5), (2, 4)]


def test_backward_reads_what_unpack_gives():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with saved_tensors_hooks(lambda t: t.detach().numpy().copy(), lambda arr: torch.tensor(arr * 0 + 3.0)):
        y = (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [6.0, 6.0]  # d(x*x) = x + x with both saved operands unpacked as 3


def test_unpack_must_give_a_tensor():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: 3, lambda p: p):
        y = x.sin().sum()
    with pytest.raises(TypeError) as info:
        y.backward()
    assert str(info.value) == "Output of saved tensor unpack_hook expected to be a Tensor but got result of type int"


def test_innermost_hooks_win_and_unpack_at_every_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    log = []
    with saved_tensors_hooks(lambda t: (log.append("outer"), t)[1], lambda p: p):
        with saved_tensors_hooks(lambda t: (log.append("inner"), t)[1], lambda p: (log.append("unpack"), p)[1]):
            y = x.sin().sum()
        z = x.cos().sum()
    y.backward(retain_graph=True)
    y.backward()
    z.backward()
    assert log == ["inner", "outer", "unpack", "unpack"]
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([1.0, 2.0]) - np.sin([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_custom_function_packs_saved_tensors():
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 3 * g * a ** 2

    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    log = []
    with saved_tensors_hooks(lambda t: (log.append("p"), t)[1], lambda p: (log.append("u"), p)[1]):
        y = Cube.apply(x).sum()
    y.backward()
    assert log == ["p", "u"] and x.grad.tolist() == [3.0, 12.0]


def test_save_on_cpu_and_second_derivatives():
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([2.0, -1.0], dtype=torch.float64, requires_grad=True)
    with save_on_cpu(pin_memory=True):
        y = ((x ** 3) * w).sin().sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    xs, ws = np.array([0.5, 1.5]), np.array([2.0, -1.0])
    u = xs ** 3 * ws
    np.testing.assert_allclose(g.detach().numpy(), np.cos(u) * 3 * xs ** 2 * ws, rtol=1e-13)
    np.testing.assert_allclose(h.numpy(), -np.sin(u) * (3 * xs ** 2 * ws) ** 2 + np.cos(u) * 6 * xs * ws, rtol=1e-13)


def test_against_pytorch_small_mlp_counts():
    real = pytest.importorskip("torch")
    counts = []
    for module in (real, torch):
        n = [0, 0]
        lin = module.nn.Linear(3, 2)
        x = module.ones(4, 3)
        with module.autograd.graph.saved_tensors_hooks(lambda t: (n.__setitem__(0, n[0] + 1), t)[1],
                                                       lambda t: (n.__setitem__(1, n[1] + 1), t)[1]):
            loss = module.nn.functional.mse_loss(module.tanh(lin(x)), module.zeros(4, 2))
        loss.backward()
        counts.append(n)
    assert counts[0] == counts[1]
