"""Statistics of samples: cov and corrcoef.

Both are PyTorch's compositions of Tensor ops (Correlation.cpp), so their nodes are the
last of those ops (SqueezeBackward0 for cov; ClampBackward1, or DivBackward0 for one
variable, for corrcoef) and weights that require grad get their gradients too. None
holds calculus. Checks, warnings and messages are PyTorch's.
"""

import warnings

import numpy as np

from . import ops

__all__ = ["cov", "corrcoef", "StatisticOps"]


def _check_weights(label, w, observations, integral):
    if w._data.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {label} to have one or fewer dimensions but got {label} with {w._data.ndim} dimensions"
        )
    if (w._data.dtype.kind in "iu") != integral or (not integral and w._data.dtype.kind != "f"):
        want = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {label} to have {want} dtype but got {label} with {w.dtype.kind_name} dtype")
    if w._data.size != observations:
        raise RuntimeError(
            f"cov(): expected {label} to have the same numel as there are observations in the input but got "
            f"{w._data.size} != {observations}"
        )
    if observations and np.min(w._data) < 0:
        raise RuntimeError(f"cov(): {label} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of `input` (observations in the
    columns; a vector is one variable), weighted by the frequencies `fweights` and the
    weights `aweights`, normalized by the weights' sum less `correction` (as NumPy's)."""
    if input._data.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input._data.ndim} dimensions"
        )
    x = input.view(1, -1) if input._data.ndim < 2 else input
    observations = x._data.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, True)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, False)
        w = aweights if w is None else w * aweights
    total = observations if w is None else w.sum()
    if w is not None and total._data == 0:
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    mean = (x if w is None else x * w).sum(1) / total
    if w is not None and aweights is not None and correction != 0:
        norm = total - correction * (w * aweights).sum() / total
    else:
        norm = total - correction
    if np.asarray(ops._data(norm)) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
            UserWarning, stacklevel=2,
        )
        norm = norm * 0
    centred = x - mean.unsqueeze(1)
    product = centred.mm((centred if w is None else centred * w).t())
    return (product / norm).squeeze()


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of `input`: cov
    divided by the product of the standard deviations, clipped to [-1, 1]."""
    if input._data.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    c = cov(input)
    if c._data.ndim == 0:  # one variable: nan where its variance is 0, inf or nan, else 1
        return c / c
    deviations = c.diagonal().sqrt()
    c = c / deviations.view(-1, 1)
    c = c / deviations.view(1, -1)
    return c.clip(-1, 1)


class StatisticOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    cov, corrcoef = cov, corrcoef
