"""The documentation is true: the tutorial runs and prints what it shows, how-it-works
shows the real output of every stage, the API page names every public name, and the
MkDocs site builds with --strict.

    python tests/test_docs.py    # rewrite the output blocks of tutorial.md and how-it-works.md
"""

import importlib.util
import os
import re
import subprocess
import sys

import pytest

import srcgrad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
# a ```python block, optionally followed by the ```text block showing its output
_BLOCK = re.compile(r"```python\n(.*?)```\n(?:\n```text\n(.*?)```\n)?", re.S)
_MARK = "\x1e block {} \x1e"
# a `<!-- stage: NAME -->` marker and the code block holding that stage's output
_STAGE = re.compile(r"(<!-- stage: (.*?) -->\n```(?:python|text)\n)(.*?)(```)", re.S)


def _read(name):
    with open(os.path.join(DOCS, name), encoding="utf-8") as f:
        return f.read()


def _write(name, text):
    with open(os.path.join(DOCS, name), "w", encoding="utf-8") as f:
        f.write(text)


def _run(path, cwd):
    result = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd=cwd, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def _tutorial_outputs(tmp_dir):
    """Run tutorial.md's code blocks as one script, tutorial.py; each block's printed output."""
    blocks = _BLOCK.findall(_read("tutorial.md"))
    script = "".join(f"print({_MARK.format(i)!r})\n{code}" for i, (code, _) in enumerate(blocks))
    path = os.path.join(tmp_dir, "tutorial.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(script)
    out = _run(path, tmp_dir)
    pieces = re.split("\x1e block \\d+ \x1e\n", out)[1:]
    assert len(pieces) == len(blocks)
    return blocks, pieces


def test_tutorial_prints_what_it_shows(tmp_path):
    blocks, outputs = _tutorial_outputs(str(tmp_path))
    for (code, shown), printed in zip(blocks, outputs):
        if shown:
            assert printed == shown, f"the block\n{code}\nprints\n{printed}"
        else:
            assert printed == "", f"the block\n{code}\nprints output the tutorial does not show:\n{printed}"


def _stages():
    """The output of examples/how_it_works.py, split by stage: {stage: text}."""
    out = _run(os.path.join(ROOT, "examples", "how_it_works.py"), ROOT)
    parts = re.split(r"^--- (?:after )?(.*?) ---\n", out, flags=re.M)
    return {name: text for name, text in zip(parts[1::2], parts[2::2])}


def test_how_it_works_shows_the_real_output_of_every_stage():
    stages = _stages()
    text = _read("how-it-works.md")
    shown = {m.group(2): m.group(3) for m in _STAGE.finditer(text)}
    assert set(shown) == set(stages), "how-it-works.md and the pipeline disagree on the stages"
    for name, output in stages.items():
        assert shown[name] == output, f"stage {name!r} now prints:\n{output}"


def test_api_page_names_every_public_name():
    text = _read("api.md")
    missing = [name for name in srcgrad.__all__ if f"srcgrad.{name}" not in text and f"`{name}`" not in text]
    assert not missing, f"docs/api.md does not document {missing}"


def test_public_functions_have_docstrings():
    undocumented = [
        name for name in srcgrad.__all__ if callable(getattr(srcgrad, name)) and not getattr(srcgrad, name).__doc__
    ]
    assert not undocumented


def test_every_page_is_in_the_navigation():
    with open(os.path.join(ROOT, "mkdocs.yml"), encoding="utf-8") as f:
        config = f.read()
    pages = sorted(n for n in os.listdir(DOCS) if n.endswith(".md"))
    assert [p for p in pages if f": {p}" not in config] == []


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed (pip install .[docs])")
def test_mkdocs_build_strict(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").exists()


def _regenerate():
    import tempfile

    with tempfile.TemporaryDirectory() as tmp_dir:
        blocks, outputs = _tutorial_outputs(tmp_dir)
    printed = iter(outputs)

    def fill(match):
        out = next(printed)
        return f"```python\n{match.group(1)}```\n" + (f"\n```text\n{out}```\n" if out else "")

    _write("tutorial.md", _BLOCK.sub(fill, _read("tutorial.md")))
    stages = _stages()
    _write(
        "how-it-works.md",
        _STAGE.sub(lambda m: m.group(1) + stages.get(m.group(2), "(no such stage)\n") + m.group(4), _read("how-it-works.md")),
    )


if __name__ == "__main__":
    _regenerate()
