"""Calls that only report (print, logging, warnings.warn) inside a differentiated function:
they run in the derivative's forward pass with the values the function computes, once
per call, and carry no gradient (rules/nondiff.py)."""

import logging
import math
import warnings

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

LOG = logging.getLogger("srcgrad.tests.reporting")


def reports_each_step(x):
    y = x * 2.0
    for i in range(2):
        LOG.info("step %d: %s", i, np.round(y, 6).tolist())
        y = np.sin(y)
    logging.getLogger("srcgrad.tests.reporting").debug("never seen at INFO")
    print("sum", float(np.sum(y)))
    return np.sum(y)


def warns_on_a_large_loss(x):
    loss = np.sum(x ** 2)
    if loss > 1.0:
        warnings.warn(f"large loss {loss:.3f}")
        logging.warning("large loss %.3f", loss)
    return loss


def test_reporting_calls_run_with_the_values_and_carry_no_gradient(caplog, capsys):
    x = np.array([0.3, -0.7])
    with caplog.at_level(logging.INFO, logger="srcgrad.tests.reporting"):
        g = srcgrad.grad(reports_each_step)(x)
    expected = np.cos(np.sin(2 * x)) * np.cos(2 * x) * 2
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    y0 = np.round(2 * x, 6).tolist()
    y1 = np.round(np.sin(2 * x), 6).tolist()
    assert [r.getMessage() for r in caplog.records] == [f"step 0: {y0}", f"step 1: {y1}"]
    assert capsys.readouterr().out == f"sum {float(np.sum(np.sin(np.sin(2 * x))))}\n"
    out, out_dot = srcgrad.jvp(reports_each_step, (x,), (np.array([1.0, 0.0]),))
    assert out_dot == pytest.approx(expected[0], rel=1e-12)


def test_a_warning_and_a_module_level_log_in_a_branch(caplog):
    x = np.array([0.9, -0.8])
    with pytest.warns(UserWarning, match=r"large loss 1\.450"), caplog.at_level(logging.WARNING):
        np.testing.assert_allclose(srcgrad.grad(warns_on_a_large_loss)(x), 2 * x, rtol=1e-15)
    assert [r.getMessage() for r in caplog.records] == ["large loss 1.450"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        H = srcgrad.hessian(warns_on_a_large_loss)(np.array([0.1, 0.2]))
    np.testing.assert_allclose(H, 2 * np.eye(2), rtol=1e-15)
    assert math.isclose(float(numerical_grad(warns_on_a_large_loss, (np.array([0.1, 0.2]),), 0)[0]), 0.2, rel_tol=1e-7)
