"""`srcgrad.autograd.gradcheck` and `gradgradcheck`, as in `torch.autograd`: the Jacobian
the graph gives (functional.jacobian) against central finite differences, and the same
check of the gradient function (one backward pass with create_graph), which checks
second derivatives.

Invariant: neither changes its inputs or their `.grad`.
"""

import warnings

import numpy as np

from ..tensor.grad_mode import enable_grad, no_grad
from ..tensor.tensor import Tensor
from .functional import _as_tuple, jacobian

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """What `gradcheck` raises where the Jacobians disagree."""


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True, check_backward_ad=True,
              check_forward_ad=False, **unused):
    """Whether the Jacobian the graph gives for each input that requires grad matches
    central finite differences of step `eps` within `atol` + `rtol`; with
    `raise_exception` a mismatch raises GradcheckError showing both (as PyTorch lays
    them out: one row per input element, one column per output element). With
    `check_forward_ad`, so must the Jacobian forward AD gives (one dual pass per input
    element); `check_backward_ad=False` skips the graph's."""
    func, xs = _tensors_only(func, _as_tuple(inputs))
    if any(x._requires_grad and x._data.dtype != np.float64 for x in xs):
        warnings.warn("Input #0 requires gradient and is not a double precision floating point or complex. This check "
                      "will likely fail if all the inputs are not of double precision floating point or complex. ",
                      UserWarning, stacklevel=2)
    # a tuple over the inputs; over the outputs first where func returns several
    analytic = jacobian(func, xs) if check_backward_ad else None
    given = func(*xs)
    outputs = _as_tuple(given)
    for j, out in enumerate(outputs):
        per_input = analytic if isinstance(given, Tensor) else analytic[j]
        for k, x in enumerate(xs):
            if not x._requires_grad:
                continue
            n = _numerical(func, xs, k, j, eps).T
            found = []
            if check_backward_ad:
                found.append(("Jacobian", (per_input[k]._data.reshape(out._data.size, x._data.size).T)))
            if check_forward_ad:
                found.append(("Jacobian computed with forward mode", _forward_jacobian(func, xs, k, j).T))
            for what, a in found:
                if not np.allclose(a, n, atol=atol, rtol=rtol):
                    if not raise_exception:
                        return False
                    raise GradcheckError(f"{what} mismatch for output {j} with respect to input {k},\n"
                                         f"numerical:{Tensor._make(n.astype(a.dtype))!r}\n"
                                         f"analytical:{Tensor._make(a)!r}\n")
    return True


def _tensors_only(func, xs):
    """(`func` as a function of the Tensors of `xs` only, the other arguments fixed, those
    Tensors): the checks vary the Tensor inputs (PyTorch passes the others through)."""
    if all(isinstance(x, Tensor) for x in xs):
        return func, xs
    positions = [i for i, x in enumerate(xs) if isinstance(x, Tensor)]

    def on_tensors(*tensors):
        args = list(xs)
        for i, t in zip(positions, tensors):
            args[i] = t
        return func(*args)

    return on_tensors, tuple(xs[i] for i in positions)


def _forward_jacobian(func, xs, k, j):
    """d output j / d input k by forward AD, one one-hot tangent per input element:
    (output size, input size)."""
    from . import forward_ad

    base = xs[k]._data
    columns = []
    with no_grad():
        for i in range(base.size):
            tangent = np.zeros(base.shape, base.dtype)
            tangent.reshape(-1)[i] = 1
            with forward_ad.dual_level():
                args = list(xs)
                args[k] = forward_ad.make_dual(Tensor._make(base), Tensor._make(tangent))
                out = _as_tuple(func(*args))[j]
                t = forward_ad.unpack_dual(out).tangent
                columns.append(np.zeros(out._data.size) if t is None else t._data.astype(np.float64).reshape(-1))
    return np.stack(columns, axis=1)


def _numerical(func, xs, k, j, eps):
    """d output j / d input k by central differences: (output size, input size)."""
    base = xs[k]._data
    columns = []
    with no_grad():
        for i in range(base.size):
            values = []
            for step in (eps, -eps):
                moved = base.copy()
                moved.reshape(-1)[i] += step
                args = list(xs)
                args[k] = Tensor._make(moved)
                values.append(_as_tuple(func(*args))[j]._data.astype(np.float64).reshape(-1))
            columns.append((values[0] - values[1]) / (2 * eps))
    size = _as_tuple(func(*xs))[j]._data.size
    return np.stack(columns, axis=1) if columns else np.zeros((size, 0))


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
                  gen_non_contig_grad_outputs=False, raise_exception=True, **unused):
    """`gradcheck` of the gradient function: (inputs, grad_outputs) -> the gradients of
    `func`'s outputs weighted by `grad_outputs` with respect to the inputs that require
    grad, made with create_graph, so its Jacobian holds `func`'s second derivatives.
    Without `grad_outputs`, random ones (uniform in [-9, 9], as PyTorch's
    `make_tensor`) that require grad, drawn from srcgrad's generator."""
    from ..tensor.generators import stream

    func, xs = _tensors_only(func, _as_tuple(inputs))
    if grad_outputs is None:
        outputs = _as_tuple(func(*xs))
        grad_outputs = tuple(Tensor._make(stream().uniform(-9.0, 9.0, o._data.shape).astype(o._data.dtype), True)
                             for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    count = len(xs)
    needs = [x._requires_grad for x in xs]

    def gradients(*args):
        # gradcheck's finite differences call this under no_grad with inputs that do not
        # require grad: the gradient function itself needs them to, and grad mode
        given = tuple(a.detach().requires_grad_() if need and not a._requires_grad else a
                      for a, need in zip(args[:count], needs))
        with enable_grad():
            return _weighted_gradients(func, given, args[count:])

    return gradcheck(gradients, xs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


def _weighted_gradients(func, given, weights):
    """The gradients (with create_graph) of `func(*given)`'s outputs that require grad,
    weighted by `weights`, with respect to the inputs that require grad (None dropped)."""
    from . import grad

    pairs = [(o, w) for o, w in zip(_as_tuple(func(*given)), weights) if o._requires_grad]
    needing = [x for x in given if x._requires_grad]
    found = grad([o for o, _ in pairs], needing, [w for _, w in pairs], create_graph=True, allow_unused=True)
    return tuple(g for g in found if g is not None)
