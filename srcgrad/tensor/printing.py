"""PyTorch's tensor printer with its default options (precision 4, linewidth 80,
threshold 1000, edgeitems 3): `tensor_repr(t)` gives the exact text `repr(t)` shows.

One formatter serves the whole tensor. It is chosen from the nonzero finite values,
converted to Python floats (float64) first, so float32 data prints by its exact value.
"""

import math

import numpy as np

from . import dtypes
from .meta_arrays import is_meta_array

PRECISION = 4
LINEWIDTH = 80
THRESHOLD = 1000
EDGEITEMS = 3
SCI_MODE = None  # None: chosen per tensor; True or False: forced (set_printoptions)
_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """PyTorch's print options: a profile ("default", "short", "full") first, then each
    option given; `sci_mode` is set every call (None: chosen per tensor again)."""
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    options = dict(_PROFILES[profile]) if profile is not None else {}
    given = dict(precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth)
    options.update({name: value for name, value in given.items() if value is not None})
    PRECISION = options.get("precision", PRECISION)
    THRESHOLD = options.get("threshold", THRESHOLD)
    EDGEITEMS = options.get("edgeitems", EDGEITEMS)
    LINEWIDTH = options.get("linewidth", LINEWIDTH)
    SCI_MODE = sci_mode


def _plain(dtype_name):
    """Whether a repr leaves out `dtype=` for `dtype_name` (`srcgrad.float64`): the default
    float, its complex counterpart, int64 and bool."""
    name = dtype_name.split(".")[-1]
    return name in ("int64", "bool", dtypes.DEFAULT_FLOAT.name, dtypes.default_complex().name)


class _Formatter:
    """Chooses int, fixed or scientific mode and the common width of the elements."""

    def __init__(self, values):
        self.floating = values.dtype.kind in "fc"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        self.extra_width = 0
        self.imag = None
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        absolute = np.abs(finite)
        low, high = float(absolute.min()), float(absolute.max())
        vals = finite.tolist()
        self.int_mode = all(v == math.ceil(v) for v in vals)
        if SCI_MODE is None:
            self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        else:  # set_printoptions(sci_mode=...)
            self.sci_mode = SCI_MODE
        if self.int_mode and not self.sci_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in vals)
            return
        fmt = f"{{:.{PRECISION}e}}" if self.sci_mode else f"{{:.{PRECISION}f}}"
        self.max_width = max(len(fmt.format(v)) for v in vals)

    def format(self, value):
        if isinstance(value, complex):  # one formatter per part, as PyTorch
            real = self.format(value.real)
            imag = (self.imag.format(value.imag) + "j").lstrip()
            return real + imag if imag[0] in "+-" else real + "+" + imag
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{PRECISION}f}"
        else:
            text = str(value)
        return (self.max_width - len(text)) * " " + text


def _vector(values, indent, summarize, fmt):
    element_length = fmt.max_width + 2 + fmt.extra_width
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / element_length)))
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        data = [fmt.format(v) for v in values[:EDGEITEMS].tolist()] + [" ..."]
        data += [fmt.format(v) for v in values[-EDGEITEMS:].tolist()]
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values, indent, summarize, fmt):
    dim = values.ndim
    if dim == 0:
        return fmt.format(values.item())
    if dim == 1:
        return _vector(values, indent, summarize, fmt)
    n = values.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = [_nested(values[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)] + ["..."]
        rows += [_nested(values[i], indent + 1, summarize, fmt) for i in range(n - EDGEITEMS, n)]
    else:
        rows = [_nested(values[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(rows) + "]"


def _summarized(values):
    """The corner elements that a summarized print shows (for the formatter)."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        head = [_summarized(values[i]) for i in range(EDGEITEMS)]
        tail = [_summarized(values[i]) for i in range(values.shape[0] - EDGEITEMS, values.shape[0])]
        parts = head + tail
    else:
        parts = [_summarized(v) for v in values]
    return np.stack(parts) if parts else values


def tensor_body(values, indent):
    """The bracketed element text of `values`, as PyTorch's `_tensor_str`."""
    if values.size == 0:
        return "[]"
    if values.dtype == np.float16:
        values = values.astype(np.float32)
    summarize = values.size > THRESHOLD
    shown = _summarized(values) if summarize else values
    if values.dtype.kind == "c":
        fmt = _Formatter(shown.real)
        fmt.imag = _Formatter(shown.imag)
        fmt.extra_width = fmt.imag.max_width + 1  # line breaking counts both parts
    else:
        fmt = _Formatter(shown)
    return _nested(values, indent, summarize, fmt)


def add_suffixes(text, suffixes, indent):
    """Append `, suffix` items, wrapping onto a new line past the line width."""
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        # Lay out as PyTorch does for its `torch.` prefix, so that only the prefix differs.
        width = len(suffix.replace("srcgrad.", "torch."))
        if last_line_len + width + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + width
        else:
            parts.append(", " + suffix)
            last_line_len += width + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, dtype_name):
    """`repr` of Tensor `t` whose dtype prints as `dtype_name` (`srcgrad.float64`)."""
    prefix = "tensor("
    indent = len(prefix)
    values = t._data
    suffixes = []
    plain = _plain(dtype_name)
    if is_meta_array(values):  # no values: PyTorch prints where they would be and their shape
        suffixes.append("device='meta'")
        suffixes.append("size=" + str(tuple(values.shape)))
        if dtype_name != "srcgrad." + dtypes.DEFAULT_FLOAT.name:
            suffixes.append("dtype=" + dtype_name)
        body = "..."
    elif values.size == 0:
        if values.ndim != 1:
            suffixes.append("size=" + str(tuple(values.shape)))
        if dtype_name != "srcgrad." + dtypes.DEFAULT_FLOAT.name:
            suffixes.append("dtype=" + dtype_name)
        body = "[]"
    else:
        if not plain:
            suffixes.append("dtype=" + dtype_name)
        body = tensor_body(values, indent)
    if t._grad_fn is not None:
        try:
            suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
        except RuntimeError:  # a view PyTorch cannot rebuild (views.BrokenView)
            suffixes.append("grad_fn=<Invalid>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return add_suffixes(prefix + body, suffixes, indent)
