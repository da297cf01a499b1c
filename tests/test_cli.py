"""`python -m srcgrad show FILE.py:FUNC`, run as a subprocess."""

import os
import subprocess
import sys
import textwrap

import pytest

import srcgrad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODEL = textwrap.dedent(
    """\
    import numpy as np

    print("module-level output goes to stderr")


    def loss(w, b, x):
        z = x @ w + b
        return np.sum(np.tanh(z) ** 2)


    def bad(x):
        y = np.zeros(2)
        try:
            y[0] = x * 2.0
        except KeyError:
            pass
        finally:
            pass
        return y[0]


    scale = 3.0
    """
)


def show(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "srcgrad", "show", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=120,
    )


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return str(path)


def test_show_prints_the_generated_gradient(model):
    result = show(f"{model}:loss", "--wrt", "w,b")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("import numpy as np\n") and "\n\n\ndef loss_grad(w, b, x):" in result.stdout
    assert "with respect to w, b" in result.stdout
    assert "# Backward pass" in result.stdout
    assert "module-level output" not in result.stdout and "module-level output" in result.stderr
    assert "\x1b[" not in result.stdout  # not a terminal: no color


def test_default_wrt_is_the_first_parameter(model):
    result = show(f"{model}:loss")
    assert result.returncode == 0, result.stderr
    assert "with respect to w." in result.stdout


def test_wrt_by_index(model):
    result = show(f"{model}:loss", "--wrt", "1")
    assert result.returncode == 0, result.stderr
    assert "with respect to b." in result.stdout


def test_color_always_uses_pygments(model):
    pytest.importorskip("pygments")
    result = show(f"{model}:loss", "--color", "always")
    assert result.returncode == 0, result.stderr
    assert "\x1b[" in result.stdout


def test_missing_file_exits_2(tmp_path):
    result = show(f"{tmp_path}/nowhere.py:loss")
    assert result.returncode == 2
    assert "no such file" in result.stderr and "nowhere.py" in result.stderr


def test_missing_function_exits_2_and_lists_the_functions(model):
    result = show(f"{model}:los")
    assert result.returncode == 2
    assert "defines no function `los`" in result.stderr
    assert "bad, loss" in result.stderr


def test_not_a_function_exits_2(model):
    result = show(f"{model}:scale")
    assert result.returncode == 2
    assert "is a float, not a function" in result.stderr


def test_bad_wrt_exits_2(model):
    result = show(f"{model}:loss", "--wrt", "q")
    assert result.returncode == 2
    assert "wrt='q' names no parameter of `loss`" in result.stderr
    assert show(f"{model}:loss", "--wrt", "w,,b").returncode == 2


def test_target_without_function_exits_2(model):
    result = show(model)
    assert result.returncode == 2
    assert "expected FILE.py:FUNC" in result.stderr


def test_unsupported_construct_exits_1_with_file_and_line(model):
    result = show(f"{model}:bad")
    assert result.returncode == 1
    assert f'File "{model}", line 14' in result.stderr
    assert "an assignment to an entry or an attribute inside a `try` block is not supported" in result.stderr


def test_no_command_prints_usage():
    result = subprocess.run([sys.executable, "-m", "srcgrad"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "usage:" in result.stderr


def test_forward_mode(model):
    result = show(f"{model}:loss", "--mode", "forward", "--wrt", "w")
    if not hasattr(srcgrad, "jvp"):
        assert result.returncode == 2
        assert "--mode forward needs srcgrad.jvp" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    assert "w_dot" in result.stdout
