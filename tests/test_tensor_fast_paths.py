"""The Tensor shim's fast paths give what the general code gives.

- `backward()` on a graph of one node over leaves skips the general engine
  (`engine.run_single`): same gradients, dtypes, `.grad` identity, E1/E7 behaviour;
- `@srcgrad.compile` runs the generated code of a known kind of call through an
  unrolled call (all-Tensor arguments) or the general loop (anything else);
- binary and in-place operators inline their commonest case; one-operand ops
  (`ops.unary`, `ops.exact`) give what `ops.apply` gives, bit for bit, where they
  compute with a faster function than the primitive whose rule they record;
- `no_grad` keeps its stack of previous modes on the instance.
"""

import itertools
import operator
import re
import threading

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.rules import activations
from srcgrad.tensor import engine, graph, ops, summation

E1 = "grad can be implicitly created only for scalar outputs"
E7 = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
E11 = "a leaf Variable that requires grad is being used in an in-place operation."


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


@torch.compile
def logistic(w, b, x, y):
    z = np.matmul(x, w) + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


@torch.compile
def weighted(w, x):
    return np.sum(w * x)


@torch.compile
def square_sum(u, v):
    return np.sum(u * v)


@torch.compile
def features(w, x):
    return np.tanh(np.matmul(x, w))


def _layer(dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    w = torch.tensor(rng.standard_normal((5, 3)).astype(dtype), requires_grad=True)
    b = torch.tensor(rng.standard_normal(3).astype(dtype), requires_grad=True)
    x = torch.tensor(rng.standard_normal(5).astype(dtype))
    y = torch.tensor((rng.random(3) < 0.5).astype(dtype))
    return w, b, x, y


def _general(loss):
    """backward() through the general engine (an explicit seed of one)."""
    loss.backward(torch.ones(loss.shape, dtype=loss.dtype))


@pytest.fixture
def count_fast(monkeypatch):
    """How many backward() calls took the single-node path."""
    calls = []
    original = engine.run_single

    def spy(*args):
        done = original(*args)
        calls.append(done)
        return done

    monkeypatch.setitem(torch.Tensor.backward.__globals__, "run_single", spy)
    return calls


# --- single-node backward ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_single_node_backward_equals_the_general_engine(dtype, count_fast):
    fast, slow = _layer(dtype), _layer(dtype)
    for _ in range(3):  # the first creates .grad, later ones add in place
        logistic(*fast).backward()
        _general(logistic(*slow))
        for a, b in zip(fast[:2], slow[:2]):
            assert a.grad.dtype == b.grad.dtype == torch.float32 if dtype == np.float32 else torch.float64
            np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
    assert count_fast == [True, True, True]
    assert fast[2].grad is None and fast[3].grad is None


def test_single_node_backward_keeps_grad_identity_and_accumulates(count_fast):
    w, b, x, y = _layer()
    logistic(w, b, x, y).backward()
    gw, gb = w.grad, b.grad
    first = gw.numpy().copy()
    logistic(w, b, x, y).backward()
    assert w.grad is gw and b.grad is gb
    np.testing.assert_allclose(gw.numpy(), 2 * first, rtol=1e-6)
    w.grad.zero_()
    logistic(w, b, x, y).backward()
    assert w.grad is gw
    np.testing.assert_allclose(gw.numpy(), first, rtol=1e-6)
    assert all(count_fast)


def test_a_new_grad_never_shares_memory_with_what_the_node_saved(count_fast):
    # d/dw sum(w * x) is x: the generated code may return the input array itself
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = torch.tensor([4.0, 5.0, 6.0])
    for _ in range(2):  # the second call runs the generated value_and_grad
        w.grad = None
        out = weighted(w, x)
        out.backward(retain_graph=True)
        assert not np.shares_memory(w.grad.numpy(), x.numpy())
        w.grad.zero_()
        np.testing.assert_array_equal(x.numpy(), [4.0, 5.0, 6.0])
        out.backward(retain_graph=True)
        out.backward()  # the saved gradient was not changed by accumulating it
        np.testing.assert_array_equal(w.grad.numpy(), [8.0, 10.0, 12.0])
        with raises(RuntimeError, E7):
            out.backward()
    assert all(count_fast)


def test_a_leaf_used_twice_gets_the_sum_first(count_fast):
    # The general engine adds the two gradients, then adds that into .grad: the same
    # rounding is required, so start from a .grad where the order matters.
    start, values = np.float32([3.0, 1.0, 0.3]), np.float32([0.1, 0.3, 1.1e-8])
    assert ((start + values) + values != start + (values + values)).all()

    def run(fast):
        u = torch.tensor(values, requires_grad=True)  # d/du of sum(u * u), per operand: u
        u.grad = torch.tensor(start)
        for _ in range(2):
            out = square_sum(u, u)
            out.backward() if fast else _general(out)
        return u.grad.numpy()

    np.testing.assert_array_equal(run(True), run(False))
    np.testing.assert_array_equal(run(True), start + (values + values) + (values + values))
    dot = torch.tensor([1.0, 2.0], requires_grad=True)
    out = torch.dot(dot, dot)
    out.backward()
    assert dot.grad.tolist() == [2.0, 4.0]
    with raises(RuntimeError, E7):
        out.backward()
    assert dot.grad.tolist() == [2.0, 4.0]
    assert count_fast == [True] * 5  # the E7 pass raised inside


@torch.compile
def triple_sum(u, v, s):
    return np.sum(u * v * s)


def test_three_inputs_sum_a_repeated_leaf_first_and_feed_distinct_leaves_directly(count_fast):
    # u at positions 0 and 2: its two gradients are added before .grad, as the general
    # engine adds them; v, distinct, gets its own. Starting values where the order matters.
    start, values, other = np.float32([3.0, 1.0, 0.3]), np.float32([0.1, 0.3, 1.1e-8]), np.float32([1.0, 1.0, 1.0])
    d_u = (other * values).astype(np.float32)  # d/du of sum(u * v * u) per operand: v * u
    assert ((start + d_u) + d_u != start + (d_u + d_u)).all()

    def run(fast):
        u = torch.tensor(values, requires_grad=True)
        v = torch.tensor(other, requires_grad=True)
        u.grad = torch.tensor(start)
        for _ in range(2):
            out = triple_sum(u, v, u)
            out.backward() if fast else _general(out)
        return u.grad.numpy(), v.grad.numpy()

    (fast_u, fast_v), (slow_u, slow_v) = run(True), run(False)
    np.testing.assert_array_equal(fast_u, slow_u)
    np.testing.assert_array_equal(fast_v, slow_v)
    np.testing.assert_array_equal(fast_u, start + (d_u + d_u) + (d_u + d_u))
    np.testing.assert_array_equal(fast_v, 2 * values * values)
    # three distinct leaves and an input that needs no grad
    a, b, c = (torch.tensor(np.float32([1.0, 2.0]), requires_grad=True) for _ in range(3))
    for _ in range(2):
        triple_sum(a, b, c * 1.0).backward()  # c * 1.0: a non-leaf input, the general engine
        triple_sum(a, b, torch.tensor([2.0, 3.0])).backward()
    assert a.grad.tolist() == [2 * 1 * 1 + 2 * 1 * 2, 2 * 2 * 2 + 2 * 2 * 3]
    assert b.grad.tolist() == a.grad.tolist() and c.grad.tolist() == [2.0, 8.0]
    assert count_fast == [True, True, False, True, False, True]


def test_second_backward_through_a_single_node(count_fast):
    x = torch.ones(2, 2, requires_grad=True)
    o = x.sum()  # SumBackward0 saves nothing: it can run again
    o.backward()
    o.backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    w, b, xx, y = _layer()
    loss = logistic(w, b, xx, y)
    loss.backward(retain_graph=True)
    once = w.grad.numpy().copy()
    loss.backward()
    with raises(RuntimeError, E7):
        loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * once, rtol=1e-6)
    assert all(count_fast)


def test_implicit_gradient_errors_and_fallbacks(count_fast):
    x = torch.ones(3, requires_grad=True)
    y = x * 2  # one node over a leaf, but not a scalar
    with raises(RuntimeError, E1):
        y.backward()
    assert x.grad is None
    y.backward(torch.tensor([1.0, 2.0, 3.0]))  # the graph is intact
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    with raises(RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn"):
        torch.ones(3).backward()
    # a root that retains its gradient, and graphs of several nodes, use the general engine
    z = x.sum()
    z.retain_grad()
    z.backward()
    assert z.grad.item() == 1.0 and x.grad.tolist() == [3.0, 5.0, 7.0]
    (x * 2).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0, 9.0]
    assert count_fast == [False, False]
    x.backward(torch.ones(3))  # a leaf's own backward accumulates into itself
    assert x.grad.tolist() == [6.0, 8.0, 10.0]


def test_mixed_dtypes_reach_each_input_in_its_own_dtype(count_fast):
    w = torch.tensor(np.float32([[1.0], [2.0]]), requires_grad=True)
    x = torch.tensor(np.float64([0.5, 0.25]), requires_grad=True)
    for _ in range(2):
        w.grad = x.grad = None
        out = square_sum(w[:, 0], x)  # a float64 result; the slice makes it a general graph
        out.backward()
        assert w.grad.dtype == torch.float32 and x.grad.dtype == torch.float64
    a = torch.tensor(np.float32([1.0, 2.0]), requires_grad=True)
    for _ in range(2):
        a.grad = x.grad = None
        out = square_sum(a, x)
        assert out.dtype == torch.float64
        out.backward()
        assert a.grad.dtype == torch.float32 and x.grad.dtype == torch.float64
        assert a.grad.tolist() == [0.5, 0.25] and x.grad.tolist() == [1.0, 2.0]
    assert count_fast[-2:] == [True, True]


# --- @compile calls ------------------------------------------------------------------------


def test_compiled_kinds_of_call_do_not_mix():
    rng = np.random.default_rng(1)
    w = torch.tensor(rng.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    b = torch.tensor(np.zeros(3, np.float32), requires_grad=True)
    single = (torch.tensor(rng.standard_normal(5).astype(np.float32)), torch.zeros(3))
    batch = (torch.tensor(rng.standard_normal((4, 5)).astype(np.float32)), torch.zeros(4, 3))
    expected = {}
    for x, y in (single, batch):
        w2 = torch.tensor(w.detach().numpy().copy(), requires_grad=True)
        b2 = torch.tensor(b.detach().numpy().copy(), requires_grad=True)
        torch.nn.functional.binary_cross_entropy_with_logits(torch.matmul(x, w2) + b2, y).backward()
        expected[x.dim()] = (w2.grad.numpy().copy(), b2.grad.numpy().copy())
    for _ in range(3):
        for x, y in (single, batch):
            w.grad = b.grad = None
            loss = logistic(w, b, x, y)
            assert type(loss.grad_fn).__name__ == "logisticBackward"
            loss.backward()
            np.testing.assert_allclose(w.grad.numpy(), expected[x.dim()][0], rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(b.grad.numpy(), expected[x.dim()][1], rtol=1e-5, atol=1e-7)


def test_compiled_call_with_arrays_numbers_and_changing_flags():
    w, b, x, y = _layer()
    for _ in range(3):
        w.grad = b.grad = None
        reference = logistic(w, b, x, y)
        reference.backward()
        gw, gb = w.grad.numpy().copy(), b.grad.numpy().copy()
        w.grad = b.grad = None
        loss = logistic(w, b, x.numpy(), y.numpy())  # NumPy arrays: the general loop
        assert loss.item() == reference.item()
        loss.backward()
        np.testing.assert_array_equal(w.grad.numpy(), gw)
        np.testing.assert_array_equal(b.grad.numpy(), gb)
        b.requires_grad_(False)  # another kind of call: only w gets a gradient
        w.grad = b.grad = None
        loss = logistic(w, b, x, y)
        assert [e is None for e, _ in loss.grad_fn.next_functions] == [False, True, True, True]
        loss.backward()
        np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-6)
        assert b.grad is None
        b.requires_grad_(True)
    w.requires_grad_(False)
    b.requires_grad_(False)
    out = logistic(w, b, x, y)  # nothing requires grad: an untracked leaf
    assert out.grad_fn is None and not out.requires_grad
    with torch.no_grad():
        w.requires_grad_(True)
        out = logistic(w, b, x, y)
    assert out.grad_fn is None and out.item() == reference.item()


def test_compiled_call_through_a_non_leaf_input():
    w, b, x, y = _layer()
    for _ in range(3):
        w.grad = None
        scaled = w * 2
        loss = logistic(scaled, b, x, y)
        assert loss.grad_fn.next_functions[0][0] is scaled.grad_fn
        loss.backward()
        w2 = torch.tensor(w.detach().numpy() * 2, requires_grad=True)
        logistic(w2, b, x, y).backward()
        np.testing.assert_allclose(w.grad.numpy(), 2 * w2.grad.numpy(), rtol=1e-6)


def test_compiled_non_scalar_output_uses_the_pullback():
    x = torch.ones(2, 5, requires_grad=True)
    w = torch.tensor(np.linspace(-1, 1, 15).reshape(5, 3).astype(np.float32))
    expected = (1 - np.tanh(np.ones((2, 5)) @ w.numpy()) ** 2) @ w.numpy().T
    for _ in range(3):
        x.grad = None
        out = features(w, x)
        with raises(RuntimeError, E1):
            out.backward()
        out.backward(torch.ones(2, 3))
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5, atol=1e-6)
        assert x.grad.dtype == torch.float32


def test_graph_nodes_are_always_true():
    # the unrolled compiled call finds an edge with `grad_fn or accumulator or ...`
    import srcgrad.autograd  # noqa: F401 - its FunctionNode too

    pending, seen = [graph.Node], []
    while pending:
        cls = pending.pop()
        seen.append(cls)
        assert "__bool__" not in vars(cls) and "__len__" not in vars(cls), cls
        pending.extend(cls.__subclasses__())
    assert len(seen) > 5


def test_compiled_function_keeps_its_name_and_signature():
    assert logistic.__name__ == "logistic" and logistic.__wrapped__.__name__ == "logistic"
    with pytest.raises(TypeError):
        logistic(*_layer()[:3])  # a missing argument: the function itself reports it


# --- operators -----------------------------------------------------------------------------


def test_binary_fast_path_dtypes_and_tracking():
    g = torch.tensor([1.0, 2.0, 3.0])
    assert (0.1 * g).dtype == torch.float32 and (0.1 * g).tolist() == (np.float32(0.1) * g.numpy()).tolist()
    assert (g * 2).grad_fn is None and not (g * 2).requires_grad
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    names = [type(t.grad_fn).__name__ for t in (x * 2, 2 * x, x - 1, 1 - x, x / 2, 2 / x, x + x, x * x)]
    assert names == ["MulBackward0", "MulBackward0", "SubBackward0", "RsubBackward1", "DivBackward0",
                     "MulBackward0", "AddBackward0", "MulBackward0"]
    assert (1 - x).tolist() == [0.0, -1.0] and (2 / x).tolist() == [2.0, 1.0]
    with torch.no_grad():
        assert (x * 2).grad_fn is None
    d = torch.tensor([1.0, 2.0], dtype=torch.float64)
    assert (g[:2] * d).dtype == torch.float64  # other dtypes take the general path
    assert (torch.tensor([1, 2]) * 0.5).dtype == torch.float32
    assert (torch.tensor([1, 2]) * 2).dtype == torch.int64
    assert (x * True).tolist() == [1.0, 2.0]
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * v).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0] and v.grad.tolist() == [1.0, 2.0]


ONE_OPERAND = [  # (method call, primitive, its keyword arguments or one positional, node name)
    (lambda t: t.sum(), np.sum, {}, "SumBackward0"),
    (lambda t: t.sum(1), np.sum, {"axis": 1, "keepdims": False}, "SumBackward1"),
    (lambda t: t.sum((0, -1), keepdim=True), np.sum, {"axis": (0, -1), "keepdims": True}, "SumBackward1"),
    (lambda t: t.mean(), np.mean, {}, "MeanBackward0"),
    (lambda t: t.norm(), np.linalg.norm, {}, "LinalgVectorNormBackward0"),
    (lambda t: t.sigmoid(), activations.sigmoid, {}, "SigmoidBackward0"),
    (lambda t: torch.nn.functional.relu(t), activations.relu, {}, "ReluBackward0"),
    (lambda t: t.exp(), np.exp, {}, "ExpBackward0"),
    (lambda t: -t, operator.neg, {}, "NegBackward0"),
    (lambda t: t.view(13, 7), np.reshape, (13, 7), "ViewBackward0"),  # by position: NumPy 1 calls it newshape
    (lambda t: t.t(), np.transpose, {"axes": (1, 0)}, "TBackward0"),
    (lambda t: t.T, np.transpose, {}, "PermuteBackward0"),
    (lambda t: t[1], operator.getitem, 1, "SelectBackward0"),
]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(ONE_OPERAND)))
def test_one_operand_fast_path_equals_apply(case, dtype):
    call, primitive, kwargs, name = ONE_OPERAND[case]
    rng = np.random.default_rng(case)
    # magnitudes spread over a few decades: a sum in another order would round otherwise
    data = (rng.standard_normal((7, 13)) * np.exp(rng.uniform(-3, 3, (7, 13)))).astype(dtype)
    data = data[:, ::-1] if case % 2 else data  # strided arrays too
    fast_in = torch.tensor(data, requires_grad=True)
    slow_in = torch.tensor(data, requires_grad=True)
    fast = call(fast_in)
    if isinstance(kwargs, dict):
        slow = ops.apply(primitive, slow_in, name=name, **kwargs)
    else:
        slow = ops.apply(primitive, slow_in, kwargs, name=name)
    assert fast._data.dtype == slow._data.dtype == dtype and fast.shape == slow.shape
    expected = slow._data
    if name in ("SumBackward0", "MeanBackward0") and dtype != np.float16:  # added in PyTorch's order, not NumPy's
        total = summation.pytorch_sum(np.ascontiguousarray(data))  # torch.tensor(data) copies
        expected = np.asarray(total / (data.size if name == "MeanBackward0" else 1), dtype=dtype)
    assert np.array_equal(fast._data, expected)
    assert type(fast.grad_fn).__name__ == name and len(fast.grad_fn.next_functions) == 1
    assert fast.grad_fn.next_functions[0][0] is fast_in.grad_fn or type(fast.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    seed = rng.standard_normal(fast.shape).astype(dtype)
    fast.backward(torch.tensor(seed))
    slow.backward(torch.tensor(seed))
    assert fast_in.grad.dtype == torch.tensor(data).dtype and np.array_equal(fast_in.grad._data, slow_in.grad._data)
    with torch.no_grad():
        assert call(fast_in).grad_fn is None and not call(fast_in).requires_grad
    untracked = call(torch.tensor(data))
    assert untracked.grad_fn is None and np.array_equal(untracked._data, expected)
    chained = call(fast_in * 1.0)  # through a non-leaf
    assert chained.grad_fn.next_functions[0][0] is not None and np.array_equal(chained._data, expected)


def test_one_operand_fast_path_gradients_against_finite_differences():
    rng = np.random.default_rng(7)
    data = rng.standard_normal((7, 13))
    eps = 1e-6
    for call, *_ in ONE_OPERAND:
        x = torch.tensor(data, dtype=torch.float64, requires_grad=True)
        out = call(x)
        seed = rng.standard_normal(out.shape)
        out.backward(torch.tensor(seed, dtype=torch.float64))
        direction = rng.standard_normal(data.shape)
        up = call(torch.tensor(data + eps * direction, dtype=torch.float64))._data
        down = call(torch.tensor(data - eps * direction, dtype=torch.float64))._data
        numeric = np.sum(seed * (up - down)) / (2 * eps)
        np.testing.assert_allclose(np.sum(x.grad._data * direction), numeric, rtol=1e-6, atol=1e-9)


def test_in_place_fast_path_and_its_limits():
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with raises(RuntimeError, E11):
        w -= 1.0
    with raises(RuntimeError, E11):
        w.zero_()
    g = torch.tensor([0.5, 0.5, 0.5])
    with torch.no_grad():
        w -= g
        w *= 2
        w += torch.tensor([1.0])  # broadcast: the general path
        w /= 2
    assert w.tolist() == [1.0, 2.0, 3.0] and w.requires_grad and w.grad_fn is None
    i = torch.tensor([1, 2])
    with raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        i -= 0.5
    i -= 1
    assert i.tolist() == [0, 1]
    h = torch.tensor([1.0, 2.0], dtype=torch.float64)
    h -= torch.tensor([0.5, 0.5])  # float32 into float64: the general path
    assert h.dtype == torch.float64 and h.tolist() == [0.5, 1.5]
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    y *= 3  # a tensor in a graph: recorded
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with torch.no_grad():
        w.zero_()
    assert w.tolist() == [0.0, 0.0, 0.0]
    b = torch.tensor([True, False])
    b.zero_()
    assert b.tolist() == [False, False]


def test_sgd_update_keeps_grad_identity():
    w, b, x, y = _layer()
    logistic(w, b, x, y).backward()
    gw = w.grad
    before = w.detach().numpy().copy()
    step = gw.numpy().copy()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
    assert w.grad is gw and not gw.numpy().any()
    np.testing.assert_array_equal(w.detach().numpy(), before - np.float32(0.1) * step)


# --- no_grad -----------------------------------------------------------------------------


def test_no_grad_instance_reentered_nested_and_on_exceptions():
    ctx = torch.no_grad()
    assert torch.is_grad_enabled()
    with ctx:
        assert not torch.is_grad_enabled()
        with torch.enable_grad():
            assert torch.is_grad_enabled()
            with ctx:
                assert not torch.is_grad_enabled()
            assert torch.is_grad_enabled()
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    with pytest.raises(KeyError):
        with ctx:
            raise KeyError("x")
    assert torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    assert not torch.is_grad_enabled()
    torch.set_grad_enabled(True)

    @torch.no_grad()
    def inside():
        return torch.is_grad_enabled()

    assert inside() is False and torch.is_grad_enabled()


def test_grad_mode_is_per_thread():
    seen = []
    with torch.no_grad():
        worker = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))
        worker.start()
        worker.join()
    assert seen == [True]


def test_a_python_number_never_widens_a_0d_float_tensor():
    """PyTorch's (and NEP 50's) promotion for 0-d tensors too, which NumPy 1 widens to
    float64 when all its arrays are 0-d: a scalar loss times 0.5 stays float32."""
    a = torch.tensor(2.0, requires_grad=True)
    results = {
        "a * 0.5": a * 0.5, "0.5 * a": 0.5 * a, "a + 1": a + 1, "a / 3": a / 3, "1 - a": 1 - a, "a - 0.1": a - 0.1,
        "2 ** a": 2 ** a, "a ** 0.5": a ** 0.5, "a.mul(2)": a.mul(2), "a.add(1.5)": a.add(1.5),
        "clamp": torch.clamp(a, 0.1, 1.5), "clamp_min": a.clamp_min(0.5), "where": torch.where(a > 1, a, 0.5),
        "sum * 0.5": torch.ones(3).sum() * 0.5, "mean + 1.5": torch.ones(3).mean() + 1.5,
        "bce": torch.nn.functional.binary_cross_entropy_with_logits(a * 0.1, torch.tensor(1.0)),
        "mse": torch.nn.functional.mse_loss(a, torch.tensor(1.0)) * 0.5,
    }
    assert {k: v.dtype for k, v in results.items() if v.dtype != torch.float32} == {}
    assert (a * 0.1).item() == float(np.float32(2.0) * np.float32(0.1))  # computed in float32
    assert torch.clamp(a, 0.1, 1.5).item() == float(np.float32(1.5))
    b = a * 3
    b.retain_grad()
    seen = []
    b.register_hook(lambda g: seen.append(g.dtype))
    ((b * 0.5 - 1.5) / 2.0).backward()
    assert seen == [torch.float32] and b.grad.dtype == a.grad.dtype == torch.float32 and a.grad.item() == 0.75


def test_sum_of_fewer_than_four_elements_is_pytorchs_running_sum_from_plus_zero():
    """pytorch_sum's short path (a running sum, then + 0) against `_row_sum`'s order of
    additions, bit for bit: signed zeros, infinities, nan, overflow and rounding."""
    specials = [0.0, -0.0, 1.0, -1.0, 1e-8, 3.0e38, -3.0e38, np.inf, -np.inf, np.nan, 1.0000001, 0.1, 1e-45]
    rng = np.random.default_rng(3)
    cases = [np.array(c) for n in (1, 2, 3) for c in itertools.product(specials, repeat=n)]
    cases += [rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n) for n in rng.integers(1, 4, 2000)]
    checked = 0
    with np.errstate(all="ignore"):
        for values in cases:
            for dtype in (np.float32, np.float64):
                x = values.astype(dtype)
                expected = x.dtype.type(summation._row_sum(x))
                got = summation.pytorch_sum(x)
                assert type(got) is dtype and (got.tobytes() == expected.tobytes() or np.isnan(got) and np.isnan(expected))
                checked += 1
    assert checked == 2 * len(cases)
    assert summation.pytorch_sum(np.array([-0.0, -0.0], np.float32)).tobytes() == np.float32(0.0).tobytes()
    assert summation.pytorch_sum(np.array([0.1, 0.2, 0.3], np.float32)) == (np.float32(0.1) + np.float32(0.2)) + np.float32(0.3)
    assert torch.tensor([-0.0, -0.0, -0.0]).sum().item() == 0.0 and np.signbit(torch.tensor([-0.0]).sum()._data) == False  # noqa: E712


def test_fast_forms_of_sigmoid_and_relu_give_the_primitives_results_bit_for_bit():
    """activations.expit (negated, exponentiated, plus a 0-d one, inverted in one temporary)
    and relu_of_array (a 0-d zero, np.where without its dispatch), which the Tensor shim
    computes, against the plain formulas: values, signed zeros, nan, dtypes and shapes."""
    rng = np.random.default_rng(11)
    specials = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 88.7, -88.7, 89.0, -104.0, 710.0, -745.0, 1e-310]
    compared = 0
    with np.errstate(all="ignore"):
        for dtype in (np.float32, np.float64, np.float16):
            arrays = [np.array(specials, dtype), (rng.standard_normal(2000) * 30).astype(dtype),
                      (rng.standard_normal((20, 30)) * 5).astype(dtype)[:, ::2], np.array(-0.0, dtype)]
            for x in arrays:
                e = np.exp(-x)
                one, zero = dtype(1), dtype(0)  # of x's dtype: NumPy 1 widens a 0-d array with a Python number
                expected = {activations.expit: one / (one + e) if e.ndim == 0 else np.reciprocal(e + one),
                            activations.relu_of_array: np.where(x < 0, zero, x)}
                for fast, want in expected.items():
                    got = fast(x)
                    assert np.asarray(got).dtype == np.asarray(want).dtype and np.shape(got) == np.shape(want)
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (fast.__name__, dtype, x.shape)
                    compared += 1
    assert compared == 24
    assert np.signbit(activations.relu_of_array(np.array([-0.0], np.float32)))[0]  # -0.0 passes through
    assert activations.relu_of_array(np.array([-3, 2])).tolist() == [0, 2]
