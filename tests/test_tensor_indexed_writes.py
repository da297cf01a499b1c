"""Indexed writes (tensor/indexed_writes.py), memory facts (memory_facts.py) and the
method aliases (method_aliases.py) of the Tensor shim: values against NumPy, gradients
against central differences in float64, in-place forms against version counters, views
and PyTorch's leaf error, and PyTorch 2.13's node names and messages, written in. No
PyTorch needed; where it is installed, `test_against_pytorch` compares the cases with it."""

import numpy as np
import pytest

import srcgrad as torch

_rng = np.random.default_rng(5)
X = _rng.normal(size=(3, 4))
S2 = _rng.normal(size=(3, 2))
SRC = _rng.normal(size=(3, 4))
IDX = np.array([[0, 0, 1, 3], [2, 2, 2, 0], [1, 0, 1, 0]])
MASK = np.array([[True, False, True, True], [False, True, False, False], [True, True, False, True]])
I2 = np.array([3, 1])


def T(a):
    return torch.tensor(a)


def _weights(shape):
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape)


def _loss(out):
    return (out * torch.tensor(_weights(tuple(out.shape)))).sum()


def _central(f, arrays, i, eps=1e-6):
    grad = np.zeros_like(arrays[i])
    for k in np.ndindex(arrays[i].shape):
        values = []
        for sign in (1, -1):
            args = [a.copy() for a in arrays]
            args[i][k] += sign * eps
            with torch.no_grad():
                values.append(float(_loss(f(*[torch.tensor(a) for a in args]))))
        grad[k] = (values[0] - values[1]) / (2 * eps)
    return grad


def _index_add(x, dim, idx, s, alpha=1.0):
    out = x.copy()
    for j, i in enumerate(idx):
        sl = [slice(None)] * x.ndim
        sl[dim] = i
        src = [slice(None)] * x.ndim
        src[dim] = j
        out[tuple(sl)] += alpha * s[tuple(src)]
    return out


def _scatter_reduce(x, dim, index, src, reduce, include_self):
    out = x.copy()
    groups = {}
    for k in np.ndindex(index.shape):
        place = list(k)
        place[dim] = index[k]
        groups.setdefault(tuple(place), []).append(src[k])
    for place, values in groups.items():
        values = ([x[place]] if include_self else []) + values
        out[place] = {"sum": np.sum, "mean": np.mean, "amax": np.max, "amin": np.min, "prod": np.prod}[reduce](values)
    return out


# (label, function of the tensors, inputs, NumPy's value, PyTorch's node name)
CASES = [
    ("index_add", lambda x, s: x.index_add(1, T(I2), s, alpha=2.5), (X, S2), _index_add(X, 1, I2, S2, 2.5),
     "IndexAddBackward0"),
    ("index_add repeated", lambda x, s: torch.index_add(x, 0, T(np.array([2, 0, 2])), s), (X, SRC),
     _index_add(X, 0, [2, 0, 2], SRC), "IndexAddBackward0"),
    ("index_add_", lambda x, s: (x * 1).index_add_(1, T(I2), s), (X, S2), _index_add(X, 1, I2, S2), "IndexAddBackward0"),
    ("index_copy", lambda x, s: x.index_copy(1, T(I2), s), (X, S2),
     np.concatenate([X[:, :1], S2[:, 1:], X[:, 2:3], S2[:, :1]], axis=1), "IndexCopyBackward0"),
    ("index_fill", lambda x: x.index_fill(1, T(I2), -1.5), (X,), np.where(np.isin(np.arange(4), I2), -1.5, X),
     "IndexFillBackward0"),
    ("index_fill tensor", lambda x, v: x.index_fill(1, T(np.array([3, 1, 3])), v), (X, np.array(2.0)),
     np.where(np.isin(np.arange(4), I2), 2.0, X), "IndexFillBackward1"),
    ("index_put", lambda x, v: x.index_put((T(np.array([0, 2])), T(np.array([1, 3]))), v), (X, np.array([5.0, 6.0])),
     None, "IndexPutBackward0"),
    ("index_put accumulate", lambda x, v: x.index_put((T(np.array([0, 0])), T(np.array([1, 1]))), v, accumulate=True),
     (X, np.array([5.0, 6.0])), None, "IndexPutBackward0"),
    ("index_put mask", lambda x, v: x.index_put((T(X > 0),), v), (X, np.array(3.0)), np.where(X > 0, 3.0, X),
     "IndexPutBackward0"),
    ("masked_scatter", lambda x, s: x.masked_scatter(T(MASK), s), (X, SRC.reshape(-1)), None, "MaskedScatterBackward0"),
    ("masked_scatter_", lambda x, s: (x * 1).masked_scatter_(T(MASK[0]), s), (X, SRC), None, "MaskedScatterBackward0"),
    ("put", lambda x, s: x.put(T(np.array([0, -1, 5])), s), (X, SRC[0, :3].copy()), None, "PutBackward0"),
    ("put accumulate", lambda x, s: x.put(T(np.array([0, 0, 5])), s, accumulate=True), (X, SRC[0, :3].copy()), None,
     "PutBackward0"),
    ("fill_diagonal_", lambda x: (x * 1).fill_diagonal_(2.0), (X,), None, "CopySlices"),
    ("fill_diagonal_ wrap", lambda x: (x * 1).fill_diagonal_(2.0, wrap=True), (_rng.normal(size=(7, 3)),), None,
     "CopySlices"),
] + [
    (f"scatter_reduce {r} {inc}", lambda x, s, r=r, inc=inc: x.scatter_reduce(1, T(IDX), s, r, include_self=inc),
     (X, SRC), _scatter_reduce(X, 1, IDX, SRC, r, inc), "ScatterReduceBackward0")
    for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)
] + [
    ("scatter_reduce_ prod", lambda x, s: (x * 1).scatter_reduce_(0, T(IDX[:2] % 3), s, "prod"),
     (X, SRC[:2].copy()), _scatter_reduce(X, 0, IDX[:2] % 3, SRC[:2], "prod", True), "ScatterReduceBackward0"),
    ("scatter_reduce_ mean", lambda x, s: (x * 1).scatter_reduce_(0, T(IDX[:2] % 3), s, "mean", include_self=False),
     (X, SRC[:2].copy()), _scatter_reduce(X, 0, IDX[:2] % 3, SRC[:2], "mean", False), "ScatterReduceBackward0"),
    ("unfold", lambda x: x.unfold(1, 2, 1), (X,), np.stack([X[:, k:k + 2] for k in range(3)], axis=1), "UnfoldBackward0"),
    ("unfold step", lambda x: x.unfold(0, 2, 2), (SRC.T.copy(),), np.stack([SRC.T[0:2], SRC.T[2:4]], axis=0).transpose(0, 2, 1),
     "UnfoldBackward0"),
    ("sum_to_size", lambda x: x.sum_to_size(1, 4), (X,), X.sum(0, keepdims=True), "SumBackward1"),
    ("sum_to_size 1-D", lambda x: x.sum_to_size(4), (X,), X.sum(0), "ViewBackward0"),
    ("swapaxes", lambda x: torch.swapaxes(x, 0, 1), (X,), X.T, "TransposeBackward0"),
    ("swapdims", lambda x: x.swapdims(0, 1), (X,), X.T, "TransposeBackward0"),
    ("absolute", lambda x: torch.absolute(x), (X,), np.abs(X), "AbsBackward0"),
    ("negative", lambda x: x.negative(), (X,), -X, "NegBackward0"),
    ("msort", lambda x: torch.msort(x), (X,), np.sort(X, axis=0), "SortBackward0"),
    ("reshape_as", lambda x: x.reshape_as(torch.ones(4, 3)), (X,), X.reshape(4, 3), "ViewBackward0"),
]


@pytest.mark.parametrize("label, f, arrays, want, name", CASES, ids=[c[0] for c in CASES])
def test_values_names_and_gradients(label, f, arrays, want, name):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = f(*ts)
    assert type(out.grad_fn).__name__ == name
    if want is not None:
        np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-6 if out.dtype == torch.float32 else 1e-13)
    _loss(out.double()).backward()
    for i, t in enumerate(ts):
        np.testing.assert_allclose(t.grad.numpy(), _central(lambda *a: f(*a).double(), arrays, i), rtol=1e-6, atol=1e-7)


def test_values_of_writes():
    out = T(X).index_put((T(np.array([0, 2])), T(np.array([1, 3]))), T(np.array([5.0, 6.0]))).numpy()
    want = X.copy()
    want[[0, 2], [1, 3]] = [5.0, 6.0]
    np.testing.assert_array_equal(out, want)
    out = T(X).index_put((T(np.array([0, 0])), T(np.array([1, 1]))), T(np.array([5.0, 6.0])), accumulate=True).numpy()
    want = X.copy()
    want[0, 1] += 11.0
    np.testing.assert_allclose(out, want)
    out = T(X).masked_scatter(T(MASK), T(SRC.reshape(-1))).numpy()
    want = X.copy()
    want[MASK] = SRC.reshape(-1)[:MASK.sum()]
    np.testing.assert_array_equal(out, want)
    out = T(X).put(T(np.array([0, -1, 5])), T(np.array([1.0, 2.0, 3.0]))).numpy()
    want = X.copy().reshape(-1)
    want[[0, -1, 5]] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(out, want.reshape(3, 4))
    y = T(np.zeros((7, 3)))
    assert y.fill_diagonal_(1.0, wrap=True) is y
    want = np.zeros((7, 3))
    np.fill_diagonal(want, 1.0, wrap=True)
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(T(np.zeros((7, 3))).fill_diagonal_(1.0).numpy(), np.eye(7, 3))


def test_amax_gradient_splits_ties_evenly():
    x = torch.zeros(1, 2, dtype=torch.float64, requires_grad=True)
    s = torch.zeros(1, 3, dtype=torch.float64, requires_grad=True)
    x.scatter_reduce(1, T(np.array([[0, 0, 1]])), s, "amax").sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1 / 3, 1 / 2]])
    np.testing.assert_allclose(s.grad.numpy(), [[1 / 3, 1 / 3, 1 / 2]])


def test_in_place_forms_keep_versions_views_and_leaf_rule():
    leaf = torch.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        leaf.index_add_(0, T(np.array([0])), torch.ones(1))
    a = torch.ones(3, dtype=torch.float64, requires_grad=True)
    b = a * 1
    c = b * b
    b.index_fill_(0, T(np.array([0])), 0.0)
    with pytest.raises(RuntimeError, match=r"output 0 of IndexFill, is at version 1; expected version 0 instead"):
        c.sum().backward()
    # a write into a view reaches its base, and the gradient flows through both
    x = torch.tensor(X, requires_grad=True)
    y = x * 2
    y[1:].index_add_(1, T(I2), torch.tensor(np.ones((2, 2))))
    want = 2 * X
    want[1:, 3] += 1
    want[1:, 1] += 1
    np.testing.assert_allclose(y.detach().numpy(), want)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 4), 2.0))
    # untracked writes count a version too
    z = torch.zeros(3)
    z.index_copy_(0, T(np.array([1])), torch.ones(1))
    assert z.tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_gradients_where_factors_are_zero(include_self):
    """Each factor's gradient is the product of the others (exact where some are 0); the
    second derivatives against differences of the gradient, two zeros at one place too
    (where PyTorch refuses the double backward)."""
    from tensor_checks import check_second_against_differences

    x = np.array([0.0, 2.0, 3.0, -1.5])
    src = np.array([2.0, 0.0, 5.0, 0.0, 4.0, 0.5])
    index = np.array([0, 1, 0, 1, 3, 3])
    xt, st = torch.tensor(x, requires_grad=True), torch.tensor(src, requires_grad=True)
    out = xt.scatter_reduce(0, T(index), st, "prod", include_self=include_self)
    own = x if include_self else np.ones(4)
    np.testing.assert_array_equal(out.detach().numpy(), [own[0] * 2 * 5, 0.0, 3.0, own[3] * 4 * 0.5])
    out.sum().backward()
    grad_x = [2 * 5, 0 * 0, 1.0, 4 * 0.5] if include_self else [0.0, 0.0, 1.0, 0.0]
    np.testing.assert_array_equal(xt.grad.numpy(), grad_x)
    np.testing.assert_array_equal(st.grad.numpy(), [own[0] * 5, own[1] * 0, own[0] * 2, own[1] * 0, own[3] * 0.5,
                                                    own[3] * 4])
    check_second_against_differences(
        lambda a, b: a.scatter_reduce(0, T(index), b, "prod", include_self=include_self), [x, src])
    one_zero = np.array([2.0, 0.0, 5.0, 3.0, 4.0, 0.5])
    check_second_against_differences(
        lambda a, b: a.scatter_reduce(0, T(index), b, "prod", include_self=include_self), [x + 1, one_zero])


def test_scatters_of_zero_dim_tensors():
    assert torch.tensor(2.0).scatter_reduce(0, T(np.array(0)), torch.tensor(3.0), "prod").item() == 6.0
    assert torch.tensor(2.0).scatter_add(0, T(np.array(0)), torch.tensor(3.0)).item() == 5.0
    assert torch.tensor([2, 3]).scatter_reduce(0, T(np.array([1, 1])), torch.tensor([4, 5]), "prod").tolist() == [2, 60]


def test_type_as():
    x = torch.tensor(X, requires_grad=True)
    out = x.type_as(torch.ones(1))
    assert out.dtype == torch.float32 and type(out.grad_fn).__name__ == "ToCopyBackward0"
    np.testing.assert_array_equal(out.detach().numpy(), X.astype(np.float32))
    (out * torch.tensor(_weights((3, 4)), dtype=torch.float32)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), _weights((3, 4)).astype(np.float32))
    assert x.grad.dtype == torch.float64
    assert x.type_as(x) is x


def test_nonzero_and_argwhere():
    m = T(np.array([[1, 0], [0, 3]]))
    np.testing.assert_array_equal(torch.nonzero(m).numpy(), [[0, 0], [1, 1]])
    assert torch.nonzero(m).dtype == torch.int64
    rows, cols = m.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]
    assert torch.argwhere(T(np.array([1.0, 0.0, 2.0]))).tolist() == [[0], [2]]
    assert torch.nonzero(T(np.array(5.0))).shape == (1, 0)


def test_memory_facts():
    x = torch.tensor(X)
    assert x.stride() == (4, 1) and x.t().stride() == (1, 4) and x.stride(0) == 4 and x.stride(-1) == 1
    assert x[1:].storage_offset() == 4 and x[:, 1].storage_offset() == 1 and x[:, 1].stride() == (4,)
    assert x.nbytes == 96 and x.itemsize == 8 and x.element_size() == 8
    assert isinstance(x.data_ptr(), int) and x[1:].data_ptr() - x.data_ptr() == 32
    assert x.view(4, 3).data_ptr() == x.data_ptr() and x.t().data_ptr() == x.data_ptr()
    assert torch.zeros(2, 3).nbytes == 24


def test_apply_map_and_resize():
    z = torch.zeros(3)
    assert z.apply_(lambda v: v + 1) is z and z.tolist() == [1.0, 1.0, 1.0]
    z.map_(torch.tensor([1.0, 2.0, 3.0]), lambda a, b: a * b)
    assert z.tolist() == [1.0, 2.0, 3.0] and z.dtype == torch.float32
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad. Use var.detach"):
        torch.zeros(2, requires_grad=True).apply_(lambda v: v)
    r = torch.tensor(np.arange(6.0))
    assert r.resize_(2, 3) is r and r.shape == (2, 3) and r.tolist() == [[0, 1, 2], [3, 4, 5]]
    r.resize_(2, 4)
    assert r.tolist() == [[0, 1, 2, 3], [4, 5, 0, 0]]
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        torch.zeros(2, requires_grad=True).resize_(3)
    with pytest.raises(NotImplementedError, match="resize_ of a view"):
        torch.zeros(2, 3)[0].resize_(4)


@pytest.mark.parametrize("call, error, message", [
    (lambda: T(X).index_add(1, T(I2), T(np.ones((3, 1)))), RuntimeError,
     "index_add_(): Number of indices (2) should be equal to source.size(dim): (1), for dim: 1"),
    (lambda: T(X).index_add(1, T(I2), T(np.ones((2, 2)))), RuntimeError,
     "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [3, 4] "
     "source.shape = [2, 2]"),
    (lambda: T(X).index_add(1, T(np.array([9])), T(np.ones((3, 1)))), RuntimeError,
     "index 9 is out of bounds for dimension 1 with size 4"),
    (lambda: T(X).index_copy(1, T(I2), T(np.ones((3, 1)))), IndexError,
     "index_copy_(): Number of indices (2) should be equal to source.size(dim) (1)"),
    (lambda: T(X).index_copy(1, T(np.array([9])), T(np.ones((3, 1)))), IndexError,
     "index_copy_(): index 9 is out of bounds for dimension 1 with size 4"),
    (lambda: T(X).index_fill(1, T(np.array([9])), 1.0), IndexError, "index 9 is out of bounds for dimension 1 with size 4"),
    (lambda: T(X).masked_scatter(T(MASK), T(np.ones(2))), RuntimeError, "Number of elements of source < number of ones in mask"),
    (lambda: T(X).sum_to_size(2, 4), RuntimeError, "size {[2, 4]} is not expandable to size {[3, 4]}."),
    (lambda: T(X).unfold(1, 9, 1), RuntimeError, "maximum size for tensor at dimension 1 is 4 but size is 9"),
    (lambda: T(X).scatter_reduce(1, T(-IDX), T(SRC), "prod"), RuntimeError,
     "index -1 is out of bounds for dimension 1 with size 4"),  # PyTorch's scatters take no negative index
    (lambda: T(X).scatter(1, T(-IDX), T(SRC)), RuntimeError, "index -1 is out of bounds for dimension 1 with size 4"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_inputs_not_mutated():
    for label, f, arrays, _, _ in CASES:
        copies = [a.copy() for a in arrays]
        _loss(f(*[torch.tensor(a, requires_grad=True) for a in arrays]).double()).backward()
        for a, c in zip(arrays, copies):
            np.testing.assert_array_equal(a, c, err_msg=label)


def test_against_pytorch():
    real = pytest.importorskip("torch")
    import types

    for label, f, arrays, _, name in CASES:
        results = []
        for lib in (real, torch):
            scope = dict(f.__globals__, torch=lib, T=lib.tensor)
            g = types.FunctionType(f.__code__, scope, closure=f.__closure__, argdefs=f.__defaults__)
            ts = [lib.tensor(a, requires_grad=True) for a in arrays]
            out = g(*ts)
            (out.double() * lib.tensor(_weights(tuple(out.shape)))).sum().backward()
            results.append((out.detach().numpy(), [t.grad.numpy() for t in ts], out.grad_fn.name()))
        (want, want_grads, want_name), (got, grads, got_name) = results
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=label)
        for a, c in zip(want_grads, grads):
            np.testing.assert_allclose(c, a, rtol=1e-12, atol=1e-14, err_msg=label)
        assert got_name.split("::")[-1] == want_name.split("::")[-1], label
