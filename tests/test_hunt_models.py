"""Model code written from scratch, as course notes write it (a character RNN keeping its
states in dicts, convolution through np.lib.stride_tricks.as_strided, optimizer steps
over a dict of parameters).

- `xs, hs = {}, {}` then `hs[-1] = h0` and `hs[t] = ...`: the dicts made by unpacking a
  tuple were taken for lists, and the derivative saved the entry a write replaced by
  reading it, `snapshot(hs[-1])`: a bare `KeyError: -1` for every character RNN of this
  form. A dict bound through a name so made is now known as one (its new keys are
  removed again by the undo).
- `as_strided(x, shape, strides)` had no rule; it now sends each window entry's gradient
  to the entry of x whose memory it reads, and refuses views reading other memory.
- `for k in params: params[k] -= ...` over a dict the function makes, with momentum
  buffers `{k: np.zeros_like(v) for k, v in params.items()}`, was refused: the loop's
  key and the comprehension's entries were taken to share memory with the parameters.
  Keys are hashable, never arrays, and a comprehension's entries are what its element
  makes (`np.zeros_like(v)` a new array).
"""

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import srcgrad
from program_checks import check, check_hessian

_INPUTS = [0, 3, 1, 3]
_TARGETS = [3, 1, 3, 2]


def char_rnn(Wxh, Whh, Why):
    xs, hs, ps = {}, {}, {}
    hs[-1] = np.zeros(Whh.shape[0])
    loss = 0.0
    for t in range(len(_INPUTS)):
        xs[t] = np.zeros(Wxh.shape[1])
        xs[t][_INPUTS[t]] = 1.0
        hs[t] = np.tanh(Wxh @ xs[t] + Whh @ hs[t - 1])
        y = Why @ hs[t]
        ps[t] = np.exp(y) / np.sum(np.exp(y))
        loss += -np.log(ps[t][_TARGETS[t]])
    return loss


def _rnn_args():
    r = np.random.default_rng(3)
    return 0.4 * r.normal(size=(3, 4)), 0.4 * r.normal(size=(3, 3)), 0.4 * r.normal(size=(4, 3))


def test_dicts_made_by_unpacking_a_tuple_take_new_and_negative_keys():
    # was KeyError: -1 from `snapshot(hs[-1])` in the derivative; the numbers are JAX's
    grads = check(char_rnn, *_rnn_args())
    np.testing.assert_allclose(grads[1][0], [-0.05081319383866793, -0.0314382741623145, 0.07109860493140005],
                               rtol=1e-9)
    np.testing.assert_allclose(srcgrad.value_and_grad(char_rnn, wrt=2)(*_rnn_args())[0], 5.5622061192324574,
                               rtol=1e-12)


def recurrence_in_a_dict(w):
    h, seen = {}, {}
    h[-1] = w * 0.0 + 1.0
    for t in range(3):
        seen[t] = h[t - 1]
        h[t] = np.sin(w * h[t - 1])
    return h[2] + seen[1]


def test_a_dict_made_by_unpacking_in_forward_and_reverse():
    check(recurrence_in_a_dict, 0.7)
    check_hessian(recurrence_in_a_dict, (np.array(0.7),), 0)


def conv_strided(x, w):
    H, W = x.shape
    kh, kw = w.shape
    s0, s1 = x.strides
    windows = as_strided(x, shape=(H - kh + 1, W - kw + 1, kh, kw), strides=(s0, s1, s0, s1))
    return np.sum(np.einsum("ijkl,kl->ij", windows, w) ** 2)


def framed(x, w):
    step = x.strides[0]
    frames = as_strided(x, shape=((len(x) - 4) // 2 + 1, 4), strides=(2 * step, step))
    return np.sum(np.tanh(frames @ w))


def strided_of_a_transpose(x):
    y = x.T
    return np.sum(as_strided(y, shape=(2, 2), strides=y.strides) ** 2 * np.array([[1.0, 2.0], [3.0, 4.0]]))


def test_as_strided_windows_of_an_image():
    r = np.random.default_rng(0)
    x, w = r.normal(size=(4, 4)), r.normal(size=(2, 2))
    gx, gw = check(conv_strided, x, w)
    # each output entry is sum_kl x[i+k, j+l] w[k, l]
    out = np.array([[np.sum(x[i:i + 2, j:j + 2] * w) for j in range(3)] for i in range(3)])
    want = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            want[i:i + 2, j:j + 2] += 2 * out[i, j] * w
    np.testing.assert_allclose(gx, want, rtol=1e-12)
    check_hessian(conv_strided, (x, w), 0)
    check_hessian(conv_strided, (x, w), 1)


def test_as_strided_overlapping_frames_and_a_transposed_input():
    r = np.random.default_rng(1)
    check(framed, r.normal(size=10), r.normal(size=4))
    check_hessian(framed, (r.normal(size=10), r.normal(size=4)), 0)
    x = r.normal(size=(3, 3))
    (g,) = check(strided_of_a_transpose, x)
    # the view's entry [a, b] is y[a, b] = x[b, a], weighted by c[a, b] = [[1, 2], [3, 4]]
    np.testing.assert_allclose(g, [[2 * x[0, 0], 6 * x[0, 1], 0], [4 * x[1, 0], 8 * x[1, 1], 0], [0, 0, 0]],
                               rtol=1e-12)
    g32 = srcgrad.grad(framed)(np.ones(10, np.float32), np.ones(4, np.float32))
    assert g32.dtype == np.float32


def past_the_end(x):
    return np.sum(as_strided(x, shape=(5,), strides=(2 * x.strides[0],)))


def test_as_strided_reading_memory_outside_its_input_is_refused():
    with pytest.raises(ValueError, match="reads memory outside the entries of its input"):
        srcgrad.grad(past_the_end)(np.ones(6))


def sgd_momentum_dict(W, b):
    params = {"W": W * 1.0, "b": b * 1.0}
    velocity = {k: np.zeros_like(v) for k, v in params.items()}
    for step in range(3):
        grads = {"W": 2.0 * params["W"] + 1.0, "b": np.cos(params["b"])}
        for k in params:
            velocity[k] = 0.9 * velocity[k] - 0.1 * grads[k]
            params[k] -= -1.0 * velocity[k]
    return np.sum(params["W"] ** 2) + np.sum(params["b"] ** 3)


def momentum_over_items(W, b):
    params = {"W": W * 1.0, "b": b * 1.0}
    m = {"W": np.zeros_like(W), "b": np.zeros_like(b)}
    for k, v in params.items():
        m[k] += 2.0 * v
        params[k] = v - 0.1 * m[k]
    return np.sum(params["W"] ** 2) + np.sum(params["b"] ** 3)


def test_optimizer_steps_over_a_dict_of_parameters():
    W, b = np.array([0.3, -0.5]), np.array([0.7])
    check(sgd_momentum_dict, W, b)
    # params -> 0.8 * params: (1.28 W, 1.536 b^2)
    check(momentum_over_items, W, b, expected=(1.28 * W, 1.536 * b ** 2))


def items_shared_with_the_buffers(W):
    params = {"W": W * 1.0}
    m = {k: v for k, v in params.items()}
    for k in params:
        m[k] += 2.0 * params[k]
    return np.sum(params["W"] ** 2)


def loop_value_changed_in_place(W):
    params = {"W": W * 1.0}
    for k, v in params.items():
        v += 1.0
    return np.sum(params["W"] ** 2)


@pytest.mark.parametrize("fn", [items_shared_with_the_buffers, loop_value_changed_in_place])
def test_in_place_changes_of_the_parameters_arrays_stay_refused(fn):
    with pytest.raises(srcgrad.NotDifferentiableError, match="test_hunt_models.py"):
        srcgrad.grad(fn)(np.array([0.3, -0.5]))
