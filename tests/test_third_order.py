"""Third derivatives: `grad(grad(grad(f)))` of a function of a float and
`jacobian(hessian(f))` of a function of a small vector, forward mode over generated
second-derivative code, which calls the derived forward rules of rule helpers
(rules/written_rules.py reads those).

Each is checked against central differences of the second derivative, the tensor's
symmetry, and an analytic value where one is easy.
"""

import numpy as np
import pytest

import srcgrad

X = 0.7
V = np.array([0.7, 0.3, 1.1])
EPS = 1e-5


# --- functions of a float ------------------------------------------------------------------


def sum_of_list_of_arrays(x):
    v = np.array([x, x * x, 2.0])
    return np.sum(sum([v * v, np.cos(v)]))


def sum_with_start(x):
    return sum([x ** k for k in range(4)], 1.0) * x  # x + x^2 + x^3 + x^4 + x


def sum_of_appended(x):
    items = []
    for k in range(3):
        items.append(np.sin(x * k) * x)
    return sum(items)


def diag_extracted(x):
    m = np.array([[x, x * x], [np.sin(x), 2.0]])
    return np.sum(np.diag(m) ** 3)  # x^3 + 8


def diag_built_off_center(x):
    return np.sum(np.diag(np.array([x, x ** 2, 1.0]), 1) @ np.ones(4) * x)  # x^2 + x^3 + x


def max_of_generator(x):
    return max(x * t for t in [1.0, 2.0, -1.0]) * x  # 2 x^2 at x > 0


def min_of_generator(x):
    return min(np.sin(x * t) for t in [1.0, 2.0]) * x


def max_with_key(x):
    return max((np.sin(x * k) for k in range(1, 4)), key=lambda v: v) * x


def max_and_min_of_two(x):
    return min(x * x, np.cos(x)) * max(x, 0.5) ** 2


def max_of_list_min_of_generator(x):
    v = [x, 2 * x, x * x]
    return max(v) + min(e * e for e in v)  # 2x + x^4 near 0.7


def next_of_generator(x):
    k = next(i for i in range(3) if i > 0)
    return x ** 4 * k


SCALAR = [
    (sum_of_list_of_arrays, None),
    (sum_with_start, 24 * X + 6),
    (sum_of_appended, None),
    (diag_extracted, 6.0),
    (diag_built_off_center, 6.0),
    (max_of_generator, 0.0),
    (min_of_generator, None),
    (max_with_key, None),
    (max_and_min_of_two, None),
    (max_of_list_min_of_generator, 24 * X),
    (next_of_generator, 24 * X),
]


@pytest.mark.parametrize("f, exact", SCALAR, ids=[f.__name__ for f, _ in SCALAR])
def test_third_derivative_of_a_float(f, exact):
    third = srcgrad.grad(srcgrad.grad(srcgrad.grad(f)))(X)
    second = srcgrad.grad(srcgrad.grad(f))
    assert np.isclose(third, (second(X + EPS) - second(X - EPS)) / (2 * EPS), rtol=1e-6, atol=1e-6)
    if exact is not None:
        assert np.isclose(third, exact, rtol=1e-10, atol=1e-10)


# --- functions of a vector -----------------------------------------------------------------


def sum_of_list_of_vectors(v):
    return sum([v * v[0], np.sin(v)]) @ v


def sum_of_scalars(v):
    return sum([v[0] * v[1], np.sin(v[1]) * v[0] ** 2, v[1] ** 3])


def diag_both_ways(v):
    m = np.outer(v, v)
    return np.sum(np.diag(m) * v) + np.sum(np.diag(v, -1) ** 2 * v[1])  # sum v^3 + v1 (v0^2 + v1^2 + v2^2)


def diag_cubed(v):
    return np.sum(np.diag(v) ** 3) + np.sum(np.diag(v * v[0]) ** 2)


def max_of_generator_of_vector(v):
    return max(e * e * v[0] for e in v) + min(v[0], v[1]) ** 3


def min_of_generator_of_vector(v):
    return min(np.sin(v[i]) * v[1] for i in range(3))


def prod_of_vector(v):
    return np.prod(v) * v[0]


def prod_through_a_zero(v):
    return np.sum(np.prod(np.outer(v - np.array([0.7, 0.0, 0.0]), v), axis=0))


def prod_through_two_zeros(v):
    return np.prod(v - np.array([0.7, 0.3, 0.0]), keepdims=True)[0] + np.nanprod(v ** 2)


def spreads(v):
    m = np.outer(v, v + 1.0)
    return np.std(v) * v[0] + np.var(m, axis=0, ddof=1) @ v + np.sum(np.std(m, axis=1, keepdims=True))


def nan_spreads(v):
    w = np.append(v * v[0], np.nan)
    return np.nanvar(w) * v[1] + np.nanstd(w)


def _prod_of_vector_exact(v):
    """d^3 (v0^2 v1 v2): 2 at the permutations of (0, 0, 1) with v2, and so on."""
    t = np.zeros((3, 3, 3))
    for i, j, k in [(0, 0, 1), (0, 0, 2), (0, 1, 2)]:
        for a, b, c in {(i, j, k), (i, k, j), (j, i, k), (j, k, i), (k, i, j), (k, j, i)}:
            t[a, b, c] = {(0, 0, 1): 2 * v[2], (0, 0, 2): 2 * v[1], (0, 1, 2): 2 * v[0]}[(i, j, k)]
    return t


def _diag_both_ways_exact(v):
    t = np.zeros((3, 3, 3))
    for i in range(3):
        t[i, i, i] = 6.0
    for i, j, k in [(0, 0, 1), (0, 1, 0), (1, 0, 0), (2, 2, 1), (2, 1, 2), (1, 2, 2)]:
        t[i, j, k] += 2.0
    t[1, 1, 1] += 6.0
    return t


VECTOR = [
    (sum_of_list_of_vectors, None),
    (sum_of_scalars, None),
    (diag_both_ways, _diag_both_ways_exact),
    (diag_cubed, None),
    (max_of_generator_of_vector, None),
    (min_of_generator_of_vector, None),
    (prod_of_vector, _prod_of_vector_exact),
    (prod_through_a_zero, None),
    (prod_through_two_zeros, None),
    (spreads, None),
    (nan_spreads, None),
]


@pytest.mark.parametrize("f, exact", VECTOR, ids=[f.__name__ for f, _ in VECTOR])
def test_jacobian_of_hessian(f, exact):
    third = srcgrad.jacobian(srcgrad.hessian(f))(V)
    hessian = srcgrad.hessian(f)
    numeric = np.stack([(hessian(V + EPS * e) - hessian(V - EPS * e)) / (2 * EPS) for e in np.eye(3)], -1)
    assert third.shape == (3, 3, 3)
    assert np.allclose(third, numeric, rtol=1e-6, atol=1e-6)
    for axes in [(1, 0, 2), (0, 2, 1), (2, 1, 0)]:
        assert np.allclose(third, third.transpose(axes), atol=1e-10)
    if exact is not None:
        assert np.allclose(third, exact(V), atol=1e-10)


def test_fourth_derivative_through_derived_rules():
    """The written-out definitions are differentiated again in turn: any order."""
    fourth = srcgrad.grad(srcgrad.grad(srcgrad.grad(srcgrad.grad(diag_extracted))))(X)
    assert np.isclose(fourth, 0.0, atol=1e-10)
    fourth = srcgrad.grad(srcgrad.grad(srcgrad.grad(srcgrad.grad(sum_with_start))))(X)
    assert np.isclose(fourth, 24.0)


def test_next_of_a_generator_in_first_derivatives():
    """`next(<generator>)` reads its first entry (the generator is lowered to a list)."""
    assert np.isclose(srcgrad.grad(next_of_generator)(X), 4 * X ** 3)


# --- generated gradient code, imported as a module, differentiated as a user's function -----


def _filled(parts, values):
    return tuple([np.zeros_like(v) if part is None else part for part, v in zip(parts, values)])


def uses_filled(a, b):
    t = _filled((a * b, None), (a, b))
    return np.sum(t[0] ** 2) + np.sum(t[1])


def test_gradient_of_printed_gradient_code_with_a_list_built_in_a_loop(tmp_path):
    """The printed gradient of a comprehension filling Nones builds `items` by appends in
    its forward loop and pops it in its backward loop, reads positions back from its tape
    (`i = tape.pop()`, an index) and takes list gradients apart (`item_grad`, `drop_last`).
    Differentiated again as plain code: `item_grad(items_bar, -1, choice)` shares no memory
    with `choice` or `items`, an index has no derivative, and the list gradients of
    `items_bar` add entry by entry."""
    import importlib.util

    path = tmp_path / "printed_gradient_of_filled.py"
    path.write_text(srcgrad.source(srcgrad.grad(uses_filled)))
    spec = importlib.util.spec_from_file_location("printed_gradient_of_filled", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a, b = np.array([0.3, -0.7]), np.array([1.2, 0.4])
    assert np.allclose(module.uses_filled_grad(a, b), 2 * a * b * b)  # d/da sum((a b)^2)

    def squared_gradient(a, b):
        return np.sum(module.uses_filled_grad(a, b) ** 2)

    a0 = a.copy()
    got = srcgrad.grad(squared_gradient)(a, b)
    assert np.array_equal(a, a0)
    assert got.shape == (2,) and got.dtype == np.float64
    assert np.allclose(got, 8 * a * b ** 4, rtol=1e-12)  # sum(4 a^2 b^4) by a
    numeric = np.array([(squared_gradient(a + EPS * e, b) - squared_gradient(a - EPS * e, b)) / (2 * EPS)
                        for e in np.eye(2)])
    assert np.allclose(got, numeric, rtol=1e-7)
