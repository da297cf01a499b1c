"""Run the srcgrad benchmark suite.

    python benchmarks/run.py                      # every workload, every installed implementation
    python benchmarks/run.py --only logreg,rnn    # a subset (a name or a name prefix)
    python benchmarks/run.py --quick              # fewer, shorter rounds
    python benchmarks/run.py --check              # verify gradients instead of timing them
    python benchmarks/run.py --markdown docs/performance.md

See benchmarks/README.md for how to read the table.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", help="comma-separated workload names or prefixes (e.g. logreg,rnn)")
    p.add_argument("--impls", help="comma-separated implementations (default: all installed)")
    p.add_argument("--quick", action="store_true", help="5 rounds of 5 ms blocks, one build each")
    p.add_argument("--repeat", type=int, help="timing rounds per workload (default 15, --quick 5)")
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP/XLA/torch threads (default 1)")
    p.add_argument("--check", action="store_true", help="check gradients: hand vs finite differences, the rest vs hand")
    p.add_argument("--markdown", metavar="PATH", help="also rewrite the results block of a Markdown file")
    p.add_argument("--plot", metavar="PNG", help="also draw the ratios (needs matplotlib)")
    p.add_argument("--seed", type=int, default=0, help="seed of the inputs")
    p.add_argument("--list", action="store_true", help="list workloads and implementations, then exit")
    opts = p.parse_args(argv)
    opts.repeat = opts.repeat or (5 if opts.quick else 15)
    opts.block_s = 0.005 if opts.quick else 0.02
    opts.build_repeat = 1 if opts.quick else 3
    opts.derive_repeat = 3 if opts.quick else 11  # builds of a derivation workload (its only number)
    return opts


def limit_threads(n):
    """Must run before NumPy (or any peer) is imported: BLAS reads these once."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
        os.environ[var] = str(n)
    if n == 1 and "XLA_FLAGS" not in os.environ:
        os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def select(items, spec, key):
    if not spec:
        return items
    wanted = [s.strip() for s in spec.split(",") if s.strip()]
    chosen = [it for it in items if any(key(it) == s or key(it).startswith(s + "-") for s in wanted)]
    if not chosen:
        raise SystemExit(f"nothing matches {spec!r}; try --list")
    return chosen


def available(impls):
    """Implementations whose library imports; a missing peer is skipped silently."""
    usable, versions = [], {}
    for impl in impls:
        try:
            versions[impl.name] = impl.version()
        except ModuleNotFoundError as exc:
            if not impl.required:
                continue
            versions[impl.name] = f"error: {exc}"
        except Exception as exc:  # noqa: BLE001 - a broken install shows in its cells
            versions[impl.name] = f"error: {type(exc).__name__}: {exc}"
        usable.append(impl)
    return usable, versions


def cpu_name():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(np, opts, versions):
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except Exception:  # noqa: BLE001 - older NumPy
        blas = "?"
    libs = ", ".join(f"{k} {'(import failed)' if v.startswith('error') else v}" for k, v in versions.items() if k != "hand")
    return (
        f"{cpu_name()}; Python {platform.python_version()}, NumPy {np.__version__} ({blas}); "
        f"{opts.threads} thread(s); {opts.repeat} rounds. Implementations: {libs}."
    )


def main(argv=None):
    opts = parse_args(argv)
    limit_threads(opts.threads)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:0] = [here, os.path.dirname(here)]  # the harness, then srcgrad from this checkout

    import numpy as np

    import harness
    import impls as impls_mod
    import report
    from workloads import ALL

    workloads = select(ALL, opts.only, lambda w: w.name)
    chosen = select(impls_mod.ALL, opts.impls, lambda i: i.name)
    if opts.list:
        print("workloads:      " + ", ".join(w.name for w in ALL))
        print("implementations: " + ", ".join(i.name for i in impls_mod.ALL))
        return 0
    if "hand" not in [i.name for i in chosen]:
        chosen = [impls_mod.Hand(), *chosen]  # every ratio is to it
    impls, versions = available(chosen)
    header = environment(np, opts, versions)
    print(header, flush=True)

    if opts.check:
        return check(workloads, impls, opts, harness)

    results = []
    for w in workloads:
        print(f"  {w.name} ...", end="", flush=True)
        cells = harness.run_workload(w, impls, opts)
        results.append((w, cells))
        print(" done", flush=True)
    print()
    print(report.text_table(results))
    summary(results)
    if opts.markdown:
        report.rewrite_markdown(opts.markdown, header, results)
        print(f"rewrote the results block of {opts.markdown}")
    if opts.plot:
        report.plot(opts.plot, results)
    return 0


def summary(results):
    """One line each for the numbers the project tracks."""
    for w, cells in results:
        by = {c.impl: c for c in cells}
        sg, hand = by.get("srcgrad"), by.get("hand")
        if sg is None or sg.error:
            continue
        line = f"{w.name}: srcgrad derivation {1e3 * sg.build_s:.1f} ms"
        if sg.peak_bytes is not None and hand and hand.peak_bytes:
            line += f"; peak memory srcgrad / hand = {sg.peak_bytes / hand.peak_bytes:.2f}x"
        print(line)


def check(workloads, impls, opts, harness):
    failed = 0
    for w in workloads:
        print(f"{w.name}  ({w.title})")
        for name, ok, message in harness.check_workload(w, impls, opts):
            mark = {True: "ok  ", False: "FAIL", None: "    "}[ok]
            print(f"  {mark} {name:9s} {message}")
            # Peers are informational; the hand-written reference and srcgrad must pass.
            failed += ok is False and name in ("hand", "srcgrad")
    print(f"\n{failed} required check(s) failed" if failed else "\nall required checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
