"""nn.utils.parametrize and nn.utils.parametrizations (weight_norm, spectral_norm,
orthogonal), and the deprecated nn.utils.weight_norm / spectral_norm: reprs, state_dict
keys, parameter order and errors as PyTorch 2.13 gives them (stored text), values
against NumPy, gradients through the parametrizations against central differences in
float64; compared with PyTorch itself where installed (spectral_norm with PyTorch's
u and v copied in)."""

import copy
import pickle
import re
import warnings

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.nn.utils import parametrizations as P
from srcgrad.nn.utils import parametrize
from tensor_checks import check_against_differences

nn = torch.nn


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class Scale(nn.Module):
    def forward(self, X):
        return X * 2.0

    def right_inverse(self, A):
        return A / 2.0


class Split(nn.Module):
    def forward(self, A, B):
        return A + B

    def right_inverse(self, X):
        return X / 2, X / 2


def linear(n_in=3, n_out=3):
    m = nn.Linear(n_in, n_out)
    with torch.no_grad():
        m.weight.copy_(torch.tensor(np.random.default_rng(n_in * 10 + n_out).standard_normal((n_out, n_in))))
        m.bias.copy_(torch.linspace(-1, 1, n_out))
    return m


SYMMETRIC_REPR = """ParametrizedLinear(
  in_features=3, out_features=3, bias=True
  (parametrizations): ModuleDict(
    (weight): ParametrizationList(
      (0): Symmetric()
      (1): Scale()
    )
  )
)"""


def test_register_moves_the_tensor_and_gives_the_module_a_class():
    m = linear()
    w = m.weight.detach().numpy().copy()
    original = m.weight
    parametrize.register_parametrization(m, "weight", Symmetric())
    parametrize.register_parametrization(m, "weight", Scale())
    assert repr(m) == SYMMETRIC_REPR
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert m.parametrizations.weight.original is original  # the same Parameter, its values right_inverse's
    np.testing.assert_array_equal(original.detach().numpy(), np.triu(w))  # Scale came later: not inverted
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * (np.triu(w) + np.triu(w, 1).T), rtol=1e-6)
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias") and not parametrize.is_parametrized(nn.Linear(2, 2))


def test_gradient_reaches_the_original():
    m = linear()
    parametrize.register_parametrization(m, "weight", Symmetric())
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    m(torch.tensor(x)).sum().backward()
    g = np.ones((2, 3)).T @ x  # d(sum(x @ W.T))/dW, W = triu(A) + triu(A, 1).T
    expected = np.triu(g) + np.triu(g.T, 1)
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(), expected)
    assert type(m.weight.grad_fn).__name__ == "AddBackward0"


def test_assignment_runs_right_inverse_and_checks():
    m = linear()
    parametrize.register_parametrization(m, "weight", Symmetric())
    m.weight = torch.eye(3) * 2
    np.testing.assert_array_equal(m.parametrizations.weight.original.detach().numpy(), np.eye(3) * 2)
    with raises(ValueError, "The tensor returned by `right_inverse` has dtype srcgrad.float64 while `original` has "
                            "dtype srcgrad.float32"):
        m.weight = torch.eye(3, dtype=torch.float64)

    class NoInverse(nn.Module):
        def forward(self, X):
            return X

    other = linear()
    parametrize.register_parametrization(other, "weight", NoInverse())
    with raises(RuntimeError, "parametrization NoInverse does not implement right_inverse."):
        other.weight = torch.ones(3, 3)


def test_errors():
    m = linear()
    with raises(ValueError, f"Module '{m}' does not have a parameter, a buffer, or a parametrized element with "
                            "name 'foo'"):
        parametrize.register_parametrization(m, "foo", Symmetric())

    class Shrink(nn.Module):
        def forward(self, X):
            return X[:2]

    with raises(ValueError, "Registering a parametrization may not change the shape of the tensor, unless `unsafe` "
                            "flag is enabled.\nunparametrized shape: srcgrad.Size([3, 3])\nparametrized shape: "
                            "srcgrad.Size([2, 3])"):
        parametrize.register_parametrization(linear(), "weight", Shrink())
    unsafe = parametrize.register_parametrization(linear(), "weight", Shrink(), unsafe=True)
    assert unsafe.weight.shape == (2, 3)
    stacked = parametrize.register_parametrization(linear(), "weight", Symmetric())
    with raises(ValueError, "Registering a parametrization may not change the shape of the tensor, unless the "
                            "`unsafe` flag is enabled.\nmodule.weight.shape: srcgrad.Size([3, 3])\n"
                            "parametrization(module.weight).shape: srcgrad.Size([2, 3])"):
        parametrize.register_parametrization(stacked, "weight", Shrink())
    with pytest.raises(KeyError, match=re.escape("attribute 'weight' already exists")):
        stacked.weight = nn.Parameter(torch.ones(3, 3))  # the property is not shadowed
    with raises(ValueError, f"Module {m} does not have a parametrization on weight"):
        parametrize.remove_parametrizations(m, "weight")
    with raises(ValueError, "ParametrizationList requires one or more modules."):
        parametrize.ParametrizationList([], torch.ones(2))
    with raises(RuntimeError, "Serialization of parametrized modules is only supported through state_dict(). See:\n"
                              "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                              "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"):
        pickle.dumps(stacked)


def test_several_originals():
    m = linear()
    w = m.weight.detach().numpy().copy()
    parametrize.register_parametrization(m, "weight", Split())
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    np.testing.assert_array_equal(m.parametrizations.weight.original1.detach().numpy(), w / 2)
    parametrize.remove_parametrizations(m, "weight")
    assert type(m).__name__ == "Linear" and list(m.state_dict()) == ["bias", "weight"]
    assert type(m.weight).__name__ == "Parameter"
    np.testing.assert_array_equal(m.weight.detach().numpy(), w)
    with raises(ValueError, "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                            "in terms of a sequence of tensors."):
        parametrize.remove_parametrizations(parametrize.register_parametrization(linear(), "weight", Split()),
                                            "weight", leave_parametrized=False)


def test_remove_keeps_the_value_or_the_original():
    m = parametrize.register_parametrization(linear(), "weight", Scale())
    original, value = m.parametrizations.weight.original, m.weight.detach().numpy()
    parametrize.remove_parametrizations(m, "weight")
    assert m.weight is original and type(m).__name__ == "Linear" and not hasattr(m, "parametrizations")
    np.testing.assert_array_equal(m.weight.detach().numpy(), value)
    m = parametrize.register_parametrization(linear(), "weight", Scale())
    kept = m.parametrizations.weight.original.detach().numpy().copy()
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    np.testing.assert_array_equal(m.weight.detach().numpy(), kept)


def test_cached_computes_once():
    m = parametrize.register_parametrization(linear(), "weight", Symmetric())
    calls = []
    m.parametrizations.weight[0].register_forward_hook(lambda *args: calls.append(1))
    with parametrize.cached():
        first, second = m.weight, m.weight
    assert first is second and len(calls) == 1
    assert m.weight is not first and len(calls) == 2


def test_buffers_deepcopy_training_and_loading():
    m = linear()
    m.register_buffer("scale", torch.eye(3))
    parametrize.register_parametrization(m, "scale", Symmetric())
    assert [n for n, _ in m.named_buffers()] == ["parametrizations.scale.original"]
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear" and c.parametrizations.scale.original is not \
        m.parametrizations.scale.original
    m.eval()
    assert not m.parametrizations.scale[0].training
    result = m.load_state_dict({"weight": torch.zeros(3, 3), "bias": torch.zeros(3),
                                "parametrizations.scale.original": torch.ones(3, 3)})
    assert repr(result) == "<All keys matched successfully>"
    np.testing.assert_array_equal(m.scale.numpy(), np.triu(np.ones((3, 3))) + np.triu(np.ones((3, 3)), 1).T)


WEIGHT_NORM_REPR = """ParametrizedLinear(
  in_features=3, out_features=4, bias=True
  (parametrizations): ModuleDict(
    (weight): ParametrizationList(
      (0): _WeightNorm()
    )
  )
)"""


@pytest.mark.parametrize("dim, node", [(0, "WeightNormInterfaceBackward0"), (1, "WeightNormInterfaceBackward0"),
                                       (None, "MulBackward0")])
def test_weight_norm(dim, node):
    m = linear(3, 4)
    w = m.weight.detach().numpy().copy()
    P.weight_norm(m, dim=dim)
    assert repr(m) == WEIGHT_NORM_REPR
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    axes = None if dim is None else tuple(a for a in range(2) if a != dim)
    g = np.sqrt((w.astype(np.float64) ** 2).sum(axis=axes, keepdims=dim is not None))
    np.testing.assert_allclose(m.parametrizations.weight.original0.detach().numpy(), g, rtol=1e-6)
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-5, atol=1e-6)
    assert type(m.weight.grad_fn).__name__ == node
    m.weight = torch.ones(4, 3)
    np.testing.assert_allclose(m.weight.detach().numpy(), np.ones((4, 3)), rtol=1e-6)
    weight_norm = m.parametrizations.weight[0]
    v0 = np.random.default_rng(1).standard_normal((4, 3))
    g0 = np.random.default_rng(2).standard_normal(np.asarray(g).shape)
    check_against_differences(lambda gg, vv: weight_norm(gg, vv), [g0, v0])


def test_weight_norm_loads_the_deprecated_forms_state_dict():
    old = linear(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        nn.utils.weight_norm(old)
    new = P.weight_norm(nn.Linear(3, 4))
    assert repr(new.load_state_dict(old.state_dict())) == "<All keys matched successfully>"
    np.testing.assert_allclose(new.weight.detach().numpy(), old.weight.detach().numpy(), rtol=1e-6)


def test_spectral_norm():
    torch.manual_seed(0)
    m = P.spectral_norm(linear(5, 4))
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
                                    "parametrizations.weight.0._v"]
    w = m.parametrizations.weight.original.detach().numpy().astype(np.float64)
    for _ in range(30):
        m.weight
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(m.weight.detach().numpy(), w / sigma, rtol=1e-5)
    m.eval()
    u = m.parametrizations.weight[0]._u.numpy().copy()
    m.weight
    np.testing.assert_array_equal(m.parametrizations.weight[0]._u.numpy(), u)  # no power iteration in eval mode
    norm = m.parametrizations.weight[0]
    norm.double()
    check_against_differences(lambda weight: norm(weight), [w])
    with raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1] but got 2)"):
        P.spectral_norm(linear(), dim=2)
    with raises(ValueError, "Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        P.spectral_norm(linear(), n_power_iterations=0)
    lin = linear()
    with raises(ValueError, f"Module '{lin}' has no parameter or buffer with name 'foo'"):
        P.spectral_norm(lin, "foo")


@pytest.mark.parametrize("shape, orthogonal_map", [((4, 4), None), ((4, 4), "cayley"), ((4, 4), "householder"),
                                                   ((5, 3), None), ((3, 5), None), ((4, 4), "matrix_exp")])
def test_orthogonal(shape, orthogonal_map):
    torch.manual_seed(0)
    m = P.orthogonal(linear(shape[1], shape[0]), orthogonal_map=orthogonal_map)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0.base"]
    q = m.weight.detach().numpy().astype(np.float64)
    small = min(shape)
    np.testing.assert_allclose(q @ q.T if shape[0] < shape[1] else q.T @ q, np.eye(small), atol=1e-5)
    orth = m.parametrizations.weight[0]
    orth.double()
    x0 = np.random.default_rng(3).standard_normal(shape)
    check_against_differences(lambda x: orth(x), [x0])


def test_orthogonal_without_trivialization_and_errors():
    m = P.orthogonal(linear(3, 4), use_trivialization=False)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    q = m.weight.detach().numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
    square = P.orthogonal(linear(4, 4), use_trivialization=False)  # registering skips the missing inverse
    with raises(NotImplementedError, "It is not possible to assign to the matrix exponential or the Cayley "
                                     "parametrizations when use_trivialization=False."):
        square.weight = torch.eye(4)
    with raises(ValueError, "Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
        P.orthogonal(linear(), "bias")
    with raises(ValueError, 'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: foo'):
        P.orthogonal(linear(), orthogonal_map="foo")


def test_deprecated_weight_norm():
    m = linear(3, 4)
    w = m.weight.detach().numpy().copy()
    with pytest.warns(FutureWarning, match=re.escape("`torch.nn.utils.weight_norm` is deprecated in favor of "
                                                     "`torch.nn.utils.parametrizations.weight_norm`.")):
        nn.utils.weight_norm(m)
    assert repr(m) == "Linear(in_features=3, out_features=4, bias=True)"
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert type(m.weight.grad_fn).__name__ == "WeightNormInterfaceBackward0"
    with pytest.warns(FutureWarning), raises(RuntimeError, "Cannot register two weight_norm hooks on the same "
                                                           "parameter weight"):
        nn.utils.weight_norm(m)
    with torch.no_grad():
        m.weight_g.mul_(2.0)
    m(torch.ones(1, 3))  # the hook recomputes the weight before the call
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * w, rtol=1e-6)
    nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"] and type(m.weight).__name__ == "Parameter"
    with raises(ValueError, f"weight_norm of 'weight' not found in {m}"):
        nn.utils.remove_weight_norm(m)


def test_deprecated_spectral_norm():
    torch.manual_seed(0)
    m = nn.utils.spectral_norm(linear(3, 4))
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert m.state_dict()._metadata[""] == {"version": 1, "spectral_norm": {"weight.version": 1}}
    assert repr(m.load_state_dict(m.state_dict())) == "<All keys matched successfully>"
    with raises(RuntimeError, "Cannot register two spectral_norm hooks on the same parameter weight"):
        nn.utils.spectral_norm(m)
    m(torch.ones(1, 3))
    w = m.weight_orig.detach().numpy().astype(np.float64)
    for _ in range(30):
        m(torch.ones(1, 3))
    np.testing.assert_allclose(m.weight.detach().numpy(), w / np.linalg.svd(w, compute_uv=False)[0], rtol=1e-5)
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"] and type(m.weight).__name__ == "Parameter"


# --- against PyTorch ---------------------------------------------------------------------------------------------


def _pair(real, kind, *args):
    torch.manual_seed(0)
    real.manual_seed(0)
    theirs, mine = getattr(real.nn, kind)(*args), getattr(nn, kind)(*args)
    for (name, p), (other, q) in zip(theirs.state_dict().items(), mine.state_dict().items()):
        assert name == other
        q.copy_(torch.tensor(p.numpy()))
    return theirs, mine


@pytest.mark.parametrize("how", ["weight_norm", "weight_norm_dim1", "spectral_norm", "orthogonal", "cayley",
                                 "householder", "old_weight_norm", "old_spectral_norm"])
@pytest.mark.parametrize("layer", [("Linear", 3, 4), ("Linear", 4, 4), ("Conv2d", 2, 3, 3)])
def test_against_pytorch(how, layer):
    real = pytest.importorskip("torch")
    if how in ("orthogonal", "cayley", "householder") and layer[0] != "Linear" or how == "cayley" and layer[1] != layer[2]:
        pytest.skip("orthogonal maps of matrices only; cayley of square ones")
    theirs, mine = _pair(real, *layer)

    def apply(lib, m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return {"weight_norm": lambda: lib.nn.utils.parametrizations.weight_norm(m),
                    "weight_norm_dim1": lambda: lib.nn.utils.parametrizations.weight_norm(m, dim=1),
                    "spectral_norm": lambda: lib.nn.utils.parametrizations.spectral_norm(m),
                    "orthogonal": lambda: lib.nn.utils.parametrizations.orthogonal(m),
                    "cayley": lambda: lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map="cayley"),
                    "householder": lambda: lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map="householder"),
                    "old_weight_norm": lambda: lib.nn.utils.weight_norm(m),
                    "old_spectral_norm": lambda: lib.nn.utils.spectral_norm(m)}[how]()

    apply(real, theirs)
    apply(torch, mine)
    assert repr(mine) == repr(theirs)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    mine.load_state_dict({k: torch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})  # u, v, base too
    shape = (2, layer[1]) if layer[0] == "Linear" else (2, layer[1], 5, 5)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for _ in range(2):  # the second call sees the power iteration's updated u, v
        out_theirs, out_mine = theirs(real.tensor(x)), mine(torch.tensor(x))
        np.testing.assert_allclose(out_mine.detach().numpy(), out_theirs.detach().numpy(), rtol=2e-6, atol=2e-6)
        (out_theirs ** 2).sum().backward()
        (out_mine ** 2).sum().backward()
        for p, q in zip(theirs.parameters(), mine.parameters()):
            np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-5)
            p.grad, q.grad = None, None
        for key, value in theirs.state_dict().items():
            np.testing.assert_allclose(mine.state_dict()[key].numpy(), value.numpy(), rtol=1e-5, atol=1e-6)
        node_theirs, node_mine = theirs.weight.grad_fn, mine.weight.grad_fn  # a read is a power iteration step
        assert type(node_mine).__name__ == type(node_theirs).__name__
