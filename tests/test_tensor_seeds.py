"""The seed tutorials, run as examples/seed_*.py, print the expected text in tests/seeds/.

Object addresses are normalized. Lines marked `~ ` in an expected file show values
drawn by randn: there, each number is compared as a placeholder (the layout still is).
"""

import contextlib
import io
import pathlib
import re
import runpy

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = sorted((ROOT / "tests" / "seeds").glob("seed_*.txt"))
_NUMBER = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?|-?\d+")


def _run(script):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(script), run_name="__main__")
    return out.getvalue()


def _normalize(line, masked):
    line = re.sub(r"0x[0-9a-fA-F]+", "0x...", line)
    if masked:
        line = re.sub(r"\s+", "", _NUMBER.sub("N", line))
    return line


def _compare(expected_text, actual_text):
    expected = expected_text.splitlines()
    actual = actual_text.splitlines()
    assert len(actual) == len(expected), actual_text
    for want, got in zip(expected, actual):
        masked = want.startswith("~ ")
        want = want[2:] if masked else want
        assert _normalize(got, masked) == _normalize(want, masked)


@pytest.mark.parametrize("expected", SEEDS, ids=[p.stem for p in SEEDS])
def test_seed_example_prints_expected_text(expected):
    script = ROOT / "examples" / (expected.stem + ".py")
    _compare(expected.read_text(), _run(script))


def test_all_five_seeds_are_covered():
    assert [p.stem for p in SEEDS] == [f"seed_00{i}" for i in range(5)]


def test_random_lines_keep_their_layout():
    # Masking keeps brackets, commas and suffixes: a wrong suffix still fails.
    with pytest.raises(AssertionError):
        _compare("~ tensor([1.0, 2.0], requires_grad=True)\n", "tensor([1.5, 2.5], grad_fn=<AddBackward0>)\n")
    _compare("~ tensor([1.0, 2.0], requires_grad=True)\n", "tensor([ 1.5, -2.5], requires_grad=True)\n")


def test_seed_002_gradients_follow_the_closed_form():
    # b.grad = sigmoid(z) / 3 and every row of w.grad equals b.grad (spec section 11).
    import numpy as np

    import srcgrad as torch

    torch.manual_seed(0)
    x, y = torch.ones(5), torch.zeros(3)
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    loss.backward()
    zd = z.detach().numpy().astype(np.float64)
    expected = 1 / (1 + np.exp(-zd)) / 3
    np.testing.assert_allclose(b.grad.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), np.tile(expected, (5, 1)), rtol=1e-6)
    bce = np.mean(np.maximum(zd, 0) + np.log1p(np.exp(-np.abs(zd))))
    assert abs(loss.item() - bce) < 1e-6
