"""Programs written as scientists and ML people write them (simulations, inner
optimizations, likelihoods, small models), from a hunt for wrong gradients and needless
refusals; each once gave a wrong derivative, a bare exception or a refusal of exact code.

- A dict's entry is an object of its own, not a view of the dict: `peak = max(peak,
  state['I'])` before `state['S'] -= v` (a dict-state SIR model) is exact, as for a list.
- `y += v` where `y` may still be a float argument on some paths (`y = h0`, then `y = -y`
  in a branch: a bouncing ball) is checked when it runs: exact where `y` is a number, a
  `NotDifferentiableError` where it is an array shared with the caller.
- The forward rules of the NaN-ignoring reductions (nansum, nanmean, nanprod, nanvar,
  nanstd, nanmax, nanmin, nancumsum, nancumprod) leave out the tangent at NaN entries,
  which is NaN itself where it is computed from the NaN (`2 * y * y_dot`): jvp and
  forward jacobians were NaN. nanstd's tangent of a 0-d result is a NumPy scalar.
- `jacobian(f, mode="reverse")` differentiates the arguments `vjp` does (not an integer
  `k` used in `c[:-k]`, which was refused as an index that depends on the input), and
  `vjp` leaves a parameter left to its default alone; `jacobian(f, wrt=1)` and `hessian`
  with respect to a parameter left to its default take the default (a bare IndexError).
- `ws = list(ws)` of an argument, then `ws.sort()` or `ws.reverse()`, and `p =
  params.copy()`, then `p.update({...})`, are rewritten as the assignments they make, as
  for the lists and dicts the function makes otherwise (they were refused as changes in place).
- An attribute of a constant object assigned to a differentiated name on some paths
  (`W = self.W if W is None else W`) is a constant there, not a refusal.
- A helper with keyword-only parameters (`def layer(x, *, w, b=0.5)`) is spliced into
  its caller as one with plain parameters is (it was refused when `w` was differentiated).
- A refusal inside an installed library's Python function that the differentiated one
  calls (`scipy.linalg.expm`) names the user's call, not a line of the library's file.

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


# --- NaN-ignoring reductions in forward mode -------------------------------------------


def with_holes(x):
    y = x * 1.0
    y[2] = np.nan
    y[5] = np.nan
    return y


def nan_sums(x):
    y = with_holes(x) ** 2
    return np.nansum(y) + np.nanmean(y) + np.nanprod(y) + np.sum(np.nancumsum(y) ** 2)


def nan_spreads(x):
    y = with_holes(x) ** 2
    return np.nanvar(y) + np.nanstd(y) + np.nanmax(y * 2.0) + np.nanmin(y) + np.sum(np.nancumprod(np.sin(y)))


def nan_rows(X):
    Y = np.where(X > 1.0, np.nan, X)
    return np.nanmean(Y ** 2, axis=1) + np.nanstd(Y * 3, axis=1)


NAN_X = np.array([0.3, -1.2, 0.8, 1.1, -0.4, 0.6, 0.9, -0.7])


@pytest.mark.parametrize("f", [nan_sums, nan_spreads], ids=lambda f: f.__name__)
def test_nan_reductions_leave_out_the_tangent_at_nan_entries(f):
    grads = check(f, NAN_X)
    assert np.all(np.isfinite(grads[0])) and grads[0][2] == 0.0 and grads[0][5] == 0.0


def test_nan_reductions_along_an_axis_in_forward_mode():
    X = np.array([[0.3, 1.5, -0.2, 0.7], [1.2, -0.4, 0.1, 0.5], [0.9, 0.2, 2.0, -1.0]])
    J = srcgrad.jacobian(nan_rows, mode="forward")(X)
    np.testing.assert_allclose(J, srcgrad.jacobian(nan_rows, mode="reverse")(X), rtol=1e-12)
    assert np.all(np.isfinite(J))
    _, t = srcgrad.jvp(np.nanstd, (X[0],), (np.ones(4),))
    assert type(t) is np.float64


# --- integer and default parameters in reverse-mode Jacobians --------------------------


def moving_average(x, k=3):
    c = np.cumsum(np.concatenate([[0.0], x]))
    return (c[k:] - c[:-k]) / k


def window_sums(x, k):
    c = np.cumsum(x)
    return (c[k:] - c[:-k]) * 2.0


def scaled(x, s=2.0):
    return x * s * s


def test_a_reverse_jacobian_leaves_integer_and_default_parameters_alone():
    x = np.array([0.5, -1.0, 2.0, 0.3, 1.1])
    expected = np.zeros((3, 5))
    for i in range(3):
        expected[i, i:i + 3] = 1.0 / 3.0
    for mode in ("reverse", "forward", None):
        np.testing.assert_allclose(srcgrad.jacobian(moving_average, mode=mode)(x), expected, rtol=1e-12)
    _, pullback = srcgrad.vjp(moving_average, x)
    np.testing.assert_allclose(pullback(np.ones(3))[0], np.ones(3) @ expected, rtol=1e-12)
    J = srcgrad.jacobian(window_sums, mode="reverse")(x, 2)
    np.testing.assert_allclose(J, srcgrad.jacobian(window_sums, mode="forward")(x, 2), rtol=1e-12)


def test_a_jacobian_with_respect_to_a_parameter_left_to_its_default_takes_it():
    x = np.array([0.5, -1.0, 2.0])
    for mode in ("reverse", "forward", None):
        np.testing.assert_allclose(srcgrad.jacobian(scaled, wrt=1, mode=mode)(x), 4.0 * x, rtol=1e-12)
    assert srcgrad.hessian(lambda x, s=2.0: np.sum(x * s * s), wrt=1)(x) == pytest.approx(2.0 * np.sum(x))


# --- in-place methods of a copy of an argument -----------------------------------------


def sorted_weights(ws):
    ws = list(ws)
    ws.sort()
    return ws[0] * 2 + ws[-1] * 3 + sum(ws[1:-1])


def reversed_weights(ws):
    ws = list(ws)
    ws.reverse()
    acc = 0.0
    for i, w in enumerate(ws):
        acc = acc * 0.5 + w * (i + 1)
    return acc


def updated_copy(params, x):
    p = params.copy()
    p.update({"W": params["W"] * 2.0})
    return np.sum(np.tanh(x @ p["W"] + p["b"]))


def sorted_before_the_copy(ws):
    ws.sort()
    ws = list(ws)
    return ws[0] * 2.0


def sorted_array_copy(x):
    y = x.copy()
    y.sort()
    return y[0] * 2.0


def test_methods_of_a_copy_of_an_argument_are_rewritten():
    ws = [0.3, -0.2, 1.5, 0.7]
    assert srcgrad.grad(sorted_weights)(ws) == [1.0, 2.0, 3.0, 1.0]
    assert srcgrad.grad(reversed_weights)(ws) == pytest.approx([4.0, 1.5, 0.5, 0.125])
    assert ws == [0.3, -0.2, 1.5, 0.7]
    params = {"W": np.array([[0.5, -0.2], [0.1, 0.3]]), "b": np.array([0.1, -0.1])}
    x = np.array([[1.0, 2.0], [-0.5, 0.3]])
    g = srcgrad.grad(updated_copy)(params, x)
    h = 1 - np.tanh(x @ (2 * params["W"]) + params["b"]) ** 2
    np.testing.assert_allclose(g["W"], 2 * x.T @ h, rtol=1e-12)
    np.testing.assert_allclose(g["b"], h.sum(axis=0), rtol=1e-12)


def test_sorting_an_argument_stays_refused_and_an_array_copy_sorts():
    with pytest.raises(srcgrad.NotDifferentiableError, match="sort"):
        srcgrad.grad(sorted_before_the_copy)([0.3, -0.2])
    x = np.array([0.3, -0.2])
    np.testing.assert_array_equal(srcgrad.grad(sorted_array_copy)(x), [0.0, 2.0])  # y.sort(): array_writes.py
    np.testing.assert_array_equal(x, [0.3, -0.2])


# --- optional weights of a method, keyword-only parameters -----------------------------


class Linear:
    def __init__(self):
        self.W = np.array([[0.5, -1.0], [2.0, 0.3], [-0.7, 1.1]])

    def apply(self, x, W=None):
        W = self.W if W is None else W
        return x @ W

    def apply_or_own(self, x, W=None):
        if W is None:
            W = self.W
        return x @ W


LINEAR = Linear()
LX = np.array([[1.0, 2.0, -1.0], [0.5, -0.3, 0.2]])


def with_given_weights(W, x):
    return np.sum(LINEAR.apply(x, W) ** 2) + np.sum(LINEAR.apply_or_own(x, W) * LINEAR.apply_or_own(x))


def keyword_layer(x, *, w, b=0.5):
    return np.sum(np.tanh(x * w + b))


def keyword_calls(x, w):
    return keyword_layer(x, w=w) + keyword_layer(x, b=w, w=2.0)


def test_an_attribute_of_a_constant_object_on_one_path_is_a_constant():
    W = LINEAR.W * 1.5
    g = check(with_given_weights, W, LX)[0]
    np.testing.assert_allclose(g, 2 * LX.T @ (LX @ W) + LX.T @ (LX @ LINEAR.W), rtol=1e-12)
    check_hessian(with_given_weights, (W, LX), 0)


def test_keyword_only_parameters_of_a_helper_are_spliced():
    x = np.array([0.1, 0.4, -0.3])
    gx, gw = check(keyword_calls, x, 1.3)
    inner, other = 1 - np.tanh(x * 1.3 + 0.5) ** 2, 1 - np.tanh(x * 2.0 + 1.3) ** 2
    np.testing.assert_allclose(gx, 1.3 * inner + 2.0 * other, rtol=1e-12)
    assert gw == pytest.approx(np.sum(x * inner) + np.sum(other), rel=1e-12)


# --- a refusal inside a library's Python function names the user's call ----------------


def library_cosine_sine(A):  # scipy.linalg.expm, once the example here, has rules now
    from scipy.linalg import cossin

    return np.sum(cossin(A, p=1, q=1)[1])


def test_a_refusal_inside_an_installed_library_names_the_users_call():
    pytest.importorskip("scipy")
    with pytest.raises(srcgrad.NotDifferentiableError, match="cannot differentiate the call of `cossin`") as info:
        srcgrad.grad(library_cosine_sine)(np.eye(2) * 0.5)
    assert info.value.filename.endswith("test_hunt_programs.py")
    assert info.value.lineno == library_cosine_sine.__code__.co_firstlineno + 3
