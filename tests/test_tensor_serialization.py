"""srcgrad.save / srcgrad.load: checkpoints of tensors, state_dicts, optimizer state and
whole modules, to paths and file objects; weights_only refuses other objects."""

import io
import pickle

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.serialization import _array


def _model():
    return torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))


def test_checkpoint_round_trip(tmp_path):
    torch.manual_seed(0)
    model = _model()
    opt = torch.optim.Adam(model.parameters())
    (model(torch.randn(4, 3)) ** 2).sum().backward()
    opt.step()
    path = tmp_path / "checkpoint.pt"
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3,
                "ints": torch.tensor([1, 2]), "z": torch.tensor([1j]), "half": torch.ones(2, dtype=torch.float16)}, path)
    loaded = torch.load(path)
    assert loaded["epoch"] == 3 and loaded["ints"].dtype == torch.int64 and loaded["z"].dtype == torch.complex64
    assert loaded["half"].dtype == torch.float16
    other = _model()
    assert repr(other.load_state_dict(loaded["model"])) == "<All keys matched successfully>"
    assert all(np.array_equal(a.detach().numpy(), b.detach().numpy()) for a, b in zip(model.parameters(), other.parameters()))
    opt2 = torch.optim.Adam(other.parameters())
    opt2.load_state_dict(loaded["opt"])
    assert np.array_equal(opt2.state_dict()["state"][0]["exp_avg"].numpy(), opt.state_dict()["state"][0]["exp_avg"].numpy())


def test_tensors_parameters_and_views_keep_what_pytorch_keeps():
    buffer = io.BytesIO()
    base = torch.arange(6.0).reshape(2, 3)
    torch.save([torch.nn.Parameter(torch.ones(2)), torch.tensor([1.0], requires_grad=True), base[:, 1]], buffer)
    buffer.seek(0)
    param, leaf, view = torch.load(buffer)
    assert type(param) is torch.nn.Parameter and param.requires_grad
    assert leaf.requires_grad and leaf.is_leaf and view.tolist() == [1.0, 4.0] and tuple(view.shape) == (2,)


def test_weights_only_refuses_other_objects():
    buffer = io.BytesIO()
    torch.save(_model(), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed: the file names `srcgrad.nn.modules.Sequential`"):
        torch.load(buffer)
    buffer.seek(0)
    model = torch.load(buffer, weights_only=False)
    assert repr(model).startswith("Sequential(\n  (0): Linear(in_features=3, out_features=2, bias=True)")


def test_arrays_are_stored_by_dtype_shape_and_bytes():
    """No NumPy module path in the file: it loads under NumPy 1.26 and 2 alike."""
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(6.0).reshape(2, 3).t()}, buffer)
    assert b"numpy" not in buffer.getvalue()
    rebuilt = _array("<f4", (2, 2), np.arange(4, dtype=np.float32).tobytes())
    assert rebuilt.flags.writeable and rebuilt.tolist() == [[0.0, 1.0], [2.0, 3.0]]
