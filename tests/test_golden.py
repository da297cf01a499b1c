"""Printed derivatives of a few corpus functions, compared with tests/golden/*.py.

Regenerate after an intended change with: SRCGRAD_UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""

import os
import pathlib

import pytest

import corpus
import corpus_python
import srcgrad

GOLDEN = pathlib.Path(__file__).parent / "golden"
CASES = {
    "straight_line": (corpus.straight_line, 0),
    "branch": (corpus.branch, 0),
    "rnn": (corpus.rnn, (0, 1)),
    "break_continue": (corpus.break_continue, 0),
    "while_loop": (corpus.while_loop, 0),
    "call_returning_tuple": (corpus_python.call_returning_tuple, (0, 1)),
    "list_append_then_stack": (corpus_python.list_append_then_stack, 0),
    "loop_over_rows_direct": (corpus_python.loop_over_rows_direct, 0),
    "errstate_entropy": (corpus_python.errstate_entropy, 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_source_matches_golden(name):
    fn, wrt = CASES[name]
    text = srcgrad.source(srcgrad.grad(fn, wrt=wrt))
    path = GOLDEN / f"{name}.py"
    if os.environ.get("SRCGRAD_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
