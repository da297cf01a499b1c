"""embedding, bilinear, cosine_similarity and pairwise_distance (functions and modules),
Unflatten, ModuleDict and ParameterList, as in PyTorch: values against NumPy,
gradients (and second derivatives) against central differences in float64, the
padding row's gradient, initialization, registration, reprs and errors; compared with
PyTorch itself where installed."""

import collections
import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def test_embedding_looks_rows_up_and_skips_the_padding_row():
    weight = RNG.standard_normal((5, 3))
    idx = np.array([[0, 2, 4], [4, 2, 0]])
    w = torch.tensor(weight, requires_grad=True)
    y = F.embedding(torch.tensor(idx), w, padding_idx=2)
    assert y.grad_fn.name() == "EmbeddingBackward0" and y.shape == (2, 3, 3) and y.dtype == torch.float64
    np.testing.assert_array_equal(y.detach().numpy(), weight[idx])
    seed = RNG.standard_normal((2, 3, 3))
    (y * torch.tensor(seed)).sum().backward()
    expected = np.zeros_like(weight)
    np.add.at(expected, idx, seed)
    expected[2] = 0
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-15)
    check_against_differences(lambda t: F.embedding(torch.tensor(idx), t), [weight])
    with raises(IndexError, "index out of range in self"):
        F.embedding(torch.tensor([5]), w)
    with raises(RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                              "Long, Int; but got srcgrad.FloatTensor instead (while checking arguments for embedding)"):
        F.embedding(torch.tensor([1.0]), w)


def test_embedding_module():
    torch.manual_seed(0)
    m = nn.Embedding(1000, 8, padding_idx=-1)
    assert repr(m) == "Embedding(1000, 8, padding_idx=999)" and m.padding_idx == 999
    w = m.weight.detach().numpy()
    assert w.shape == (1000, 8) and w.dtype == np.float32 and not w[999].any()
    assert abs(w.mean()) < 0.05 and abs(w.std() - 1) < 0.05  # the standard normal
    out = m(torch.tensor([[1, 999]]))
    out.sum().backward()
    assert out.shape == (1, 2, 8) and m.weight.grad[1].tolist() == [1.0] * 8 and not m.weight.grad[999].any()
    pretrained = nn.Embedding.from_pretrained(torch.ones(4, 2))
    assert not pretrained.weight.requires_grad and repr(pretrained) == "Embedding(4, 2)"
    with raises(AssertionError, "Padding_idx must be within num_embeddings"):
        nn.Embedding(5, 2, padding_idx=5)


def test_bilinear_function_and_module():
    x1, x2, w, b = (RNG.standard_normal(s) for s in [(2, 4, 3), (2, 4, 2), (5, 3, 2), (5,)])
    y = F.bilinear(torch.tensor(x1), torch.tensor(x2), torch.tensor(w), torch.tensor(b))
    np.testing.assert_allclose(y.numpy(), np.einsum("...i,kij,...j->...k", x1, w, x2) + b, rtol=1e-13)
    check_against_differences(F.bilinear, [x1[0], x2[0], w, b])
    check_second_against_differences(lambda *t: F.bilinear(*t) ** 2, [x1[0, :2], x2[0, :2], w[:2], b[:2]])
    with raises(RuntimeError, "All tensors must have the same dtype, got input1: float, input2: float, weight: double"):
        F.bilinear(torch.ones(2, 3), torch.ones(2, 2), torch.tensor(w))
    torch.manual_seed(0)
    m = nn.Bilinear(4, 2, 50)
    assert repr(m) == "Bilinear(in1_features=4, in2_features=2, out_features=50, bias=True)"
    assert [(n, p.shape) for n, p in m.named_parameters()] == [("weight", (50, 4, 2)), ("bias", (50,))]
    weights = m.weight.detach().numpy()
    assert np.abs(weights).max() <= 0.5 and np.abs(weights).max() > 0.45 and np.abs(m.bias.detach().numpy()).max() <= 0.5
    assert m(torch.ones(3, 4), torch.ones(3, 2)).shape == (3, 50)


def test_cosine_similarity_and_pairwise_distance():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    a[1] = 0  # its norm is clamped at eps: similarity 0, finite gradients
    y = F.cosine_similarity(torch.tensor(a), torch.tensor(b))
    expected = (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1), 1e-8) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-14)
    check_against_differences(F.cosine_similarity, [a[[0, 2, 3]], b[[0, 2, 3]]])
    check_second_against_differences(F.cosine_similarity, [a[[0, 2, 3]], b[[0, 2, 3]]])
    assert F.cosine_similarity(torch.tensor(a), torch.tensor(b[:1]), dim=-1).shape == (4,)
    d = F.pairwise_distance(torch.tensor(a, requires_grad=True), torch.tensor(b))
    assert d.grad_fn.name() == "NormBackward1"
    np.testing.assert_allclose(d.detach().numpy(), np.linalg.norm(a - b + 1e-6, axis=-1), rtol=1e-14)
    check_against_differences(lambda s, t: F.pairwise_distance(s, t, p=3.0, keepdim=True), [a, b])
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity()" and repr(nn.PairwiseDistance()) == "PairwiseDistance()"
    assert nn.PairwiseDistance(p=1.0)(torch.tensor(a), torch.tensor(b)).tolist() == pytest.approx(
        np.abs(a - b + 1e-6).sum(1), rel=1e-14)


def test_unflatten_module_dict_and_parameter_list():
    u = nn.Unflatten(1, (2, -1))
    assert repr(u) == "Unflatten(dim=1, unflattened_size=(2, -1))"
    assert u(torch.ones(4, 6, 5)).shape == (4, 2, 3, 5)
    d = nn.ModuleDict({"conv": nn.Conv2d(1, 2, 3), "act": nn.ReLU()})
    d["out"] = nn.Linear(2, 1)
    assert list(d) == ["conv", "act", "out"] and "act" in d and len(d) == 3
    assert [n for n, _ in d.named_parameters()] == ["conv.weight", "conv.bias", "out.weight", "out.bias"]
    assert repr(d) == ("ModuleDict(\n  (conv): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))\n  (act): ReLU()\n"
                       "  (out): Linear(in_features=2, out_features=1, bias=True)\n)")
    assert isinstance(d.pop("act"), nn.ReLU) and list(d.keys()) == ["conv", "out"]
    d.update([("act", nn.Tanh())])
    assert list(d) == ["conv", "out", "act"]
    plain = torch.zeros(4)
    p = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), plain])
    assert type(p[1]) is nn.Parameter and p[1].requires_grad and p[-1] is p[1]
    p[1].data[0] = 5.0
    assert plain[0].item() == 5.0  # the Parameter shares the tensor's memory
    p.append(torch.ones(1))
    assert [n for n, _ in p.named_parameters()] == ["0", "1", "2"] and len(p) == 3 and len(p[1:]) == 2
    assert repr(p) == ("ParameterList(\n    (0): Parameter containing: [srcgrad.float32 of size 2x3]\n"
                       "    (1): Parameter containing: [srcgrad.float32 of size 4]\n"
                       "    (2): Parameter containing: [srcgrad.float32 of size 1]\n)")
    with raises(IndexError, "index 3 is out of range"):
        p[3]
    with raises(TypeError, "ParameterList.extend should be called with an iterable, but got Tensor"):
        p.extend(torch.ones(2))
    model = nn.Sequential(collections.OrderedDict([("norm", nn.LayerNorm(3)), ("params", p)]))
    assert "params.0" in model.state_dict() and "norm.weight" in model.state_dict()


def _pytorch_run(lib, a, b, w):
    nnf = lib.nn.functional
    at, bt, wt = (lib.tensor(x, requires_grad=True) for x in (a, b, w))
    outs = [nnf.cosine_similarity(at, bt), nnf.pairwise_distance(at, bt), nnf.bilinear(at, bt, wt),
            nnf.embedding(lib.tensor([[0, 1], [3, 1]]), at, padding_idx=1)]
    names, arrays = [], []
    for y in outs:
        grads = lib.autograd.grad((y * y).sum(), [at, bt, wt], create_graph=True, allow_unused=True)
        terms = [g.sum() for g in grads if g is not None and g.requires_grad]
        second = lib.autograd.grad(sum(terms), [at, bt, wt], allow_unused=True) if terms else [None] * 3
        arrays += [y.detach().numpy()] + [np.zeros(1) if g is None else g.detach().numpy() for g in grads + second]
        names.append(type(y.grad_fn).__name__)
    return names, arrays


def test_against_pytorch():
    real = pytest.importorskip("torch")
    a, b, w = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3)), RNG.standard_normal((2, 3, 3))
    mine, theirs = _pytorch_run(torch, a, b, w), _pytorch_run(real, a, b, w)
    assert mine[0] == theirs[0]
    for x, y in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-13)
