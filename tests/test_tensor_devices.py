"""`device=` of every creation function and module, and `device()` parsing, as PyTorch's
CPU-only build behaves (messages checked in PyTorch 2.13).

The walk below finds every public function, Tensor method and nn module whose signature
has a `device` parameter: one missing from CREATIONS fails the test, so a new creation
function cannot silently ignore the argument.
"""

import inspect

import numpy as np
import pytest

import srcgrad as torch
from srcgrad import nn

T = torch.ones(2, 3)

# name -> a call of it with the given device
CREATIONS = {
    "tensor": lambda d: torch.tensor([1.0], device=d),
    "as_tensor": lambda d: torch.as_tensor([1.0], device=d),
    "zeros": lambda d: torch.zeros(2, device=d),
    "ones": lambda d: torch.ones(2, device=d),
    "empty": lambda d: torch.empty(2, device=d),
    "full": lambda d: torch.full((2,), 1.5, device=d),
    "arange": lambda d: torch.arange(3, device=d),
    "linspace": lambda d: torch.linspace(0, 1, 3, device=d),
    "logspace": lambda d: torch.logspace(0, 1, 3, device=d),
    "hann_window": lambda d: torch.hann_window(4, device=d),
    "hamming_window": lambda d: torch.hamming_window(4, device=d),
    "blackman_window": lambda d: torch.blackman_window(4, device=d),
    "bartlett_window": lambda d: torch.bartlett_window(4, device=d),
    "kaiser_window": lambda d: torch.kaiser_window(4, device=d),
    "eye": lambda d: torch.eye(2, device=d),
    "empty_like": lambda d: torch.empty_like(torch.zeros(2), device=d),
    "empty_strided": lambda d: torch.empty_strided((2, 3), (1, 2), device=d),
    "scalar_tensor": lambda d: torch.scalar_tensor(1.5, device=d),
    "Tensor.new_empty_strided": lambda d: torch.zeros(1).new_empty_strided((2, 3), (3, 1), device=d),
    "rand": lambda d: torch.rand(2, device=d),
    "randn": lambda d: torch.randn(2, device=d),
    "randint": lambda d: torch.randint(3, (2,), device=d),
    "randperm": lambda d: torch.randperm(3, device=d),
    "normal": lambda d: torch.normal(0.0, 1.0, (2,), device=d),
    "tril_indices": lambda d: torch.tril_indices(3, 3, device=d),
    "triu_indices": lambda d: torch.triu_indices(3, 3, device=d),
    "zeros_like": lambda d: torch.zeros_like(T, device=d),
    "ones_like": lambda d: torch.ones_like(T, device=d),
    "full_like": lambda d: torch.full_like(T, 2.0, device=d),
    "rand_like": lambda d: torch.rand_like(T, device=d),
    "randn_like": lambda d: torch.randn_like(T, device=d),
    "randint_like": lambda d: torch.randint_like(T, 3, device=d),
    "Tensor.new_tensor": lambda d: T.new_tensor([1.0], device=d),
    "Tensor.new_zeros": lambda d: T.new_zeros(2, device=d),
    "Tensor.new_ones": lambda d: T.new_ones(2, device=d),
    "Tensor.new_full": lambda d: T.new_full((2,), 1.0, device=d),
    "Tensor.new_empty": lambda d: T.new_empty(2, device=d),
    "Tensor.cuda": None,  # always refused: tests/test_tensor_spec.py
    "nn.Module.cuda": None,
    "nn.Linear": lambda d: nn.Linear(2, 2, device=d),
    "nn.Bilinear": lambda d: nn.Bilinear(2, 2, 2, device=d),
    "nn.Conv1d": lambda d: nn.Conv1d(1, 1, 2, device=d),
    "nn.Conv2d": lambda d: nn.Conv2d(1, 1, 2, device=d),
    "nn.ConvTranspose1d": lambda d: nn.ConvTranspose1d(1, 1, 2, device=d),
    "nn.ConvTranspose2d": lambda d: nn.ConvTranspose2d(1, 1, 2, device=d),
    "nn.Conv3d": lambda d: nn.Conv3d(1, 1, 2, device=d),
    "nn.ConvTranspose3d": lambda d: nn.ConvTranspose3d(1, 1, 2, device=d),
    "nn.LayerNorm": lambda d: nn.LayerNorm(2, device=d),
    "nn.GroupNorm": lambda d: nn.GroupNorm(1, 2, device=d),
    "nn.BatchNorm1d": lambda d: nn.BatchNorm1d(2, device=d),
    "nn.BatchNorm2d": lambda d: nn.BatchNorm2d(2, device=d),
    "nn.BatchNorm3d": lambda d: nn.BatchNorm3d(2, device=d),
    "nn.InstanceNorm1d": lambda d: nn.InstanceNorm1d(2, affine=True, device=d),
    "nn.InstanceNorm2d": lambda d: nn.InstanceNorm2d(2, affine=True, device=d),
    "nn.InstanceNorm3d": lambda d: nn.InstanceNorm3d(2, affine=True, device=d),
    "nn.RMSNorm": lambda d: nn.RMSNorm(2, device=d),
    "nn.Embedding": lambda d: nn.Embedding(2, 2, device=d),
    "nn.RNN": lambda d: nn.RNN(2, 2, device=d),
    "nn.LSTM": lambda d: nn.LSTM(2, 2, device=d),
    "nn.GRU": lambda d: nn.GRU(2, 2, device=d),
    "nn.RNNCell": lambda d: nn.RNNCell(2, 2, device=d),
    "nn.LSTMCell": lambda d: nn.LSTMCell(2, 2, device=d),
    "nn.GRUCell": lambda d: nn.GRUCell(2, 2, device=d),
    "nn.MultiheadAttention": lambda d: nn.MultiheadAttention(4, 2, device=d),
    "nn.TransformerEncoderLayer": lambda d: nn.TransformerEncoderLayer(4, 2, 8, device=d),
    "nn.TransformerDecoderLayer": lambda d: nn.TransformerDecoderLayer(4, 2, 8, device=d),
    "nn.Transformer": lambda d: nn.Transformer(4, 2, 1, 1, 8, batch_first=True, device=d),
    "nn.Transformer.generate_square_subsequent_mask": lambda d: nn.Transformer.generate_square_subsequent_mask(
        2, device=d),
    "nn.PReLU": lambda d: nn.PReLU(device=d),
    "nn.LazyLinear": lambda d: nn.LazyLinear(2, device=d),
    "nn.LazyConv1d": lambda d: nn.LazyConv1d(1, 2, device=d),
    "nn.LazyConv2d": lambda d: nn.LazyConv2d(1, 2, device=d),
    "nn.LazyConv3d": lambda d: nn.LazyConv3d(1, 2, device=d),
    "nn.LazyConvTranspose1d": lambda d: nn.LazyConvTranspose1d(1, 2, device=d),
    "nn.LazyConvTranspose2d": lambda d: nn.LazyConvTranspose2d(1, 2, device=d),
    "nn.LazyConvTranspose3d": lambda d: nn.LazyConvTranspose3d(1, 2, device=d),
    "nn.LazyBatchNorm1d": lambda d: nn.LazyBatchNorm1d(device=d),
    "nn.LazyBatchNorm2d": lambda d: nn.LazyBatchNorm2d(device=d),
    "nn.LazyBatchNorm3d": lambda d: nn.LazyBatchNorm3d(device=d),
    "nn.LazyInstanceNorm1d": lambda d: nn.LazyInstanceNorm1d(device=d),
    "nn.LazyInstanceNorm2d": lambda d: nn.LazyInstanceNorm2d(device=d),
    "nn.LazyInstanceNorm3d": lambda d: nn.LazyInstanceNorm3d(device=d),
}
# pinned memory is an accelerator's: asked of the CPU, PyTorch's CPU build says none is there
CREATIONS.update({"Tensor.is_pinned": None, "Tensor.pin_memory": None})
# asarray refuses as tensor() does for some backends and as a factory for others: not checked here
CREATIONS["asarray"] = None
# a lazy module's `cls_to_become` is its eager class, checked under that class's name
CREATIONS.update({f"{name}.cls_to_become": None for name in list(CREATIONS)
                  if name.startswith("nn.Lazy")})


def _takes_device(f):
    try:
        return "device" in inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False


def _walked():
    """Qualified names of the public callables with a `device` parameter."""
    names = set()
    for prefix, space in (("", torch), ("Tensor.", torch.Tensor), ("nn.", nn)):
        for name in dir(space):
            if name.startswith("_"):
                continue
            f = getattr(space, name)
            if isinstance(f, type) and issubclass(f, nn.Module):
                methods = [(m, getattr(f, m)) for m in vars(f) if not m.startswith("_") and callable(getattr(f, m))]
                names.update(f"{prefix}{name}.{m}" for m, method in methods if _takes_device(method))
                f = f.__init__
            elif isinstance(f, type) or not callable(f):
                continue
            if _takes_device(f):
                names.add(prefix + name)
    return names


def test_every_function_with_a_device_parameter_is_checked_here():
    walked = _walked()
    assert walked - set(CREATIONS) == set(), "new functions taking device=: add them to CREATIONS"
    assert set(CREATIONS) - walked == set()


CALLS = [(name, f) for name, f in sorted(CREATIONS.items()) if f is not None]
CPU_DEVICES = [None, "cpu", "cpu:0", "cpu:1", torch.device("cpu"), torch.device("cpu", 0)]


@pytest.mark.parametrize("name,make", CALLS)
@pytest.mark.parametrize("where", CPU_DEVICES, ids=repr)
def test_the_cpu_is_accepted(name, make, where):
    made = make(where)
    for t in [made] if isinstance(made, torch.Tensor) else list(made.parameters()):
        assert t.device == torch.device("cpu")


# errors of PyTorch 2.13's CPU-only build
_ALLOCATES = "Could not run 'aten::{}' with arguments from the '{}' backend. This could be because the operator"


def _kernel(name):
    if name.endswith("_like") or name.endswith("empty_strided"):
        return "empty_strided"
    if name in ("tril_indices", "triu_indices"):
        return name
    return "empty.memory_format"


@pytest.mark.parametrize("name,make", CALLS)
def test_accelerators_are_refused_as_pytorchs_cpu_build_refuses_them(name, make):
    for where in ("cuda", "cuda:0", torch.device("cuda", 1)):
        with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
            make(where)
    with pytest.raises(AssertionError, match="^Torch not compiled with XPU enabled$"):
        make("xpu")
    copies = name in ("tensor", "as_tensor", "Tensor.new_tensor")
    for where, backend in (("mps", "MPS"), ("hip:0", "HIP"), ("xla", "XLA")):
        if copies:
            with pytest.raises(RuntimeError, match=f"^PyTorch is not linked with support for {where[:3]} devices$"):
                make(where)
        else:
            with pytest.raises(NotImplementedError) as caught:
                make(where)
            assert str(caught.value).startswith(_ALLOCATES.format(_kernel(name), backend))
    if name.startswith("nn.Lazy"):
        with pytest.raises(NotImplementedError, match="lazy modules are not supported on the meta device"):
            make("meta")
        return
    made = make("meta")  # the meta device is there: shapes without data (test_meta_device.py)
    tensors = list(made.parameters()) + list(made.buffers()) if isinstance(made, torch.nn.Module) else \
        [t for t in (made if isinstance(made, tuple) else (made,)) if isinstance(t, torch.Tensor)]
    assert all(t.is_meta for t in tensors)


MALFORMED = [
    ("cuda:x", "Invalid device string: 'cuda:x'"), ("cpu:", "Invalid device string: 'cpu:'"),
    ("cpu:-1", "Invalid device string: 'cpu:-1'"), (" cpu", "Invalid device string: ' cpu'"),
    ("cuda:01", "Invalid device string: 'cuda:01'"), ("cuda:1:2", "Invalid device string: 'cuda:1:2'"),
    ("", "Device string must not be empty"), (0, "Cannot access accelerator device when none is available."),
    ("CPU", "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
            "vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: CPU"),
]


@pytest.mark.parametrize("name,make", CALLS)
def test_malformed_devices_give_pytorchs_errors(name, make):
    for where, message in MALFORMED:
        with pytest.raises(RuntimeError) as caught:
            make(where)
        assert str(caught.value) == message
    op = name.split(".")[-1]
    with pytest.raises(TypeError, match=r"argument 'device' must be torch.device, not float"):
        make(1.5)
    if not name.startswith("nn."):
        with pytest.raises(TypeError, match=f"^{op}\\(\\)"):
            make(1.5)


def test_device_parsing():
    assert repr(torch.device("hip")) == "device(type='hip')"
    assert repr(torch.device("cuda:3")) == "device(type='cuda', index=3)"
    assert torch.device("cpu", 0) == torch.device("cpu:0") != torch.device("cpu")
    with pytest.raises(RuntimeError, match="^Device index must not be negative$"):
        torch.device("cpu", -1)
    with pytest.raises(TypeError, match=r"^device\(\): argument 'index' \(position 2\) must be int, not float$"):
        torch.device("cpu", 1.5)
    with pytest.raises(RuntimeError, match="^type \\(string\\) must not include an index because index was passed"):
        torch.device("cuda:0", 1)


def test_moves_and_values_unchanged_by_a_cpu_device():
    x = torch.arange(6.0, device="cpu:0").reshape(2, 3)
    assert x.to("cpu") is x
    with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none is available.$"):
        x.to(0)
    with pytest.raises(RuntimeError, match="^PyTorch is not linked with support for mps devices$"):
        x.to("mps")
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::empty.memory_format' with arguments from "
                                                  "the 'Lazy' backend"):
        x.to("lazy")
    np.testing.assert_array_equal(torch.zeros_like(x, device="cpu").numpy(), np.zeros((2, 3), np.float32))
    assert torch.full((2,), 3, device=torch.device("cpu")).dtype == torch.int64
