"""docs/errors.md is true: every example raises the error it shows, at the line it shows.

Each ```python block of the catalogue is a complete file, `example.py`; the ```text
block after it is what running it prints: the frame in `example.py` and the error
(for a `SrcGradError`, Python's own rendering of the `SyntaxError`: file, line, the
source line). The test runs each example under its real file name and compares.

    python tests/test_errors_doc.py    # rewrite the text blocks after a deliberate change
"""

import linecache
import os
import re
import runpy
import sys
import traceback
import warnings

import pytest

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs", "errors.md")
_BLOCK = re.compile(r"```python\n(.*?)```\n\n```text\n(.*?)```", re.S)


def _examples():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    return [(m.group(1), m.group(2)) for m in _BLOCK.finditer(text)]


def _render(code, directory):
    """What running `code` as `directory/example.py` prints, with the path shown as example.py."""
    path = os.path.join(directory, "example.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(code)
    linecache.cache.pop(path, None)  # the previous example had the same file name
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runpy.run_path(path, run_name="__main__")
    except Exception as exc:  # the examples exist to raise
        vars(exc).pop("__notes__", None)  # srcgrad's notes (Python 3.11+; the catalogue's introduction) aside
        if isinstance(exc, SyntaxError):
            lines = traceback.format_exception_only(type(exc), exc)
        else:
            frames = [fr for fr in traceback.extract_tb(exc.__traceback__) if fr.filename == path]
            # the frame as docs/errors.md shows it: file, line, source, no position carets
            # (which Python 3.11+ adds to some lines and 3.13 to more)
            lines = [f'  File "{fr.filename}", line {fr.lineno}, in {fr.name}\n    {fr.line.strip()}\n' for fr in frames[-1:]]
            lines += traceback.format_exception_only(type(exc), exc)
        return "".join(lines).replace(path, "example.py"), exc
    return "(no error)\n", None


def test_the_catalogue_has_examples():
    examples = _examples()
    assert len(examples) >= 30
    assert all(code.strip() for code, _ in examples)


@pytest.mark.parametrize("index", range(len(_examples())))
def test_example_raises_what_the_catalogue_shows(index, tmp_path):
    code, expected = _examples()[index]
    shown, exc = _render(code, str(tmp_path))
    assert exc is not None, f"example {index} raised nothing:\n{code}"
    assert shown == expected, f"example {index}:\n{code}"
    # the error carries the user's file and line (a function made by `exec` has "<string>")
    match = re.search(r'File "([^"]+)", line (\d+)', shown)
    assert match, shown
    filename = os.path.join(str(tmp_path), "example.py") if match.group(1) == "example.py" else match.group(1)
    if isinstance(exc, SyntaxError):
        assert (exc.filename, exc.lineno) == (filename, int(match.group(2)))
    else:
        assert isinstance(exc, TypeError) and match.group(1) == "example.py"


def _regenerate():
    import tempfile

    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    with tempfile.TemporaryDirectory() as directory:

        def fill(match):
            shown, _ = _render(match.group(1), directory)
            return f"```python\n{match.group(1)}```\n\n```text\n{shown}```"

        text = _BLOCK.sub(fill, text)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(_regenerate())
