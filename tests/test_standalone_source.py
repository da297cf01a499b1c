"""`srcgrad.source(df)` is a module that runs on its own (API.md section 2): saved to a
file and imported in a fresh interpreter namespace, with only NumPy, srcgrad.runtime /
srcgrad.rules helpers and the user's module importable, it computes what `df` computes."""

import importlib.util
import inspect
import itertools

import numpy as np
import pytest

import srcgrad

import corpus
import corpus_python
from test_corpus import INPUTS

ALL = corpus.ALL + corpus_python.ALL

# Printed sources that do not run on their own, with the reason.
XFAIL = {
    "ridge_loss": "closes over arrays made by `_make_ridge`, which no import can give: the text asks to define them",
}

_COUNTER = itertools.count()


def _load(text, tmp_path):
    """Import `text` as a new module from a file; its namespace."""
    name = f"srcgrad_standalone_{next(_COUNTER)}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


def _defined(text):
    return text.split("\ndef ", 1)[1].split("(", 1)[0] if not text.startswith("def ") else text[4:].split("(", 1)[0]


def _same(got, want):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, dict):
        assert type(got) is type(want) and set(got) == set(want)
        for k in want:
            _same(got[k], want[k])
    elif want is None:
        assert got is None
    else:
        assert type(got) is type(want)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def _marks(fn):
    reason = XFAIL.get(fn.__name__) or corpus_python.XFAIL.get(fn.__name__)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize("fn", [pytest.param(f, marks=_marks(f)) for f in ALL], ids=lambda f: f.__name__)
def test_printed_gradient_runs_standalone(fn, tmp_path):
    names = list(inspect.signature(fn).parameters)
    args = [INPUTS[n][0] for n in names]
    df = srcgrad.grad(fn, wrt=tuple(range(len(args))))
    want = df(*args)
    text = srcgrad.source(df)
    namespace = _load(text, tmp_path)
    got = namespace[_defined(text)](*args)
    _same(got, want)
    assert "srcgrad.compiler" not in text  # only runtime helpers, rules and NumPy


def test_header_imports_helpers_and_user_names(calls_kept):
    text = srcgrad.source(srcgrad.grad(corpus_python.call_returning_tuple, wrt=(0, 1)))
    head = text.split("\ndef ", 1)[0]
    assert "from srcgrad.runtime import " in head and "grad_seed" in head
    assert "from corpus_python import _sum_and_prod" in head
    assert "\ndef _sum_and_prod_pullback(" in text  # the callee's generated pullback is included
    assert text.count("\ndef _sum_and_prod_pullback(") == 1


def test_recursive_callee_is_printed_once():
    text = srcgrad.source(srcgrad.grad(corpus_python.recursion_power))
    assert text.count("def _power_rec_pullback(") == 1


def test_value_and_grad_and_vjp_sources_run_standalone(tmp_path):
    x, M = INPUTS["x"][0], INPUTS["M"][0]
    fn = corpus_python.call_chain
    W = INPUTS["W"][0]
    vg = srcgrad.value_and_grad(fn, wrt=(0, 1, 2))
    text = srcgrad.source(vg)
    _same(_load(text, tmp_path)[_defined(text)](x, M, W), vg(x, M, W))
    out, pullback = srcgrad.vjp(fn, x, M, W)
    text = srcgrad.source(pullback)
    got_out, got_pullback = _load(text, tmp_path)[_defined(text)](x, M, W)
    _same(got_out, out)
    _same(got_pullback(1.0), pullback(1.0))


@pytest.mark.parametrize("fn", [corpus_python.call_with_branches, corpus_python.call_keyword_arguments, corpus.scalar_math],
                         ids=lambda f: f.__name__)
def test_forward_and_second_order_sources_run_standalone(fn, tmp_path):
    names = list(inspect.signature(fn).parameters)
    args = [INPUTS[n][0] for n in names]
    jac = srcgrad.jacobian(fn, mode="forward")
    text = srcgrad.source(jac)
    tangent_name = list(inspect.signature(_load(text, tmp_path)[_defined(text)]).parameters)[-1]
    out, tangent = _load(text, tmp_path)[_defined(text)](*args, **{tangent_name: 1.0})
    np.testing.assert_allclose(tangent, jac(*args), rtol=1e-10)
    np.testing.assert_allclose(out, fn(*args), rtol=1e-10)
    gg = srcgrad.grad(srcgrad.grad(fn))
    text = srcgrad.source(gg)
    out, tangent = _load(text, tmp_path)[_defined(text)](*args, **{tangent_name: 1.0})
    np.testing.assert_allclose(tangent, gg(*args), rtol=1e-10)


def test_renamed_helpers_are_imported_with_as(tmp_path, calls_kept):
    src = (
        "import numpy as np\n"
        "def unbroadcast(v):\n"
        "    return v\n"
        "def f(x):\n"
        "    y = unbroadcast(x)\n"
        "    return np.sum(y * y * 3.0 / 2.0)\n"
    )
    module_path = tmp_path / "user_module_for_standalone.py"
    module_path.write_text(src)
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        import user_module_for_standalone as user

        df = srcgrad.grad(user.f)
        text = srcgrad.source(df)
        assert "as unbroadcast_1" in text and "from user_module_for_standalone import unbroadcast" in text
        x = INPUTS["x"][0]
        _same(_load(text, tmp_path)[_defined(text)](x), df(x))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("user_module_for_standalone", None)


def test_main_module_globals_are_named_in_a_comment():
    namespace = {"__name__": "__main__", "np": np, "SCALE": 2.0}
    src = "def g(x):\n    return np.sum(x * SCALE)\n"
    exec(compile(src, "<standalone-test>", "exec"), namespace)
    text = srcgrad.source(srcgrad.grad(namespace["g"], source=src))
    assert "import numpy as np" in text
    assert "# From the user's module `__main__`" in text and "`SCALE`" in text


@pytest.mark.xfail(strict=True, raises=NameError, reason="a custom_vjp rule that is not inlined runs inside "
                   "srcgrad.custom's shape check (`check_<fn>_<param>`), an object made per rule that no import "
                   "reaches: the header names it in a comment")
def test_custom_rule_called_through_its_check(tmp_path):
    import sys

    (tmp_path / "user_custom_for_standalone.py").write_text(
        "import numpy as np\nimport srcgrad\n\n"
        "@srcgrad.custom_vjp\ndef softplus(x):\n    return np.log1p(np.exp(x))\n\n"
        "@softplus.defvjp\ndef softplus_vjp(g, ans, x):\n    t = np.exp(-x)\n    return g / (1.0 + t)\n\n"
        "def f(x):\n    return np.sum(softplus(x))\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import user_custom_for_standalone as user

        df = srcgrad.grad(user.f)
        text = srcgrad.source(df)
        assert "# Bound by srcgrad to objects that cannot be imported: `check_softplus_x`" in text
        x = INPUTS["x"][0]
        _same(_load(text, tmp_path)[_defined(text)](x), df(x))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("user_custom_for_standalone", None)
