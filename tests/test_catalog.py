"""docs/rules.md is generated from the registry; these tests keep the two in step and
check what the generator extracts."""

import importlib.util
import math
import operator
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad.rules as rules
from srcgrad.rules import catalog

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


# docs/rules.md is generated with NumPy 2 and SciPy, which have every function the rules
# cover; NumPy 1.26 lacks the ones marked (NumPy 2), so its catalog is shorter by design.
# Without SciPy, scipy.special and scipy.linalg have no rules: the text is compared without
# their sections and the line counting the rules.
@pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.0.0", reason="docs/rules.md is generated with NumPy 2")
@pytest.mark.skipif(sys.version_info < (3, 11), reason="docs/rules.md is generated with Python 3.11+ (math.cbrt and "
                    "math.exp2 are new in 3.11, and 3.10's ast.unparse spells some tuples otherwise)")
def test_docs_rules_md_is_up_to_date():
    doc, text = DOC.read_text(), catalog.markdown()
    if importlib.util.find_spec("scipy") is None:
        for section in ("## `special`", "## `scipy_linalg`"):
            start = doc.index(section)
            doc = doc[:start] + doc[doc.index("\n## ", start) + 1:]
        doc = re.sub(r"`srcgrad\.rules\.(special|scipy_linalg)\.[^`]*`, ", "", doc)  # their helpers, nondifferentiable
        doc, text = (re.sub(r"^\d+ functions: .*$", "", t, count=1, flags=re.M) for t in (doc, text))
    assert doc == text, "docs/rules.md is out of date: run `python -m srcgrad.rules.catalog > docs/rules.md`"


def test_every_rule_and_nondifferentiable_function_is_listed():
    text = catalog.markdown()
    for rule in rules.all_rules():
        assert f"`{catalog.display_name(rule.primal)}`" in text
        for param in rule.vjps:
            assert f"**{param}**" in text
    for fn in rules.all_nondifferentiable():
        assert f"`{catalog.display_name(fn)}`" in text


def test_display_names():
    assert catalog.display_name(np.sin) == "numpy.sin"
    assert catalog.display_name(np.sum) == "numpy.sum"
    assert catalog.display_name(np.linalg.inv) == "numpy.linalg.inv"
    assert catalog.display_name(np.ndarray.flatten) == "numpy.ndarray.flatten"
    assert catalog.display_name(np.add.reduce) == "numpy.add.reduce"
    assert catalog.display_name(np.random.rand) == "numpy.random.rand"
    assert catalog.display_name(operator.add) == "operator.add"
    assert catalog.display_name(math.sin) == "math.sin"


def test_rows_show_the_applied_expressions():
    text = catalog.markdown()
    assert "| `numpy.sin` | `(x)` | **x**: `g * np.cos(x)` | `t * np.cos(x)` |" in text
    assert "**y**: `unbroadcast(-g * (ans / y), y)` | `-t * ans / y` |" in text
    # a local derivative of a two-parameter primal is unbroadcast in reverse mode only
    assert "**x**: `unbroadcast(g * y, x)` | `t * y` |" in text
    # docstrings are skipped, the returned expression is shown
    assert "`zeros_like_grad(y)`" in text


def test_rule_expression_needs_a_single_return():
    def two_statements(g, ans, x):
        y = g * 2.0
        return y

    def documented(g, ans, x):
        """Doc."""
        return g + x

    assert catalog.rule_expression(two_statements) is None
    assert catalog.rule_expression(documented) is not None
