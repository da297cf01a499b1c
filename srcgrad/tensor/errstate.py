"""Silencing NumPy's floating-point warnings around a computation.

PyTorch never warns about a division by zero or an overflow: inf and nan are values.
The shim runs NumPy under `token = quiet()` ... `loud(token)`, which does what
`np.errstate(all="ignore")` does at a fraction of the cost (it is on every eager op).
`loud(quiet())` restores the previous state exactly, nested or not.
"""

import functools

import numpy as np

__all__ = ["quiet", "loud"]


def _ignoring_errors():
    """(enter, leave): silence NumPy's floating-point warnings around a call, as
    `np.errstate(all="ignore")` does; `leave(enter())` restores the previous state."""
    try:
        from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

        return functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore")), _extobj_contextvar.reset
    except (ImportError, AttributeError, TypeError):  # another NumPy: the public spelling

        def enter():
            ctx = np.errstate(all="ignore")
            ctx.__enter__()
            return ctx

        return enter, lambda ctx: ctx.__exit__(None, None, None)


quiet, loud = _ignoring_errors()

