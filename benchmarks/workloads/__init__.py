"""The benchmark workloads, in the order the table shows them."""

from . import derive_large, derive_small, logreg, mlp, mlp_dict, mlp_helpers, rnn, scalar_loop, tutorial_vjp
from .base import NA, SAME, Workload

ALL = [
    *logreg.WORKLOADS,
    *mlp.WORKLOADS,
    *mlp_helpers.WORKLOADS,
    *mlp_dict.WORKLOADS,
    *rnn.WORKLOADS,
    *scalar_loop.WORKLOADS,
    *tutorial_vjp.WORKLOADS,
    *derive_small.WORKLOADS,
    *derive_large.WORKLOADS,
]

__all__ = ["ALL", "NA", "SAME", "Workload"]
