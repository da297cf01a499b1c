"""Gradients with respect to dicts, lists, tuples, namedtuples and dataclass instances of
arrays in code specialized to the call (cache.TreeKind, compiler/entries.py).

The dispatch key of a container argument holds its keys and each entry's shape and
dtype, so the specialized code knows the shape of `p['W1']` (and drops `unbroadcast`s
as for array arguments) and builds the gradient once at the return, entry by entry.
Every gradient here is checked against central differences in float64 and against the
general code (a call with keyword arguments runs it), with the same structure, types,
dtypes and shapes; the arguments are left as they were.
"""

import collections
import dataclasses

import numpy as np
import pytest

import srcgrad

EPS = 1e-6
rng = np.random.default_rng(7)

Layer = collections.namedtuple("Layer", "w b")


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: np.ndarray
    scale: float = 1.5


def mlp(p, x, y):
    h = np.tanh(x @ p["W1"] + p["b1"])
    out = h @ p["W2"] + p["b2"]
    return np.mean((out - y) ** 2)


def mlp_by_hand(p, x, y):
    h = np.tanh(x @ p["W1"] + p["b1"])
    out = h @ p["W2"] + p["b2"]
    d = 2 * (out - y) / out.size
    dh = d @ p["W2"].T * (1 - h * h)
    return {"W1": x.T @ dh, "b1": dh.sum(0), "W2": h.T @ d, "b2": d.sum(0)}


def params(dtype=np.float64):
    return {"W1": (rng.standard_normal((4, 5)) * 0.3).astype(dtype), "b1": np.zeros(5, dtype),
            "W2": (rng.standard_normal((5, 1)) * 0.3).astype(dtype), "b2": np.zeros(1, dtype)}


X, Y = rng.standard_normal((6, 4)), rng.standard_normal((6, 1))


def _leaves(tree, path=()):
    """(path, leaf) pairs of a pytree, in order."""
    if isinstance(tree, dict):
        return [pair for k, v in tree.items() for pair in _leaves(v, path + (k,))]
    if dataclasses.is_dataclass(tree):
        return [pair for f in dataclasses.fields(tree) for pair in _leaves(getattr(tree, f.name), path + (f.name,))]
    if isinstance(tree, (list, tuple)):
        return [pair for i, v in enumerate(tree) for pair in _leaves(v, path + (i,))]
    return [(path, tree)]


def _replaced(tree, path, value):
    """A copy of `tree` with the leaf at `path` replaced by `value`."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(tree, dict):
        return {k: _replaced(v, rest, value) if k == key else v for k, v in tree.items()}
    if dataclasses.is_dataclass(tree):
        return dataclasses.replace(tree, **{key: _replaced(getattr(tree, key), rest, value)})
    items = [_replaced(v, rest, value) if i == key else v for i, v in enumerate(tree)]
    return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)


def _differences(f, tree, args):
    """Central differences of `f(tree, *args)` per leaf of `tree`, as (path, array) pairs."""
    found = []
    for path, leaf in _leaves(tree):
        flat = np.array(leaf, dtype=np.float64).ravel()
        out = np.zeros_like(flat)
        for i in range(flat.size):
            up, down = flat.copy(), flat.copy()
            up[i] += EPS
            down[i] -= EPS
            shaped = (lambda v: v.reshape(np.shape(leaf))) if isinstance(leaf, np.ndarray) else (lambda v: float(v[0]))
            out[i] = (f(_replaced(tree, path, shaped(up)), *args) - f(_replaced(tree, path, shaped(down)), *args)) / (2 * EPS)
        found.append((path, out.reshape(np.shape(leaf))))
    return found


def _same_structure(got, want):
    """The same container types, keys, leaf types, dtypes and shapes, and equal values
    (float32 ones to float32's rounding: NumPy 1.x promotes a float64 scalar met with a
    float32 array by its value, so the general code rounds some steps to float32 there)."""
    assert type(got) is type(want)
    got_leaves, want_leaves = _leaves(got), _leaves(want)
    assert [p for p, _ in got_leaves] == [p for p, _ in want_leaves]
    for (path, a), (_, b) in zip(got_leaves, want_leaves):
        assert type(a) is type(b), path
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, path
        single = isinstance(a, (np.ndarray, np.generic)) and a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-5 if single else 1e-12, atol=1e-7 if single else 1e-15,
                                   err_msg=str(path))


def _specializations(g):
    """The specialized functions behind the derivative `g`, by signature."""
    return g.__srcgrad_lazy__.get().function.__srcgrad_specializations__


def _specialized_sources(g):
    return [getattr(f, "__srcgrad_source__", "") for f in _specializations(g).values()]


def check(f, tree, *args, gathered=True, rtol=1e-6):
    """The gradient of `f` with respect to `tree` (its first argument): from the general
    code (a keyword call), then twice from the specialized code, equal and of the same
    structure; against central differences; `tree` not mutated. Returns it."""
    g = srcgrad.grad(f)
    names = f.__code__.co_varnames[:f.__code__.co_argcount]
    before = [(p, np.copy(v)) for p, v in _leaves(tree)]
    general = g(**dict(zip(names, (tree,) + args)))
    first = g(tree, *args)
    second = g(tree, *args)
    _same_structure(first, general)
    _same_structure(second, general)
    for path, expected in _differences(f, tree, args):
        got = dict(_leaves(first))[path]
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=1e-7, err_msg=str(path))
    for (path, value), (_, now) in zip(before, _leaves(tree)):
        np.testing.assert_array_equal(value, now)
    sources = _specialized_sources(g)
    assert sources and all(sources), "the call ran no specialized code"
    if gathered:  # the gradient built once, entry by entry
        assert all("getitem_vjp" not in s and "field_grad" not in s for s in sources), sources
    return first


def test_dict_mlp_matches_the_hand_written_gradient_and_the_general_code():
    p = params()
    got = check(mlp, p, X, Y)
    want = mlp_by_hand(p, X, Y)
    assert list(got) == ["W1", "b1", "W2", "b2"]
    for k in p:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-12, atol=1e-15)
    (source,) = _specialized_sources(srcgrad.grad(mlp))  # the same derivative, cached
    assert "return owned_gradient({'W1': " in source and "unbroadcast(p_bar" not in source and "add_grad" not in source


def test_value_and_grad_and_vjp_of_a_dict():
    p = params()
    value, g = srcgrad.value_and_grad(mlp)(p, X, Y)
    value2, g2 = srcgrad.value_and_grad(mlp)(p, X, Y)
    assert value == value2 == mlp(p, X, Y)
    _same_structure(g, mlp_by_hand(p, X, Y))
    _same_structure(g2, g)
    out, pullback = srcgrad.vjp(mlp, p, X, Y)
    assert out == mlp(p, X, Y)
    _same_structure(pullback(1.0)[0], g)


def test_a_dict_and_an_array_differentiated_together():
    p = params()
    g = srcgrad.grad(mlp, wrt=(0, 1))
    general = g(p=p, x=X, y=Y)
    for _ in range(2):
        gp, gx = g(p, X, Y)
        _same_structure(gp, general[0])
        np.testing.assert_array_equal(gx, general[1])
    h = np.tanh(X @ p["W1"] + p["b1"])
    d = 2 * (h @ p["W2"] + p["b2"] - Y) / Y.size
    np.testing.assert_allclose(gx, (d @ p["W2"].T * (1 - h * h)) @ p["W1"].T, rtol=1e-12)


def test_forward_mode_and_hessian_of_a_dict():
    p = params()
    tangent = {k: np.ones_like(v) for k, v in p.items()}
    out, out_dot = srcgrad.jvp(mlp, (p, X, Y), (tangent, None, None))
    g = mlp_by_hand(p, X, Y)
    assert out == mlp(p, X, Y)
    np.testing.assert_allclose(out_dot, sum(np.sum(g[k]) for k in g), rtol=1e-10)

    def quadratic(q):
        return np.sum(q["a"] ** 2) * q["s"]

    h = srcgrad.hessian(quadratic)({"a": np.array([1.0, 2.0]), "s": 3.0})
    np.testing.assert_allclose(h["a"]["a"], 6.0 * np.eye(2))
    np.testing.assert_allclose(h["s"]["a"], [2.0, 4.0])


def loss_list(p, x):
    return np.sum(np.tanh(x @ p[0] + p[1]) ** 2)


def loss_layer(p, x):
    return np.sum(np.tanh(x @ p.w + p.b) ** 2)


def loss_params(p, x):
    return np.sum(np.tanh(x @ p.w + p.b) ** 2) * p.scale


W, B = rng.standard_normal((4, 3)), rng.standard_normal(3)


@pytest.mark.parametrize("f, p", [
    (loss_list, [W, B]),
    (loss_list, (W, B)),
    (loss_layer, Layer(W, B)),
    (loss_list, Layer(W, B)),  # a namedtuple read by index
    (loss_params, Params(W, B, 1.5)),
], ids=["list", "tuple", "namedtuple", "namedtuple-by-index", "dataclass"])
def test_lists_tuples_namedtuples_and_dataclasses(f, p):
    got = check(f, p, X)
    h = np.tanh(X @ W + B)
    dt = 2 * h * (1 - h * h) * (p.scale if isinstance(p, Params) else 1.0)
    expected_w, expected_b = X.T @ dt, dt.sum(0)
    leaves = dict(_leaves(got))
    first, second = (("w",), ("b",)) if isinstance(p, Params) else ((0,), (1,))
    np.testing.assert_allclose(leaves[first], expected_w, rtol=1e-12)
    np.testing.assert_allclose(leaves[second], expected_b, rtol=1e-12)
    if isinstance(p, Params):
        assert type(got.scale) is float
        assert got.scale == pytest.approx(np.sum(h ** 2))


def nested(p, x):
    h = np.tanh(x @ p["l1"]["w"] + p["l1"]["b"])
    return np.sum(h @ p["l2"][0]) * p["scale"]


def test_nested_containers_and_a_python_float_entry():
    p = {"l1": {"w": W, "b": B}, "l2": [rng.standard_normal((3, 2))], "scale": 0.7}
    got = check(nested, p, X)
    assert type(got["scale"]) is float
    h = np.tanh(X @ W + B)
    assert got["scale"] == pytest.approx(np.sum(h @ p["l2"][0]))
    source = _specialized_sources(srcgrad.grad(nested))[0]
    assert "return owned_gradient({'l1': {'w': " in source


def nested_mlp(p, x, y):
    h = np.tanh(x @ p["l1"]["W"] + p["l1"]["b"])
    out = h @ p["l2"]["W"] + p["l2"]["b"]
    return np.mean((out - y) ** 2)


def nested_reads(p, x):
    layer = p["layers"][0]
    again = p["layers"][0]
    return np.sum(x @ layer.w + again.b) + np.sum(p["layers"][1].w) * p["extra"]["s"]


def nested_passed_on(p, x):
    inner = p["l1"]
    return np.sum(x @ inner["W"]) + layer_sum(p["l1"], x) + np.sum(p["l1"]["b"])


def nested_values(p, x):
    inner = p["l1"]
    return np.sum(x @ inner["W"]) + sum(np.sum(v) for v in p["l1"].values())


def layer_sum(layer, x):
    return np.sum(x @ layer["W"])


def test_nested_dicts_lists_and_namedtuples():
    flat = params()
    p = {"l1": {"W": flat["W1"], "b": flat["b1"]}, "l2": {"W": flat["W2"], "b": flat["b2"]}}
    got = check(nested_mlp, p, X, Y)
    want = mlp_by_hand(flat, X, Y)
    for layer, suffix in (("l1", "1"), ("l2", "2")):
        for name in ("W", "b"):
            np.testing.assert_allclose(got[layer][name], want[name + suffix], rtol=1e-12, atol=1e-15)
    q = {"layers": [Layer(W, B), Layer(np.ones((2, 2)), np.zeros(3, np.float32))], "extra": {"s": 2.0, "t": 1.0}}
    got = check(nested_reads, q, X)
    assert type(got["layers"][0]) is Layer and got["layers"][1].b.dtype == np.float32 and not got["layers"][1].b.any()
    np.testing.assert_allclose(got["layers"][1].w, np.full((2, 2), 2.0))
    assert got["extra"] == {"s": 4.0, "t": 0.0}
    # an entry passed to another function (spliced in): its reads there are reads too
    got = check(nested_passed_on, {"l1": {"W": W, "b": B}}, X)
    np.testing.assert_allclose(got["l1"]["W"], 2 * np.outer(X.sum(0), np.ones(3)), rtol=1e-12)
    np.testing.assert_allclose(got["l1"]["b"], np.ones(3), rtol=1e-12)
    # an entry read through a local and iterated over: its gradient gathered whole
    got = check(nested_values, {"l1": {"W": W, "b": B}}, X, gathered=False)
    np.testing.assert_allclose(got["l1"]["W"], np.outer(X.sum(0), np.ones(3)) + 1.0, rtol=1e-12)
    np.testing.assert_allclose(got["l1"]["b"], np.ones(3), rtol=1e-12)
    assert "structure_like(p_l1_bar, p['l1'])" in _specialized_sources(srcgrad.grad(nested_values))[0]


def tied(p, x):
    return np.sum((x @ p["W"]) @ p["W"].T) + np.sum(p["W"] * p["W"])


def test_an_entry_read_twice_and_entries_never_read():
    p = {"W": rng.standard_normal((4, 4)), "unused": np.ones((2, 3), np.float32), "count": 1.0}
    got = check(tied, p, X)
    assert got["unused"].dtype == np.float32 and got["unused"].shape == (2, 3) and not got["unused"].any()
    assert type(got["count"]) is float and got["count"] == 0.0


def test_float32_leaves_keep_their_dtype():
    p = params(np.float32)
    x, y = X.astype(np.float32), Y.astype(np.float32)
    got = check(mlp, p, x, y, rtol=2e-2)
    assert all(v.dtype == np.float32 for v in got.values())
    mixed = {**params(), "b1": np.zeros(5, np.float32)}  # a float32 bias among float64 weights
    got = check(mlp, mixed, X, Y)
    assert got["b1"].dtype == np.float32 and got["W1"].dtype == np.float64


def test_another_structure_or_shape_gets_its_own_specialization():
    g = srcgrad.grad(mlp)
    p = params()
    _same_structure(g(p, X, Y), mlp_by_hand(p, X, Y))
    built = len(_specializations(g))
    wider = {"W1": rng.standard_normal((4, 7)), "b1": rng.standard_normal(7), "W2": rng.standard_normal((7, 1)),
             "b2": rng.standard_normal(1)}
    _same_structure(g(wider, X, Y), mlp_by_hand(wider, X, Y))
    broadcast = {**wider, "b1": np.array([0.5])}  # a bias broadcast along the hidden units
    got = g(broadcast, X, Y)
    assert got["b1"].shape == (1,)
    np.testing.assert_allclose(got["b1"], mlp_by_hand(broadcast, X, Y)["b1"].sum(keepdims=True), rtol=1e-12)
    reordered = {k: wider[k] for k in ("b2", "W2", "b1", "W1")}
    assert list(g(reordered, X, Y)) == ["b2", "W2", "b1", "W1"]
    extra = {**wider, "unused": 2.0}
    assert g(extra, X, Y)["unused"] == 0.0
    assert len(_specializations(g)) == built + 4


def weighted(x, data):
    return np.sum((x * data["scale"] - data["target"]) ** 2)


def test_containers_that_are_not_differentiated():
    x = rng.standard_normal(3)
    data = {"scale": rng.standard_normal((2, 3)), "target": rng.standard_normal((2, 3))}
    g = srcgrad.grad(weighted)
    expected = np.sum(2 * (x * data["scale"] - data["target"]) * data["scale"], axis=0)
    for _ in range(2):
        np.testing.assert_allclose(g(x, data), expected, rtol=1e-12)
    np.testing.assert_allclose(g(x, {"scale": 2.0, "target": data["target"]}),
                               np.sum(2 * (x * 2.0 - data["target"]) * 2.0, axis=0), rtol=1e-12)


def test_an_integer_leaf_is_refused_at_every_call_of_its_signature():
    g = srcgrad.grad(mlp)
    p = params()
    g(p, X, Y)
    bad = {**p, "b2": np.zeros(1, dtype=int)}
    for _ in range(2):
        with pytest.raises(TypeError, match=r"p\['b2'\]"):
            g(bad, X, Y)
    g(p, X, Y)


def passes_on(p, x):
    return helper(p, x) + np.sum(p["b"])


def helper(p, x):
    return np.sum(x @ p["w"])


def test_a_container_used_whole_is_not_gathered():
    p = {"w": W, "b": B}
    got = check(passes_on, p, X, gathered=False)
    np.testing.assert_allclose(got["w"], np.outer(X.sum(0), np.ones(3)), rtol=1e-12)


def reads_through_an_alias(p, x):
    q = p
    return np.sum(x @ q["w"] + p["b"])


def test_a_container_read_through_an_alias():
    p = {"w": W, "b": B}
    got = check(reads_through_an_alias, p, X, gathered=False)
    np.testing.assert_allclose(got["b"], np.full(3, 6.0), rtol=1e-12)


def copies_then_writes(p, x):
    d = dict(p)
    d["W"] = d["W"] * 2.0
    return np.sum(x @ d["W"]) + np.sum(p["W"] * p["b"][0])


def writes_into_the_argument(p, x):
    p["W"] = p["W"] * 2.0
    return np.sum(x @ p["W"])


def test_a_container_copied_and_written_and_one_written_in_place():
    p = {"W": W, "b": B}
    got = check(copies_then_writes, p, X, gathered=False)
    np.testing.assert_allclose(got["W"], 2.0 * np.outer(X.sum(0), np.ones(3)) + B[0], rtol=1e-12)
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `p` in place"):
        srcgrad.grad(writes_into_the_argument)


def deep(p, x):
    return np.sum(x @ p["a"]["b"]["c"]["d"]["e"]) + np.sum(p["w"])


def test_leaves_are_checked_once_per_signature_where_it_tells_them(monkeypatch):
    import srcgrad.api as api

    checked = []
    real = api._check_differentiable
    monkeypatch.setattr(api, "_check_differentiable", lambda *a, **k: checked.append(1) or real(*a, **k))
    g = srcgrad.grad(mlp)
    p = params()
    for _ in range(3):
        g(p, X, Y)
    assert len(checked) == 1
    # five levels deep: the signature stops at four, so its leaves are checked at every call
    q = {"a": {"b": {"c": {"d": {"e": W}}}}, "w": B}
    h = srcgrad.grad(deep)
    for _ in range(3):
        got = h(q, X)
    assert len(checked) == 4
    np.testing.assert_allclose(got["a"]["b"]["c"]["d"]["e"], np.outer(X.sum(0), np.ones(3)), rtol=1e-12)
    bad = {"a": {"b": {"c": {"d": {"e": np.ones((4, 3), dtype=int)}}}}, "w": B}
    with pytest.raises(TypeError, match=r"p\['a'\]\['b'\]\['c'\]\['d'\]\['e'\]"):
        h(bad, X)
