"""Lazy modules (nn.Lazy*, nn.parameter.UninitializedParameter/UninitializedBuffer,
nn.modules.lazy.LazyModuleMixin) as PyTorch 2.13's: reprs before and after the first
call, the eager class they become, state_dict keys and shapes, the refusals of an
uninitialized tensor, state_dict loading both ways, and initial values drawn from
srcgrad's generator as the eager layers draw them. Expected text recorded from PyTorch."""

import copy
import pickle
import re
import warnings

import numpy as np
import pytest

import srcgrad as torch

nn = torch.nn

SHAPE_REFUSED = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
                 "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
                 "`forward` to initialize the parameters before accessing their attributes.")


def used(method, kind="UninitializedParameter"):
    return (f"Attempted to use an uninitialized parameter in <method '{method}' of 'srcgrad.Tensor' objects>. "
            "This error happens when you are using a `LazyModule` or explicitly manipulating "
            f"`srcgrad.nn.parameter.{kind}` objects. When using LazyModules Call `forward` with a dummy batch to "
            "initialize the parameters before calling srcgrad functions")


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


CASES = [
    ('LazyLinear(3)', (2, 4), 'LazyLinear(in_features=0, out_features=3, bias=True)',
     'Linear(in_features=4, out_features=3, bias=True)', 'Linear', [('weight', (3, 4)), ('bias', (3,))], (2, 3)),
    ('LazyLinear(2, bias=False)', (5,), 'LazyLinear(in_features=0, out_features=2, bias=False)',
     'Linear(in_features=5, out_features=2, bias=False)', 'Linear', [('weight', (2, 5))], (2,)),
    ('LazyConv1d(4, 3, padding=1, bias=False)', (2, 3, 7),
     'LazyConv1d(0, 4, kernel_size=(3,), stride=(1,), padding=(1,), bias=False)',
     'Conv1d(3, 4, kernel_size=(3,), stride=(1,), padding=(1,), bias=False)', 'Conv1d', [('weight', (4, 3, 3))],
     (2, 4, 7)),
    ('LazyConv2d(4, 3, groups=2, stride=2)', (1, 2, 5, 5),
     'LazyConv2d(0, 4, kernel_size=(3, 3), stride=(2, 2), groups=2)',
     'Conv2d(2, 4, kernel_size=(3, 3), stride=(2, 2), groups=2)', 'Conv2d', [('weight', (4, 1, 3, 3)), ('bias', (4,))],
     (1, 4, 2, 2)),
    ('LazyConv2d(4, 3)', (2, 5, 5), 'LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1))',
     'Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1))', 'Conv2d', [('weight', (4, 2, 3, 3)), ('bias', (4,))], (4, 3, 3)),
    ('LazyConv3d(2, 2)', (1, 3, 4, 4, 4), 'LazyConv3d(0, 2, kernel_size=(2, 2, 2), stride=(1, 1, 1))',
     'Conv3d(3, 2, kernel_size=(2, 2, 2), stride=(1, 1, 1))', 'Conv3d', [('weight', (2, 3, 2, 2, 2)), ('bias', (2,))],
     (1, 2, 3, 3, 3)),
    ('LazyConvTranspose1d(4, 3, stride=2)', (2, 3, 5), 'LazyConvTranspose1d(0, 4, kernel_size=(3,), stride=(2,))',
     'ConvTranspose1d(3, 4, kernel_size=(3,), stride=(2,))', 'ConvTranspose1d', [('weight', (3, 4, 3)), ('bias', (4,))],
     (2, 4, 11)),
    ('LazyConvTranspose2d(4, 3, groups=2, output_padding=1, stride=2)', (1, 6, 5, 5),
     'LazyConvTranspose2d(0, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), groups=2)',
     'ConvTranspose2d(6, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), groups=2)', 'ConvTranspose2d',
     [('weight', (6, 2, 3, 3)), ('bias', (4,))], (1, 4, 12, 12)),
    ('LazyConvTranspose3d(2, 2)', (3, 2, 2, 2), 'LazyConvTranspose3d(0, 2, kernel_size=(2, 2, 2), stride=(1, 1, 1))',
     'ConvTranspose3d(3, 2, kernel_size=(2, 2, 2), stride=(1, 1, 1))', 'ConvTranspose3d',
     [('weight', (3, 2, 2, 2, 2)), ('bias', (2,))], (2, 3, 3, 3)),
    ('LazyBatchNorm1d()', (4, 3),
     'LazyBatchNorm1d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)',
     'BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)', 'BatchNorm1d',
     [('weight', (3,)), ('bias', (3,)), ('running_mean', (3,)), ('running_var', (3,)), ('num_batches_tracked', ())],
     (4, 3)),
    ('LazyBatchNorm2d(affine=False)', (2, 3, 4, 4),
     'LazyBatchNorm2d(0, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=True)',
     'BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=True)', 'BatchNorm2d',
     [('running_mean', (3,)), ('running_var', (3,)), ('num_batches_tracked', ())], (2, 3, 4, 4)),
    ('LazyBatchNorm3d(momentum=None)', (2, 2, 2, 2, 2),
     'LazyBatchNorm3d(0, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)',
     'BatchNorm3d(2, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)', 'BatchNorm3d',
     [('weight', (2,)), ('bias', (2,)), ('running_mean', (2,)), ('running_var', (2,)), ('num_batches_tracked', ())],
     (2, 2, 2, 2, 2)),
    ('LazyInstanceNorm1d()', (2, 3, 4),
     'LazyInstanceNorm1d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)',
     'InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)', 'InstanceNorm1d',
     [('weight', (3,)), ('bias', (3,)), ('running_mean', (3,)), ('running_var', (3,)), ('num_batches_tracked', ())],
     (2, 3, 4)),
    ('LazyInstanceNorm2d(track_running_stats=False)', (2, 3, 4, 4),
     'LazyInstanceNorm2d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)',
     'InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)', 'InstanceNorm2d',
     [('weight', (3,)), ('bias', (3,))], (2, 3, 4, 4)),
]


@pytest.mark.parametrize("source, shape, before, after, becomes, state, out_shape", CASES)
def test_lazy_layer_repr_class_and_state_after_first_call(source, shape, before, after, becomes, state, out_shape):
    m = eval("nn." + source)
    assert repr(m) == before
    assert m.has_uninitialized_params()
    assert all(repr(v) in ("<UninitializedParameter>", "<UninitializedBuffer>")
               for k, v in m.state_dict().items() if k != "num_batches_tracked")
    assert [k for k, _ in state] == list(m.state_dict())
    y = m(torch.ones(shape))
    assert repr(m) == after
    assert type(m) is getattr(nn, becomes)
    assert not hasattr(m, "_initialize_hook") and len(m._forward_pre_hooks) == 0
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == state
    assert tuple(y.shape) == out_shape
    assert all(type(p) is nn.Parameter for p in m.parameters())
    assert all(type(b) is torch.Tensor for b in m.buffers())


def test_instance_norm_without_tensors_keeps_zero_features_and_warns_as_pytorch():
    m = nn.LazyInstanceNorm3d(affine=False, track_running_stats=False)
    with pytest.warns(UserWarning, match="^input's size at dim=1 does not match num_features"):
        m(torch.ones(2, 3, 2, 2, 2))
    assert repr(m) == ("InstanceNorm3d(0, eps=1e-05, momentum=0.1, affine=False, bias=False, "
                       "track_running_stats=False)")


def test_initial_values_come_from_the_generator_as_the_eager_layers_draw_them():
    for lazy, eager, shape in [(lambda: nn.LazyLinear(3), lambda: nn.Linear(4, 3), (2, 4)),
                               (lambda: nn.LazyConv2d(4, 3), lambda: nn.Conv2d(2, 4, 3), (1, 2, 5, 5)),
                               (lambda: nn.LazyConvTranspose1d(4, 3), lambda: nn.ConvTranspose1d(3, 4, 3), (1, 3, 5))]:
        torch.manual_seed(7)
        m = lazy()
        m(torch.ones(shape))
        torch.manual_seed(7)
        e = eager()
        for a, b in zip(m.parameters(), e.parameters()):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        bound = 1 / np.sqrt(np.prod(m.weight.shape[1:]))
        assert 0 < float(m.weight.detach().abs().max()) <= bound


def test_materialized_linear_computes_and_differentiates():
    m = nn.LazyLinear(2)
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])
    y = m(x)
    expected = x.numpy() @ m.weight.detach().numpy().T + m.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), np.tile([[0.0, 2.5, 7.0]], (2, 1)))
    np.testing.assert_allclose(m.bias.grad.numpy(), [2.0, 2.0])


def test_lazy_batch_norm_updates_its_running_statistics_on_the_first_call():
    m = nn.LazyBatchNorm1d()
    m(torch.tensor([[1.0, 2.0], [3.0, 6.0]]))
    np.testing.assert_allclose(m.running_mean.numpy(), [0.2, 0.4], rtol=1e-6)
    np.testing.assert_allclose(m.running_var.numpy(), [0.9 + 0.1 * 2.0, 0.9 + 0.1 * 8.0], rtol=1e-6)
    assert m.num_batches_tracked.item() == 1 and m.num_batches_tracked.dtype == torch.int64
    np.testing.assert_array_equal(m.weight.detach().numpy(), [1.0, 1.0])


def test_uninitialized_parameter_refuses_its_shape_methods_and_operators():
    w = nn.LazyLinear(10).weight
    with raises(RuntimeError, SHAPE_REFUSED):
        w.shape
    for call, method in [(lambda: w.sum(), "sum"), (lambda: w.numel(), "numel"), (lambda: w.dim(), "dim"),
                         (lambda: w.detach(), "detach"), (lambda: w.numpy(), "numpy"), (lambda: w + 1, "add"),
                         (lambda: 2 * w, "mul"), (lambda: w / 2, "div"), (lambda: -w, "neg"),
                         (lambda: w.requires_grad_(False), "requires_grad_")]:
        with raises(ValueError, used(method)):
            call()
    with raises(ValueError, used("mul", "UninitializedBuffer")):
        nn.UninitializedBuffer() * 2
    with raises(RuntimeError, "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                              "initialize the parameters before calling `module.share_memory()`."):
        w.share_memory_()
    for call in (lambda: torch.nn.functional.linear(torch.ones(2, 3), w), lambda: torch.exp(w),
                 lambda: torch.cat([w, w])):
        with pytest.raises(ValueError, match="^Attempted to use an uninitialized parameter in "):
            call()


def test_uninitialized_parameter_allows_what_pytorch_allows():
    w = nn.LazyLinear(10).weight
    assert repr(w) == str(w) == "<UninitializedParameter>"
    assert w.size() == torch.Size([0]) and w.size(0) == 0 and w.ndim == 1
    assert w.dtype == torch.float32 and w.requires_grad and w.is_leaf and w.grad is None
    assert w.is_floating_point() and not w.is_complex() and w.get_device() == -1
    assert repr(w.data) == "tensor([])"
    assert w.float() is w and w.to(torch.float32) is w
    converted = w.double()
    assert type(converted) is torch.Tensor and converted.dtype == torch.float64
    u = nn.parameter.UninitializedParameter(requires_grad=False, dtype=torch.float64)
    assert not u.requires_grad and u.dtype == torch.float64
    b = nn.parameter.UninitializedBuffer()
    assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad
    assert nn.parameter.is_lazy(u) and nn.parameter.is_lazy(b) and not nn.parameter.is_lazy(nn.Parameter(torch.ones(1)))


def test_materialize_gives_the_class_it_stands_for():
    u = nn.UninitializedParameter()
    u.materialize((2, 3))
    assert type(u) is nn.Parameter and u.shape == (2, 3) and u.requires_grad and u.dtype == torch.float32
    v = nn.UninitializedParameter()
    v.materialize((2,), dtype=torch.float64)
    assert v.dtype == torch.float64
    b = nn.UninitializedBuffer()
    b.materialize((3,))
    assert type(b) is torch.Tensor and b.shape == (3,) and not b.requires_grad


def test_module_dtype_conversion_before_the_first_call():
    m = nn.LazyLinear(10).double()
    assert repr(m.weight) == "<UninitializedParameter>" and m.weight.dtype == torch.float64
    y = m(torch.ones(2, 4, dtype=torch.float64))
    assert y.dtype == m.weight.dtype == torch.float64 and type(m.weight) is nn.Parameter
    with raises(RuntimeError, "mat1 and mat2 must have the same dtype, but got Double and Float"):
        nn.LazyLinear(3)(torch.ones(2, 4, dtype=torch.float64))


def test_state_dict_of_uninitialized_modules():
    m = nn.Sequential(nn.LazyLinear(3), nn.ReLU(), nn.LazyLinear(2))
    state = m.state_dict()
    assert list(state) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(repr(v) == "<UninitializedParameter>" for v in state.values())  # the OrderedDict's repr is Python's
    with raises(RuntimeError, SHAPE_REFUSED):
        nn.Linear(3, 2).load_state_dict(nn.LazyLinear(2).state_dict())
    lazy = nn.LazyLinear(3)
    assert repr(lazy.load_state_dict(nn.LazyLinear(3).state_dict())) == "<All keys matched successfully>"
    assert lazy.has_uninitialized_params()
    assert repr(lazy.load_state_dict({}, strict=False)) == (
        "_IncompatibleKeys(missing_keys=['weight', 'bias'], unexpected_keys=[])")


def test_initialized_state_loads_into_an_uninitialized_module():
    source = nn.Linear(3, 10)
    m = nn.LazyLinear(10)
    assert repr(m.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
    assert repr(m) == "LazyLinear(in_features=0, out_features=10, bias=True)"
    assert type(m.weight) is nn.Parameter and m.weight.shape == (10, 3)
    np.testing.assert_array_equal(m.weight.detach().numpy(), source.weight.detach().numpy())
    x = torch.tensor([[0.5, -1.0, 2.0]])
    np.testing.assert_allclose(m(x).detach().numpy(), source(x).detach().numpy())
    assert repr(m) == "Linear(in_features=3, out_features=10, bias=True)"
    wrong = nn.LazyLinear(10)
    wrong.load_state_dict(source.state_dict())
    with raises(AssertionError, "The in_features inferred from input: 4 is not equal to in_features from "
                                "self.weight: 3"):
        wrong(torch.ones(2, 4))


def test_lazy_convolution_errors():
    with raises(ValueError, "in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(torch.ones(1, 3, 5, 5))
    with raises(RuntimeError, "Expected 3D (unbatched) or 4D (batched) input to LazyConv2d, but got input of size: "
                              "srcgrad.Size([3, 5])"):
        nn.LazyConv2d(4, 3)(torch.ones(3, 5))


def test_mixin_initialize_parameters_and_optimizers():
    with raises(NotImplementedError, "initialize_parameters is not implemented for Linear"):
        nn.modules.lazy.LazyModuleMixin.initialize_parameters(nn.Linear(2, 2))
    m = nn.LazyLinear(3)
    assert isinstance(m, nn.modules.lazy.LazyModuleMixin) and isinstance(m, nn.Linear)
    m.initialize_parameters(torch.ones(2, 5))
    assert repr(m) == "LazyLinear(in_features=5, out_features=3, bias=True)" and not m.has_uninitialized_params()
    lazy = nn.LazyLinear(3)
    optimizer = torch.optim.Adam(lazy.parameters())
    optimizer.step()  # no gradients yet: nothing to do, as in PyTorch
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.LazyLinear(3)  # PyTorch 2.13 warns of nothing on construction


def test_copies_of_uninitialized_modules():
    m = nn.LazyLinear(3)
    c = copy.deepcopy(m)
    assert repr(c.weight) == "<UninitializedParameter>" and c.weight is not m.weight
    c(torch.ones(1, 2))
    assert repr(c) == "Linear(in_features=2, out_features=3, bias=True)"
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    p = pickle.loads(pickle.dumps(m.weight))
    assert repr(p) == "<UninitializedParameter>" and p.requires_grad


def test_a_copied_or_pickled_lazy_module_keeps_its_own_hooks():
    m = nn.LazyConv2d(3, 2)
    for copied in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        copied(torch.ones(1, 5, 4, 4))
        copied(torch.ones(1, 5, 4, 4))  # the first call removed the copy's own hook
        assert repr(copied) == "Conv2d(5, 3, kernel_size=(2, 2), stride=(1, 1))"
    assert repr(m) == "LazyConv2d(0, 3, kernel_size=(2, 2), stride=(1, 1))" and len(m._forward_pre_hooks) == 1
    m(torch.ones(1, 2, 3, 3))
    assert repr(m) == "Conv2d(2, 3, kernel_size=(2, 2), stride=(1, 1))"
