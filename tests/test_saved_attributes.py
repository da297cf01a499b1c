"""PyTorch's saved-value attributes of graph nodes (`grad_fn._saved_self`,
`_saved_result`, `_saved_dim`, `_raw_saved_<name>`): names, values, identity, types and
errors against PyTorch 2.13's, recorded in tests/golden/saved_attributes_pytorch.json
from the ops of saved_attribute_cases.py."""

import json
import os

import numpy as np
import pytest
from saved_attribute_cases import cases

import srcgrad as torch
from srcgrad.tensor.dtypes import WEAK_NUMBERS

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward."
)
with open(os.path.join(os.path.dirname(__file__), "golden", "saved_attributes_pytorch.json")) as f:
    PYTORCH = json.load(f)
CASES, INPUTS = cases(torch)


def _agrees(value, expected, node, out):
    """Whether the shim's `value` is PyTorch's, as the table records it."""
    if expected["kind"] == "tensor":
        same = [k for k, t in INPUTS.items() if value is t]
        return (
            isinstance(value, torch.Tensor)
            and (same[0] if same else None) == expected["is_input"]
            and (value is out) == expected["is_y"]
            and list(value.shape) == expected["shape"]
            and str(value.dtype).replace("srcgrad.", "torch.") == expected["dtype"]
            and value.requires_grad == expected["rg"]
            and (value.grad_fn is node) == expected["grad_fn_is_node"]
            and (type(value.grad_fn).__name__ if value.grad_fn is not None else None) == expected["grad_fn"]
            and np.allclose(np.asarray(value.detach().reshape(-1).tolist(), np.float64), expected["values"], rtol=1e-6)
        )
    if expected["kind"] == "SavedTensor":
        return type(value).__name__ == "SavedTensor"
    return type(value).__name__ == expected["kind"] and (list(value) if isinstance(value, tuple) else value) == expected["value"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_attributes_are_pytorchs(case):
    out = CASES[case]()
    node = out.grad_fn
    expected = PYTORCH[case]
    assert type(node).__name__ == expected["node"]
    answered = [a for a in dir(node) if a.startswith(("_saved_", "_raw_saved_"))]
    assert set(answered) <= set(expected["attrs"]), "a name PyTorch's node does not have"
    for name in answered:
        try:
            value = getattr(node, name)
        except AttributeError:  # NumPy 1 keeps a number met by a 0-d float tensor as that tensor's scalar type
            assert not WEAK_NUMBERS and name in ("_saved_self", "_saved_other"), name
            continue
        assert _agrees(value, expected["attrs"][name], node, out), name
    for name in set(expected["attrs"]) - set(answered):  # what the node cannot tell raises, as an unknown name
        with pytest.raises(AttributeError, match=f"^'{expected['node']}' object has no attribute '{name}'$"):
            getattr(node, name)


def test_coverage():
    """How many of PyTorch's attributes over the cases the shim answers (all of them as
    PyTorch, test_attributes_are_pytorchs): 254 of 434 when recorded."""
    answered = sum(
        len([a for a in dir(f().grad_fn) if a.startswith(("_saved_", "_raw_saved_"))]) for f in CASES.values()
    )
    assert sum(len(r["attrs"]) for r in PYTORCH.values()) == 434
    assert answered == 254
    assert len({PYTORCH[c]["node"] for c in CASES}) == 96
    answering = {type(f().grad_fn).__name__ for f in CASES.values()
                 if any(a.startswith("_saved_") for a in dir(f().grad_fn))}
    assert len(answering) == 80


def test_identity_and_copies():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    assert y.grad_fn._saved_self is x
    assert type(y.grad_fn._saved_exponent) is int and y.grad_fn._saved_exponent == 2
    e = x.exp()
    saved = e.grad_fn._saved_result
    assert saved is not e and saved.equal(e) and saved.grad_fn is e.grad_fn and saved.requires_grad
    w = x * 2
    s = w.sin().grad_fn._saved_self  # a non-leaf input: its values and node (PyTorch gives w itself)
    assert s.equal(w) and s.grad_fn is w.grad_fn
    q = x * 2.5
    assert q.grad_fn._saved_self is None
    assert q.grad_fn._saved_other.dtype == torch.float64 and q.grad_fn._saved_other.item() == 2.5
    assert x.log_softmax(-1).grad_fn._saved_dim == 2**64 - 1
    assert x.reshape(1, 3).sum(-1).grad_fn._saved_dim == (2**64 - 1,)


def test_saved_output_shares_versions():
    """A write into the saved output (as into the output) makes backward refuse, as in PyTorch."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    e = x.exp()
    saved = e.grad_fn._saved_result
    with torch.no_grad():
        saved.mul_(2)
    with pytest.raises(RuntimeError, match=r"^one of the variables needed for gradient computation has been modified by an "
                                           r"inplace operation: \[srcgrad.FloatTensor \[2\]\], which is output 0 of Exp, is at "
                                           "version 1; expected version 0 instead."):
        e.sum().backward()


def test_errors():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    with pytest.raises(AttributeError, match="^'PowBackward0' object has no attribute '_saved_result'$"):
        y.grad_fn._saved_result
    with pytest.raises(AttributeError, match="^'PowBackward0' object has no attribute '_raw_saved_exponent'$"):
        y.grad_fn._raw_saved_exponent
    y.sum().backward()
    with pytest.raises(RuntimeError) as info:
        y.grad_fn._saved_self
    assert str(info.value) == FREED
    assert y.grad_fn._saved_exponent == 2  # numbers outlive the backward, as PyTorch's
    s = x.view(3, 1).sum()
    s.backward()
    assert s.grad_fn._saved_self_sym_sizes == (3, 1)
    w = x * 2
    z = w.sin()
    w.add_(1)
    with pytest.raises(RuntimeError) as info:
        z.grad_fn._saved_self
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[srcgrad.FloatTensor [3]], which is output 0 of Add, is at version 1; expected version 0 instead."
    )


def test_register_hooks():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    e = x.exp()
    raw = e.grad_fn._raw_saved_result
    log = []
    raw.register_hooks(lambda t: (log.append("pack"), t * 2)[1], lambda t: (log.append("unpack"), t)[1])
    assert log == ["pack"]
    np.testing.assert_allclose(e.grad_fn._saved_result.tolist(), 2 * np.exp([1.0, 2.0, 3.0]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor whose hooks have already been set. "
                                           r"Hint: only one pair of hooks is allowed at a time.$"):
        raw.register_hooks(lambda t: t, lambda t: t)
    e.sum().backward()
    assert log == ["pack", "unpack", "unpack"]
    np.testing.assert_allclose(x.grad.tolist(), 2 * np.exp([1.0, 2.0, 3.0]), rtol=1e-6)  # backward read the unpacked value
    with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor after it has been freed. "):
        raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(TypeError, match=r"^register_hooks\(\): incompatible function arguments."):
        x.exp().grad_fn._raw_saved_result.register_hooks(1, 2)


def test_saved_tensors_hooks_unpack():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 3, lambda t: t):
        y = x.sin()
    assert y.grad_fn._saved_self.tolist() == [3.0, 6.0]
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)


def test_against_pytorch():
    real = pytest.importorskip("torch")
    live, inputs = cases(real)
    for case, make in live.items():
        node = make().grad_fn
        assert sorted(a for a in dir(node) if a.startswith(("_saved_", "_raw_saved_"))) == sorted(PYTORCH[case]["attrs"])
        assert type(node).__name__ == PYTORCH[case]["node"]
