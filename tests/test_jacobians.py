"""jacobian and hessian over lists, tuples, namedtuples and dicts (laid out as
jax.jacobian lays them out), and derivatives of a Jacobian or Hessian: jvp, jacobian and
grad of one run forward mode over generated code that computes it
(derivative_programs.jacobian_program).

Every result is checked against an analytic answer and central finite differences in
float64; the layouts against JAX where it is installed.
"""

import collections
import re
import typing

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

EPS = 1e-6
rng = np.random.default_rng(11)


def _moved(x, t, s):
    """x + s t, leaf by leaf through lists, tuples, namedtuples and dicts."""
    if hasattr(x, "_fields"):
        return type(x)(*(_moved(a, b, s) for a, b in zip(x, t)))
    if isinstance(x, (list, tuple)):
        return type(x)(_moved(a, b, s) for a, b in zip(x, t))
    if isinstance(x, dict):
        return {k: _moved(x[k], t[k], s) for k in x}
    return x + s * t


def _difference(f, x, t):
    """The central difference of f at x along t, leaf by leaf of f's output."""
    return _quotient(f(_moved(x, t, EPS)), f(_moved(x, t, -EPS)))


def _quotient(plus, minus):
    if hasattr(plus, "_fields"):
        return type(plus)(*(_quotient(a, b) for a, b in zip(plus, minus)))
    if isinstance(plus, (list, tuple)):
        return type(plus)(_quotient(a, b) for a, b in zip(plus, minus))
    if isinstance(plus, dict):
        return {k: _quotient(plus[k], minus[k]) for k in plus}
    return (np.asarray(plus, dtype=np.float64) - np.asarray(minus, dtype=np.float64)) / (2 * EPS)


def _assert_tree_close(got, want, rtol=1e-7, atol=1e-9):
    """Same containers (type, length, keys), leaves of the same shape and close values."""
    if isinstance(want, (list, tuple, dict)):
        assert type(got) is type(want), (type(got), type(want))
        assert len(got) == len(want)
        if isinstance(want, dict):
            assert list(got) == list(want)
            for k in want:
                _assert_tree_close(got[k], want[k], rtol, atol)
        else:
            for a, b in zip(got, want):
                _assert_tree_close(a, b, rtol, atol)
        return
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# --- Jacobians of lists, tuples and dicts ----------------------------------------------------


def scaled_dict(p):
    return p["a"] * p["b"]


@pytest.mark.parametrize("mode", ["forward", "reverse", None])
def test_jacobian_with_respect_to_a_dict(mode):
    p = {"a": np.array([0.5, -1.5]), "b": 2.0}
    J = srcgrad.jacobian(scaled_dict, wrt=0, mode=mode)(p)
    _assert_tree_close(J, {"a": 2.0 * np.eye(2), "b": p["a"]}, rtol=1e-15)
    t = {"a": np.array([0.3, 0.8]), "b": -0.4}
    np.testing.assert_allclose(J["a"] @ t["a"] + J["b"] * t["b"], _difference(scaled_dict, p, t), rtol=1e-8)


def structured(p, s):
    return {"u": np.sin(p["a"]) * p["b"][0], "v": [p["b"][1] ** 2 * s, np.sum(p["a"])]}


P = {"a": np.array([0.3, 0.5, 0.9]), "b": (1.5, -0.7)}
S = 0.4


def _structured_jacobian(p, s):
    """d structured / d (p, s), by hand: output structure of the input structure (p, s)."""
    a, (b0, b1) = p["a"], p["b"]
    zeros = np.zeros(3)
    return {
        "u": ({"a": np.diag(np.cos(a) * b0), "b": (np.sin(a), zeros)}, zeros),
        "v": [
            ({"a": zeros, "b": (0.0, 2.0 * b1 * s)}, b1 ** 2),
            ({"a": np.ones(3), "b": (0.0, 0.0)}, 0.0),
        ],
    }


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_of_structured_output_and_input(mode):
    J = srcgrad.jacobian(structured, wrt=(0, 1), mode=mode)(P, S)
    _assert_tree_close(J, _structured_jacobian(P, S), rtol=1e-14, atol=1e-15)
    assert isinstance(J["v"][0][1], float) and isinstance(J["v"][0][0]["b"][1], float)  # float by float: a float
    t = ({"a": rng.normal(size=3), "b": (0.3, -0.9)}, 0.7)
    pushed = srcgrad.jvp(structured, (P, S), t)[1]
    _assert_tree_close(pushed, _difference(lambda ps: structured(*ps), (P, S), t), rtol=1e-7, atol=1e-9)


def _tanh_of_list(x):
    return np.tanh(np.asarray(x)) * 2.0


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("container", [list, tuple])
def test_jacobian_of_a_list_read_as_an_array(mode, container):
    """The list is a pytree of two floats: one block per entry, of the output's shape."""
    x = container([0.5, 1.5])
    jac = srcgrad.jacobian(_tanh_of_list, mode=mode)(x)
    exact = 2.0 / np.cosh(np.array([0.5, 1.5])) ** 2
    assert type(jac) is container and len(jac) == 2
    for j in range(2):
        assert jac[j].shape == (2,) and jac[j].dtype == np.float64
        np.testing.assert_allclose(jac[j], np.eye(2)[j] * exact, rtol=1e-14, atol=1e-16)
    dot = srcgrad.jacobian(lambda v: np.dot(v, v), mode=mode)(x)
    assert type(dot) is container and dot == pytest.approx([1.0, 3.0], rel=1e-15)


def test_jacobian_layout_matches_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def structured_jax(p, s):
        return {"u": jnp.sin(p["a"]) * p["b"][0], "v": [p["b"][1] ** 2 * s, jnp.sum(p["a"])]}

    for mode, transform in (("forward", jax.jacfwd), ("reverse", jax.jacrev)):
        ours = srcgrad.jacobian(structured, wrt=(0, 1), mode=mode)(P, S)
        theirs = transform(structured_jax, argnums=(0, 1))(P, S)
        assert jax.tree_util.tree_structure(ours) == jax.tree_util.tree_structure(theirs)
        for a, b in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
            assert np.shape(a) == np.shape(b)
            np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)
    h = srcgrad.hessian(cubic_dict)(Q)
    hj = jax.hessian(lambda q: jnp.sum(q["a"] ** 3) * q["b"] ** 2)(Q)
    assert jax.tree_util.tree_structure(h) == jax.tree_util.tree_structure(hj)
    for a, b in zip(jax.tree_util.tree_leaves(h), jax.tree_util.tree_leaves(hj)):
        np.testing.assert_allclose(a, b, rtol=1e-14)


def cubic_dict(q):
    return np.sum(q["a"] ** 3) * q["b"] ** 2


Q = {"a": np.array([0.3, -0.5, 1.1]), "b": 1.5}


def test_hessian_with_respect_to_a_dict():
    a, b = Q["a"], Q["b"]
    H = srcgrad.hessian(cubic_dict)(Q)
    want = {
        "a": {"a": np.diag(6.0 * a * b ** 2), "b": 6.0 * a ** 2 * b},
        "b": {"a": 6.0 * a ** 2 * b, "b": 2.0 * np.sum(a ** 3)},
    }
    _assert_tree_close(H, want, rtol=1e-13, atol=1e-15)
    t = {"a": rng.normal(size=3), "b": 0.6}
    column = {k: H[k]["a"] @ t["a"] + H[k]["b"] * t["b"] for k in ("a", "b")}
    _assert_tree_close(column, _difference(srcgrad.grad(cubic_dict), Q, t), rtol=1e-7)


def weighted_features(x):
    weights = {"a": 1.0, "b": 2.0, "c": 0.5}
    features = {"a": x[0], "b": x[1] ** 2, "c": np.sin(x[2])}
    return sum(weights[k] * v * v for k, v in features.items())


def test_hessian_of_a_loop_over_dict_items():
    """The keys of a loop over `d.items()` were read from `list(d)`, which made them look
    differentiated where `d` held differentiated values: the Hessian was refused (no
    forward rule for the index of the gradient's `getitem_vjp`)."""
    x = np.array([0.3, -0.5, 1.1])
    want = np.diag([2.0, 24.0 * x[1] ** 2, np.cos(2 * x[2])])
    np.testing.assert_allclose(srcgrad.hessian(weighted_features)(x), want, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(srcgrad.jacobian(srcgrad.grad(weighted_features))(x), want, rtol=1e-13, atol=1e-15)


def squares_over_dict_keys(x):
    d = {"a": x * 2.0, "b": np.sin(x)}
    s = 0.0
    for k in d:
        s = s + np.sum(d[k] ** 2)
    return s


def tanh_squares_of_a_dict(d):
    s = 0.0
    for k in d:
        s = s + np.sum(np.tanh(d[k]) ** 2)
    return s


def test_hessian_of_a_loop_over_dict_keys():
    """`for k in d:` over a dict of differentiated values: the gradient pushes each key on
    the tape among differentiated values, so forward mode over it saw the key of
    `getitem_vjp(k_bar, d, k)` as differentiated and refused, and read the dict by index
    (`k = d[0]`, a KeyError) once that was allowed. An index or key parameter of the
    gradient's helpers now has no derivative (rules' `discrete`), and a loop over a name
    in generated code keeps its form."""
    x = np.array([0.3, 0.7])
    want = np.diag(8.0 + 2.0 * np.cos(2.0 * x))  # d/dx of 4x^2 + sin(x)^2, twice
    np.testing.assert_allclose(srcgrad.hessian(squares_over_dict_keys)(x), want, rtol=1e-13)
    np.testing.assert_allclose(srcgrad.jacobian(srcgrad.grad(squares_over_dict_keys))(x), want, rtol=1e-13)
    d = {"a": np.array([0.2, -0.5]), "b": np.array([1.0])}
    H = srcgrad.hessian(tanh_squares_of_a_dict)(d)
    t = np.tanh(d["a"]), np.tanh(d["b"])
    second = [2.0 * (1 - v * v) ** 2 - 4.0 * v * v * (1 - v * v) for v in t]  # (tanh^2)''
    np.testing.assert_allclose(H["a"]["a"], np.diag(second[0]), rtol=1e-12)
    np.testing.assert_allclose(H["b"]["b"], np.diag(second[1]), rtol=1e-12)
    np.testing.assert_array_equal(H["a"]["b"], np.zeros((2, 1)))
    np.testing.assert_array_equal(H["b"]["a"], np.zeros((1, 2)))


def weighted_by_key(x):
    terms = {0: x, 1: x * x}
    s = 0.0
    for k in terms:
        s = s + k * x
    return s


def test_the_keys_of_a_dict_carry_no_derivative():
    """A loop over a dict display of differentiated values read its keys as entries of a
    sequence (`k = terms[i]`, the values): the gradient of `(0 + 1) x` came out as that of
    `x x + x^2 x`, 1.75 at 0.5 instead of 1, silently."""
    assert srcgrad.grad(weighted_by_key)(0.5) == 1.0
    assert srcgrad.jvp(weighted_by_key, (0.5,), (1.0,)) == (0.5, 1.0)
    assert srcgrad.hessian(weighted_by_key)(0.5) == 0.0


def weighted_by_argument_keys(d, x):
    s = 0.0
    for k in d:
        s = s + k * x
    return s


def weighted_by_nested_keys(p, x):
    sub = p["sub"]
    s = 0.0
    for k in sub:
        s = s + k * x * p["w"]
    return s


def weighted_by_keys_of_each(ds, x):
    s = 0.0
    for d in ds:
        for k in d:
            s = s + k * x
    return s


def weighted_by_keys_method(d, x):
    s = 0.0
    for k in d.keys():
        s = s + k * x
    return s


def _ones_like(tree):
    if isinstance(tree, dict):
        return {k: _ones_like(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_ones_like(v) for v in tree)
    return 1.0


@pytest.mark.parametrize("transform", [
    lambda f, *a: srcgrad.grad(f, wrt=(0, 1))(*a),
    lambda f, *a: srcgrad.value_and_grad(f, wrt=(0, 1))(*a),
    lambda f, *a: srcgrad.vjp(f, *a)[1](1.0),
    lambda f, *a: srcgrad.jvp(f, a, (_ones_like(a[0]), 1.0)),
    lambda f, *a: srcgrad.jacobian(f, wrt=(0, 1), mode="forward")(*a),
    lambda f, *a: srcgrad.jacobian(f, wrt=(0, 1), mode="reverse")(*a),
    lambda f, *a: srcgrad.hessian(f, wrt=(0, 1))(*a),
], ids=["grad", "value_and_grad", "vjp", "jvp", "jacobian-forward", "jacobian-reverse", "hessian"])
@pytest.mark.parametrize("fn, args, read", [
    (weighted_by_argument_keys, ({0: 1.5, 1: 2.5}, 0.5), "d"),
    (weighted_by_nested_keys, ({"sub": {0: 1.5, 1: 2.5}, "w": 2.0}, 0.5), "p['sub']"),
    (weighted_by_keys_of_each, ([{0: 1.5, 1: 2.5}], 0.5), "ds[...]"),
])
def test_a_dict_argument_looped_over_as_a_sequence_is_refused(transform, fn, args, read):
    """`for k in d:` with `d` an argument whose values are differentiated: the derivative
    loops over a sequence (`k = d[i]`), which for a dict with the keys 0..n-1 read its
    values where Python gives its keys: the gradient of `(0 + 1) x` was 4.0 (1.5 + 2.5),
    silently. Only the call shows that `d` is a dict, so every transform checks it there."""
    with pytest.raises(srcgrad.NotDifferentiableError, match=re.escape(f"loops over `{read}`, a dict in this call")):
        transform(fn, *args)


def test_a_loop_over_the_keys_of_a_dict_argument():
    """`for k in d.keys():` says the loop reads keys, which carry no derivative: the
    gradient of `(0 + 1) x` is 1, and the dict's values get zeros."""
    d = {0: 1.5, 1: 2.5}
    assert srcgrad.grad(weighted_by_keys_method, wrt=(0, 1))(d, 0.5) == ({0: 0.0, 1: 0.0}, 1.0)
    assert srcgrad.jvp(weighted_by_keys_method, (d, 0.5), ({0: 1.0, 1: 1.0}, 1.0)) == (0.5, 1.0)
    assert srcgrad.hessian(weighted_by_keys_method, wrt=1)(d, 0.5) == 0.0
    # the same loop over a list (its entries carry the derivative) is not refused
    g = srcgrad.grad(weighted_by_argument_keys, wrt=(0, 1))([1.5, 2.5], 0.5)
    assert g == ([0.5, 0.5], 4.0)


def two_loops_over_one_index(x):
    y = 0.0
    for i in range(2):
        y = y + x[i] ** 2
    for i in range(2):
        y = y * x[i]
    return y


def a_while_counter_then_a_loop_over_it(x):
    k = 0
    y = 0.0
    while k < 2:
        y = y + x[k] ** 3
        k += 1
    for k in range(2):
        y = y * x[k]
    return y


def test_hessian_of_loops_that_share_their_index():
    """The gradient restores the index between the loops (`i = tape.pop()` at its top
    level), which the forward transform renamed `i_1`: its pop then no longer matched the
    push of `i`, so the index looked differentiated and the Hessian was refused (no forward
    rule for the index of `getitem_vjp`)."""
    x = np.array([0.5, 1.5])
    s, p = x[0] ** 2 + x[1] ** 2, x[0] * x[1]  # y = s * p
    want = np.array([[2.0 * p + 4.0 * x[0] * x[1], 2.0 * x[0] * x[0] + 2.0 * x[1] * x[1] + s],
                     [2.0 * x[0] * x[0] + 2.0 * x[1] * x[1] + s, 2.0 * p + 4.0 * x[0] * x[1]]])
    np.testing.assert_allclose(srcgrad.hessian(two_loops_over_one_index)(x), want, rtol=1e-13)
    np.testing.assert_allclose(srcgrad.jacobian(srcgrad.grad(two_loops_over_one_index))(x), want, rtol=1e-13)
    c = x[0] ** 3 + x[1] ** 3  # y = c * p
    want = np.array([[6.0 * x[0] * p + 6.0 * x[0] ** 2 * x[1], 3.0 * x[0] ** 2 * x[0] + 3.0 * x[1] ** 2 * x[1] + c],
                     [3.0 * x[0] ** 2 * x[0] + 3.0 * x[1] ** 2 * x[1] + c, 6.0 * x[1] * p + 6.0 * x[1] ** 2 * x[0]]])
    np.testing.assert_allclose(srcgrad.hessian(a_while_counter_then_a_loop_over_it)(x), want, rtol=1e-13)


def test_jacobian_refuses_an_integer_leaf_and_an_output_that_is_not_numbers():
    with pytest.raises(TypeError, match=r"`scaled_dict` \(.*\) with respect to `p\['b'\]`: it is int"):
        srcgrad.jacobian(scaled_dict)({"a": np.ones(2), "b": 2})

    def labelled(x):
        return {"value": x * 2.0, "label": "doubled"}

    with pytest.raises(TypeError, match=r"jacobian of `labelled` \(.*\) needs an output of arrays and numbers .*not str"):
        srcgrad.jacobian(labelled)(np.ones(2))


def labelled_square(p):
    return np.sum(p["a"] ** 2) * (2.0 if p["name"] == "foo" else 1.0)


@pytest.mark.parametrize("label", ["foo", None])
def test_a_leaf_without_a_derivative_gets_zero_blocks_in_every_mode(label):
    """A string leaf made a forward Jacobian and the Hessian raise NumPy's TypeError ("data
    type 'foo' not understood", from its unit tangents); grad and a reverse Jacobian give
    it zeros, and so do they now."""
    a = np.array([0.1, -0.2, 0.3])
    p, c = {"a": a, "name": label}, 2.0 if label == "foo" else 1.0
    gradient = srcgrad.grad(labelled_square)(p)
    _assert_tree_close(gradient, {"a": 2.0 * c * a, "name": 0.0}, rtol=1e-15)
    assert type(gradient["name"]) is float
    for mode in ("forward", "reverse"):
        J = srcgrad.jacobian(labelled_square, mode=mode)(p)
        _assert_tree_close(J, {"a": 2.0 * c * a, "name": np.zeros(())}, rtol=1e-15)
    H = srcgrad.hessian(labelled_square)(p)
    _assert_tree_close(H, {"a": {"a": 2.0 * c * np.eye(3), "name": np.zeros(3)},
                           "name": {"a": np.zeros(3), "name": np.zeros(())}}, rtol=1e-15)
    t = rng.normal(size=3)
    along = _difference(lambda v: srcgrad.grad(labelled_square)({"a": v, "name": label})["a"], a, t)
    np.testing.assert_allclose(H["a"]["a"] @ t, along, rtol=1e-7)
    with pytest.raises(TypeError, match=r"cannot differentiate `labelled_square` \(.*test_jacobians.py:\d+\) with "
                                        r"respect to `p\['name'\]`: it is int"):
        srcgrad.hessian(labelled_square)({"a": a, "name": 3})  # named `labelled_square_grad` at <srcgrad dispatch>


# --- namedtuples: pytree nodes, rebuilt as their own class -----------------------------------

Point = collections.namedtuple("Point", ["xy", "w"])
PT = Point(np.array([0.1, -0.2, 0.3]), 0.5)


def weighted_square(p):
    return np.sum(p[0] ** 2) * p[1]


def unpacked_sine(p):
    xy, w = p
    return np.sum(np.sin(xy) * w)


def test_grad_and_vjp_of_a_namedtuple_argument_are_namedtuples():
    """A namedtuple argument made grad and vjp recurse without end (RecursionError):
    its gradient, a tuple, went from `unbroadcast` to `structure_like` and back."""
    t = Point(rng.normal(size=3), 0.7)
    for f, want in ((weighted_square, Point(2.0 * PT.xy * PT.w, np.sum(PT.xy ** 2))),
                    (unpacked_sine, Point(np.cos(PT.xy) * PT.w, np.sum(np.sin(PT.xy))))):
        g = srcgrad.grad(f)(PT)
        _assert_tree_close(g, want, rtol=1e-15)
        assert type(g.w) is float
        np.testing.assert_allclose(g.xy @ t.xy + g.w * t.w, _difference(f, PT, t), rtol=1e-8)
        (pulled,) = srcgrad.vjp(f, PT)[1](1.0)
        _assert_tree_close(pulled, want, rtol=1e-15)
    out, pullback = srcgrad.vjp(lambda p: p, PT)  # a namedtuple output and seed
    assert out is PT
    _assert_tree_close(pullback(Point(np.ones(3), 2.0))[0], Point(np.ones(3), 2.0), rtol=0)
    with pytest.raises(TypeError, match=r"with respect to `p\[1\]`: it is int"):
        srcgrad.grad(weighted_square)(Point(np.ones(3), 2))  # as for a tuple


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_and_hessian_with_respect_to_a_namedtuple(mode):
    """A forward Jacobian raised NumPy's ValueError (the namedtuple taken for an array),
    a reverse one and the Hessian a RecursionError."""
    J = srcgrad.jacobian(weighted_square, mode=mode)(PT)
    _assert_tree_close(J, Point(2.0 * PT.xy * PT.w, np.sum(PT.xy ** 2)), rtol=1e-15)
    H = srcgrad.hessian(weighted_square)(PT)
    want = Point(Point(2.0 * PT.w * np.eye(3), 2.0 * PT.xy), Point(2.0 * PT.xy, 0.0))
    _assert_tree_close(H, want, rtol=1e-15)
    assert type(H.w.w) is float
    t = Point(rng.normal(size=3), -0.4)
    column = Point(H.xy.xy @ t.xy + H.xy.w * t.w, H.w.xy @ t.xy + H.w.w * t.w)
    _assert_tree_close(column, _difference(srcgrad.grad(weighted_square), PT, t), rtol=1e-7)


def weighted_square_by_field(p):
    return np.sum(p.xy ** 2) * p.w


def weighted_square_by_getattr(p):
    return np.sum(getattr(p, "xy") ** 2) * getattr(p, "w")


@pytest.mark.parametrize("f", [weighted_square_by_field, weighted_square_by_getattr])
def test_the_fields_of_a_namedtuple_argument_read_by_name(f):
    """`p.xy` of a namedtuple argument was refused ("no derivative rule for the attribute
    `.xy`"). Its gradient is the namedtuple with the field's gradient and zeros elsewhere
    (`field_grad`); its tangent is the tangent's field. Every transform, the Hessian too."""
    want = Point(2.0 * PT.xy * PT.w, np.sum(PT.xy ** 2))
    t = Point(rng.normal(size=3), 0.7)
    g = srcgrad.grad(f)(PT)
    _assert_tree_close(g, want, rtol=1e-15)
    np.testing.assert_allclose(g.xy @ t.xy + g.w * t.w, _difference(f, PT, t), rtol=1e-8)
    _assert_tree_close(srcgrad.vjp(f, PT)[1](1.0)[0], want, rtol=1e-15)
    np.testing.assert_allclose(srcgrad.jvp(f, (PT,), (t,))[1], g.xy @ t.xy + g.w * t.w, rtol=1e-14)
    for mode in ("forward", "reverse"):
        _assert_tree_close(srcgrad.jacobian(f, mode=mode)(PT), want, rtol=1e-15)
    H = srcgrad.hessian(f)(PT)
    _assert_tree_close(H, Point(Point(2.0 * PT.w * np.eye(3), 2.0 * PT.xy), Point(2.0 * PT.xy, 0.0)), rtol=1e-15)


# --- namedtuples built inside the differentiated function -----------------------------------

State = collections.namedtuple("State", "h c")
Output = collections.namedtuple("Output", ["loss", "aux"])


class Config(typing.NamedTuple):
    a: np.ndarray
    scale: float = 2.0


class NamedPoint(Point):  # a subclass with methods only: made as Point makes its values
    def total(self):
        return np.sum(self.xy) * self.w


X3 = np.array([0.5, -0.2, 1.3])


def built_by_keywords(x):
    p = Point(w=np.sum(x * x), xy=np.sin(x))
    return np.sum(p.xy * p.w)


def built_positionally_and_unpacked(x):
    p = Point(x * 2.0, 0.5)
    xy, w = p
    return np.sum(xy ** 2 * w + p[0] * p.xy)


def typed_namedtuple_with_a_default(x):
    c = Config(a=np.sin(x))
    return np.sum(c.a ** 2 * c.scale)


def subclass_of_a_namedtuple(x):
    p = NamedPoint(x * 3.0, 2.0)
    return np.sum(p.xy ** 2 * p.w)


def state_carried_through_a_loop(x):
    s = State(h=x, c=np.zeros_like(x))
    for _ in range(3):
        s = State(np.tanh(s.h * x + s.c), s.c + s.h)
    return np.sum(s.h * s.c)


def _step(s, x):
    return State(h=np.sin(s.h) * x, c=s.c * 2.0)


def returned_by_a_helper(x):
    s = _step(State(x, x * x), x)
    return np.sum(s.h + s.c ** 2)


def nested_fields(x):
    p = Point(xy=[x, x * 2.0], w=State(h=x ** 2, c=1.5))
    return np.sum(p.xy[1] * p.w.h) + p.w.c


def built_in_a_branch(x):
    if np.sum(x) > 0:
        p = Point(x * 2.0, 1.0)
    else:
        p = Point(x, 3.0)
    return np.sum(p.xy ** 3 * p.w)


def list_of_namedtuples(x):
    ps = [Point(x * k, float(k)) for k in range(1, 3)]
    return sum(np.sum(p.xy ** 2 * p.w) for p in ps)


BUILT = [built_by_keywords, built_positionally_and_unpacked, typed_namedtuple_with_a_default, subclass_of_a_namedtuple,
         state_carried_through_a_loop, returned_by_a_helper, nested_fields, built_in_a_branch, list_of_namedtuples]


@pytest.mark.parametrize("f", BUILT)
def test_a_namedtuple_built_in_the_function_passes_the_gradient_to_its_fields(f):
    """`P(W=..., b=...)` inside the function was refused ("does not follow a
    differentiated value into an object made in the differentiated function"). The
    gradient of a field read goes back to the value the field was built from (calls.site
    reads the call as `make_record(P, fields)`), by keyword or position, through
    loops, branches, helpers and nesting: gradients against differences, jvp against
    them, Hessians against differences of the gradient, both Jacobians, inputs unchanged."""
    x = X3.copy()
    check(f, x)
    check_hessian(f, (x,), 0)
    g = srcgrad.grad(f)(x)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(srcgrad.jacobian(f, mode=mode)(x), g, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(x, X3)


def test_analytic_gradients_through_built_namedtuples():
    x = X3
    np.testing.assert_allclose(srcgrad.grad(built_by_keywords)(x),
                               np.cos(x) * np.sum(x * x) + 2.0 * x * np.sum(np.sin(x)), rtol=1e-14)
    np.testing.assert_allclose(srcgrad.grad(typed_namedtuple_with_a_default)(x), 8.0 * np.sin(x) * np.cos(x) / 2.0,
                               rtol=1e-14)
    np.testing.assert_allclose(srcgrad.hessian(subclass_of_a_namedtuple)(x), 36.0 * np.eye(3), rtol=1e-14)
    g32 = srcgrad.grad(built_positionally_and_unpacked)(x.astype(np.float32))
    assert g32.dtype == np.float32 and g32.shape == (3,)


def loss_and_aux(x, y):
    return Output(loss=np.sum(x * y), aux=x * 2.0)


def test_a_namedtuple_output_of_vjp_jvp_and_jacobians():
    """`return Output(loss=..., aux=...)`: vjp takes an Output seed, the Jacobians are
    Outputs of per-field blocks, jvp's tangent is an Output."""
    x, y = X3, np.array([1.0, -1.0, 3.0])
    out, pullback = srcgrad.vjp(loss_and_aux, x, y)
    assert type(out) is Output and out.loss == np.sum(x * y)
    gx, gy = pullback(Output(2.0, np.ones(3)))
    np.testing.assert_allclose(gx, 2.0 * y + 2.0, rtol=1e-15)
    np.testing.assert_allclose(gy, 2.0 * x, rtol=1e-15)
    for mode in ("forward", "reverse"):
        J = srcgrad.jacobian(loss_and_aux, mode=mode)(x, y)
        _assert_tree_close(J, Output(y, 2.0 * np.eye(3)), rtol=1e-15)
    value, tangent = srcgrad.jvp(loss_and_aux, (x, y), (np.ones(3), np.zeros(3)))
    _assert_tree_close(tangent, Output(np.sum(y), np.full(3, 2.0)), rtol=1e-15)
    _assert_tree_close(tangent, _difference(lambda v: loss_and_aux(v, y), x, np.ones(3)), rtol=1e-7)


def rebuilt_from_an_argument(p, x):
    q = Point(p.xy * x, p.w)
    return np.sum(q.xy ** 2) * q.w


def test_a_namedtuple_rebuilt_from_an_argument_namedtuple():
    g_p, g_x = srcgrad.grad(rebuilt_from_an_argument, wrt=(0, 1))(PT, X3)
    _assert_tree_close(g_p, Point(2.0 * PT.xy * X3 ** 2 * PT.w, np.sum((PT.xy * X3) ** 2)), rtol=1e-14)
    np.testing.assert_allclose(g_x, 2.0 * PT.xy ** 2 * X3 * PT.w, rtol=1e-14)
    text = srcgrad.source(srcgrad.grad(rebuilt_from_an_argument, wrt=(0, 1)))
    assert "q = Point(p_xy_times_x, p_w)" in text


class _NotANamedtuple(Point):
    def __new__(cls, w, xy):  # fields taken in another order: not what namedtuple's __new__ does
        return super().__new__(cls, xy, w)


def made_by_its_own_new(x):
    p = _NotANamedtuple(1.0, x)
    return np.sum(p.xy)


def made_as_an_object(x):
    h = _Holder(x * 2.0)
    return np.sum(h.xy)


def too_many_fields(x):
    p = Point(x, 1.0, 2.0)
    return np.sum(p.xy)


OBJECT = ("srcgrad does not follow a differentiated value into an object made in the differentiated function, but for "
          "a namedtuple (`collections.namedtuple`, `typing.NamedTuple`, without a `__new__` or `__init__` of its own) "
          "or a dataclass whose `__init__` dataclasses generated (no `__post_init__`, `field(init=False)` or "
          "`InitVar`): compute with the arrays themselves, make the object such a record, or pass the values to the "
          "object's methods as arguments")


@pytest.mark.parametrize("f, message", [
    (made_by_its_own_new, "no derivative rule for test_jacobians._NotANamedtuple called at "),
    (made_by_its_own_new, OBJECT),
    (made_as_an_object, OBJECT),
    (too_many_fields, "cannot differentiate this call of `Point`: too many positional arguments (in `too_many_fields`)"),
])
def test_objects_other_than_namedtuples_stay_refused(f, message):
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        srcgrad.grad(f)(X3)
    assert message in str(info.value)
    assert info.value.filename.endswith("test_jacobians.py")


# --- dict(d): a new dict of the same entries ---------------------------------------------


def copied_then_extended(d, x):
    e = dict(d)
    e["c"] = x
    return np.sum(e["a"] * e["b"] * e["c"])


def test_dict_of_a_dict_passes_the_gradient_entry_by_entry():
    """`dict(d)` had no rule; the copy's gradient is d's, entry by entry, in every
    transform, and writes into the copy leave `d` alone."""
    d = {"a": np.array([1.0, 2.0]), "b": 3.0}
    x = np.array([0.5, -1.5])
    g_d, g_x = srcgrad.grad(copied_then_extended, wrt=(0, 1))(d, x)
    _assert_tree_close(g_d, {"a": 3.0 * x, "b": float(np.sum(d["a"] * x))}, rtol=1e-15)
    np.testing.assert_allclose(g_x, 3.0 * d["a"], rtol=1e-15)
    assert list(d) == ["a", "b"]  # not extended by the derivative
    t = {"a": np.array([0.3, -0.7]), "b": 0.4}
    np.testing.assert_allclose(srcgrad.jvp(copied_then_extended, (d, x), (t, None))[1],
                               _difference(lambda v: copied_then_extended(v, x), d, t), rtol=1e-8)
    for mode in ("forward", "reverse"):
        _assert_tree_close(srcgrad.jacobian(copied_then_extended, mode=mode)(d, x), g_d, rtol=1e-15)
    H = srcgrad.hessian(copied_then_extended)(d, x)
    _assert_tree_close(H, {"a": {"a": np.zeros((2, 2)), "b": x}, "b": {"a": x, "b": 0.0}}, rtol=1e-15)


def dict_of_pairs(x):
    pairs = [("a", x)]
    e = dict(pairs)
    return np.sum(e["a"])


def dict_of_pairs_written_out(x):
    e = dict([("a", x), ("b", x * x)])  # the display {"a": x, "b": x * x}
    return np.sum(e["a"] * e["b"])


def test_dict_of_anything_but_a_dict_is_refused_when_it_runs():
    with pytest.raises(TypeError, match=r"srcgrad differentiates `dict\(d\)` of a dict `d` only, not of list"):
        srcgrad.grad(dict_of_pairs)(np.ones(2))
    x = np.array([0.5, -2.0])
    np.testing.assert_allclose(srcgrad.grad(dict_of_pairs_written_out)(x), 3 * x * x, rtol=1e-15)


class _Holder:
    def __init__(self, xy):
        self.xy = xy


def test_an_attribute_read_of_another_object_is_refused_at_the_call():
    """Only a namedtuple's or a dataclass's fields have a gradient of its structure; an object's attribute
    is refused with what to do instead, not differentiated into a wrong structure."""
    with pytest.raises(TypeError, match=r"with respect to `h`: it is a _Holder, an object of a class that is neither "
                       r"a dataclass nor a namedtuple.*or make the class a dataclass"):
        srcgrad.grad(lambda h: np.sum(h.xy ** 2))(_Holder(np.ones(2)))


# --- derivatives of a Jacobian or a Hessian -------------------------------------------------


def quartic(x):
    return np.sum(x ** 4) + x[0] * x[1] ** 3


def _quartic_third(x, v):
    """The third derivative of `quartic` along v: d/dt H(x + t v)."""
    out = np.diag(24.0 * x * v)
    out[0, 1] += 6.0 * x[1] * v[1]
    out[1, 0] += 6.0 * x[1] * v[1]
    out[1, 1] += 6.0 * (v[0] * x[1] + x[0] * v[1])
    return out


X = np.array([0.7, -1.2, 0.4])
V = np.array([0.5, 0.3, -2.0])


def test_jvp_of_a_hessian_is_the_third_derivative():
    H = srcgrad.hessian(quartic)
    value, tangent = srcgrad.jvp(H, (X,), (V,))
    np.testing.assert_allclose(value, H(X), rtol=1e-15)
    np.testing.assert_allclose(tangent, _quartic_third(X, V), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(tangent, _difference(H, X, V), rtol=1e-7, atol=1e-8)


def test_jacobian_of_a_hessian_is_the_third_derivative_tensor():
    T = srcgrad.jacobian(srcgrad.hessian(quartic))(X)
    assert T.shape == (3, 3, 3)
    for k, e in enumerate(np.eye(3)):
        np.testing.assert_allclose(T[..., k], _quartic_third(X, e), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(T, np.transpose(T, (1, 2, 0)), rtol=1e-13, atol=1e-14)  # symmetric


def sine_scaled(x):
    return np.sin(x) * x[0]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jvp_and_jacobian_of_a_jacobian(mode):
    J = srcgrad.jacobian(sine_scaled, mode=mode)
    x, v = np.array([0.3, 1.1]), np.array([1.0, -0.5])
    value, tangent = srcgrad.jvp(J, (x,), (v,))
    np.testing.assert_allclose(value, J(x), rtol=1e-15)
    # J = diag(cos x) x0 + sin(x) e0^T; along v: -diag(sin x * v) x0 + diag(cos x) v0 + (cos x * v) e0^T
    want = np.diag(-np.sin(x) * v * x[0] + np.cos(x) * v[0])
    want[:, 0] += np.cos(x) * v
    np.testing.assert_allclose(tangent, want, rtol=1e-14)
    np.testing.assert_allclose(tangent, _difference(J, x, v), rtol=1e-7, atol=1e-9)
    second = srcgrad.jacobian(J)(x)
    np.testing.assert_allclose(second @ v, want, rtol=1e-14)


def tanh_layer(x, W):
    return np.tanh(W @ x)


def test_jvp_of_a_jacobian_with_a_tangent_of_the_other_argument():
    x, W = rng.normal(size=3), rng.normal(size=(2, 3))
    dx, dW = rng.normal(size=3), rng.normal(size=(2, 3))
    J = srcgrad.jacobian(tanh_layer, wrt=(0, 1))
    value, tangent = srcgrad.jvp(J, (x, W), (dx, dW))
    _assert_tree_close(value, J(x, W), rtol=1e-15)
    _assert_tree_close(tangent, _difference(lambda xw: J(*xw), (x, W), (dx, dW)), rtol=1e-6, atol=1e-8)
    _, only_w = srcgrad.jvp(J, (x, W), (None, dW))
    _assert_tree_close(only_w, _difference(lambda w: J(x, w), W, dW), rtol=1e-6, atol=1e-8)


def test_jvp_of_a_jacobian_of_a_dict():
    J = srcgrad.jacobian(structured, wrt=0)
    t = {"a": rng.normal(size=3), "b": (0.3, -0.9)}
    value, tangent = srcgrad.jvp(J, (P, S), (t, None))
    _assert_tree_close(value, J(P, S), rtol=1e-15)
    _assert_tree_close(tangent, _difference(lambda p: J(p, S), P, t), rtol=1e-6, atol=1e-8)


def test_grad_and_hessian_of_a_jacobian_of_floats():
    J = srcgrad.jacobian(lambda a: np.sin(a) * a, mode="forward")  # cos(a) a + sin(a)
    a = 0.3
    assert srcgrad.grad(J)(a) == pytest.approx(-np.sin(a) * a + 2.0 * np.cos(a), rel=1e-14)
    assert srcgrad.hessian(J)(a) == pytest.approx(-np.cos(a) * a - 3.0 * np.sin(a), rel=1e-13)


def test_derivatives_of_nested_derivatives_of_lambdas():
    """A lambda's nested derivative is generated code named lambda_fn_..., which parses."""
    d2 = srcgrad.grad(srcgrad.grad(lambda a: a ** 5))
    assert srcgrad.jvp(d2, (0.3,), (1.0,)) == pytest.approx((20 * 0.3 ** 3, 60 * 0.3 ** 2), rel=1e-13)
    assert srcgrad.hessian(srcgrad.hessian(lambda a: a ** 5))(0.3) == pytest.approx(120 * 0.3, rel=1e-13)


def test_the_differentiated_program_is_readable():
    text = srcgrad.source(srcgrad.jacobian(srcgrad.jacobian(tanh_layer, wrt=(0, 1))))
    assert "def tanh_layer_jacobian_jvp(x, W, x_dot_1):" in text
    assert "for x_dot in unit_tangents(x):" in text and "for W_dot in unit_tangents(W):" in text
    assert "out_1 = jacobian_from_columns(columns, (x, W), out)" in text


def test_a_jacobian_is_not_differentiated_in_reverse_mode():
    with pytest.raises(srcgrad.NotDifferentiableError, match="`sine_scaled_jacobian` is a derivative made by srcgrad"):
        srcgrad.vjp(srcgrad.jacobian(sine_scaled), np.ones(2))


def _scaled_sum(x, y):
    return np.sum(x ** 2 * y)


def _uses_vjp(x):
    out, pullback = srcgrad.vjp(_scaled_sum, x, 2.0)
    return pullback(1.0)[0]


def _uses_jvp(x):
    return srcgrad.jvp(_scaled_sum, (x, 2.0), (x, None))[1]


@pytest.mark.parametrize("f, name, line", [(_uses_vjp, "vjp", "out, pullback = srcgrad.vjp"),
                                           (_uses_jvp, "jvp", "return srcgrad.jvp")])
def test_a_transform_called_in_the_differentiated_function_is_refused_clearly(f, name, line):
    """srcgrad.vjp or srcgrad.jvp called inside a function being differentiated was
    analysed as a user function: the refusal quoted srcgrad's own source (`fn =
    _function_of(fn)`, api.py) as a write the user made. It now says what is not
    supported, at the user's line, and what to write instead."""
    for transform in (srcgrad.grad, lambda f: srcgrad.jacobian(f, mode="reverse")):
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            transform(f)(np.array([0.5, -1.0]))
        message = str(info.value)
        assert f"`srcgrad.{name}` is called in a function that srcgrad differentiates" in message
        assert "_function_of" not in message and "api.py" not in message
        assert info.value.lineno is not None and line in info.value.text
    # the supported way: the derivative of the function itself
    x = np.array([0.5, -1.0])
    assert np.allclose(srcgrad.jacobian(srcgrad.grad(_scaled_sum))(x, 2.0), 4.0 * np.eye(2))


def _scaled_sines(a, x):
    return np.sin(x * a)


def _summed_sines(a, x):
    return np.sum(np.sin(x * a))


@pytest.mark.parametrize("mode", [None, "forward", "reverse"])
def test_jacobian_of_a_float32_function_of_a_python_float_is_float32(mode):
    """A Python float is weak, as in JAX: the Jacobian takes the float32 output's dtype
    (it was float64, with float32 values in it), and an array output keeps its shape."""
    x = np.array([0.0, 1.0, 2.0], dtype=np.float32)
    jac = srcgrad.jacobian(_scaled_sines, wrt=0, mode=mode)(1.5, x)
    assert jac.dtype == np.float32 and jac.shape == (3,)
    np.testing.assert_allclose(jac, x * np.cos(1.5 * x), rtol=1e-6)
    total = srcgrad.jacobian(_summed_sines, wrt=0, mode=mode)(1.5, x)
    assert type(total) is np.float32  # a number of a number, keeping the output's dtype
    assert float(total) == pytest.approx(float(np.sum(x * np.cos(1.5 * x))), rel=1e-6)
    # with respect to the float32 array: float32 rows, whatever the Python float
    rows = srcgrad.jacobian(_scaled_sines, wrt=1, mode=mode)(1.5, x)
    assert rows.dtype == np.float32 and rows.shape == (3, 3)
    np.testing.assert_allclose(rows, np.diag(1.5 * np.cos(1.5 * x)), rtol=1e-6)
    # a float64 function of Python floats stays float64, and floats stay floats
    assert type(srcgrad.jacobian(lambda a: a * a, mode=mode)(1.5)) is float


def _cubed(x):
    return x * x * x


def _sine_times(x):
    return np.sin(x) * x


@pytest.mark.parametrize("kind", [float, np.float64, np.float32, lambda v: np.array(v), lambda v: np.array(v, np.float32)],
                         ids=["float", "np.float64", "np.float32", "0-d float64", "0-d float32"])
def test_the_jacobian_and_hessian_of_a_number_are_of_its_gradients_type(kind):
    """Of a number, the Jacobian (either mode) and the Hessian are what its gradient is: a
    Python float, an np.float64, an np.float32 (it was a Python float for np.float64 and a
    0-d array for np.float32); of a 0-d array, a 0-d array of its dtype."""
    x = kind(2.0)
    want = type(srcgrad.grad(_cubed)(x))
    assert want is (np.ndarray if type(x) is np.ndarray else type(x))
    hessian = srcgrad.hessian(_cubed)(x)
    assert type(hessian) is want and hessian == pytest.approx(12.0, rel=1e-6)
    for mode in (None, "forward", "reverse"):
        jac = srcgrad.jacobian(_sine_times, mode=mode)(x)
        assert type(jac) is want, mode
        assert jac == pytest.approx(np.sin(2.0) + 2.0 * np.cos(2.0), rel=1e-6)
    if want is not float:
        assert hessian.dtype == jac.dtype == np.asarray(x).dtype
