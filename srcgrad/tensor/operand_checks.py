"""PyTorch's errors for the operands of an elementwise op, checked before NumPy computes
it (NumPy would compute some of these, or raise its own ValueError): bool subtraction,
shapes that do not broadcast. `ops` re-exports them (`ops.check_broadcast`)."""

import operator

import numpy as np


def refuse_bool_subtraction(x, y):
    """PyTorch's RuntimeError for `x - y` where either side is a bool tensor (a Python
    bool on the other side counts as one); NumPy would compute some of these."""
    bool_x, bool_y = np.result_type(x).kind == "b", np.result_type(y).kind == "b"
    if bool_x and bool_y:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead."
        )
    if bool_x or bool_y:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )


def check_broadcast(x, y):
    """Raise PyTorch's RuntimeError where the shapes of `x` and `y` (arrays, Tensors'
    arrays or numbers) do not broadcast (`where`, `masked_fill`, `mse_loss`)."""
    _raise_broadcast_error(None, x, y)


def _raise_broadcast_error(primitive, x, y):
    """Raise PyTorch's error when the elementwise `primitive`'s operands `x`, `y` (arrays
    or numbers) do not broadcast; return when they do (the ValueError has another cause)."""
    if primitive is operator.matmul:
        return
    a, b = np.shape(x), np.shape(y)
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for i in reversed(range(n)):  # PyTorch names the last dim that differs
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton dimension {i}"
            ) from None
