"""Programs of tests/compiler_fuzz.py that hold statements of tests/fuzz_session.py
(lists, tuples and dicts of functions passed as arguments, closure factories and
partials, branches and loops in `try` blocks, sorted loops, nested tuple targets, writes
into what array methods make, custom rules in JAX's spelling), each through every check
of the fuzzer: value, gradients against central differences, second and keyword calls,
another point, jvp (the dot-product test), jacobians in both modes and, for seeds divisible
by 4, Hessian blocks. Seeded: the same programs run each time."""

import collections
import warnings

import pytest

from compiler_fuzz import check_program
from fuzz_grammar import Program

# each a program that passes every check (not skipped near a kink, not refused), with
# the groups of statements it holds
SEEDS = {603: {"containers"}, 607: {"sorted"}, 616: {"try"}, 626: {"new arrays"}, 634: {"made"},
         649: {"custom rules"}, 656: {"try"}, 677: {"made"}, 716: {"nested targets", "try"}}


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_session_statements_pass_every_check(seed):
    prog = Program(seed)
    prog.twin_text = Program(seed, twin=True).text
    assert set(prog.sessions) == SEEDS[seed], prog.text
    counts = collections.Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        skipped = check_program(prog, seed, counts, hessians=seed % 4 == 0)
    assert skipped is None, prog.text
    assert counts["checks"] >= 15


def test_programs_are_the_same_for_a_seed_and_the_containers_are_passed():
    first, again, twin = Program(603), Program(603), Program(603, twin=True)
    assert first.text == again.text and len(first.text.splitlines()) == len(twin.text.splitlines())
    assert first.extras == ("fs", "ft", "fd") and "def f(a, b, x, M, c, fs, ft, fd):" in first.text
