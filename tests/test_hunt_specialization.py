"""Derivatives called again with other kinds of arguments (dtypes, shapes, Python and
NumPy scalars, 0-d, empty, non-contiguous, Fortran-ordered, read-only and byte-swapped
arrays, the same array twice), from a hunt for stale or wrongly specialized results:
each call of one derivative object must give exactly what a fresh derivation gives after
`cache.clear()`, the float64 central differences, and gradients of the argument's
type, shape and dtype.

Regressions found by the hunt:

- The pullback of `split_vjp` specialized code took its seed to be of the kind of the
  values the backward pass assigns to it (a loop carrying the seed's adjoint, as in
  Horner's rule): a float64 or np.float32 seed of a program of Python floats gave NumPy
  scalar gradients, and a float64 seed of a float32 program float64 gradients (the
  general code gives the argument's type). The seed is of any kind.
"""

import numpy as np
import pytest

import srcgrad
from srcgrad.compiler import cache
from srcgrad.compiler.cache import general_code
from conftest import numerical_grad
from program_checks import check, check_hessian
from specialization_programs import LOOPS, SCALAR, horner, looped

X = np.array([0.7, -1.2, 2.0])


NUMPY1 = int(np.__version__.split(".")[0]) < 2


def same(a, b):
    """Equal values of the same types, dtypes and shapes (NaN equal to NaN), recursively."""
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, (np.ndarray, np.generic)):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if NUMPY1 and a.dtype in (np.float16, np.float32):  # value-based casting: the last bit may differ
            return np.allclose(a, b, rtol=4 * np.finfo(a.dtype).eps, atol=0, equal_nan=True)
        return np.array_equal(a, b, equal_nan=True)
    return a == b or (a != a and b != b)


# --- one derivative called with changing kinds of arguments ------------------------------

A, B = np.array([0.7, -1.2, 2.0]), np.array([0.5, 1.5, -0.3])


def _read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


KINDS = [  # (x, y), one call after the other
    (A, B), (A.astype(np.float32), B.astype(np.float32)), (A.astype(np.float32), 1.5), (A, B.astype(np.float32)),
    (0.7, 1.5), (np.float32(0.7), np.float32(1.5)), (np.float64(0.7), 1.5), (np.array(0.7), np.array(1.5)),
    (A[None, :], B), (np.stack([A, B, 2 * A]), B[None, :]), (A, np.array([[0.5], [2.0]])),
    (np.asfortranarray(np.stack([A, B]).T), np.array([1.0, 2.0])), (np.stack([A, B]).T, np.array([1.0, 2.0])),
    (A[::-1], B[::2][:1]), (A, A), (_read_only(A), B), (A.astype(">f8"), B), (A.astype(np.float16), B.astype(np.float16)),
    (A, B),
]


def _kind(v):
    return type(v), getattr(v, "dtype", None), np.shape(v)


def _float64(v):
    return v.astype(np.float64) if isinstance(v, np.ndarray) else float(v)


def _tolerance(*args):
    dtypes = {getattr(a, "dtype", np.dtype(np.float64)) for a in args}
    return 1e-5 if dtypes <= {np.dtype(np.float64), np.dtype(">f8")} else 3e-2 if np.dtype(np.float16) in dtypes else 2e-3


def _fresh(call):
    cache.clear()
    return call()


@pytest.mark.parametrize("fn", SCALAR, ids=lambda f: f.__name__)
def test_grad_of_changing_kinds_equals_a_fresh_derivation_and_differences(fn):
    df = srcgrad.value_and_grad(fn, wrt=(0, 1))
    for x, y in KINDS:
        before = (np.copy(x), np.copy(y))
        value, grads = df(x, y)
        assert same((value, grads), _fresh(lambda: srcgrad.value_and_grad(fn, wrt=(0, 1))(x, y)))
        assert same(value, fn(x, y))
        tol = _tolerance(x, y)
        for i, (g, a) in enumerate(zip(grads, (x, y))):
            assert _kind(g) == _kind(a)
            np.testing.assert_allclose(g, numerical_grad(fn, (_float64(x), _float64(y)), i), rtol=tol, atol=tol)
        assert same((np.copy(x), np.copy(y)), before)


@pytest.mark.parametrize("fn", SCALAR[:6], ids=lambda f: f.__name__)
def test_vjp_and_jvp_of_changing_kinds_equal_a_fresh_derivation(fn):
    def pulled(x, y):
        out, pullback = srcgrad.vjp(fn, x, y)
        return out, [pullback(seed) for seed in (1.0, np.float32(2.0), np.ones_like(out))]

    def pushed(x, y):
        tangents = tuple(np.full(np.shape(v), 0.5) if isinstance(v, np.ndarray) else 0.5 for v in (x, y))
        return srcgrad.jvp(fn, (x, y), tangents), srcgrad.jvp(fn, (x, y), (tangents[0], None))

    for x, y in KINDS:
        found = pulled(x, y), pushed(x, y)
        assert same(found, _fresh(lambda: (pulled(x, y), pushed(x, y))))


@pytest.mark.parametrize("fn", [SCALAR[0], SCALAR[7], SCALAR[8]], ids=lambda f: f.__name__)
def test_jacobians_and_hessians_of_changing_kinds_equal_a_fresh_derivation(fn):
    def derivatives(x, y):
        return (srcgrad.jacobian(fn, wrt=(0, 1))(x, y), srcgrad.jacobian(fn, wrt=(0, 1), mode="reverse")(x, y),
                srcgrad.hessian(fn, wrt=0)(x, y))

    made = (srcgrad.jacobian(fn, wrt=(0, 1)), srcgrad.jacobian(fn, wrt=(0, 1), mode="reverse"), srcgrad.hessian(fn, wrt=0))
    for x, y in KINDS[:10]:
        found = tuple(d(x, y) for d in made)
        assert same(found, _fresh(lambda: derivatives(x, y)))
        tol = _tolerance(x, y)
        np.testing.assert_allclose(np.reshape(found[0][0], np.shape(x)),
                                   numerical_grad(fn, (_float64(x), _float64(y)), 0), rtol=tol, atol=tol)


# --- loop-invariant statements reading what the loop changes ----------------------------


@pytest.mark.parametrize("fn", LOOPS, ids=lambda f: f.__name__)
def test_a_statement_reading_what_its_loop_changes_stays_in_the_loop(fn):
    check(fn, A)
    if fn in LOOPS[:3]:
        check_hessian(fn, (A,), 0)


# --- the seed of a split pullback ------------------------------------------------------


@pytest.mark.parametrize("seed", [np.float64(1.0), np.float32(1.0), np.array(1.0), 1.0])
def test_a_pullback_seed_carried_by_a_loop_is_of_any_kind(seed):
    out, pullback = srcgrad.vjp(horner, 0.5, 2.0)
    general = general_code(pullback.__srcgrad_lazy__.get().function)(0.5, 2.0)[1]
    grads = pullback(seed)
    assert same(grads, general(seed)) and same(grads, (4.0, 1.75))


def test_a_float64_seed_of_a_float32_loop_gives_float32_gradients():
    x, y = np.array([0.7, -1.2, 2.0], np.float32), np.array([0.5, 1.5, -0.3], np.float32)
    out, pullback = srcgrad.vjp(looped, x, y)
    general = general_code(pullback.__srcgrad_lazy__.get().function)(x, y)[1]
    for seed in (np.float64(1.0), np.array(1.0)):
        grads = pullback(seed)
        assert [g.dtype for g in grads] == [np.float32, np.float32]
        assert same(grads, general(seed))


# --- code replaced and globals rebound after the first calls ---------------------------


@pytest.mark.parametrize("transform", ["grad", "value_and_grad"])
@pytest.mark.parametrize("pair", [("squares", "cubes", X), ("product_of_two", "square_of_first", 3.0)],
                         ids=["numpy", "reading-no-global"])
def test_replacing_the_code_of_a_differentiated_function_is_seen(transform, pair, monkeypatch):
    import specialization_programs as programs

    first, second, x = getattr(programs, pair[0]), getattr(programs, pair[1]), pair[2]
    monkeypatch.setattr(first, "__code__", first.__code__)  # restored afterwards
    df = getattr(srcgrad, transform)(first)
    args = (x,) if first is programs.squares else (x, 2.0)
    df(*args)
    first.__code__ = second.__code__
    cache.clear()
    fresh = getattr(srcgrad, transform)(first)(*args)
    assert same(df(*args), fresh)
    assert same(df(*args), getattr(srcgrad, transform)(second)(*args))


@pytest.mark.parametrize("shape", [(3,), ()], ids=["vector", "scalar-output-of-0d"])
def test_compile_sees_a_global_function_rebound_after_its_first_calls(shape, monkeypatch):
    """`@srcgrad.compile` generates the derivative at the second tracked call of a kind;
    a rebound global it calls makes later calls generate it again (before, the kept
    derivative of tanh pulled back through sin's values: 2 * (1 - sin(x) ** 2))."""
    import specialization_programs as programs

    monkeypatch.setattr(programs, "act", np.tanh)
    compiled = srcgrad.compile(programs.doubled_activation)
    x = np.full(shape, 0.3)

    def gradient():
        t = srcgrad.tensor(x, requires_grad=True)
        out = compiled(t)
        out.backward()
        return out.item(), t.grad.numpy()

    for _ in range(3):
        value, g = gradient()
        np.testing.assert_allclose(g, 2 * (1 - np.tanh(x) ** 2))
    programs.act = np.sin
    for _ in range(3):
        value, g = gradient()
        assert value == pytest.approx(np.sum(np.sin(x)) * 2)
        np.testing.assert_allclose(g, 2 * np.cos(x))
