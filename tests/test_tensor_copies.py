"""pickle and copy.deepcopy of Tensors, as PyTorch does them: a pickled tensor comes back a
leaf with its values, dtype and requires_grad (no .grad, no graph; a view its own values);
deepcopy keeps a leaf's .grad and refuses a tensor a graph made. Before, pickling failed
once a view of the tensor had been taken ("cannot pickle 'weakref.ReferenceType'") and for
any tensor a graph made; deepcopy copied a graph's tensor with its grad_fn."""

import copy
import pickle

import numpy as np
import pytest

import srcgrad as torch


def _round_trip(t):
    return pickle.loads(pickle.dumps(t))


def test_a_leaf_with_a_view_taken_pickles():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    view = x[1:]
    (x * x).sum().backward()
    back = _round_trip(x)
    assert repr(back) == "tensor([1., 2., 3.], requires_grad=True)"
    assert back.is_leaf and back.grad is None and back.dtype == torch.float32
    assert repr(_round_trip(view)) == "tensor([2., 3.], requires_grad=True)"  # a graph's tensor: a leaf


def test_a_tensor_a_graph_made_pickles_as_a_leaf():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    back = _round_trip(x * 2)
    assert repr(back) == "tensor([2., 4.], requires_grad=True)"
    assert back.is_leaf and back.grad_fn is None
    back.sum().backward()
    assert repr(back.grad) == "tensor([1., 1.])"


def test_dtype_and_plain_tensors():
    z = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    tail = z[1:]
    assert repr(_round_trip(z)) == "tensor([1., 2., 3.], dtype=srcgrad.float64)"
    back = _round_trip(tail)
    assert back.shape == (2,) and back.dtype == torch.float64
    back[0] = 7.0  # its own memory, not the base's
    assert z[1].item() == 2.0


def test_deepcopy_keeps_a_leafs_grad_and_refuses_a_graphs_tensor():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    d = copy.deepcopy(x)
    assert repr(d) == "tensor([1., 2.], requires_grad=True)"
    assert repr(d.grad) == "tensor([2., 4.])"
    assert d.grad is not x.grad
    with pytest.raises(RuntimeError, match=r"^Only Tensors created explicitly by the user \(graph leaves\) support "
                                           r"the deepcopy protocol at the moment\."):
        copy.deepcopy(x * 2)


def test_a_module_deepcopies_and_pickles():
    torch.manual_seed(0)
    m = torch.nn.Linear(2, 3)
    for copied in (copy.deepcopy(m), _round_trip(m)):
        assert repr(copied) == "Linear(in_features=2, out_features=3, bias=True)"
        for a, b in zip(m.parameters(), copied.parameters()):
            assert a is not b and b.requires_grad and b.is_leaf
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
