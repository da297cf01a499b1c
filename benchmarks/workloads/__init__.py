"""The benchmark workloads, in the order the table shows them."""

from . import logreg, mlp, rnn, scalar_loop, tutorial_vjp
from .base import NA, SAME, Workload

ALL = [
    *logreg.WORKLOADS,
    *mlp.WORKLOADS,
    *rnn.WORKLOADS,
    *scalar_loop.WORKLOADS,
    *tutorial_vjp.WORKLOADS,
]

__all__ = ["ALL", "NA", "SAME", "Workload"]
