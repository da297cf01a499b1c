"""What a workload is: a plain NumPy function, its inputs, and its gradients.

A workload module defines the user's function exactly as a user would write it
(module-level ``np`` and, where needed, ``math``), a maker of its inputs, the
hand-written NumPy gradient, and how each peer library runs it.

Peer entries (``Workload.peers``), keyed by implementation name:

* ``SAME``: run the user's function unchanged with the peer's NumPy bound to
  ``np`` (``autograd.numpy``, ``jax.numpy``); this is the default for autograd,
  jax, jax-jit and tangent.
* a zero-argument factory returning the peer's own version of the function; it
  imports the peer itself, so this module imports without any peer installed.
* ``NA("reason")``: the peer cannot express the workload; the table says why.

torch has no default: a workload without a ``"torch"`` entry shows n/a.

A derivation workload (``derivation_only``) measures how long srcgrad takes to build
the derivative of a longer function; it has no hand-written gradient and no peers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class _Same:
    def __repr__(self) -> str:
        return "SAME"


SAME = _Same()


@dataclass(frozen=True)
class NA:
    """The peer cannot run this workload, and why."""

    reason: str


@dataclass
class Workload:
    name: str  # id used by --only, e.g. "logreg-mnist"
    title: str  # short description shown in the tables
    fn: Callable  # the user's function, plain NumPy
    make_args: Callable[[Any], tuple]  # rng -> positional arguments of fn
    wrt: tuple[int, ...]  # positions differentiated
    # Gradient workloads: hand(*args) -> tuple of gradients (one per wrt).
    # VJP workloads: hand(v, *args) -> tuple; the forward pass and the pullback
    # are both part of the timed call.
    hand: Callable
    make_seed: Callable[[Any], Any] | None = None  # rng -> cotangent v (VJP workloads)
    peers: dict[str, Any] = field(default_factory=dict)
    measure_memory: bool = False  # report tracemalloc peak for NumPy-backed impls
    # Derivation workloads (hand=None): only srcgrad's build time is measured, and
    # --check compares srcgrad's gradient with finite differences.
    derivation_only: bool = False

    @property
    def is_vjp(self) -> bool:
        return self.make_seed is not None
