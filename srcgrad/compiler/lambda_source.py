"""Where the text of a `lambda` is: cut out of its file, parsed whole.

The source of a lambda is the statement around it (`g = srcgrad.grad(lambda x: ...)`).
`inspect.getsourcelines` starts at the lambda's own line and ends at the first line end
outside brackets counted from there, so a lambda on a continuation line of its statement

    g = srcgrad.grad(
        lambda x: np.sum(x ** 2)
        + 3.0 * x[0])

was cut after `np.sum(x ** 2)`, and the shorter text parses as a lambda too: another
function's derivative, without a word. Here the file (or notebook cell) is parsed whole,
and the lambda is the node on the code's first line with the code's parameters whose
span holds every instruction Python 3.11+ records a position for (of several nested
ones, the one whose body starts where an instruction does). The text given back is
exactly that node's.
"""

import ast
import collections
import linecache

_INDEX = collections.OrderedDict()  # (filename, text hash) -> {line: [_Lambda]}; a few files
_KEPT_FILES = 8


class Refused(Exception):
    """No single lambda of the file is the code's; the message says why."""


class _Lambda:
    """One lambda node of a file: its parameters and where it and its body are (lines from
    1, columns in UTF-8 bytes, as both `ast` and `co_positions` count them)."""

    __slots__ = ("params", "start", "end", "body")

    def __init__(self, node):
        args = node.args
        self.params = [a.arg for a in args.posonlyargs + args.args]
        self.start = (node.lineno, node.col_offset)
        self.end = (node.end_lineno, node.end_col_offset)
        self.body = (node.body.lineno, node.body.col_offset)


def find(code, filename, module_globals):
    """(text, first line, column in characters) of the lambda compiled into `code`, read
    from `filename`'s lines in `linecache`; `Refused` where none or several match."""
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        raise Refused("its source cannot be read")
    index = _index(filename, lines)
    if index is None:
        raise Refused("its file no longer parses: was it changed since the function was defined?")
    params = list(code.co_varnames[:code.co_argcount])
    found = [f for f in index.get(code.co_firstlineno, ()) if f.params == params]
    spans = _positions(code)
    if len(found) > 1 and spans is not None:
        found = [f for f in found if all(f.start <= a and b <= f.end for a, b in spans)]
        if len(found) > 1:  # nested lambdas: the one whose body's first instruction is the code's
            found = [f for f in found if any(a == f.body for a, _ in spans)] or found
    if not found:
        raise Refused("its text was not found")
    if len(found) > 1:
        raise Refused("several lambdas with these parameters on its line, which Python 3.10 records no columns to "
                      "tell apart" if spans is None else "several lambdas with these parameters on its line")
    return _text(lines, found[0])


def _positions(code):
    """((line, column), (end line, end column)) of each instruction of `code` that has a
    span; None before Python 3.11, which records none."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return None
    return [((a, c), (b, d)) for a, b, c, d in positions() if None not in (a, b, c, d) and (a, c) != (b, d)]


def _text(lines, found):
    """The lambda's text, its first line and its column in characters."""
    (line, column), (end_line, end_column) = found.start, found.end
    rows = [lines[k].encode() for k in range(line - 1, end_line)]
    if len(rows) == 1:
        text = rows[0][column:end_column].decode()
    else:
        text = b"".join([rows[0][column:]] + rows[1:-1] + [rows[-1][:end_column]]).decode()
    return text, line, len(rows[0][:column].decode(errors="ignore"))


def _index(filename, lines):
    """{line: lambdas starting there} of the file `lines`, kept for the last few files
    read; None where it does not parse."""
    text = "".join(lines)
    key = (filename, hash(text))
    if key in _INDEX:
        _INDEX.move_to_end(key)
        return _INDEX[key]
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        index = None
    else:
        index = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda):
                index.setdefault(node.lineno, []).append(_Lambda(node))
    _INDEX[key] = index
    while len(_INDEX) > _KEPT_FILES:
        _INDEX.popitem(last=False)
    return index
