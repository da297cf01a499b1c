"""The command line: `python -m srcgrad show path/to/file.py:func [--wrt x,y] [--mode reverse|forward]`.

`show` runs the file as a module (its prints go to stderr, so stdout holds only the
derivative), builds the derivative of `func` and prints its generated source,
colored by pygments when stdout is a terminal and pygments is installed.

Exit codes: 0 printed; 1 srcgrad rejected the function (the message names the
file, line and construct) or the file raised while running; 2 a usage error
(no such file, no such function, a bad `--wrt` or an unavailable mode).
"""

import argparse
import contextlib
import importlib.util
import inspect
import os
import sys
import traceback

EXIT_REJECTED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A mistake in the command line; the message is printed and the exit code is 2."""


def main(argv=None):
    """Run the command line with `argv` (default: sys.argv[1:]); returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except UsageError as exc:
        print(f"srcgrad {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _parser():
    parser = argparse.ArgumentParser(prog="python -m srcgrad", description="srcgrad command line")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    show = commands.add_parser(
        "show",
        help="print the generated derivative of a function",
        description="Print the derivative srcgrad generates for FUNC defined in FILE.",
    )
    show.add_argument("target", metavar="FILE.py:FUNC", help="a Python file and a function defined in it")
    show.add_argument("--wrt", default="0", help="parameter names or indices, comma separated (default: 0)")
    show.add_argument("--mode", choices=("reverse", "forward"), default="reverse", help="default: reverse")
    show.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="auto: only on a terminal"
    )
    show.set_defaults(run=_show)
    return parser


def _show(args):
    import srcgrad

    fn = _load_function(args.target)
    wrt = _parse_wrt(args.wrt)
    try:
        if args.mode == "forward":
            text = _forward_source(srcgrad, fn, wrt)
        else:
            text = srcgrad.source(srcgrad.grad(fn, wrt=wrt))
    except srcgrad.SrcGradError as exc:
        sys.stderr.write("".join(traceback.format_exception_only(type(exc), exc)))
        return EXIT_REJECTED
    except TypeError as exc:  # srcgrad's message for a bad wrt names the parameters
        raise UsageError(str(exc)) from None
    print(_colored(text) if _use_color(args.color) else text, end="" if text.endswith("\n") else "\n")
    return 0


def _load_function(target):
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise UsageError(f"expected FILE.py:FUNC, got {target!r}")
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    module = _run_file(path)
    value = module
    for part in name.split("."):
        value = getattr(value, part, None)
        if value is None:
            functions = sorted(k for k, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__)
            defined = ", ".join(functions) if functions else "none"
            raise UsageError(f"{path} defines no function `{name}` (functions defined there: {defined})")
    if not inspect.isfunction(value):
        raise UsageError(f"`{name}` in {path} is a {type(value).__name__}, not a function defined with `def`")
    return value


def _run_file(path):
    """Execute `path` as a module, with its directory importable and its prints on stderr."""
    path = os.path.abspath(path)
    spec = importlib.util.spec_from_file_location("__srcgrad_show__", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and pickling look modules up here
    sys.path.insert(0, os.path.dirname(path))
    try:
        with contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except SyntaxError:
        raise
    except Exception as exc:
        raise UsageError(f"running {path} raised {type(exc).__name__}: {exc}") from None
    return module


def _parse_wrt(text):
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise UsageError(f"--wrt expects parameter names or indices separated by commas, got {text!r}")
    wrt = tuple(int(p) if p.lstrip("-").isdigit() else p for p in parts)
    return wrt[0] if len(wrt) == 1 else wrt


def _forward_source(srcgrad, fn, wrt):
    """The generated jvp of `fn`: the code `srcgrad.jvp` and forward-mode `jacobian` run."""
    if not hasattr(srcgrad, "jvp"):
        raise UsageError("--mode forward needs srcgrad.jvp, which this version of srcgrad does not provide")
    return srcgrad.source(srcgrad.jacobian(fn, wrt=wrt, mode="forward"))


def _use_color(choice):
    if choice == "never":
        return False
    if choice == "auto" and not sys.stdout.isatty():
        return False
    return importlib.util.find_spec("pygments") is not None


def _colored(text):
    from pygments import highlight
    from pygments.formatters import TerminalFormatter
    from pygments.lexers import PythonLexer

    return highlight(text, PythonLexer(), TerminalFormatter())
