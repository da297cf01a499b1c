"""`@srcgrad.compile` called the ways a PyTorch user calls it, checked against the same
function written with eager Tensor ops and against finite differences.

Each program runs several times: the first call of a kind runs the function itself,
the second generates the derivative, later ones run its specialized code (and the
unrolled fast path), so every path is compared. The regressions at the end failed
before their fixes (named in each docstring).
"""

import sys

import numpy as np
import pytest

import srcgrad as torch


def _grad(t):
    return None if t.grad is None else t.grad.numpy().copy()


def _close(a, b, tol=1e-10):
    assert (a is None) == (b is None), (a, b)
    if a is not None:
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _fd(fn, args, i, eps=1e-6):
    """Central differences of sum(fn(*args)) in args[i] (float64)."""
    args = [np.array(a, dtype=np.float64) for a in args]
    g = np.zeros_like(args[i])
    for idx in np.ndindex(g.shape):
        plus, minus = [a.copy() for a in args], [a.copy() for a in args]
        plus[i][idx] += eps
        minus[i][idx] -= eps
        g[idx] = (np.sum(fn(*plus)) - np.sum(fn(*minus))) / (2 * eps)
    return g


# -- arguments: keyword, defaults, keyword-only, numbers, arrays --------------------------


def _soft(x, w=None, *, scale=2.0, bias=0.0):
    if w is None:
        return np.sum(np.tanh(x) * scale) + bias
    return np.sum(np.tanh(x * w) * scale) + bias


def _soft_eager(x, w=None, *, scale=2.0, bias=0.0):
    if w is None:
        return (torch.tanh(x) * scale).sum() + bias
    return (torch.tanh(x * w) * scale).sum() + bias


def test_keywords_defaults_and_keyword_only_match_eager():
    soft = torch.compile(_soft)
    calls = [((), {}), (("w",), {}), ((), {"scale": 3.0}), (("w",), {"scale": "s"}), ((), {"w": "w", "bias": "b"}),
             ((), {"scale": "s", "bias": "b", "w": "w"}), (("w",), {"bias": 1.5}), ((), {"w": "wn"})]
    for _ in range(3):
        for pos, kw in calls:
            got = []
            for fn in (soft, _soft_eager):
                t = {"x": torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64, requires_grad=True),
                     "w": torch.tensor([1.5, 0.2, -0.4], dtype=torch.float64, requires_grad=True),
                     "wn": torch.tensor([1.5, 0.2, -0.4], dtype=torch.float64),
                     "s": torch.tensor(1.7, dtype=torch.float64, requires_grad=True),
                     "b": torch.tensor(0.25, dtype=torch.float64, requires_grad=True)}
                y = fn(t["x"], *[t[p] for p in pos], **{k: t[v] if isinstance(v, str) else v for k, v in kw.items()})
                y.backward()
                got.append([y.detach().numpy()] + [_grad(t[k]) for k in ("x", "w", "s", "b")])
            for a, b in zip(*got):
                _close(a, b)


def _looped(x, w, n, c, arr):
    acc = 0.0
    for k in range(n):
        acc = acc + np.sum(np.cos(x * w * (k + 1))) * c
    return acc + np.sum(arr * x)


def _looped_eager(x, w, n, c, arr):
    acc = 0.0
    for k in range(n):
        acc = acc + torch.cos(x * w * (k + 1)).sum() * c
    return acc + (torch.tensor(arr) * x).sum()


def test_requires_grad_toggled_between_calls_and_no_grad_match_eager():
    looped = torch.compile(_looped)
    arr = np.array([1.0, 2.0, 3.0])
    x = torch.tensor([0.1, 0.5, -0.3], dtype=torch.float64)
    w = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    seq = [(True, True, 2, 1.5), (True, False, 2, 1.5), (False, True, 3, 0.5), (True, True, 3, 1.5), (True, True, 2, 2),
           (True, False, 2, 1.5), (False, False, 2, 1.0), (True, True, 2, 1.5), (True, True, 3, 1.5)]
    for xg, wg, n, c in seq:
        got = []
        for fn in (looped, _looped_eager):
            x.requires_grad_(xg)
            w.requires_grad_(wg)
            x.grad = w.grad = None
            y = fn(x, w, n, c, arr)
            assert y.requires_grad == (xg or wg)
            if y.requires_grad:
                y.backward()
            with torch.no_grad():
                quiet = fn(x, w, n, c, arr)
            assert not quiet.requires_grad and quiet.grad_fn is None
            assert not fn(x.detach(), w.detach(), n, c, arr).requires_grad
            got.append([y.detach().numpy(), quiet.numpy(), _grad(x), _grad(w)])
        for a, b in zip(*got):
            _close(a, b)


def _picked(x, axis, n, flag, mode, p):
    y = np.sum(x[:n] ** p, axis=axis)
    if flag:
        y = y * 2.0
    if mode == "mean":
        return np.mean(y)
    return np.sum(y)


def test_number_and_string_arguments_of_one_kind_change_value_between_calls():
    """The kind of a call knows only the type of a number or string argument: its value
    (an axis, a slice bound, a branch, an exponent) changes between calls of the kind."""
    picked = torch.compile(_picked)
    base = np.arange(12.0).reshape(4, 3) / 7 + 0.1
    calls = [(0, 2, True, "mean", 2), (1, 3, False, "sum", 3), (0, 4, False, "mean", 2), (1, 1, True, "sum", 2.5),
             (0, 2, True, "mean", 2), (0, 3, True, "mean", 2), (1, 3, False, "mean", 3), (0, 2, True, "sum", 2)] * 2
    for c in calls:
        x = torch.tensor(base, requires_grad=True)
        y = picked(x, *c)
        y.backward()
        _close(y.item(), _picked(base, *c))
        _close(x.grad.numpy(), _fd(lambda a: _picked(a, *c), [base], 0), 1e-6)


# -- several calls in one graph, views, hooks, retain_graph, autograd.grad ---------------


def _layer(x, W):
    h = x @ W
    out = np.where(h > 0, h, 0.1 * h)
    i = 0
    while i < 2:
        out = out * 0.9 + np.sin(out) * 0.1
        i += 1
    return out


def _layer_eager(x, W):
    h = x @ W
    out = torch.where(h > 0, h, 0.1 * h)
    for _ in range(2):
        out = out * 0.9 + torch.sin(out) * 0.1
    return out


def _mse(y, t):
    return np.mean((y - t) ** 2)


def _mse_eager(y, t):
    return ((y - t) ** 2).mean()


@pytest.mark.parametrize("backend", [None, "numba"])
def test_calls_chained_in_one_graph_with_views_hooks_and_retained_graph_match_eager(backend):
    if backend:
        pytest.importorskip("numba")
    layer, mse = torch.compile(_layer, backend=backend), torch.compile(_mse, backend=backend)
    rng = np.random.default_rng(2)
    X, W1, W2, Y = rng.normal(size=(4, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 2)), rng.normal(size=(4, 2))
    for _ in range(3):
        got = []
        for L, M in ((layer, mse), (_layer_eager, _mse_eager)):
            x, w1, w2 = (torch.tensor(a, requires_grad=True) for a in (X, W1, W2))
            h = L(x * 2.0, w1)  # a non-leaf input
            h2 = L(h, w1)  # the same kind of call twice
            h3 = L(h2[:, :3], w2)  # a view as input
            h3.retain_grad()
            loss = M(h3, torch.tensor(Y))
            seen = []
            h.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 2)
            loss.backward(retain_graph=True)
            first = [_grad(x), _grad(w1), _grad(w2), _grad(h3), seen[0]]
            loss.backward()
            gx, gw = torch.autograd.grad(M(L(x * 2.0, w2), torch.tensor(Y)), [x, w2])
            got.append(first + [_grad(x), _grad(w1), _grad(w2), gx.numpy(), gw.numpy(), loss.item()])
        for a, b in zip(*got):
            _close(a, b, 1e-9)


def _stats(x, w):
    m = np.mean(x * w, axis=0)
    s = np.sum((x - m) ** 2, axis=0)
    return m, s, np.argmax(x, axis=0), np.max(x)


def _stats_eager(x, w):
    m = (x * w).mean(0)
    s = ((x - m) ** 2).sum(0)
    return m, s, x.argmax(0), x.max()


def test_tuple_outputs_some_unused_one_integer_match_eager_in_float32_and_float64():
    stats = torch.compile(_stats)
    rng = np.random.default_rng(1)
    for dt in (np.float64, np.float32, np.float64):
        for shape in ((4, 3), (2, 5)):
            X, Wv = rng.normal(size=shape).astype(dt), rng.normal(size=shape[1]).astype(dt)
            for use in ([0], [1], [0, 1], [3], [1, 3], [0, 0]):
                got = []
                for fn in (stats, _stats_eager):
                    x, w = torch.tensor(X, requires_grad=True), torch.tensor(Wv, requires_grad=True)
                    out = fn(x, w)
                    assert not out[2].requires_grad and out[0].requires_grad
                    sum((out[i] * (k + 1.5)).sum() for k, i in enumerate(use)).backward()
                    wg = _grad(w)
                    got.append([t.detach().numpy() for t in out] + [_grad(x), None if wg is None or not wg.any() else wg])
                for a, b in zip(*got):
                    assert a is None or a.dtype == b.dtype
                    _close(a, b, 1e-5 if dt == np.float32 else 1e-10)


# -- methods, modules, optimizers ---------------------------------------------------------


class _Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 4)
        self.k = 0.5

    def forward(self, x, W, b):
        return np.sum(np.tanh(x @ W.T + b) ** 2) * self.k


def test_module_forward_and_module_itself_with_an_attribute_changed_match_eager():
    torch.manual_seed(0)
    m = _Mlp()
    X = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    for compiled in (torch.compile(m.forward), torch.compile(m)):
        for k in (0.5, 0.5, 0.5, 2.0):
            m.k = k
            m.zero_grad()
            y = compiled(torch.tensor(X), m.lin.weight, m.lin.bias)
            y.backward()
            assert type(y.grad_fn).__name__ == "forwardBackward"
            W, b = (p.detach().clone().requires_grad_(True) for p in (m.lin.weight, m.lin.bias))
            ref = (torch.tanh(torch.tensor(X) @ W.T + b) ** 2).sum() * k
            ref.backward()
            _close(y.item(), ref.item(), 1e-5)
            _close(m.lin.weight.grad.numpy(), W.grad.numpy(), 1e-5)
            _close(m.lin.bias.grad.numpy(), b.grad.numpy(), 1e-5)


def _model(x, W, b):
    return np.mean((np.tanh(x @ W + b) - 0.5) ** 2)


def test_optimizers_stepping_parameters_through_a_compiled_function_match_eager():
    model = torch.compile(_model)
    rng = np.random.default_rng(3)
    X, W0, b0 = rng.normal(size=(6, 3)), rng.normal(size=(3, 2)), np.zeros(2)
    for opt, kw in ((torch.optim.SGD, {"lr": 0.1, "momentum": 0.9}), (torch.optim.Adam, {"lr": 0.01})):
        got = []
        for fn in (model, lambda x, W, b: ((torch.tanh(x @ W + b) - 0.5) ** 2).mean()):
            W, b = torch.nn.Parameter(torch.tensor(W0)), torch.nn.Parameter(torch.tensor(b0))
            o = opt([W, b], **kw)
            for _ in range(5):
                o.zero_grad()
                loss = fn(torch.tensor(X), W, b)
                loss.backward()
                o.step()
            got.append([W.detach().numpy(), b.detach().numpy(), loss.item()])
        for a, b in zip(*got):
            _close(a, b, 1e-10)


# -- in-place writes after the call -------------------------------------------------------

_AFTER_WRITES = {
    "dot": lambda x, w: np.dot(x, w),
    "matmul": lambda x, w: x @ w,
    "sum_mul": lambda x, w: np.sum(x * w),
    "where": lambda x, w: np.sum(np.where(w > 0, x, 0.0)),
    "vec_mul": lambda x, w: x * w,
    "max": lambda x, w: np.max(x * w),
    "mean_sq": lambda x, w: np.mean((x - w) ** 2),
    "row": lambda x, w: x[0] * w,
    "maximum": lambda x, w: np.sum(np.maximum(x, w)),
}


@pytest.mark.parametrize("name", sorted(_AFTER_WRITES))
def test_writes_into_the_inputs_after_the_call_raise_or_leave_the_gradient_of_the_values_called_with(name):
    """A gradient saved at the call is that of the values the call saw (never of an input
    array written into since: it must not alias one); a node that reads its inputs at
    backward raises PyTorch's version error."""
    fn = _AFTER_WRITES[name]
    compiled = torch.compile(fn)
    x0, w0 = np.array([1.0, -2.0, 3.0]), np.array([0.5, -1.5, 2.0])
    for w_grad in (False, True):
        for _ in range(4):
            x, w = torch.tensor(x0, requires_grad=True), torch.tensor(w0, requires_grad=w_grad)
            y = compiled(x, w)
            with torch.no_grad():
                w.mul_(3.0)
                x.mul_(5.0)
            try:
                y.sum().backward()
            except RuntimeError as exc:
                assert "modified by an inplace operation" in str(exc)
                continue
            _close(x.grad.numpy(), _fd(fn, [x0, w0], 0), 1e-6)
            if w_grad:
                _close(w.grad.numpy(), _fd(fn, [x0, w0], 1), 1e-6)


# -- regressions --------------------------------------------------------------------------


def _count_positive(x):
    return np.sum(x > 0)


def _positive(x):
    return x > 0


def test_an_integer_or_boolean_output_is_a_leaf_needing_no_grad():
    """It was an integer Tensor requiring grad with a node: its backward raised at the
    first call and gave zeros at later ones (PyTorch: no grad, no grad_fn)."""
    for fn in (torch.compile(_count_positive), torch.compile(_positive)):
        for _ in range(3):
            y = fn(torch.tensor([1.0, -2.0, 3.0], requires_grad=True))
            assert not y.requires_grad and y.grad_fn is None
    assert fn(torch.tensor([1.0, -2.0, 3.0], requires_grad=True)).tolist() == [True, False, True]


def _argmax_or_sum(x, flag):
    if flag:
        return np.argmax(x)
    return np.sum(x ** 2)


def test_a_kind_whose_first_call_returned_an_integer_still_differentiates_a_floating_return():
    fn = torch.compile(_argmax_or_sum)
    for flag in (True, True, False, False, False):
        x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = fn(x, flag)
        assert y.requires_grad == (not flag)
        if not flag:
            y.backward()
            _close(x.grad.numpy(), [2.0, -4.0, 6.0])


def _one_or_two(x, n):
    if n == 0:
        return x * 2.0, x ** 2
    return x * 3.0


@pytest.mark.parametrize("order", [(1, 1, 1, 0), (0, 0, 0, 1), (1, 0), (0, 1)])
def test_a_call_returning_another_structure_than_its_kinds_first_call_raises(order):
    """A tuple returned where the kind's first call returned one array was stacked into
    one Tensor (shape (2, 3)), and the reverse split one array into a tuple of rows."""
    fn = torch.compile(_one_or_two)
    for n in order[:-1]:
        out = fn(torch.tensor([1.0, -2.0, 3.0], requires_grad=True), n)
        assert isinstance(out, tuple) == (n == 0)
    with pytest.raises(TypeError, match=r"`_one_or_two` \(.*test_compile_hunt.py:\d+\) returned .* at the first call"):
        fn(torch.tensor([1.0, -2.0, 3.0], requires_grad=True), order[-1])


class _Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        return x * self.w  # the Parameter is an attribute, not an argument

    def summed(self, x):
        return np.sum(np.tanh(self.w) * x)


def test_a_tensor_that_requires_grad_met_inside_is_refused_naming_the_users_def():
    """A returned Tensor gave `Can't call numpy() ...`; a method's error named the
    stand-in (`<srcgrad method ...>:1`), not the user's `def`."""
    m = _Scaled()
    compiled = torch.compile(m.summed)  # NumPy code: srcgrad's compile, which sees the Parameter
    for grad in (True, False):
        with pytest.raises(RuntimeError, match=r"test_compile_hunt.py:\d+\) under @srcgrad.compile computed with a "
                                               r"Tensor that requires grad and is not one of its arguments"):
            compiled(torch.tensor([1.0, 2.0, 3.0], requires_grad=grad))


def test_a_module_or_method_of_tensor_code_runs_as_written_as_under_torch_compile():
    """`torch.compile(model)` of PyTorch code: the forward reads no NumPy, so it runs
    eagerly and its Parameters get their gradients, as under PyTorch."""
    m = _Scaled()
    assert torch.compile(m) is m
    for compiled in (torch.compile(m), torch.compile(m.forward), torch.compile(m, mode="max-autotune", fullgraph=True)):
        m.zero_grad()
        y = compiled(torch.tensor([1.0, 2.0, 3.0]))
        assert type(y.grad_fn).__name__ == "MulBackward0"
        y.sum().backward()
        assert m.w.grad.tolist() == [1.0, 2.0, 3.0]


_OUTSIDE = torch.tensor([1.0, 2.0, 3.0])


def _sums_a_global_tensor(x):
    return np.sum(x * _OUTSIDE)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are Python 3.11's")
def test_numpy_failing_on_a_global_tensor_says_so_in_a_note():
    with pytest.raises(TypeError) as info:
        torch.compile(_sums_a_global_tensor)(torch.tensor([1.0, 2.0, 3.0], requires_grad=True))
    assert any("met a Tensor (an attribute or a global)" in n for n in info.value.__notes__)


def test_compile_refuses_a_callable_that_is_no_python_function():
    class Opaque:
        __call__ = staticmethod(np.sin)

    with pytest.raises(TypeError, match="@srcgrad.compile takes a NumPy function"):
        torch.compile(Opaque())


def _refuses_negative(x):
    if np.any(x < 0):
        raise ValueError("negative input")
    return np.sum(np.sqrt(x))


def test_numba_code_raising_names_the_users_line():
    """numba's error named only the generated code."""
    pytest.importorskip("numba")
    import srcgrad

    fn = torch.compile(_refuses_negative, backend="numba")
    grad = srcgrad.grad(_refuses_negative, backend="numba")
    for _ in range(3):
        fn(torch.tensor([1.0, 4.0], requires_grad=True))
        grad(np.array([1.0, 4.0]))
    for call in (lambda: fn(torch.tensor([-1.0, 4.0], requires_grad=True)), lambda: grad(np.array([-1.0, 4.0]))):
        with pytest.raises(ValueError, match="negative input") as info:
            call()
        assert any("test_compile_hunt.py, line" in n for n in info.value.__notes__), info.value.__notes__


def _tanh(x):
    return np.tanh(x)


def _tanh_and_exp(x):
    return np.tanh(x), np.exp(x)


@pytest.mark.parametrize("write", ["detach", "no_grad"])
def test_a_write_into_an_output_its_pullback_reads_makes_backward_raise(write):
    """The pullback read the written output: d tanh = 1 - y**2 with y doubled gave
    [0.66, 0.15, -1.78] for [0.92, 0.79, 0.31], silently (PyTorch raises)."""
    x0 = np.array([0.3, -0.5, 1.2])
    for fn, pick in ((torch.compile(_tanh), lambda y: y), (torch.compile(_tanh_and_exp), lambda y: y[0])):
        for call in range(3):
            x = torch.tensor(x0, requires_grad=True)
            y = pick(fn(x))
            if write == "detach":
                y.detach().mul_(2.0)
            else:
                with torch.no_grad():
                    y.mul_(2.0)
            if call == 0:  # the first call of a kind recomputes from the inputs at backward
                y.sum().backward()
                _close(x.grad.numpy(), 1 - np.tanh(x0) ** 2)
                continue
            with pytest.raises(RuntimeError, match=r"which is output 0 of _tanh(_and_exp)?, is at version 1; "
                                                   r"expected version 0"):
                y.sum().backward()
