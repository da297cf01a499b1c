"""Evenly spaced samples: linspace, logspace, geomspace, differentiated in `start` and `stop`.

Sample i of `num` lies at the fraction w_i = i / div of the way (div = num - 1 with the
endpoint, num without it; w = [0] for a single sample), along the new axis `axis` of
the result, which broadcasts `start` against `stop`:
- linspace: start (1 - w) + stop w, so d/dstart = 1 - w and d/dstop = w; with
  `retstep=True` the step (stop - start) / div has derivatives -1/div and 1/div (0 for
  a single sample with the endpoint, whose step NumPy gives as nan);
- logspace: base ** linspace, so d/dstart = ans ln(base) (1 - w), and w for stop;
- geomspace: start (stop / start) ** w, so d/dstart = ans (1 - w) / start and
  d/dstop = ans w / stop (the ends are start and stop exactly, as NumPy makes them).
`num`, `endpoint`, `axis` and logspace's `base` are constants (a differentiated base
is refused: no rule). An integer `dtype` rounds the samples: zero derivative.
"""

import numpy as np

from ..runtime import unbroadcast
from .reductions import _float_dtype
from .registry import defjvp, defvjp


def _fractions(ans, start, stop, num, endpoint, axis):
    """w, shaped to broadcast against the samples `ans` (the sample axis at `axis`)."""
    ndim = np.ndim(ans)
    shape = [1] * ndim
    shape[axis % ndim] = num
    return np.reshape(np.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=_float_dtype(ans)), shape)


def _end(value, start, stop, ans, axis):
    """`value` (start, stop or a tangent of one) broadcast to the samples' shape but for
    a length-1 sample axis, in the samples' float dtype."""
    shape = np.broadcast_shapes(np.shape(start), np.shape(stop))
    return np.expand_dims(np.broadcast_to(value, shape), axis % np.ndim(ans)).astype(_float_dtype(ans), copy=False)


def _slope(kind, ans, start, stop, num, endpoint, axis, base, of_stop):
    """d samples / d start (d / d stop with `of_stop`), shaped like the samples."""
    w = _fractions(ans, start, stop, num, endpoint, axis)
    share = w if of_stop else 1.0 - w
    if np.result_type(ans).kind in "biu":  # integer samples: rounded, piecewise constant
        return np.zeros(np.shape(ans))
    if kind == "linspace":
        return np.broadcast_to(share, np.shape(ans))
    if kind == "logspace":
        return ans * np.log(np.asarray(base, dtype=_float_dtype(ans))) * share
    return ans * share / _end(stop if of_stop else start, start, stop, ans, axis)


def _step_slope(num, endpoint, of_stop):
    """d step / d start (d / d stop with `of_stop`)."""
    div = num - 1 if endpoint else num
    return 0.0 if div == 0 else (1.0 / div if of_stop else -1.0 / div)


def _spaced_vjp(g, ans, kind, start, stop, num, endpoint, axis, base, retstep, of_stop):
    """The gradient of start (or stop); with `retstep` g and ans are (samples, step) pairs,
    None for a part that receives no gradient."""
    samples_g, step_g = (g if retstep else (g, None))
    samples = ans[0] if retstep else ans
    end = stop if of_stop else start
    grad = 0.0 if samples_g is None else np.sum(
        samples_g * _slope(kind, samples, start, stop, num, endpoint, axis, base, of_stop), axis=axis % np.ndim(samples)
    )
    if step_g is not None:
        grad = grad + step_g * _step_slope(num, endpoint, of_stop)
    return unbroadcast(grad + np.zeros(np.broadcast_shapes(np.shape(start), np.shape(stop))), end)


def _spaced_jvp(t, ans, kind, start, stop, num, endpoint, axis, base, retstep, of_stop):
    """The tangent of the samples (and of the step, with `retstep`) from that of start (or stop)."""
    samples = ans[0] if retstep else ans
    slope = _slope(kind, samples, start, stop, num, endpoint, axis, base, of_stop)
    tangent = slope * _end(t, start, stop, samples, axis)
    if not retstep:
        return tangent
    return tangent, t * _step_slope(num, endpoint, of_stop) + np.zeros(np.shape(ans[1]), _float_dtype(ans[1]))


@defvjp(np.linspace, "start")
def linspace_vjp_start(g, ans, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    return _spaced_vjp(g, ans, "linspace", start, stop, num, endpoint, axis, None, retstep, False)


@defvjp(np.linspace, "stop")
def linspace_vjp_stop(g, ans, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    return _spaced_vjp(g, ans, "linspace", start, stop, num, endpoint, axis, None, retstep, True)


@defjvp(np.linspace, "start")
def linspace_jvp_start(t, ans, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    return _spaced_jvp(t, ans, "linspace", start, stop, num, endpoint, axis, None, retstep, False)


@defjvp(np.linspace, "stop")
def linspace_jvp_stop(t, ans, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    return _spaced_jvp(t, ans, "linspace", start, stop, num, endpoint, axis, None, retstep, True)


@defvjp(np.logspace, "start")
def logspace_vjp_start(g, ans, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return _spaced_vjp(g, ans, "logspace", start, stop, num, endpoint, axis, base, False, False)


@defvjp(np.logspace, "stop")
def logspace_vjp_stop(g, ans, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return _spaced_vjp(g, ans, "logspace", start, stop, num, endpoint, axis, base, False, True)


@defjvp(np.logspace, "start")
def logspace_jvp_start(t, ans, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return _spaced_jvp(t, ans, "logspace", start, stop, num, endpoint, axis, base, False, False)


@defjvp(np.logspace, "stop")
def logspace_jvp_stop(t, ans, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return _spaced_jvp(t, ans, "logspace", start, stop, num, endpoint, axis, base, False, True)


@defvjp(np.geomspace, "start")
def geomspace_vjp_start(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return _spaced_vjp(g, ans, "geomspace", start, stop, num, endpoint, axis, None, False, False)


@defvjp(np.geomspace, "stop")
def geomspace_vjp_stop(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return _spaced_vjp(g, ans, "geomspace", start, stop, num, endpoint, axis, None, False, True)


@defjvp(np.geomspace, "start")
def geomspace_jvp_start(t, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return _spaced_jvp(t, ans, "geomspace", start, stop, num, endpoint, axis, None, False, False)


@defjvp(np.geomspace, "stop")
def geomspace_jvp_stop(t, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return _spaced_jvp(t, ans, "geomspace", start, stop, num, endpoint, axis, None, False, True)
