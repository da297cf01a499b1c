"""The pytest plugin of srcgrad: a `check_grad` fixture.

Registered through the `pytest11` entry point in pyproject.toml, so any test in a
project that has srcgrad installed can ask for it:

    def test_loss(check_grad):
        check_grad(loss, w, x, wrt="w")

The fixture is `srcgrad.testing.check_grad` itself; the plugin adds nothing else.
"""

import pytest

from .testing import check_grad as _check_grad


@pytest.fixture
def check_grad():
    """`srcgrad.testing.check_grad`: compare srcgrad's derivative with finite differences."""
    return _check_grad
