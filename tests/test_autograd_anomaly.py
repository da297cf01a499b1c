"""Anomaly detection as PyTorch's: `detect_anomaly()` and `set_detect_anomaly(mode)` set
the mode (and restore it), and a backward pass under it raises PyTorch's RuntimeError at
the first node whose gradient holds a nan (texts checked against PyTorch 2.13)."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch


def raises(message):
    return pytest.raises(RuntimeError, match="^" + re.escape(message) + "$")


def test_the_modes_are_set_and_restored():
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            assert torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
            with torch.autograd.detect_anomaly(check_nan=False):
                assert not torch.is_anomaly_check_nan_enabled()
            assert torch.is_anomaly_check_nan_enabled()
    assert [str(w.message) for w in caught] == [
        "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
        "for debugging."] * 2
    assert not torch.is_anomaly_enabled()
    with torch.autograd.set_detect_anomaly(True):
        assert torch.is_anomaly_enabled()
    assert not torch.is_anomaly_enabled()
    torch.autograd.set_detect_anomaly(True)
    try:
        assert torch.is_anomaly_enabled()
    finally:
        torch.autograd.set_detect_anomaly(False)
    assert not torch.is_anomaly_enabled()


@pytest.mark.parametrize("kind", ["backward", "grad", "create_graph"])
@pytest.mark.parametrize("make, message", [
    (lambda a: (a.sqrt() * 0).sum(), "Function 'SqrtBackward0' returned nan values in its 0th output."),
    (lambda a: (a / a).sum(), "Function 'DivBackward0' returned nan values in its 1th output."),
    (lambda a: (torch.log(a) * 0).sum(), "Function 'LogBackward0' returned nan values in its 0th output."),
])
def test_a_nan_gradient_raises_at_its_node(kind, make, message):
    a = torch.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            with raises(message):
                if kind == "backward":
                    make(a).backward()
                else:
                    torch.autograd.grad(make(a), a, create_graph=kind == "create_graph")
    assert a.grad is None
    g, = torch.autograd.grad(make(a), a)  # outside the mode: the nan goes through
    assert np.isnan(g.numpy()).any()


def test_without_check_nan_the_pass_runs():
    a = torch.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly(check_nan=False):
            (a.sqrt() * 0).sum().backward()
    assert np.isnan(a.grad.numpy()[0]) and a.grad.numpy()[1] == 0.0
