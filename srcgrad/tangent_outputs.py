"""The tangent a forward-mode transform returns: in its output's types (a float tangent
in its output's float dtype, a namedtuple output's of its class), and refused where it
is complex and its output real."""

import numpy as np

from .errors import defined_at
from .runtime import is_sequence, leaves, sequence_like


def in_output_types(fn, out, out_dot):
    """`(out, out_dot)` with a float tangent array in its output's float dtype; a complex
    tangent of a real output refused; a tangent of another type in the output's."""
    if type(out_dot) is _ndarray and out_dot.dtype.kind == "f":
        if type(out) is _ndarray and out.dtype != out_dot.dtype and out.dtype.kind == "f":
            out_dot = out_dot.astype(out.dtype)
    elif type(out_dot) is not float and not (type(out_dot) is type(out) and type(out) in REAL_SCALARS):
        refuse_complex_tangent(fn, out, out_dot)
        out_dot = in_output_dtypes(out, out_dot)
    return out, out_dot


def refuse_complex_tangent(fn, out, out_dot):
    """Raise a TypeError where a tangent is complex and its output real: a complex value
    was computed on the differentiated path, where the rules (for real numbers) do not
    give the real output's tangent."""
    for value, tangent in zip(leaves(out), leaves(out_dot)):
        if np.iscomplexobj(tangent) and not np.iscomplexobj(value):
            raise TypeError(
                f"a complex tangent reached a real output of `{fn.__name__}` ({defined_at(fn)}): a complex value "
                "was computed on the differentiated path, and srcgrad's derivative rules are for real numbers; keep "
                "the computation real (e.g. x.real, np.abs of real parts) or differentiate it by hand"
            )


def in_output_dtypes(out, out_dot):
    """`out_dot` with each float leaf in the dtype of its output leaf, as JAX gives it: a
    float32 tangent meeting only constants of float64 (`np.ones(3) + 0 * x`,
    `np.where(m, x, zeros)`) would otherwise stay float32 while its output is float64;
    a NumPy scalar tangent of a Python float output is a float; the plain tuple tangent of
    a namedtuple output (`np.linalg.eigh`'s forward rule's) is of its class."""
    if type(out) is dict and type(out_dot) is dict:
        return {k: in_output_dtypes(out[k], t) if k in out else t for k, t in out_dot.items()}
    if is_sequence(type(out)) and is_sequence(type(out_dot)) and len(out) == len(out_dot):
        kind = out if type(out_dot) is tuple and isinstance(out, tuple) else out_dot  # a namedtuple's: its class
        return sequence_like(kind, [in_output_dtypes(o, t) for o, t in zip(out, out_dot)])
    if isinstance(out, (_ndarray, np.floating)) and isinstance(out_dot, (_ndarray, np.floating)):
        if out.dtype.kind == "f" and out_dot.dtype.kind == "f" and out.dtype != out_dot.dtype:
            return out_dot.astype(out.dtype)
    if type(out) is float and isinstance(out_dot, np.floating):
        return float(out_dot)  # `math.sin(x[0])` of a float32 `x`: its tangent met only Python floats
    return out_dot


_ndarray = np.ndarray
REAL_SCALARS = (np.float64, np.float32)  # a tangent of the output's own type: real, in its dtype
