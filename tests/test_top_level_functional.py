"""The torch.* forms of nn.functional ops (srcgrad/nn/top_level.py): PyTorch 2.13's
top-level signatures (stored values), mapped onto nn.functional."""

import numpy as np
import pytest

import srcgrad as torch
import srcgrad.nn.functional as F

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
T = [[0.2, 0.9, 0.4], [0.7, 0.1, 0.5]]


def x():
    return torch.tensor(X, requires_grad=True)


def node(t):
    return type(t.grad_fn).__name__


def test_positional_signatures_map_onto_functional():
    inp = torch.arange(30.0).reshape(2, 3, 5)
    w = torch.arange(24.0).reshape(4, 3, 2) / 10
    assert torch.conv1d(inp, w, None, 1, 1).tolist() == F.conv1d(inp, w, None, 1, 1).tolist()
    wt = torch.arange(12.0).reshape(3, 2, 2) / 10
    assert torch.conv_transpose1d(inp, wt, None, 2, 0, 1).tolist() == F.conv_transpose1d(inp, wt, None, 2, 0, 1).tolist()
    e = torch.embedding(torch.arange(20.0).reshape(5, 4), torch.tensor([0, 2]), -1)
    assert e.tolist() == [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]
    m, v = torch.zeros(3), torch.ones(3)
    out = torch.batch_norm(inp, None, None, m, v, True, 0.1, 1e-5, True)
    assert out.shape == (2, 3, 5) and np.allclose(m.numpy(), [0.95, 1.45, 1.95]) and np.allclose(v.numpy(), [7.372222] * 3)
    assert torch.layer_norm(x(), (3,), None, None, 1e-5, True).shape == (2, 3)
    assert torch.constant_pad_nd(torch.ones(2), (1, 2), 3.5).tolist() == [3.5, 1.0, 1.0, 3.5, 3.5]
    vals, idx = torch.adaptive_max_pool1d(inp, 2)
    assert vals.shape == (2, 3, 2) and idx.dtype == torch.int64
    assert torch.max_pool1d(inp, 2).tolist() == F.max_pool1d(inp, 2).tolist()
    assert torch.avg_pool1d(inp, 3, (), 1, True, False).tolist() == F.avg_pool1d(inp, 3, None, 1, True, False).tolist()


def test_dropout_forms():
    assert torch.dropout(x(), 0.5, False).tolist() == X
    assert torch.dropout(x(), 1.0, True).tolist() == [[0.0] * 3] * 2
    y = torch.tensor(X)
    assert torch.dropout_(y, 1.0, True) is y and y.tolist() == [[0.0] * 3] * 2
    mask = torch.dropout(torch.ones(40, 40), 0.5, True)
    assert set(np.unique(mask.numpy()).tolist()) <= {0.0, 2.0}
    kept = torch.feature_dropout(torch.ones(30, 4, 3), 0.5, True).numpy()
    assert all(len(set(row.ravel().tolist())) == 1 for row in kept.reshape(120, 3))  # whole channels
    with pytest.raises(RuntimeError) as e:
        torch.dropout(x(), 1.5, True)
    assert str(e.value) == "dropout probability has to be between 0 and 1, but got 1.5"
    with pytest.raises(RuntimeError) as e:
        torch.feature_dropout(torch.ones(3), 0.5, True)
    assert str(e.value) == "Feature dropout requires at least 2 dimensions in the input"
    assert torch.alpha_dropout(x(), 0.5, False).tolist() == X


def test_losses_take_an_int_reduction_and_reduce_nothing_by_default():
    a, t = x(), torch.tensor(T)
    none = torch.binary_cross_entropy_with_logits(a, t)
    assert none.shape == (2, 3) and node(none) == "BinaryCrossEntropyWithLogitsBackward0"
    mean = torch.binary_cross_entropy_with_logits(a, t, None, None, 1)
    np.testing.assert_allclose(mean.item(), none.mean().item(), rtol=1e-6)
    np.testing.assert_allclose(torch.kl_div(a, t, 2).item(), (t * (t.log() - a)).sum().item(), rtol=1e-6)
    assert torch.kl_div(a, t, 7).shape == (2, 3)  # an int other than 1 or 2 reduces nothing, as PyTorch's
    with pytest.raises(TypeError) as e:
        torch.kl_div(a, t, "mean")
    assert str(e.value) == "kl_div(): argument 'reduction' (position 3) must be int, not str"
    y = torch.tensor([1.0, -1.0])
    assert torch.hinge_embedding_loss(a, torch.tensor([[1.0, -1, 1], [-1, -1, 1]]), 0.5, 2).item() == 3.5
    assert torch.margin_ranking_loss(a[0, :2], a[1, :2], y, 0.1).tolist() == pytest.approx([1.1, 0.0])
    assert torch.cosine_embedding_loss(a, a, y, 0.2, 1).item() == pytest.approx(0.4)  # (0 + (1 - 0.2)) / 2
    assert torch.triplet_margin_loss(a, a, a + 1, 1.0, 2, 1e-6, False, 0).shape == (2,)
    assert torch.poisson_nll_loss(a, t, True, False, 1e-8, 2).item() == pytest.approx(
        float((np.exp(X) - np.array(T) * np.array(X)).sum()), rel=1e-6)


def test_activations_and_in_place_forms():
    assert torch.threshold(x(), 0.6, -1.0).tolist() == [[-1.0, -1.0, 2.0], [1.5, -1.0, -1.0]]
    y = torch.tensor(X)
    assert torch.threshold_(y, 0.6, 20.0) is y and y.tolist() == [[20.0, 20.0, 2.0], [1.5, 20.0, 20.0]]
    assert torch.hardshrink(x(), 0.6).tolist() == [[0.0, -1.0, 2.0], [1.5, 0.0, -0.75]]
    s = torch.tensor(X)
    torch.selu_(s)
    assert np.allclose(s.numpy(), F.selu(torch.tensor(X)).numpy())
    c = torch.tensor(X)
    torch.celu_(c, 2.0)
    assert np.allclose(c.numpy(), F.celu(torch.tensor(X), 2.0).numpy())
    r = torch.rrelu_(torch.tensor(X), 0.1, 0.3)
    assert r.tolist()[0] == pytest.approx([0.5, -0.2, 2.0])
    with pytest.raises(NotImplementedError, match=r"rrelu\(generator=...\) is not supported by the shim"):
        torch.rrelu(x(), generator=torch.Generator())
    with pytest.raises(RuntimeError) as e:
        torch.selu_(x())
    assert str(e.value) == "a leaf Variable that requires grad is being used in an in-place operation."


def test_against_pytorch():
    real = pytest.importorskip("torch")
    a, b = np.array(X, np.float32), np.array(T, np.float32)
    pairs = [
        ("kl_div", (a, b), ()), ("kl_div", (a, b), (1,)), ("binary_cross_entropy_with_logits", (a, b), ()),
        ("hinge_embedding_loss", (a, np.sign(b - 0.5)), (0.5, 1)), ("cosine_similarity", (a, b), ()),
        ("pairwise_distance", (a, b), (3.0, 1e-6, True)), ("hardshrink", (a,), (0.6,)), ("selu", (a,), ()),
        ("celu", (a,), (0.5,)), ("threshold", (a,), (0.1, -1.0)), ("layer_norm", (a,), ((3,),)),
        ("triplet_margin_loss", (a, b, a * 2), ()), ("poisson_nll_loss", (a, b), (True, False, 1e-8, 1)),
    ]
    for name, arrays, args in pairs:
        ours = getattr(torch, name)(*(torch.tensor(v) for v in arrays), *args)
        theirs = getattr(real, name)(*(real.tensor(v) for v in arrays), *args)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_pdist():
    x = torch.tensor([[0.0, 1, 2], [3, 1, 0], [1, 1, 1], [0, 0, 0.5]], requires_grad=True)
    y = torch.pdist(x)
    assert node(y) == "PdistBackward0"
    np.testing.assert_allclose(y.detach().numpy(), [3.6055512, 1.4142135, 1.8027756, 2.236068, 3.2015622, 1.5], rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[0], [-1.5391572, 0.5547002, 2.0938573], rtol=1e-6)
    assert torch.pdist(x, 1).tolist() == [5.0, 2.0, 2.5, 3.0, 4.5, 2.5]
    assert torch.pdist(torch.ones(1, 3)).shape == (0,)
    for bad, message in [(torch.ones(3), "pdist only supports 2D tensors, got: 1D"),
                         (torch.ones(3, 2, dtype=torch.int64), "pdist only supports floating-point dtypes")]:
        with pytest.raises(RuntimeError) as e:
            torch.pdist(bad)
        assert str(e.value) == message
    with pytest.raises(RuntimeError) as e:
        torch.pdist(x, -1)
    assert str(e.value) == "pdist only supports non-negative p values"
    with pytest.raises(NotImplementedError, match="pdist with p=0.5 is not supported by the shim"):
        torch.pdist(x, 0.5)


def test_in_place_activations_record_pytorchs_in_place_nodes():
    cases = [(torch.selu_, (), "EluBackward1"), (torch.celu_, (2.0,), "CeluBackward1"),
             (torch.celu_, (), "CeluBackward1"), (torch.threshold_, (0.1, 20.0), "ThresholdBackward1"),
             (torch.rrelu_, (), "RreluWithNoiseBackward1"),
             (lambda y: F.leaky_relu(y, 0.2, inplace=True), (), "LeakyReluBackward1"),
             (lambda y: F.elu(y, inplace=True), (), "EluBackward1"), (lambda y: F.silu(y, inplace=True), (), "SiluBackward0")]
    for fn, args, name in cases:
        leaf = torch.tensor(X, requires_grad=True)
        y = leaf * 1
        assert fn(y, *args) is y and node(y) == name
        y.sum().backward()
        assert leaf.grad.shape == (2, 3)
    out = F.threshold(x(), 0.1, 20.0)
    assert node(out) == "ThresholdBackward0"


def test_in_place_activations_give_dual_tensors_the_tangent_of_the_op():
    fwd = torch.autograd.forward_ad
    cases = [(lambda y: torch.selu_(y), [1.0507010, 1.0507010, 1.0507010]),
             (lambda y: F.threshold(y, 1.5, 0.0, inplace=True), [0.0, 1.0, 1.0]),
             (lambda y: torch.celu_(y - 2, 2.0), [np.exp(-0.5), 1.0, 1.0])]
    for fn, want in cases:
        with fwd.dual_level():
            y = fwd.make_dual(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 1.0, 1.0])) * 1
            out = fn(y)
            np.testing.assert_allclose(fwd.unpack_dual(out).tangent.numpy(), want, rtol=1e-6)
