"""The import graph keeps data flowing one way (ARCHITECTURE.md §1).

- `rules/` imports neither the compiler nor the Tensor shim;
- `runtime/` and `undone.py` (what generated code calls) import NumPy, srcgrad's errors and
  each other's `runtime/` modules only;
- no compiler module imports a module listed after it in `STAGES`, and none but
  `compiler/__init__.py` imports `pipeline`, the only module that knows the stage order.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "srcgrad"

# compiler modules in the order data flows through them (helpers first)
STAGES = [
    "parsing", "traversal", "walk_memo", "syntax", "printing", "statement_parts", "lambda_source", "given_source", "templates", "naming", "inline", "stand_in", "varargs", "generator_lists", "none_defaults", "frontend", "matches", "scope", "declarations", "module_tests", "stored_iterators", "generator_calls", "unroll", "passed_containers", "passed_callables", "record_methods", "known_classes", "operand_checks", "views", "entry_aliases", "dict_keys", "later_reads", "share_verdicts", "sharing", "sorted_loops", "key_lambdas", "transform_calls", "function_choices", "factories", "block_defs", "def_defaults", "scatters", "array_writes", "respelling", "unpacking", "collections_dicts", "idioms", "index_tricks", "einsum_sublists", "cached_calls", "row_writes", "tuple_writes", "map_filter", "vectorized_calls", "folds", "itertools_lists", "fence", "attempts", "contexts", "aliases", "jumps",
    "display_keys", "anf_displays", "anf", "closures", "callees", "versions", "resolve", "record_calls", "calls", "bound_calls", "call_effects",
    "activity", "position_loops", "iteration", "argument_writes", "holders", "statement_blocks", "mutation", "contributions", "markers", "entries", "kinds", "shapes", "constants", "unbroadcasts", "adjoints", "tape",
    "undo", "reverse", "assembly", "tape_tangents", "forward", "hoist", "optimize", "scaling", "accumulate", "factoring", "split", "emit", "origins", "wrapping", "standalone", "load",
    "linearize", "cache", "pipeline",
]


def _imports(path):
    """Absolute module names imported anywhere in `path` (function-level imports too)."""
    package = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            found.add(module)
            found |= {f"{module}.{a.name}" for a in node.names}
    return found


def test_every_compiler_module_has_a_place_in_the_stage_order():
    modules = {p.stem for p in (ROOT / "compiler").glob("*.py")} - {"__init__"}
    assert modules == set(STAGES), f"add new compiler modules to STAGES: {sorted(modules ^ set(STAGES))}"


@pytest.mark.parametrize("stage", STAGES)
def test_no_stage_imports_a_later_stage(stage):
    later = {f"srcgrad.compiler.{s}" for s in STAGES[STAGES.index(stage) + 1:]}
    wrong = _imports(ROOT / "compiler" / f"{stage}.py") & later
    assert not wrong, f"compiler/{stage}.py imports later stages {sorted(wrong)}"


@pytest.mark.parametrize("path", sorted((ROOT / "rules").glob("*.py")), ids=lambda p: p.name)
def test_rules_import_neither_compiler_nor_shim(path):
    wrong = {m for m in _imports(path) if m.startswith(("srcgrad.compiler", "srcgrad.tensor"))}
    assert not wrong, f"rules/{path.name} imports {sorted(wrong)}"


@pytest.mark.parametrize("module", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "runtime").glob("*.py")) + ["undone.py"])
def test_runtime_imports_numpy_and_errors_only(module):
    allowed = {"dataclasses", "itertools", "numbers", "numpy", "srcgrad.errors", "srcgrad.errors.NotDifferentiableError",
               "srcgrad.errors.raised_at"}  # and the standard library they need
    own = {m for m in _imports(ROOT / module) if m.startswith("srcgrad.runtime")}
    assert _imports(ROOT / module) - own <= allowed
