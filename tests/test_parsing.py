"""compiler/parsing.py builds the tree `gast.parse` builds: compared node by node, field
by field (which fields are present too) and location by location, over srcgrad's own
source, the programs its tests differentiate, two standard library modules and a
snippet of each construct."""

import ast
import pathlib

import gast
import pytest

from srcgrad.compiler import parsing

ROOT = pathlib.Path(__file__).resolve().parent.parent
_FILES = sorted(ROOT.glob("srcgrad/**/*.py")) + [ROOT / "tests" / f for f in ("corpus_python.py", "real_programs.py", "numerics_programs.py", "jax_programs.py")]
_STDLIB = [pathlib.Path(m.__file__) for m in (ast, pathlib)]


def _same(ours, theirs, path="tree"):
    """Raise AssertionError naming the first place the two trees differ."""
    assert type(ours) is type(theirs), f"{path}: {type(ours).__name__} != {type(theirs).__name__}"
    if isinstance(theirs, list):
        assert len(ours) == len(theirs), f"{path}: {len(ours)} items != {len(theirs)}"
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{path}[{k}]")
    elif isinstance(theirs, gast.AST):
        assert list(vars(ours)) == list(vars(theirs)), f"{path}: fields {list(vars(ours))} != {list(vars(theirs))}"
        for key, value in vars(theirs).items():
            _same(vars(ours)[key], value, f"{path}.{key}")
    else:
        assert ours == theirs or (ours != ours and theirs != theirs), f"{path}: {ours!r} != {theirs!r}"


@pytest.mark.parametrize("path", _FILES + _STDLIB, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_the_tree_is_gasts(path):
    text = path.read_text()
    _same(parsing.parse(text), gast.parse(text))


@pytest.mark.parametrize("text", [
    "def f(a, /, b: int = 1, *args, c, d=2, **kw) -> float:\n    return a\n",
    "async def g():\n    async with a as b:\n        async for x in y:\n            await z\n",
    "try:\n    pass\nexcept ValueError as e:\n    raise\nexcept Exception:\n    pass\nfinally:\n    pass\n",
    "class C(B, metaclass=M):\n    x: int = 1\n",
    "match p:\n    case [1, *rest]:\n        pass\n    case {'k': v, **kw}:\n        pass\n    case C(a, b=c) | None:\n        pass\n",
    "x = [i for i in y if i] + {k: v for k, v in z} + f'{a!r:>{w}}' + (lambda q, *, r=1: q)(1)\n",
    "global g\ndel a[1], b.c\nassert x, 'm'\nimport a.b as c\nfrom . import d\nwhile (n := n - 1): break\n",
])
def test_every_construct_is_gasts(text):
    _same(parsing.parse(text), gast.parse(text))


def test_expressions_are_gasts():
    text = "(a if b else c)[1:2, ::3] ** -x"
    _same(parsing.parse(text, mode="eval"), gast.parse(text, mode="eval"))
