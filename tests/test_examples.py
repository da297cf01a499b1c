"""Every example in examples/ runs to completion (each checks its own results)."""

import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))


def test_the_documented_examples_exist():
    names = {os.path.basename(p) for p in EXAMPLES}
    assert {"quickstart.py", "print_adjoint.py", "logistic_regression.py", "rnn.py", "projectile.py", "custom_rule.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_runs(path):
    result = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
