"""The two error types srcgrad raises for problems in user code, and how a message
names where a function was defined (`defined_at`).

`SrcGradError` is a `SyntaxError`, so Python prints the user's file, line and a
caret under the offending construct; `raised_at` makes one for a check that runs with the
derivative. `NotDifferentiableError` names a function
that has no derivative rule and where it was called.
"""


import linecache


class SrcGradError(SyntaxError):
    """A construct srcgrad cannot differentiate, located in the user's source."""

    __module__ = "srcgrad"  # tracebacks print `srcgrad.SrcGradError`, the public name

    def __init__(self, message, filename=None, lineno=None, col=None, text=None):
        # end_lineno and end_offset make one caret on every Python (3.13 otherwise underlines to the line's end)
        offset = (col or 0) + 1
        super().__init__(message, (filename, lineno, offset, text, lineno, offset + 1))


class NotDifferentiableError(SrcGradError, TypeError):
    """A call on the differentiated path to a function with no derivative rule."""

    __module__ = "srcgrad"


def defined_at(fn):
    """`file:line` of the `def` of `fn`, for messages; its repr for a function without code."""
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)


def raised_at(message, filename=None, lineno=None, cls=None):
    """`cls(message)` (NotDifferentiableError by default) located at line `lineno` of
    `filename`, its text read back from the file, the caret at the line's first character:
    what a check in generated code raises, as the same refusal at decoration would be."""
    cls = cls or NotDifferentiableError
    if filename is None or lineno is None:
        return cls(message)
    text = linecache.getline(filename, lineno) or None
    col = len(text) - len(text.lstrip()) if text else 0
    return cls(message, filename, lineno, col, text)
