"""Programs written as scientists and ML people write them (simulations, inner
optimizations, likelihoods, small models), from a hunt for wrong gradients and needless
refusals; each once gave a wrong derivative, a bare exception or a refusal of exact code.

- A dict's entry is an object of its own, not a view of the dict: `peak = max(peak,
  state['I'])` before `state['S'] -= v` (a dict-state SIR model) is exact, as for a list.
- `y += v` where `y` may still be a float argument on some paths (`y = h0`, then `y = -y`
  in a branch: a bouncing ball) is checked when it runs: exact where `y` is a number, a
  `NotDifferentiableError` where it is an array shared with the caller.

Each program is checked against central differences, in forward mode (the dot-product
test), with its arguments left unchanged, and where cheap through its Hessian.
"""

import math

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian


# --- dict state ------------------------------------------------------------------------


def sir_peak(beta, gamma):
    state = {"S": 0.99, "I": 0.01, "R": 0.0}
    peak = 0.0
    for _ in range(20):
        new_inf = beta * state["S"] * state["I"]
        new_rec = gamma * state["I"]
        state["S"] -= new_inf
        state["I"] += new_inf - new_rec
        state["R"] += new_rec
        peak = max(peak, state["I"])
    return peak + state["R"]


def entry_kept_across_a_write(x):
    d = dict(a=x * 1.0, b=x * 2.0)
    t = d["a"]
    d["a"] = d["a"] + 1.0
    return np.sum(t * d["a"] * d["b"])


def entry_changed_in_place(x):
    d = {"a": x * 1.0}
    t = d["a"]
    t[0] = 5.0
    return np.sum(d["a"] * x)


def test_an_entry_read_from_a_dict_state_is_not_a_view_of_it():
    check(sir_peak, 0.5, 0.1)
    check_hessian(sir_peak, (0.5, 0.1), 0)
    x = np.array([0.5, -1.0, 2.0])
    check(entry_kept_across_a_write, x, expected=[6 * x ** 2 + 4 * x])


def test_an_array_entry_changed_through_another_name_stays_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="line"):
        srcgrad.grad(entry_changed_in_place)(np.ones(3))


# --- a float argument updated with `+=` after a rebinding on some paths ---------------


def bouncing_ball(h0, e):
    y, v = h0, 0.0
    bounces = 0
    for _ in range(300):
        v -= 9.81 * 0.01
        y += v * 0.01
        if y < 0.0:
            y = -y
            v = -e * v
            bounces += 1
            if bounces == 2:
                return y
    return y


def reflected_array(x0, e):
    y = x0
    for _ in range(3):
        y += e
        if y[0] < 0.0:
            y = -y
    return np.sum(y)


def test_an_augmented_float_that_may_be_an_argument_is_checked_when_it_runs():
    grads = check(bouncing_ball, 1.0, 0.8)
    assert grads[1] != 0.0
    x0 = np.array([1.0, 2.0])
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes `y` in place"):
        srcgrad.grad(reflected_array)(x0, 0.5)
    np.testing.assert_array_equal(x0, [1.0, 2.0])
