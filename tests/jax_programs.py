"""Programs written once for NumPy that JAX can also run: `test_against_jax.py` runs each
with `np` bound to `jax.numpy` (the module's functions rebound to those globals).

Each program is listed in `PROGRAMS` with the shapes of its float arguments (`()` is a
Python float). Nothing here writes into an array in place (JAX arrays are immutable).
"""

import math

import numpy as np


def chain(x):
    return np.sum(np.tanh(np.exp(0.3 * x) * np.sin(x)) + np.log1p(x * x))


def broadcast_bias(W, b, x):
    return np.sum((x @ W + b) ** 2)


def mlp(W1, b1, W2, x):
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2) ** 2)


def softmax_cross_entropy(z, y):
    m = np.max(z, axis=1, keepdims=True)
    logp = z - m - np.log(np.sum(np.exp(z - m), axis=1, keepdims=True))
    return -np.mean(np.sum(y * logp, axis=1))


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def reductions(x):
    return np.sum(np.mean(x, axis=0) ** 2) + np.var(x) + np.std(x, axis=1).sum() + np.prod(x[0])


def norms(x, y):
    return np.linalg.norm(x) * np.linalg.norm(y, axis=1).sum() + np.dot(x, x)


def shapes(x):
    y = np.concatenate([x, 2.0 * x], axis=0)
    z = np.stack([x, x * x], axis=-1)
    return np.sum(y.T.reshape(-1) ** 3) + np.sum(np.transpose(z, (2, 0, 1))[1]) + np.sum(np.cumsum(x, axis=1))


def indexing(x):
    return np.sum(x[1:, ::2] ** 2) + x[0, 1] * x[-1, -1] + np.sum(x[np.array([0, 2])])


def piecewise(x):
    return np.sum(np.where(x > 0.0, x ** 2, -x) + np.maximum(x, 0.2) + np.clip(x, -0.5, 0.5) + np.abs(x))


def math_floats(a, b):
    return math.sin(a) * math.exp(b) + math.sqrt(a * a + b * b) + math.atan2(a, b) + a ** b


def branchy(a, b):
    if a > b:
        c = a * b
    elif a > 0.0:
        c = a - b
    else:
        c = math.sin(a) + b
    return c * c


def loop_with_branch(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + x[i] ** 2
        else:
            s = s - 0.5 * x[i]
    return s


def while_doubling(x):
    y = x * 2.0
    while np.linalg.norm(y) < 100.0:
        y = y * 2.0
    return np.sum(y * x)


def early_return(x):
    total = np.sum(x)
    if total > 10.0:
        return total * 2.0
    for k in range(3):
        x = np.sin(x) + 0.1 * k
    return np.sum(x * x)


def _helper(u, v):
    return np.tanh(u) * v + u


def calls_helper(x, y):
    z = _helper(x, y)
    return np.sum(_helper(z, x) ** 2)


def closure(x, scale):
    def inner(u):
        return np.sin(u) * scale

    return np.sum(inner(x) * inner(2.0 * x))


def containers(x):
    parts = [x[0], x[1] * 2.0, np.sin(x[2])]
    named = {"a": parts[0] * parts[1], "b": parts[2]}
    first, second = named["a"], named["b"]
    return sum(parts) + first * second


def recurrent(W, U, x):
    h = np.zeros(W.shape[0])
    for t in range(x.shape[0]):
        h = np.tanh(W @ h + U @ x[t])
    return np.sum(h ** 2)


def augmented(x):
    y = x * 1.0
    y += np.sin(x)
    y *= 2.0
    y -= x ** 2
    return np.sum(y)


def linalg(A, b):
    M = A @ A.T + 3.0 * np.eye(A.shape[0])
    x = np.linalg.solve(M, b)
    sign, logdet = np.linalg.slogdet(M)
    return np.sum(x ** 2) + logdet + np.trace(np.linalg.inv(M))


def eigen_values(A):
    S = A + A.T
    w = np.linalg.eigvalsh(S)
    return np.sum(w ** 3)


def singular_values(A):
    return np.sum(np.linalg.svd(A, compute_uv=False) ** 2)


def cholesky(A):
    L = np.linalg.cholesky(A @ A.T + 2.0 * np.eye(A.shape[0]))
    return np.sum(L * L) + np.sum(np.log(np.diag(L)))


def outer_einsum(x, y):
    return np.sum(np.outer(x, y) ** 2) + np.einsum("i,i->", x, x) + np.sum(np.kron(x, y))


def vector_valued(x, y):
    return np.concatenate([np.sin(x) * y[0], np.cumprod(x), x @ np.ones((x.shape[0], 2)) * y[1]])


def stop_and_sort(x):
    s = np.sort(x)
    return np.sum(s * np.arange(1.0, x.shape[0] + 1.0)) + np.max(x) - np.min(x)


# --- array methods -------------------------------------------------------------------


def array_methods(x):
    a = x.sum(axis=0).dot(x.mean(axis=1) @ x)
    b = x.T.max(axis=1).sum() + x.min() * x.std() + x.var(axis=0).sum()
    c = (x.reshape(2, 6).cumsum(axis=1) * np.arange(12.0).reshape(2, 6)).sum()
    return a + b + c + x.mean() * x.prod()


def array_methods_more(x):
    y = x.ravel() * np.arange(6.0) + x.flatten() ** 2
    z = x.swapaxes(0, 1).copy().astype(np.float64)
    return y.sum() + (z.T.dot(z) * np.arange(4.0).reshape(2, 2)).sum() + x[:, :2].trace() + x.diagonal().sum() + x.clip(-0.8, 0.9).sum()


def dot_method(A, v):
    return A.dot(v).dot(A.dot(v)) + v.dot(v) * A.T.dot(A).sum()


# --- moving elements -----------------------------------------------------------------


W25 = np.arange(10.0).reshape(2, 5)


def diff_roll_flip(x):
    a = np.sum(np.diff(x, axis=1) * np.roll(x, 2, axis=1)[:, 1:])
    b = np.sum(np.diff(x, n=2) ** 2 * np.arange(3.0))
    c = np.sum(np.roll(x, -3) * W25) + np.sum(np.roll(x, 1, axis=0) * W25 ** 2)
    d = np.sum(np.flip(x, axis=0) * W25) + np.sum(np.flip(x) * x) + np.sum(np.fliplr(x) * W25)
    return a + b + c + d + np.sum(np.rot90(x) ** 3 * W25.reshape(5, 2))


def triangles(A):
    a = np.sum(np.tril(A) * np.transpose(np.triu(A, 1))) + np.sum(np.tril(A, -1) * np.arange(16.0).reshape(4, 4))
    b = np.trace(A @ A) + np.trace(A, offset=1) + np.sum(np.diag(A, k=-1) ** 2)
    return a + b + np.sum(np.diag(np.diag(A)) @ A)


def padding(x):
    a = np.pad(x, ((1, 0), (0, 2)))
    b = np.pad(x, 1, mode="edge")
    c = np.pad(x, ((0, 1), (2, 1)), mode="reflect")
    d = np.pad(x, (1, 2), constant_values=0.5)
    return (np.sum(a * np.arange(15.0).reshape(3, 5)) + np.sum(b ** 2 * np.arange(20.0).reshape(4, 5))
            + np.sum(c * np.arange(18.0).reshape(3, 6)) + np.sum(np.sin(d)))


def slicing_tricks(x):
    a = np.sum(x[::-1] * np.arange(12.0).reshape(4, 3))
    pair = x[:, None, :] - x[None, :, :]
    b = np.sum(pair ** 2 * np.arange(3.0))
    c = np.sum(x[np.newaxis] * x[..., ::-2][..., :1][None])
    d = np.sum(x[-1:0:-2] ** 3) + np.sum(x[1:-1, 1] * x[2:, -1])
    return a + b + c + d


def fancy_indexing(x):
    a = x[np.array([0, 2]), np.array([1, 3])]
    b = x[np.array([[0, 1], [2, 0]])]
    c = x[1:, np.array([0, 0, 2])]
    return np.sum(a ** 2) + np.sum(b * np.arange(16.0).reshape(2, 2, 4)) + np.sum(np.sin(c))


def boolean_masks(x):
    keep = np.arange(6) % 2 == 0
    a = np.sum(x[keep] ** 2 * np.arange(3.0))
    b = np.sum(x * (x > 0.0)) + np.sum(np.where(x > 0.0, x, 0.0) ** 2)
    return a + b + np.sum(x[x < 0.0] ** 3)


def where_broadcast(x, y):
    a = np.where(x > 0.0, x * y[:, None], np.sin(y)[:, None] - x)
    b = np.where(y > 0.0, y ** 2, 0.5)
    c = np.where(x[0] > 0.0, 1.0, x)
    return np.sum(a * np.arange(12.0).reshape(3, 4)) + np.sum(b) + np.sum(c ** 2)


def tile_repeat(x):
    a = np.tile(x, (2, 1)) * np.arange(12.0).reshape(4, 3)
    b = np.tile(x, 3) * np.arange(18.0).reshape(2, 9)
    c = np.repeat(x, 2, axis=0) * np.arange(12.0).reshape(4, 3)
    e = np.repeat(x, 2) * np.arange(12.0)
    return np.sum(a ** 2) + np.sum(b) + np.sum(np.sin(c)) + np.sum(e ** 2)


def repeat_counts(x):  # JAX runs it eagerly (array repeats need concrete values under jit)
    return np.sum(np.repeat(x, np.array([1, 2, 3]), axis=1) * np.arange(12.0).reshape(2, 6) * x[0, 0])


def split_stack(x):
    a, b, c = np.split(x, 3, axis=1)
    top, bottom = np.split(x, [1], axis=0)
    p = np.sum(np.vstack([a, c]) ** 2 * np.arange(16.0).reshape(8, 2))
    q = np.sum(np.hstack([a, b * c]) * np.sin(x[:, :4]))
    r = np.sum(top * bottom) + np.sum(np.column_stack([a[:, 0], c[:, 1]]) * np.dstack([b, b])[:, :, 1:].reshape(4, 2))
    return p + q + r


def broadcast_helpers(x):
    a = np.broadcast_to(x, (3, 4)) * np.arange(12.0).reshape(3, 4)
    b = np.expand_dims(x, 1) * np.expand_dims(x, 0)
    c = np.moveaxis(np.stack([b, b ** 2]), 0, -1)
    return np.sum(a ** 2) + np.sum(np.squeeze(x[None, :, None]) ** 3) + np.sum(c * np.arange(2.0))


# --- elementwise ---------------------------------------------------------------------


def binary_elementwise(x, y):
    a = np.hypot(x, y) + np.arctan2(x, y) * x
    b = np.logaddexp(x, y) + np.logaddexp(0.0, 2.0 * x) + np.logaddexp2(x, -y)
    return np.sum(a * np.arange(4.0)) + np.sum(b ** 2)


def unary_elementwise(x):
    a = np.expm1(x) + np.log2(x * x + 1.0) + np.log10(1.0 + np.exp(x)) + np.square(x)
    b = np.reciprocal(x * x + 0.5) + np.sinh(x) * np.cosh(x) + np.arcsinh(3.0 * x)
    c = np.cbrt(x * x + 1.0) + np.exp2(x) + np.arctan(x) + np.sinc(x + 0.3) + np.tan(0.3 * x)
    return np.sum(a * b) + np.sum(c ** 2)


def array_powers(x, y):
    a = np.power(np.exp(x), y) + (x * x + 1.0) ** y + np.power(2.0, x)
    b = x ** 3 + (x * x + 1.0) ** -2 + np.float_power(np.abs(x) + 1.0, 1.5) + np.sqrt(x * x + 0.1) ** 3
    return np.sum(a * b)


def abs_and_int_powers(x):
    return np.sum(abs(x) ** 3 + np.abs(x) * x ** 2 + x ** 4 / (1.0 + x ** 2) + np.fabs(x) ** 0.5)


def minimum_maximum(x, y):
    a = np.maximum(x, y) * np.minimum(x, 2.0 * y) + np.fmax(x, 0.0) ** 2
    return np.sum(a) + np.sum(np.clip(x, -np.abs(y), np.abs(y)) * np.arange(5.0))


# --- reductions ----------------------------------------------------------------------


def cumprod_prod_axis(x):
    a = np.sum(np.cumprod(x, axis=1) * np.arange(12.0).reshape(3, 4))
    b = np.sum(np.prod(x, axis=0)) + np.prod(x, axis=1, keepdims=True).sum()
    return a + b + np.sum(np.cumprod(x, axis=0)[-1]) + np.sum(np.cumprod(x) ** 2)


def max_min_axis(x):
    a = np.sum(np.max(x, axis=1) ** 2) + np.sum(np.min(x, axis=0) * np.arange(5.0))
    b = np.max(x, axis=0, keepdims=True).sum() + np.amax(x) * np.amin(x) + np.ptp(x, axis=1).sum()
    return a + b


def reductions_3d(x):
    a = np.sum(np.sum(x, axis=(0, 2)) ** 2) + np.sum(np.mean(x, axis=-1) ** 3)
    b = np.sum(np.std(x, axis=0, keepdims=True) * x) + np.var(x, ddof=1) + np.mean(x, axis=(0, 1)).dot(np.arange(4.0))
    return a + b + np.sum(np.max(x, axis=(1, 2)) ** 2)


def statistics(x):
    a = np.average(x, axis=1, weights=np.arange(1.0, 6.0)) ** 2
    b = np.median(x, axis=0) * np.arange(5.0)
    return np.sum(a) + np.sum(b) + np.average(x) + np.sum(np.std(x, axis=1, ddof=1))


def quantiles(x):
    a = np.quantile(x, 0.3, axis=0) ** 2 * np.arange(1.0, 4.0)
    b = np.quantile(x * x, np.array([0.2, 0.9]), axis=1) ** 2
    return np.sum(a) + np.percentile(np.sin(x), 70.0) ** 3 + np.sum(b)


def argmax_gather(x):
    i = np.argmax(x, axis=1)
    picked = x[np.arange(4), i]
    order = np.argsort(x, axis=1)
    ranked = np.take_along_axis(x, order, axis=1)
    top = np.take_along_axis(x, np.argmin(x, axis=0)[None, :], axis=0)
    return np.sum(picked ** 2) + np.sum(ranked * np.arange(5.0)) + np.sum(top * np.arange(5.0))


def take_gathers(x):
    a = np.take(x, np.array([3, 0, 0]), axis=1) * np.arange(9.0).reshape(3, 3)
    b = np.take(x, np.array([1, 5, 7, 7]))
    return np.sum(a ** 2) + np.sum(np.sin(b) * np.arange(4.0))


def sort_axis(x):
    a = np.sum(np.sort(x, axis=1) * np.arange(12.0).reshape(3, 4))
    b = np.sum(np.sort(x, axis=0)[-1] ** 2) + np.sum(np.sort(x, axis=None) * np.arange(12.0))
    return a + b + np.sum(np.sort(x)[:, 0])


# --- linear algebra ------------------------------------------------------------------


def norms_vector(x, M):
    a = np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x, 3) + np.linalg.norm(x, -np.inf)
    b = np.linalg.norm(M, axis=0).dot(np.arange(4.0)) + np.sum(np.linalg.norm(M, ord=1, axis=1) ** 2)
    c = np.sum(np.linalg.norm(M, axis=1, keepdims=True) * M) + np.linalg.norm(x, 0.5)
    return a + b + c


def norms_matrix(M):
    a = np.linalg.norm(M, "fro") + np.linalg.norm(M, 2) + np.linalg.norm(M, "nuc")
    b = np.linalg.norm(M, 1) + np.linalg.norm(M, np.inf) + np.linalg.norm(M, -2)
    return a * b


def batched_matmul(A, B, C):
    a = np.sum(np.tanh(A @ B)) + np.sum((A @ C) ** 2) + np.sum(np.matmul(A, B) * (A @ C))
    b = np.einsum("bij,bjk->bik", A, B)
    return a + np.sum(b * np.arange(12.0).reshape(2, 3, 2)) + np.sum(np.matmul(C.T, np.transpose(A[0])) ** 2)


def tensordot_einsum(A, B):
    a = np.tensordot(A, B, axes=([1, 2], [1, 0]))
    b = np.einsum("ijk,kl->ijl", A, B)
    c = np.einsum("ijk,ijk->i", A, A)
    return np.sum(a ** 2) + np.sum(np.sin(b)) + np.sum(c * np.arange(2.0)) + np.einsum("ii->", B[:3])


def vector_products(x, y):
    return np.sum(np.cross(x, y) ** 2) + np.inner(x, y) ** 2 + np.vdot(x, np.sin(y)) + np.sum(np.outer(x, y) @ x)


def det_program(A):
    return np.linalg.det(A) + np.linalg.det(A @ A.T + np.eye(3)) ** 0.5 + np.linalg.det(A[:2, :2] * 2.0) ** 2


def qr_r(A):
    R = np.linalg.qr(A)[1]
    return np.sum(R * np.arange(9.0).reshape(3, 3)) + np.sum(np.abs(np.diag(R)))


def qr_r_mode(A):
    R = np.linalg.qr(A, mode="r")
    return np.sum(np.triu(R) ** 3)


def qr_both(A):
    Q, R = np.linalg.qr(A)
    return np.sum(Q * np.arange(12.0).reshape(4, 3)) + np.sum(np.sin(R))


def eigh_values(A):
    w, V = np.linalg.eigh(A + A.T)
    return np.sum(w * np.array([1.0, 2.0, 3.0])) + w[-1] ** 2 + np.sum(np.linalg.eigh(A @ A.T)[0] ** 2)


def eigh_vector_projector(A):
    w, V = np.linalg.eigh(A + A.T)
    P = np.outer(V[:, -1], V[:, -1])
    return np.sum(P * np.arange(9.0).reshape(3, 3)) + w[0]


def svd_projector(A):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum(np.outer(U[:, 0], Vt[0]) * np.arange(12.0).reshape(4, 3)) + np.sum(s ** 3)


def matrix_functions(A):
    a = np.sum(np.linalg.matrix_power(A, 3) * np.arange(9.0).reshape(3, 3))
    b = np.sum(np.linalg.pinv(A) ** 2) + np.sum(np.linalg.multi_dot([A, A.T, A]))
    return a + b + np.sum(np.linalg.inv(A + 3.0 * np.eye(3)) @ A)


def least_squares(A, b):
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    return np.sum(x ** 2) + np.sum((A @ x - b) ** 2)


def solve_matrix_rhs(A, B):
    M = A @ A.T + np.eye(3)
    X = np.linalg.solve(M, B)
    return np.sum(X * B) + np.sum(np.linalg.solve(M, B[:, 0]) ** 2)


# --- series --------------------------------------------------------------------------


def series_ops(x, y):
    a = np.convolve(x, y) * np.arange(7.0)
    b = np.correlate(x, y, "valid") ** 2
    c = np.interp(np.array([0.3, 1.7, 2.2]), np.arange(5.0), x)
    return np.sum(a) + np.sum(b) + np.sum(c * np.array([1.0, -2.0, 3.0])) + np.polyval(y, 0.7) * np.trapezoid(x)


# --- models --------------------------------------------------------------------------


def attention(Q, K, V):
    s = Q @ K.T / 2.0
    s = s - np.max(s, axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / np.sum(p, axis=-1, keepdims=True)
    return np.sum((p @ V) ** 2)


def layernorm(x, g, b):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * g + b
    return np.sum(np.tanh(y) * np.arange(24.0).reshape(4, 6))


def gaussian_mixture(x, mu, log_sigma):
    z = (x[:, None] - mu[None, :]) / np.exp(log_sigma)
    logp = -0.5 * z ** 2 - log_sigma - 0.5 * math.log(2.0 * math.pi)
    m = np.max(logp, axis=1, keepdims=True)
    return -np.sum(m[:, 0] + np.log(np.sum(np.exp(logp - m), axis=1)))


def logistic_loss(w, x, y):
    z = x @ w
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.1 * np.sum(w ** 2)


def normalize_rows(x):
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).reshape(-1)


def softmax_vector(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def conv1d_loop(x, w):
    out = []
    for i in range(x.shape[0] - w.shape[0] + 1):
        out.append(np.dot(x[i:i + w.shape[0]], w))
    return np.tanh(np.stack(out))


# --- Python control flow and structure -----------------------------------------------


def nested_loops(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if j > i:
                s = s + x[i, j] * x[j - 1, i]
            else:
                s = s + np.sin(x[i, j]) * (i + 1.0)
    return s


def while_counter(x):
    k = 0
    y = x
    while k < 5:
        y = np.cos(y) + x * 0.1 * k
        k += 1
    return np.sum(y ** 2)


def list_comprehension(x):
    terms = [x[i] * x[i + 1] for i in range(4)]
    squares = [np.tanh(v) ** 2 for v in x]
    picked = np.array([x[0], x[2] * 2.0, x[4]])
    return sum(terms) + sum(squares) + np.sum(picked ** 3)


def zip_enumerate(x, y):
    total = 0.0
    for i, (row, other) in enumerate(zip(x, y)):
        total = total + (i + 1.0) * np.dot(row, np.sin(other))
    return total


def _recurse(u, depth):
    if depth == 0:
        return u
    return np.sin(_recurse(u, depth - 1)) + 0.5 * u


def recursion(x):
    return np.sum(_recurse(x, 3) ** 2)


def closure_array(x, y):
    w = np.exp(y)

    def f(u):
        return np.sum(u * w) ** 2

    def g(u):
        return f(u * x) + np.sum(w * u)

    return g(x) + f(y)


def tuple_unpacking(x):
    a, b = x[0], x[1:]
    (c, d), e = (np.sin(a), np.cos(b)), b * a
    pairs = {"first": c, "rest": d * e}
    return c * np.sum(pairs["rest"]) + np.sum(np.array([x[0], x[1], a * 3.0]) ** 2)


def math_more(a, b):
    p = math.hypot(a, b) + math.log1p(a * b) + math.expm1(-a) + math.pow(a, b)
    q = math.cosh(b) * math.sinh(a) + abs(a - 4.0 * b) + math.atan(a / b) + a ** 3 - b ** -2
    return p * q + math.erf(a - b) + math.log2(a + b) + math.log10(a * b + 1.0) + math.asinh(a * b)


def builtin_extremes(a, b):
    return max(a, b) * min(a, 2.0 * b) + max(a * a, 0.1) + abs(math.tanh(a - b))


def attribute_of_expression(A):
    return np.sum(np.triu(A).T * A) + np.sum((A * 2.0).T @ A) + np.sum(A.T.T * A) + np.sum(np.sin(A[0].T))


def pytree_loss(params, batch):  # a dict and a tuple argument (test_against_jax.py)
    x, y = batch
    h = np.tanh(x @ params["W"] + params["b"])
    return np.mean((h @ params["v"] - y) ** 2) + 0.1 * np.sum(params["W"] ** 2)


def scalar_times_array(x, s):
    return np.sum(np.tanh(s * x) ** 2) * s + np.sum(x ** 2) / s



# name -> (function, shapes of its arguments (all differentiated), output is a scalar)
PROGRAMS = {
    "chain": (chain, [(5,)], True),
    "broadcast_bias": (broadcast_bias, [(3, 2), (2,), (4, 3)], True),
    "mlp": (mlp, [(3, 4), (4,), (4, 2), (5, 3)], True),
    "softmax_cross_entropy": (softmax_cross_entropy, [(4, 3), (4, 3)], True),
    "logsumexp": (logsumexp, [(6,)], True),
    "reductions": (reductions, [(3, 4)], True),
    "norms": (norms, [(4,), (3, 2)], True),
    "shapes": (shapes, [(2, 3)], True),
    "indexing": (indexing, [(3, 4)], True),
    "piecewise": (piecewise, [(7,)], True),
    "math_floats": (math_floats, [(), ()], True),
    "branchy": (branchy, [(), ()], True),
    "loop_with_branch": (loop_with_branch, [(6,)], True),
    "while_doubling": (while_doubling, [(3,)], True),
    "early_return": (early_return, [(4,)], True),
    "calls_helper": (calls_helper, [(3,), (3,)], True),
    "closure": (closure, [(4,), ()], True),
    "containers": (containers, [(3,)], True),
    "recurrent": (recurrent, [(3, 3), (3, 2), (4, 2)], True),
    "augmented": (augmented, [(5,)], True),
    "linalg": (linalg, [(3, 3), (3,)], True),
    "eigen_values": (eigen_values, [(3, 3)], True),
    "singular_values": (singular_values, [(3, 2)], True),
    "cholesky": (cholesky, [(3, 3)], True),
    "outer_einsum": (outer_einsum, [(3,), (2,)], True),
    "vector_valued": (vector_valued, [(3,), (2,)], False),
    "stop_and_sort": (stop_and_sort, [(5,)], True),
    "array_methods": (array_methods, [(3, 4)], True),
    "array_methods_more": (array_methods_more, [(2, 3)], True),
    "dot_method": (dot_method, [(3, 4), (4,)], True),
    "diff_roll_flip": (diff_roll_flip, [(2, 5)], True),
    "triangles": (triangles, [(4, 4)], True),
    "padding": (padding, [(2, 3)], True),
    "slicing_tricks": (slicing_tricks, [(4, 3)], True),
    "fancy_indexing": (fancy_indexing, [(3, 4)], True),
    "boolean_masks": (boolean_masks, [(6,)], True),
    "where_broadcast": (where_broadcast, [(3, 4), (3,)], True),
    "tile_repeat": (tile_repeat, [(2, 3)], True),
    "repeat_counts": (repeat_counts, [(2, 3)], True),
    "split_stack": (split_stack, [(4, 6)], True),
    "broadcast_helpers": (broadcast_helpers, [(4,)], True),
    "binary_elementwise": (binary_elementwise, [(4,), (4,)], True),
    "unary_elementwise": (unary_elementwise, [(5,)], True),
    "array_powers": (array_powers, [(3,), (3,)], True),
    "abs_and_int_powers": (abs_and_int_powers, [(6,)], True),
    "minimum_maximum": (minimum_maximum, [(5,), (5,)], True),
    "cumprod_prod_axis": (cumprod_prod_axis, [(3, 4)], True),
    "max_min_axis": (max_min_axis, [(4, 5)], True),
    "reductions_3d": (reductions_3d, [(2, 3, 4)], True),
    "statistics": (statistics, [(4, 5)], True),
    "quantiles": (quantiles, [(5, 3)], True),
    "argmax_gather": (argmax_gather, [(4, 5)], True),
    "take_gathers": (take_gathers, [(3, 4)], True),
    "sort_axis": (sort_axis, [(3, 4)], True),
    "norms_vector": (norms_vector, [(5,), (3, 4)], True),
    "norms_matrix": (norms_matrix, [(3, 3)], True),
    "batched_matmul": (batched_matmul, [(2, 3, 4), (2, 4, 2), (4, 2)], True),
    "tensordot_einsum": (tensordot_einsum, [(2, 3, 4), (4, 3)], True),
    "vector_products": (vector_products, [(3,), (3,)], True),
    "det_program": (det_program, [(3, 3)], True),
    "qr_r": (qr_r, [(4, 3)], True),
    "qr_r_mode": (qr_r_mode, [(4, 3)], True),
    "qr_both": (qr_both, [(4, 3)], True),
    "eigh_values": (eigh_values, [(3, 3)], True),
    "eigh_vector_projector": (eigh_vector_projector, [(3, 3)], True),
    "svd_projector": (svd_projector, [(4, 3)], True),
    "matrix_functions": (matrix_functions, [(3, 3)], True),
    "least_squares": (least_squares, [(5, 3), (5,)], True),
    "solve_matrix_rhs": (solve_matrix_rhs, [(3, 3), (3, 2)], True),
    "series_ops": (series_ops, [(5,), (3,)], True),
    "attention": (attention, [(3, 4), (5, 4), (5, 2)], True),
    "layernorm": (layernorm, [(4, 6), (6,), (6,)], True),
    "gaussian_mixture": (gaussian_mixture, [(6,), (3,), (3,)], True),
    "logistic_loss": (logistic_loss, [(3,), (6, 3), (6,)], True),
    "normalize_rows": (normalize_rows, [(3, 4)], False),
    "softmax_vector": (softmax_vector, [(5,)], False),
    "conv1d_loop": (conv1d_loop, [(6,), (3,)], False),
    "nested_loops": (nested_loops, [(3, 4)], True),
    "while_counter": (while_counter, [(4,)], True),
    "list_comprehension": (list_comprehension, [(5,)], True),
    "zip_enumerate": (zip_enumerate, [(3, 4), (3, 4)], True),
    "recursion": (recursion, [(4,)], True),
    "closure_array": (closure_array, [(3,), (3,)], True),
    "tuple_unpacking": (tuple_unpacking, [(4,)], True),
    "math_more": (math_more, [(), ()], True),
    "builtin_extremes": (builtin_extremes, [(), ()], True),
    "scalar_times_array": (scalar_times_array, [(4,), ()], True),
    "attribute_of_expression": (attribute_of_expression, [(3, 3)], True),
}
