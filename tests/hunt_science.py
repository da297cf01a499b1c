"""Runs every transform on each program of science_programs.py and reports each
disagreement (not part of the default test run: `PYTHONPATH=. python tests/hunt_science.py
[name ...]`): the checks of hunt_numerics.py, and the second call (the code specialized to
that kind of call) giving the gradient of the first."""

import sys
import traceback

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import hunt_numerics  # noqa: E402
import science_programs as P  # noqa: E402
import srcgrad  # noqa: E402


def second_call(fn, args, report):
    wrt = tuple(i for i, a in enumerate(args) if hunt_numerics._floaty(a))
    if np.ndim(fn(*args)):
        return
    try:
        first = srcgrad.grad(fn, wrt=wrt)(*args)
        second = srcgrad.grad(fn, wrt=wrt)(*args)
        for i, a, b in zip(wrt, first, second):
            if not np.array_equal(a, b):
                report.append(f"{fn.__name__}: second call: arg {i}: {a} then {b}")
    except Exception as e:  # noqa: BLE001
        report.append(f"{fn.__name__}: second call raised {type(e).__name__}: {str(e)[:300]}")


def main(names):
    report = []
    counts = {}
    for area, fn, args, opts in P.CASES:
        if names and fn.__name__ not in names:
            continue
        if isinstance(fn(*args), (tuple, dict)):  # run_case reads arrays: test_hunt_science.py checks these
            continue
        try:
            n, nbad = hunt_numerics.run_case(area, fn, args, opts, report)
            second_call(fn, args, report)
        except Exception:  # noqa: BLE001
            report.append(f"[{area}] {fn.__name__}: harness error\n{traceback.format_exc()}")
            n, nbad = 0, 1
        c = counts.setdefault(area, [0, 0, 0])
        c[0] += 1
        c[1] += n
        c[2] += nbad
    print("\n".join(report))
    for area, (p, n, b) in counts.items():
        print(f"{area}: {p} programs, {n} checks, {b} problems")


if __name__ == "__main__":
    if "-v" in sys.argv:
        hunt_numerics.VERBOSE = True
    main([a for a in sys.argv[1:] if a != "-v"])
