"""Numerical programs as people write them (linear algebra, FFT and signal code,
indexing-heavy code, sorting and statistics, pure-Python scalar code), from a hunt for
wrong derivatives; `hunt_numerics.py` runs every transform on each (and compares with JAX
where it is installed), `test_hunt_numerics.py` checks the corpus against central
differences and in forward mode.

`CASES`: (area, function, arguments, options): `hess` checks the Hessian of the first
argument too, `vec` marks a function returning an array (no `grad`), `fd=False` a point
where differences do not apply (ties: the convention is checked by a test of its own),
`jax=False` one JAX cannot run (writes in place, Python-only types)."""

import math

import numpy as np

_R = np.random.default_rng(7)


def _spd(n, rng=_R):
    a = rng.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


# --- 1. linear algebra -----------------------------------------------------------------


def solve_quadratic(A, b):
    x = np.linalg.solve(A, b)
    return x @ b + np.sum(x ** 2)


def solve_batched(A, B):
    X = np.linalg.solve(A, B)
    return np.sum(X ** 2)


def inv_trace(A):
    return np.trace(np.linalg.inv(A) @ A.T) + np.linalg.inv(A)[0, 1]


def det_and_slogdet(A):
    s, ld = np.linalg.slogdet(A)
    return np.linalg.det(A) + s * ld


def det_batched(A):
    return np.sum(np.linalg.det(A) ** 2)


def cholesky_logdet(A):
    L = np.linalg.cholesky(A)
    return 2 * np.sum(np.log(np.diag(L))) + np.sum(L ** 2)


def gp_nll(log_ell, x, y):
    ell = np.exp(log_ell)
    d = x[:, None] - x[None, :]
    K = np.exp(-0.5 * d ** 2 / ell ** 2) + 0.1 * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diagonal(L)))


def gp_predict(x, xs, y):
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2) + 1e-2 * np.eye(x.size)
    Ks = np.exp(-0.5 * (xs[:, None] - x[None, :]) ** 2)
    mean = Ks @ np.linalg.solve(K, y)
    var = 1.0 - np.einsum("ij,ji->i", Ks, np.linalg.solve(K, Ks.T))
    return np.sum(mean ** 2) + np.sum(var)


def eigh_top(A):
    S = 0.5 * (A + A.T)
    w, V = np.linalg.eigh(S)
    return w[-1] + np.sum(V[:, -1] ** 4)


def eigvalsh_sum(A):
    S = A + A.T
    return np.sum(np.linalg.eigvalsh(S) ** 3)


def svd_nuclear(A):
    s = np.linalg.svd(A, compute_uv=False)
    return np.sum(s) + s[0] ** 2


def svd_reconstruct(A):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum((U[:, :2] * s[:2]) @ Vt[:2] * A)


def qr_solve(A, b):
    Q, R = np.linalg.qr(A)
    return np.sum(np.linalg.solve(R, Q.T @ b) ** 2)


def lstsq_fit(X, y):
    coef, res, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    return np.sum(coef ** 2) + np.sum((X @ coef - y) ** 2)


def pinv_tall(A):
    return np.sum(np.linalg.pinv(A) ** 2)


def vector_norms(x):
    return (np.linalg.norm(x) + np.linalg.norm(x, 1) + np.linalg.norm(x, 3) + np.linalg.norm(x, np.inf)
            + np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 0.5) + np.linalg.norm(x, -2))


def matrix_norms(A):
    return (np.linalg.norm(A) + np.linalg.norm(A, "fro") + np.linalg.norm(A, 1) + np.linalg.norm(A, -1)
            + np.linalg.norm(A, np.inf) + np.linalg.norm(A, -np.inf) + np.linalg.norm(A, 2)
            + np.linalg.norm(A, -2) + np.linalg.norm(A, "nuc"))


def axis_norms(A):
    return (np.sum(np.linalg.norm(A, axis=0)) + np.sum(np.linalg.norm(A, ord=1, axis=1))
            + np.sum(np.linalg.norm(A, ord=3, axis=-1, keepdims=True)) + np.sum(np.linalg.norm(A, axis=(0, 1))))


def norms_3d(T):
    return np.sum(np.linalg.norm(T, axis=(1, 2))) + np.sum(np.linalg.norm(T, ord=2, axis=(0, 2)))


def einsum_many(A, B, x):
    return (np.einsum("ij,jk,k->", A, B, x) + np.einsum("ii", A) + np.sum(np.einsum("ij->ji", A) * B)
            + np.einsum("i,i", x, x) + np.sum(np.einsum("ij,ij->i", A, B)))


def einsum_batch(A, B):
    C = np.einsum("bij,bjk->bik", A, B)
    D = np.einsum("...ij,...jk->...ik", A, B)
    return np.sum(C * D) + np.einsum("bii->", A) + np.sum(np.einsum("bij->b", A) ** 2)


def einsum_repeated(A):
    return np.sum(np.einsum("ii->i", A) ** 2) + np.einsum("ij,ij,ij->", A, A, A)


def matmul_shapes(A, B, x):
    return x @ A @ x + np.sum(A @ B) + np.sum((B @ x) ** 2) + np.sum(np.matmul(A[None], B[None]) ** 2)


def matmul_batch(A, B, v):
    return np.sum((A @ B) ** 2) + np.sum((A @ v) ** 2) + np.sum((v @ A) ** 2)


def kron_outer(a, b):
    return np.sum(np.kron(a, b) ** 2) + np.sum(np.outer(a, b) * np.outer(b, a).T) + np.sum(np.kron(np.outer(a, a), np.eye(2)))


def tensordot_forms(A, B):
    return (np.sum(np.tensordot(A, B, axes=1) ** 2) + np.tensordot(A, A, axes=2)
            + np.sum(np.tensordot(A, B, axes=([0], [1])) ** 2) + np.sum(np.tensordot(A, B, axes=0)))


def tri_solve(A, b):
    L = np.tril(A) + 3 * np.eye(3)
    U = np.triu(A) + 3 * np.eye(3)
    return np.sum(np.linalg.solve(L, b) ** 2) + np.sum(np.linalg.solve(U, b) ** 3)


def kalman_filter(q, r, ys):
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    x = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for y in ys:
        x = F @ x
        P = F @ P @ F.T + q * np.eye(2)
        S = H @ P @ H.T + r
        K = P @ H.T @ np.linalg.inv(S)
        innov = y - H @ x
        ll = ll - 0.5 * (np.log(S[0, 0]) + innov[0] ** 2 / S[0, 0])
        x = x + K @ innov
        P = (np.eye(2) - K @ H) @ P
    return ll


def gram_schmidt(A):
    n = A.shape[1]
    Q = []
    for j in range(n):
        v = A[:, j].copy()
        for q in Q:
            v = v - (q @ A[:, j]) * q
        Q.append(v / np.linalg.norm(v))
    Q = np.stack(Q, axis=1)
    return np.sum(Q[:, -1] * np.arange(1.0, A.shape[0] + 1))


def gram_schmidt_inplace(A):
    Q = A.copy()
    n = A.shape[1]
    for j in range(n):
        for i in range(j):
            Q[:, j] -= (Q[:, i] @ Q[:, j]) * Q[:, i]
        Q[:, j] /= np.linalg.norm(Q[:, j])
    return np.sum(Q * A)


def power_iteration(A):
    S = A @ A.T
    v = np.ones(S.shape[0]) / np.sqrt(S.shape[0])
    lam = 0.0
    for _ in range(200):
        w = S @ v
        lam_new = v @ w
        v = w / np.linalg.norm(w)
        if abs(lam_new - lam) < 1e-14:
            break
        lam = lam_new
    return lam_new


def cholesky_solve_manual(A, b):
    n = len(b)
    L = np.linalg.cholesky(A)
    y = np.zeros(n)
    for i in range(n):
        y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
    return np.sum(y ** 2)


def matrix_power_trace(A):
    return np.trace(np.linalg.matrix_power(A, 3)) + np.trace(A, offset=1) + np.sum(np.trace(A[None] * A[:, :, None], axis1=0, axis2=2))


def multi_dot_vdot(A, B, x):
    return np.linalg.multi_dot([x, A, B, x]) + np.vdot(A, B) + np.inner(x, x) + np.dot(A, B).sum()


def cross_products(a, b):
    return np.sum(np.cross(a, b) ** 2) + np.cross(a, b) @ np.cross(b, a * a)


# --- 2. FFT and signal -----------------------------------------------------------------


def fft_power(x):
    X = np.fft.fft(x)
    return np.sum(np.abs(X) ** 2) + np.real(X[1]) * np.imag(X[2])


def fft_roundtrip(x):
    return np.sum(np.real(np.fft.ifft(np.fft.fft(x) * np.exp(-np.arange(x.size)))) ** 2)


def rfft_filter(x):
    X = np.fft.rfft(x)
    X = X * np.exp(-0.3 * np.arange(X.size))
    y = np.fft.irfft(X, n=x.size)
    return np.sum(y ** 2) + y[0]


def rfft_odd(x):
    X = np.fft.rfft(x)
    return np.sum(np.abs(X)) + np.sum(np.fft.irfft(X, n=x.size) * np.arange(x.size))


def fft2_energy(A):
    F = np.fft.fft2(A)
    return np.sum(np.abs(np.fft.fftshift(F)) * np.arange(A.shape[1])) + np.sum(np.real(np.fft.ifft2(F * F)))


def fft_norm_n(x):
    return np.sum(np.abs(np.fft.fft(x, n=8, norm="ortho")) ** 2) + np.sum(np.abs(np.fft.rfft(x, n=5)) ** 2)


def convolve_modes(x, w):
    return (np.sum(np.convolve(x, w) ** 2) + np.sum(np.convolve(x, w, mode="same") * np.arange(x.size))
            + np.sum(np.convolve(x, w, "valid") ** 3) + np.sum(np.convolve(w, x, mode="same")))


def correlate_modes(x, w):
    return (np.sum(np.correlate(x, w) ** 2) + np.sum(np.correlate(x, w, mode="full") * np.arange(x.size + w.size - 1))
            + np.sum(np.correlate(x, w, "same") ** 2) + np.sum(np.correlate(w, x, "full") ** 3))


def diff_forms(x, A):
    return (np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2) ** 2) + np.sum(np.diff(x, prepend=x[0]) * np.arange(x.size))
            + np.sum(np.diff(A, axis=0) ** 2) + np.sum(np.diff(A, n=2, axis=1, append=0.5) ** 2)
            + np.sum(np.diff(x, prepend=0.0, append=x[-1]) ** 3))


def cum_forms(A):
    return (np.sum(np.cumsum(A, axis=0) ** 2) + np.sum(np.cumprod(A, axis=1) ** 2) + np.sum(np.cumsum(A) * np.arange(A.size))
            + np.sum(np.cumprod(A.ravel())))


def gradient_forms(x, A):
    return (np.sum(np.gradient(x) ** 2) + np.sum(np.gradient(x, 0.3) ** 2) + np.sum(np.gradient(A, axis=1) ** 2)
            + np.sum(np.gradient(x, edge_order=2) ** 3) + sum(np.sum(g ** 2) for g in np.gradient(A)))


def gradient_coords(x, t):
    return np.sum(np.gradient(x, t) ** 2)


def interp_forms(x, fp):
    xp = np.linspace(0.0, 1.0, fp.size)
    return np.sum(np.interp(x, xp, fp) ** 2) + np.sum(np.interp(x, xp, fp, left=0.0, right=1.0))


def trapezoid_forms(y, x):
    return np.trapezoid(y, x) + np.trapezoid(y ** 2, dx=0.1) + np.sum(np.trapezoid(np.outer(y, y), axis=0))


def window_spectrum(x):
    w = np.hanning(x.size)
    w2 = np.hamming(x.size) * np.blackman(x.size)
    return np.sum(np.abs(np.fft.rfft(x * w)) ** 2) + np.sum(x * w2)


def moving_average(x):
    k = 3
    c = np.cumsum(np.concatenate([[0.0], x]))
    return np.sum(((c[k:] - c[:-k]) / k) ** 2)


def lfilter_loop(b, x):
    y = np.zeros_like(x)
    for n in range(x.size):
        acc = 0.0
        for k in range(b.size):
            if n - k >= 0:
                acc += b[k] * x[n - k]
        y[n] = acc - 0.5 * (y[n - 1] if n > 0 else 0.0)
    return np.sum(y ** 2)


# --- 3. indexing-heavy -------------------------------------------------------------------


def mask_read_write(x):
    y = x.copy()
    m = y > 0
    y[m] = y[m] ** 2
    y[~m] *= 3.0
    return np.sum(y * np.arange(y.size)) + np.sum(x[x < 0.5])


def repeated_gather(x):
    idx = np.array([0, 2, 2, 1, 0, 0])
    return np.sum(x[idx] * np.arange(6.0)) + np.sum(x[[1, 1, 1]] ** 2)


def repeated_scatter_last_wins(x, v):
    y = x.copy()
    y[np.array([1, 3, 1])] = v
    return np.sum(y * np.arange(1.0, y.size + 1))


def add_at_accumulates(x, v):
    y = x.copy()
    np.add.at(y, np.array([0, 2, 0, 0]), v)
    return np.sum(y ** 2)


def takes(A, x):
    i = np.array([2, 0, 2])
    return (np.sum(np.take(x, i) ** 2) + np.sum(np.take(A, i, axis=1) * 2.0) + np.sum(np.take(A, [[0, 1], [1, 1]]))
            + np.sum(np.take_along_axis(A, np.argsort(A, axis=1), axis=1) * np.arange(A.shape[1])))


def put_along(A, v):
    B = A.copy()
    idx = np.argmax(A, axis=1)[:, None]
    np.put_along_axis(B, idx, v[:, None], axis=1)
    return np.sum(B ** 2)


def argsort_gather(x, y):
    order = np.argsort(x)
    return np.sum(y[order] * np.arange(y.size)) + np.sum(x[order][:2]) + y[np.argmax(x)] * x[np.argmin(y)]


def where_forms(x, y):
    z = np.where(x > 0, x, y ** 2)
    i = np.where(x > 0)[0]
    n = np.nonzero(y > 0)
    return np.sum(z ** 2) + np.sum(x[i]) + np.sum(y[n] ** 3) + np.sum(np.where(x > y, 1.0, x * y))


def strides_roll_flip(x, A):
    return (np.sum(x[::-1] * np.arange(x.size)) + np.sum(x[-2::-2] ** 2) + np.sum(np.roll(x, 2) * np.arange(x.size))
            + np.sum(np.roll(A, -1, axis=1) * A) + np.sum(np.flip(A) * A) + np.sum(np.flip(A, axis=0)[0] ** 2)
            + np.sum(np.roll(A, (1, 2), axis=(0, 1)) * A) + np.sum(A[::-1, ::2] ** 2))


def pad_modes(x):
    t = np.arange(x.size + 4.0)
    return (np.sum(np.pad(x, 2) * t) + np.sum(np.pad(x, (1, 3), mode="edge") * t) + np.sum(np.pad(x, 2, mode="reflect") * t)
            + np.sum(np.pad(x, 2, mode="wrap") * t) + np.sum(np.pad(x, 2, mode="symmetric") * t)
            + np.sum(np.pad(x, 2, mode="constant", constant_values=1.5) ** 2) + np.sum(np.pad(x, 2, mode="linear_ramp") * t))


def pad_2d(A):
    P = np.pad(A, ((1, 0), (2, 1)), mode="edge")
    return np.sum(P * np.arange(P.size).reshape(P.shape)) + np.sum(np.pad(A, 1, mode="reflect") ** 2)


def repeat_tile(x, A):
    return (np.sum(np.repeat(x, 3) * np.arange(3 * x.size)) + np.sum(np.repeat(A, [1, 2], axis=0) ** 2)
            + np.sum(np.tile(x, 2) * np.arange(2 * x.size)) + np.sum(np.tile(A, (2, 1, 2)) ** 3))


def concat_split(x, A):
    parts = np.split(x, 2)
    chunks = np.array_split(A, 3, axis=1)
    s = sum(np.sum(c ** 2) * (i + 1) for i, c in enumerate(chunks))
    return (s + parts[0] @ parts[1] + np.sum(np.concatenate([A, A * 2], axis=1) ** 2) + np.sum(np.stack([x, x ** 2], axis=1)[:, 1])
            + np.sum(np.hstack([x, x]) * np.arange(2 * x.size)) + np.sum(np.vstack([A, A]) ** 3) + np.sum(np.split(x, [1, 3])[1] ** 2))


def reshape_chain(T):
    U = T.reshape(2, 3, 4).transpose(2, 0, 1).swapaxes(0, 1)
    V = np.moveaxis(U, 0, -1).reshape(-1, 2)
    return np.sum(V * np.arange(V.size).reshape(V.shape)) + np.sum(U[..., 0, None] ** 2) + np.sum(T[None, ..., 1] ** 3)


def view_inplace(x):
    y = x.copy()
    v = y[1:]
    v *= 2.0
    w = y[::2]
    w += y[0]
    return np.sum(y * np.arange(y.size)) + np.sum(y ** 2)


def view_row_inplace(A):
    B = A * 1.0
    r = B[1]
    r += B[0]
    c = B[:, 0]
    c *= B[0, 1]
    return np.sum(B ** 2)


def ellipsis_none(T):
    return np.sum(T[..., None, 1] * T[None, 0, ...]) + np.sum(T[:, None, :] ** 2) + np.sum(T[..., ::-1] * T)


def masked_assign_scalar(x):
    y = x * 1.0
    y[y < 0] = 0.0
    y[y > 1] = 2.0 * x[y > 1]
    return np.sum(y ** 2)


def fancy_2d(A):
    r = np.array([0, 1, 1])
    c = np.array([2, 0, 2])
    B = A.copy()
    B[r, c] += 1.0
    return np.sum(A[r, c] ** 2) + np.sum(A[r][:, c]) + np.sum(A[np.ix_([0, 1], [1, 2])] ** 2) + np.sum(B ** 2)


# --- 4. sorting and statistics ---------------------------------------------------------


def sort_weighted(x):
    return np.sum(np.sort(x) * np.arange(x.size)) + np.sum(np.sort(x)[::-1][:2] ** 2)


def sort_axis(A):
    return np.sum(np.sort(A, axis=0) * np.arange(A.size).reshape(A.shape)) + np.sum(np.sort(A, axis=None)[-2:])


def median_forms(x, A):
    return np.median(x) + np.sum(np.median(A, axis=0) ** 2) + np.median(x[:-1]) + np.sum(np.median(A, axis=1, keepdims=True))


def percentile_methods(x):
    return (np.percentile(x, 30) + np.quantile(x, 0.7) + np.sum(np.quantile(x, [0.1, 0.5, 0.9]) ** 2)
            + np.quantile(x, 0.3, method="lower") + np.quantile(x, 0.3, method="higher") + np.quantile(x, 0.3, method="nearest")
            + np.quantile(x, 0.3, method="midpoint") + np.percentile(x, 42, method="hazen") + np.quantile(x, 0.6, method="weibull")
            + np.quantile(x, 0.45, method="median_unbiased"))


def quantile_axis(A):
    return np.sum(np.quantile(A, 0.25, axis=1) ** 2) + np.sum(np.percentile(A, [20, 80], axis=0))


def std_var_forms(A):
    return (np.std(A) + np.var(A, ddof=1) + np.sum(np.std(A, axis=0, ddof=1)) + np.sum(np.var(A, axis=1, keepdims=True) ** 2)
            + np.sum(A.std(axis=-1)) + A.var())


def average_weights(x, w, A):
    return np.average(x, weights=w) + np.sum(np.average(A, axis=0, weights=w[:A.shape[0]])) + np.average(A) + np.sum(np.average(A, axis=1, weights=w[:A.shape[1]], keepdims=True) ** 2)


def cov_corr(X):
    return (np.sum(np.cov(X) ** 2) + np.sum(np.corrcoef(X)) + np.sum(np.cov(X, rowvar=False) * 2.0)
            + np.sum(np.cov(X, bias=True)) + np.sum(np.cov(X[0], X[1]) ** 2) + np.sum(np.cov(X, ddof=0)))


def cov_weights(X, w):
    return np.sum(np.cov(X, aweights=w) ** 2)


def extrema_no_ties(A):
    return (np.max(A) + np.sum(np.min(A, axis=0)) + np.sum(np.amax(A, axis=1) ** 2) + np.ptp(A) + A.max() + np.sum(A.min(axis=1))
            + np.sum(np.maximum(A, 0.1)) + np.sum(np.minimum(A, A.T) ** 2) + np.sum(np.clip(A, -0.5, 0.5)))


def ties_max(x):
    return np.max(x) + 2 * np.min(x)


def ties_max_axis(A):
    return np.sum(np.max(A, axis=0) * np.array([1.0, 2.0, 3.0]))


def ties_maximum(x, y):
    return np.sum(np.maximum(x, y) * np.arange(1.0, 4.0)) + np.sum(np.minimum(x, y))


def ties_clip(x):
    return np.sum(np.clip(x, 0.0, 1.0) * np.arange(1.0, x.size + 1))


def abs_at_zero(x):
    return np.sum(np.abs(x)) + np.sum(np.abs(x) * x) + float(abs(x[0]))


def ties_sort(x):
    return np.sum(np.sort(x) * np.arange(1.0, x.size + 1))


def ties_median(x):
    return np.median(x)


def logsumexp_stable(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def nan_stats(x):
    y = np.where(x > 1.0, np.nan, x)
    return np.nansum(y ** 2) + np.nanmean(y) + np.nanstd(y) + np.nanmax(y)


# --- 5. pure-Python scalar code ---------------------------------------------------------


def math_edges(x, y):
    return (math.sqrt(x) + math.log(x) + math.log10(x) + math.log2(x) + math.log1p(x - 0.99) + math.exp(-x) + math.expm1(x)
            + math.sin(x) * math.cos(y) + math.tan(y) + math.asin(y) + math.acos(y) + math.atan(x) + math.atan2(y, x)
            + math.sinh(y) + math.cosh(y) + math.tanh(x) + math.asinh(x) + math.acosh(1.0 + x) + math.atanh(y)
            + math.hypot(x, y) + math.erf(y) + math.erfc(x) + math.gamma(x + 1) + math.lgamma(x) + math.degrees(x)
            + math.radians(y) + math.pow(x, y) + math.fabs(y) + math.copysign(x, -1.0) + math.log(x, 3.0)
            + _CBRT(x) + _EXP2(y))


# math.cbrt and math.exp2 are Python 3.11's (their rules are registered where they exist)
_CBRT = getattr(math, "cbrt", lambda v: v ** (1.0 / 3.0))
_EXP2 = getattr(math, "exp2", lambda v: 2.0 ** v)


def math_near_edges(x, y):
    return math.asin(y) + math.acos(-y) + math.atanh(y) + math.sqrt(x) + math.log1p(x - 1.0) + math.acosh(1.0 + x)


def builtin_minmax(a, b, c):
    xs = [a, b * 2.0, c - 1.0]
    return min(a, b, c) + max(xs) + max(a * b, c) + min([v ** 2 for v in xs]) + abs(a - b) + max([a, b], key=lambda v: v * v)


def sum_generators(a, b):
    xs = [a * i + b for i in range(5)]
    return sum(x ** 2 for x in xs) + sum(xs, 1.0) + sum([math.sin(x) for x in xs]) + math.fsum(xs) + math.prod(xs[1:3])


def pow_forms(a, b):
    return pow(a, 3) + pow(a, b) + a ** b + b ** 2.5 + pow(2.0, a) + (a * b) ** -1 + a ** 0.5 + 2 ** b


def round_int_casts(a, b):
    n = int(a * 3)
    k = round(b, 1)
    r = round(a)
    return a * n + float(b) * k + b * r + float(int(b)) + a ** 2 * float(n)


def _fact_like(x, n):
    if n == 0:
        return 1.0
    return x * _fact_like(x, n - 1) + math.sin(x)


def recursion_scalar(x):
    return _fact_like(x, 4)


def sqrt_newton(a):
    x = a
    while True:
        x_new = 0.5 * (x + a / x)
        if abs(x_new - x) < 1e-15 * abs(x):
            break
        x = x_new
    return x_new


def dict_of_floats(a, b):
    d = {"a": a, "b": b, "c": a * b}
    d["a"] += d["c"] ** 2
    total = 0.0
    for k, v in d.items():
        total += v * len(k)
    s = f"{total:.3f}"
    print(end="")
    return total + len(s) * 0.0 + d.get("b", 0.0) ** 2


def list_of_floats(a, b):
    xs = [a + i * b for i in range(6)]
    xs.append(xs[-1] ** 2)
    ys = [x for x in xs if x > 0.5]
    zs = sorted(xs)
    return sum(ys) + zs[0] * zs[-1] + xs.pop() + len(ys) * 0.0 + xs[2:4][1]


def loop_tolerance(a):
    x = 1.0
    it = 0
    while abs(x * x - a) > 1e-12 and it < 100:
        x = x - (x * x - a) / (2 * x)
        it += 1
    return x


def fixed_point(c):
    x = 0.0
    for _ in range(100):
        x_new = math.cos(x) * c
        if abs(x_new - x) < 1e-14:
            break
        x = x_new
    return x_new


def scalar_mixed_numpy(a, b):
    v = np.array([a, b, a * b])
    return float(np.sum(v ** 2)) + math.exp(v[0]) + float(np.max(v)) * b


def divmod_floor(a, b):
    q = a // b
    r = a % b
    return r * a + q * b + math.fmod(a, b) + math.floor(a) * b + math.ceil(b) * a + math.trunc(a) + math.remainder(a, b)



# --- second batch: edge forms ------------------------------------------------------------


def eigh_lower_only(A):
    w, V = np.linalg.eigh(A)
    return w[-1] + w[0] ** 2 + np.sum(V[:, 0] ** 4)


def solve_broadcast(A, b):
    return np.sum(np.linalg.solve(A, b[:, None])[..., 0] ** 2) + np.sum(np.linalg.inv(A) ** 2)


def det_singular(A):
    B = A.copy()
    B[2] = B[0] + B[1]
    return np.linalg.det(B) + np.linalg.det(A[:2, :2] * 0.0 + A[0, 0])


def slogdet_negative(A):
    s, ld = np.linalg.slogdet(-A)
    return s * ld + np.sum(np.linalg.slogdet(np.stack([A, A.T]))[1])


def qr_modes(A):
    R = np.linalg.qr(A, mode="r")
    Q, R2 = np.linalg.qr(A, mode="reduced")
    return np.sum(R ** 2) + np.sum(np.abs(np.diag(R2))) + np.sum(Q[:, 0] * np.arange(A.shape[0]))


def qr_wide(A):
    Q, R = np.linalg.qr(A)
    return np.sum(Q * Q[:, ::-1]) + np.sum(R[:, -1] ** 2)


def svd_full(A):
    U, s, Vt = np.linalg.svd(A)
    return np.sum(s ** 3) + np.sum((U[:, :2] * s) @ Vt * A)


def lstsq_wide(X, y):
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    return np.sum(coef ** 2) + np.sum(coef * np.arange(coef.size))


def pinv_wide(A):
    return np.sum(np.linalg.pinv(A) * np.arange(A.size).reshape(A.T.shape))


def norms_numpy2(x, A):
    return np.linalg.vector_norm(x, ord=3) + np.linalg.matrix_norm(A, ord="nuc") + np.linalg.vector_norm(A, axis=0).sum() + np.linalg.matrix_norm(A)


def norm_keepdims_3d(T):
    return np.sum(np.linalg.norm(T, axis=(0, 2), keepdims=True) * T) + np.sum(np.linalg.norm(T, ord=-1, axis=(2, 0)))


def einsum_implicit(A, B, x):
    return (np.sum(np.einsum("ij,jk", A, B) * np.arange(9.0).reshape(3, 3)) + np.sum(np.einsum("i,j", x, x) * A)
            + np.sum(np.einsum("...j,j->...", A, x) ** 2) + np.einsum("ij,ij", A, B) + np.sum(np.einsum("ij,kj->ik", A, B, optimize=True) ** 2))


def einsum_broadcast(T, A):
    return np.sum(np.einsum("bij,jk->bik", T, A) ** 2) + np.sum(np.einsum("...ij,...ji->...", T, T[:1]))


def matmul_1d_batch(x, T):
    return np.sum((x @ T) ** 2) + np.sum((T @ x) ** 3) + np.sum(np.matmul(x, T[0]) * x)


def kron_2d(A, B):
    return np.sum(np.kron(A, B) * np.arange(36.0).reshape(6, 6)) + np.sum(np.kron(A, B[0]) ** 2)


def trace_3d(T):
    return np.sum(np.trace(T, axis1=1, axis2=2) ** 2) + np.sum(np.trace(T, offset=-1, axis1=0, axis2=1) ** 2)


def matrix_power_neg(A):
    return np.sum(np.linalg.matrix_power(A, -2)) + np.sum(np.linalg.matrix_power(A, 0) * A)


def tensordot_pairs(A, T):
    return np.sum(np.tensordot(T, A, axes=([1, 2], [1, 0])) ** 2) + np.sum(np.tensordot(A, T, axes=([1], [2])) ** 2)


def solve_triangular_scipy(A, b):
    import scipy.linalg

    L = np.tril(A) + 3 * np.eye(3)
    return np.sum(scipy.linalg.solve_triangular(L, b, lower=True) ** 2) + np.sum(scipy.linalg.solve_triangular(L.T, b) ** 2)


def cho_solve_scipy(A, b):
    import scipy.linalg

    c = scipy.linalg.cho_factor(A)
    return np.sum(scipy.linalg.cho_solve(c, b) ** 2)


def convolve_long_kernel(x, w):
    return (np.sum(np.convolve(x, w, mode="same") * np.arange(5.0)) + np.sum(np.correlate(x, w, "full") * np.arange(7.0))
            + np.sum(np.correlate(x, w, "same") * np.arange(5.0)) + np.sum(np.convolve(x, w, "valid") ** 2)
            + np.sum(np.correlate(x, w, "valid") ** 2))


def diff_prepend_array(A):
    return np.sum(np.diff(A, axis=0, prepend=A[:1] * 2.0) ** 2) + np.sum(np.diff(A, n=3, axis=-1) ** 2) + np.sum(np.ediff1d(A, to_begin=A[0, 0]) ** 2)


def cumulative_zeros(x):
    return np.sum(np.cumprod(x)) + np.prod(x) + np.sum(np.cumsum(x[::-1])[::-1] ** 2) + np.sum(np.cumulative_sum(x, include_initial=True) ** 2)


def interp_at_knots(x, fp):
    xp = np.array([0.0, 0.25, 0.5, 1.0])
    return np.sum(np.interp(x, xp, fp, period=None) ** 2) + np.sum(np.interp(x * 2.0, xp, fp))


def interp_wrt_xp(xp, fp):
    return np.sum(np.interp(np.array([0.1, 0.45, 0.8]), xp, fp) ** 2)


def trapezoid_2d(Y, x):
    return np.sum(np.trapezoid(Y, x, axis=1) ** 2) + np.trapezoid(Y[0], dx=0.5) + np.sum(np.trapezoid(Y, axis=0))


def sinc_and_windows(x):
    return np.sum(np.sinc(x) ** 2) + np.sum(np.kaiser(x.size, 3.0) * x) + np.sum(np.bartlett(x.size) * x ** 2)


def take_modes(x):
    return np.sum(np.take(x, [0, 5, -1, 7], mode="wrap") * np.arange(4.0)) + np.sum(np.take(x, [0, 9, 2], mode="clip") ** 2)


def take_along_repeated(A):
    idx = np.array([[0, 0, 2], [1, 1, 1]])
    return np.sum(np.take_along_axis(A, idx, axis=1) * np.arange(6.0).reshape(2, 3))


def put_and_copyto(x, v):
    y = x.copy()
    np.put(y, [0, 3, 0], v)
    z = x * 2.0
    np.copyto(z, v[0], where=x > 0)
    w = x * 1.0
    np.putmask(w, x < 0, v[1])
    return np.sum(y * np.arange(1.0, 6.0)) + np.sum(z ** 2) + np.sum(w ** 3)


def choose_select(x):
    c = np.select([x < -0.5, x > 0.5], [x ** 2, np.sin(x)], default=x * 3.0)
    p = np.piecewise(x, [x < 0, x >= 0], [lambda t: t ** 2, lambda t: np.exp(t)])
    return np.sum(c) + np.sum(p)


def fancy_write_reversed(x, v):
    y = x * 1.0
    y[::-1] = y * 2.0
    y[-3:] = v
    z = np.zeros(6)
    z[::2] = x[:3]
    z[1::2] = v[::-1]
    return np.sum(y * np.arange(5.0)) + np.sum(z * np.arange(6.0) ** 2)


def augmented_fancy_repeat(x, v):
    y = x.copy()
    y[np.array([0, 0, 2])] += v
    y[[1, 1]] *= v[:2]
    return np.sum(y ** 2)


def boolean_2d(A):
    B = A.copy()
    B[A > 0] = np.sqrt(A[A > 0])
    B[:, A[0] < 0] *= 2.0
    return np.sum(B * np.arange(A.size).reshape(A.shape)) + np.sum(A[A[:, 0] > -10, 1:] ** 2)


def where_one_arg(x):
    i, = np.where(x > 0)
    r, c = np.nonzero(np.outer(x, x) > 0.1)
    return np.sum(x[i] ** 2) + np.sum(x[r] * x[c]) + np.sum(np.extract(x < 0, x) ** 3) + np.sum(np.compress(x > 0, x))


def stack_split_more(A):
    a, b, c = np.split(A, [1, 3], axis=1)
    d = np.array_split(A.ravel(), 4)
    e = np.dstack([A, A ** 2])
    f = np.column_stack([A[:, 0], A[:, 1] ** 2])
    g = np.hsplit(A, 2)[1]
    return np.sum(a) + np.sum(b ** 2) + np.sum(c ** 3) + sum(np.sum(p) * k for k, p in enumerate(d)) + np.sum(e[..., 1]) + np.sum(f ** 2) + np.sum(g)


def pad_stat_modes(x):
    return (np.sum(np.pad(x, 2, mode="mean") * np.arange(x.size + 4.0)) + np.sum(np.pad(x, (1, 2), mode="maximum") ** 2)
            + np.sum(np.pad(x, 1, mode="reflect", reflect_type="odd") ** 2) + np.sum(np.pad(x, 1, mode="minimum")))


def rot_and_friends(A):
    return (np.sum(np.rot90(A) * np.arange(A.size).reshape(A.T.shape)) + np.sum(np.fliplr(A) * A) + np.sum(np.flipud(A)[0] ** 2)
            + np.sum(np.rot90(A, 2) * A) + np.sum(np.diagonal(A, 1) ** 2) + np.sum(np.diag(A, -1) ** 2) + np.sum(np.triu(A, 1) ** 2))


def expand_squeeze(x):
    y = np.expand_dims(x, (0, 2))
    return np.sum(np.squeeze(y, axis=0) ** 2 * np.arange(x.size)[:, None]) + np.sum(np.atleast_2d(x).T * x) + np.sum(np.broadcast_to(x, (2, x.size)) * np.arange(2.0)[:, None])


def sort_ties_axis(A):
    return np.sum(np.sort(A, axis=1) * np.arange(3.0)) + np.sum(np.sort(A, axis=0)[-1])


def max_ties_keepdims(A):
    return np.sum(A / np.max(A, axis=1, keepdims=True)) + np.sum(np.amin(A, axis=0, keepdims=True) * 3.0) + np.ptp(A)


def argmax_ties_gather(x):
    return x[np.argmax(x)] * 2.0 + np.max(x) + np.sum(np.partition(x, 2)[:2])


def median_even_ties(x):
    return np.median(x) + np.quantile(x, 0.5) + np.percentile(x, 25)


def minmax_builtin_ties(a, b):
    return min(a, b) + 2.0 * max(a, b) + max([a, b, a]) + min(a, b, key=abs)


def std_zero_variance(x):
    return np.std(x - x + 1.0) * 0.0 + np.var(x * 0.0 + x[0])


def std_ddof_axis(A):
    return np.sum(np.std(A, axis=(0, 1), ddof=2)) + np.sum(np.var(A, axis=-1, ddof=1, keepdims=True) * A) + np.mean(A, axis=(0, 2)).sum()


def average_returned(x, w):
    avg, sw = np.average(x, weights=w, returned=True)
    return avg * sw + np.average(np.outer(x, w), axis=(0, 1))


def cov_fweights(X):
    return np.sum(np.cov(X, fweights=np.array([1, 2, 1, 3])) ** 2) + np.sum(np.cov(X[0], ddof=2)) + np.sum(np.corrcoef(X[0], X[1]) ** 2)


def quantile_weighted_ok(x):
    return np.quantile(x, 0.3, method="inverted_cdf", weights=np.ones(x.size)) if False else np.quantile(x, [[0.2, 0.4], [0.6, 0.9]]).sum() + np.nanquantile(x, 0.3) + np.nanmedian(x)


def quantile_keepdims(A):
    return np.sum(np.quantile(A, 0.3, axis=(0, 1), keepdims=True) * A) + np.sum(np.median(A, axis=(1, 2)) ** 2)


def math_more(x, y):
    return (math.dist([x, y], [y * 2.0, 1.0]) + math.ldexp(x, 3) + math.modf(x * 3.0)[0] + math.frexp(y)[0] * 0.0
            + math.log(x, y + 2.0) + math.sqrt(x * x + y * y) + math.hypot(x, y, 1.0) + math.fmod(x * 5.0, y) + math.erfc(-y))


def math_domain_edges(x):
    return math.sqrt(x) + math.log(x) + math.acosh(x + 1.0) + math.atan2(x, 0.0) + math.atan2(0.0, -x) * 0.0


def python_round_forms(a):
    return round(a * 2.5, 2) * a + float(round(a)) + int(a * 10) / 10.0 * a + abs(-a) + -a % 1.0


def generator_minmax(a, b):
    xs = [a * k + b for k in range(-2, 3)]
    return max(x * x for x in xs) + min(xs, default=0.0) + sum(x for x in xs if x > 0) + max(abs(x) for x in xs)


def sorted_key(a, b, c):
    xs = sorted([a, b * 2.0, c], key=lambda t: -t)
    ys = sorted([(a, 1), (c, 2)], reverse=True)
    return xs[0] * 3.0 + xs[-1] + ys[0][0] ** 2


def nested_dict_loop(a, b):
    d = {"w": [a, b], "s": {"k": a * b}}
    for _ in range(3):
        d["w"] = [d["w"][0] * d["s"]["k"], d["w"][1] + 1.0]
        d["s"]["k"] = d["s"]["k"] ** 0.5
    return sum(d["w"]) + d["s"]["k"]


def zero_d_array(x):
    return np.sin(x) * x ** 2 + np.sum(np.exp(x))


def empty_parts(x):
    e = x[:0]
    return np.sum(x ** 2) + np.sum(e) + np.sum(np.concatenate([e, x[:1]]) ** 2) + np.prod(e) + np.sum(np.cumsum(e))


# --- the corpus -------------------------------------------------------------------------

_A3 = _R.normal(size=(3, 3)) + 3 * np.eye(3)
_x3 = _R.normal(size=3)

CASES = [
    # 1. linear algebra
    ("linalg", solve_quadratic, (_A3, _x3), dict(hess=True)),
    ("linalg", solve_batched, (_R.normal(size=(2, 3, 3)) + 3 * np.eye(3), _R.normal(size=(2, 3, 2))), {}),
    ("linalg", inv_trace, (_A3,), dict(hess=True)),
    ("linalg", det_and_slogdet, (_A3,), dict(hess=True)),
    ("linalg", det_batched, (_R.normal(size=(2, 3, 3)),), {}),
    ("linalg", cholesky_logdet, (_spd(3),), dict(hess=True, jax=False)),  # JAX symmetrizes; NumPy reads the lower triangle
    ("linalg", gp_nll, (0.2, np.linspace(0, 2, 5), _R.normal(size=5)), dict(hess=True)),
    ("linalg", gp_predict, (np.linspace(0, 2, 4), np.array([0.3, 1.7]), _R.normal(size=4)), {}),
    ("linalg", eigh_top, (_R.normal(size=(3, 3)),), dict(hess=True)),
    ("linalg", eigvalsh_sum, (_R.normal(size=(3, 3)),), dict(hess=True)),
    ("linalg", svd_nuclear, (_R.normal(size=(3, 2)),), dict(hess=True)),
    ("linalg", svd_reconstruct, (_R.normal(size=(4, 3)),), {}),
    ("linalg", qr_solve, (_A3, _x3), {}),
    ("linalg", lstsq_fit, (_R.normal(size=(5, 2)), _R.normal(size=5)), {}),
    ("linalg", pinv_tall, (_R.normal(size=(4, 2)),), {}),
    ("linalg", vector_norms, (np.array([0.5, -1.2, 2.0, 0.3]),), dict(hess=True)),
    ("linalg", matrix_norms, (_R.normal(size=(3, 3)),), {}),
    ("linalg", axis_norms, (_R.normal(size=(3, 4)),), dict(hess=True)),
    ("linalg", norms_3d, (_R.normal(size=(2, 3, 2)),), {}),
    ("linalg", einsum_many, (_R.normal(size=(3, 3)), _R.normal(size=(3, 3)), _x3), dict(hess=True)),
    ("linalg", einsum_batch, (_R.normal(size=(2, 3, 3)), _R.normal(size=(2, 3, 3))), {}),
    ("linalg", einsum_repeated, (_R.normal(size=(3, 3)),), dict(hess=True)),
    ("linalg", matmul_shapes, (_R.normal(size=(3, 3)), _R.normal(size=(3, 3)), _x3), dict(hess=True)),
    ("linalg", matmul_batch, (_R.normal(size=(2, 3, 3)), _R.normal(size=(1, 3, 2)), _x3), {}),
    ("linalg", kron_outer, (_x3, _R.normal(size=2)), dict(hess=True)),
    ("linalg", tensordot_forms, (_R.normal(size=(3, 3)), _R.normal(size=(3, 3))), {}),
    ("linalg", tri_solve, (_R.normal(size=(3, 3)), _x3), {}),
    ("linalg", kalman_filter, (0.1, 0.5, _R.normal(size=(6, 1))), dict(hess=True)),
    ("linalg", gram_schmidt, (_R.normal(size=(4, 3)),), {}),
    ("linalg", gram_schmidt_inplace, (_R.normal(size=(4, 3)),), dict(jax=False)),
    ("linalg", power_iteration, (np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]]),), {}),
    ("linalg", cholesky_solve_manual, (_spd(3), _x3), dict(jax=False)),
    ("linalg", matrix_power_trace, (_R.normal(size=(3, 3)),), dict(hess=True)),
    ("linalg", multi_dot_vdot, (_R.normal(size=(3, 3)), _R.normal(size=(3, 3)), _x3), dict(hess=True)),
    ("linalg", cross_products, (_x3, _R.normal(size=3)), dict(hess=True)),
    # 2. FFT and signal
    ("signal", fft_power, (_R.normal(size=6),), dict(hess=True)),
    ("signal", fft_roundtrip, (_R.normal(size=5),), dict(hess=True)),
    ("signal", rfft_filter, (_R.normal(size=6),), dict(hess=True)),
    ("signal", rfft_odd, (_R.normal(size=7),), {}),
    ("signal", fft2_energy, (_R.normal(size=(3, 4)),), {}),
    ("signal", fft_norm_n, (_R.normal(size=6),), dict(hess=True)),
    ("signal", convolve_modes, (_R.normal(size=6), _R.normal(size=3)), dict(hess=True)),
    ("signal", correlate_modes, (_R.normal(size=6), _R.normal(size=3)), dict(hess=True)),
    ("signal", diff_forms, (_R.normal(size=6), _R.normal(size=(3, 4))), dict(hess=True)),
    ("signal", cum_forms, (_R.normal(size=(3, 3)),), dict(hess=True)),
    ("signal", gradient_forms, (_R.normal(size=6), _R.normal(size=(3, 4))), dict(hess=True)),
    ("signal", gradient_coords, (_R.normal(size=5), np.array([0.0, 0.3, 0.7, 1.2, 2.0])), dict(hess=True)),
    ("signal", interp_forms, (np.array([-0.1, 0.13, 0.52, 0.77, 1.3]), _R.normal(size=4)), {}),
    ("signal", trapezoid_forms, (_R.normal(size=5), np.array([0.0, 0.3, 0.7, 1.2, 2.0])), dict(hess=True)),
    ("signal", window_spectrum, (_R.normal(size=8),), dict(hess=True)),
    ("signal", moving_average, (_R.normal(size=7),), dict(hess=True)),
    ("signal", lfilter_loop, (_R.normal(size=3), _R.normal(size=6)), dict(jax=False, hess=True)),
    # 3. indexing
    ("indexing", mask_read_write, (np.array([0.3, -0.7, 1.2, -0.1, 0.8]),), dict(jax=False, hess=True)),
    ("indexing", repeated_gather, (_R.normal(size=3),), dict(hess=True)),
    ("indexing", repeated_scatter_last_wins, (_R.normal(size=5), np.array([1.0, 2.0, 3.0])), dict(jax=False)),
    ("indexing", add_at_accumulates, (_R.normal(size=4), np.array([1.0, 2.0, 3.0, 4.0])), dict(jax=False, hess=True)),
    ("indexing", takes, (_R.normal(size=(2, 3)), _R.normal(size=3)), {}),
    ("indexing", put_along, (_R.normal(size=(3, 4)), _R.normal(size=3)), dict(jax=False)),
    ("indexing", argsort_gather, (_R.normal(size=5), _R.normal(size=5)), {}),
    ("indexing", where_forms, (np.array([0.5, -0.3, 1.2, -0.8]), np.array([-0.4, 0.6, 0.2, -0.1])), dict(jax=False)),
    ("indexing", strides_roll_flip, (_R.normal(size=6), _R.normal(size=(3, 4))), dict(hess=True)),
    ("indexing", pad_modes, (_R.normal(size=5),), dict(hess=True)),
    ("indexing", pad_2d, (_R.normal(size=(3, 3)),), dict(hess=True)),
    ("indexing", repeat_tile, (_R.normal(size=3), _R.normal(size=(2, 2))), dict(hess=True)),
    ("indexing", concat_split, (_R.normal(size=4), _R.normal(size=(2, 6))), dict(hess=True)),
    ("indexing", reshape_chain, (_R.normal(size=(4, 6)),), dict(hess=True)),
    ("indexing", view_inplace, (_R.normal(size=5),), dict(jax=False, hess=True)),
    ("indexing", view_row_inplace, (_R.normal(size=(3, 3)),), dict(jax=False, hess=True)),
    ("indexing", ellipsis_none, (_R.normal(size=(3, 3)),), dict(hess=True)),
    ("indexing", masked_assign_scalar, (np.array([0.3, -0.7, 1.2, -0.1, 1.8]),), dict(jax=False)),
    ("indexing", fancy_2d, (_R.normal(size=(2, 3)),), dict(jax=False, hess=True)),
    # 4. sorting and statistics
    ("stats", sort_weighted, (_R.normal(size=5),), {}),
    ("stats", sort_axis, (_R.normal(size=(3, 2)),), {}),
    ("stats", median_forms, (_R.normal(size=5), _R.normal(size=(4, 3))), {}),
    ("stats", percentile_methods, (_R.normal(size=7),), {}),
    ("stats", quantile_axis, (_R.normal(size=(3, 5)),), {}),
    ("stats", std_var_forms, (_R.normal(size=(3, 4)),), dict(hess=True)),
    ("stats", average_weights, (_R.normal(size=4), _R.uniform(0.5, 1.5, size=4), _R.normal(size=(3, 4))), dict(hess=True)),
    ("stats", cov_corr, (_R.normal(size=(3, 5)),), dict(hess=True)),
    ("stats", cov_weights, (_R.normal(size=(2, 5)), _R.uniform(0.5, 1.5, size=5)), dict(hess=True)),
    ("stats", extrema_no_ties, (_R.normal(size=(3, 3)),), {}),
    ("stats", ties_max, (np.array([1.0, 3.0, 3.0, -2.0, -2.0]),), dict(fd=False)),
    ("stats", ties_max_axis, (np.array([[1.0, 2.0, 5.0], [1.0, 4.0, 5.0]]),), dict(fd=False)),
    ("stats", ties_maximum, (np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])), dict(fd=False)),
    ("stats", ties_clip, (np.array([0.0, 0.5, 1.0, 1.5]),), dict(fd=False)),
    ("stats", abs_at_zero, (np.array([0.0, -1.0, 2.0]),), dict(fd=False)),
    ("stats", ties_sort, (np.array([2.0, 1.0, 2.0, 0.5]),), dict(fd=False)),
    ("stats", ties_median, (np.array([2.0, 1.0, 2.0, 0.5, 2.0]),), dict(fd=False)),
    ("stats", logsumexp_stable, (_R.normal(size=5),), dict(hess=True)),
    ("stats", nan_stats, (np.array([0.2, 1.5, -0.3, 0.9, 2.0]),), {}),
    # 5. pure-Python scalars
    ("python", math_edges, (0.7, 0.4), dict(hess=True)),
    ("python", math_near_edges, (1e-3, 0.999), {}),
    ("python", builtin_minmax, (0.3, 0.8, 1.7), dict(hess=True, jax=False)),
    ("python", sum_generators, (0.3, 0.8), dict(hess=True, jax=False)),
    ("python", pow_forms, (1.3, 0.8), dict(hess=True)),
    ("python", round_int_casts, (1.3, 0.83), dict(jax=False)),
    ("python", recursion_scalar, (0.7,), dict(hess=True)),
    ("python", sqrt_newton, (2.0,), dict(jax=False)),
    ("python", dict_of_floats, (0.3, 0.8), dict(hess=True, jax=False)),
    ("python", list_of_floats, (0.3, 0.4), dict(jax=False)),
    ("python", loop_tolerance, (3.0,), dict(jax=False)),
    ("python", fixed_point, (0.8,), dict(jax=False)),
    ("python", scalar_mixed_numpy, (0.3, 0.8), dict(hess=True, jax=False)),
    ("python", divmod_floor, (2.3, 0.7), dict(jax=False)),
    # second batch
    ("linalg", eigh_lower_only, (_R.normal(size=(3, 3)),), dict(hess=True, jax=False)),  # JAX symmetrizes
    ("linalg", solve_broadcast, (_R.normal(size=(2, 3, 3)) + 3 * np.eye(3), _x3), {}),
    ("linalg", det_singular, (_R.normal(size=(3, 3)),), dict(hess=True, jax=False)),
    ("linalg", slogdet_negative, (_A3,), dict(hess=True)),
    ("linalg", qr_modes, (_R.normal(size=(4, 3)),), {}),
    ("linalg", qr_wide, (_R.normal(size=(2, 4)),), {}),
    ("linalg", svd_full, (_R.normal(size=(3, 2)),), {}),
    ("linalg", lstsq_wide, (_R.normal(size=(2, 4)), _R.normal(size=2)), {}),
    ("linalg", pinv_wide, (_R.normal(size=(2, 3)),), {}),
    ("linalg", norms_numpy2, (_x3, _R.normal(size=(3, 2))), {}),
    ("linalg", norm_keepdims_3d, (_R.normal(size=(2, 3, 2)),), {}),
    ("linalg", einsum_implicit, (_R.normal(size=(3, 3)), _R.normal(size=(3, 3)), _x3), dict(hess=True)),
    ("linalg", einsum_broadcast, (_R.normal(size=(2, 3, 3)), _R.normal(size=(3, 3))), dict(hess=True)),
    ("linalg", matmul_1d_batch, (_x3, _R.normal(size=(2, 3, 3))), dict(hess=True)),
    ("linalg", kron_2d, (_R.normal(size=(2, 2)), _R.normal(size=(3, 3))), dict(hess=True)),
    ("linalg", trace_3d, (_R.normal(size=(3, 3, 3)),), dict(hess=True)),
    ("linalg", matrix_power_neg, (_A3,), {}),
    ("linalg", tensordot_pairs, (_R.normal(size=(3, 3)), _R.normal(size=(2, 3, 3))), dict(hess=True)),
    ("linalg", solve_triangular_scipy, (_R.normal(size=(3, 3)), _x3), dict(jax=False)),
    ("linalg", cho_solve_scipy, (_spd(3), _x3), dict(jax=False)),
    ("signal", convolve_long_kernel, (_R.normal(size=3), _R.normal(size=5)), dict(hess=True)),
    ("signal", diff_prepend_array, (_R.normal(size=(3, 5)),), dict(hess=True)),
    ("signal", cumulative_zeros, (np.array([0.5, 0.0, -1.2, 0.0, 2.0]),), dict(hess=True, jax=False)),
    ("signal", interp_at_knots, (np.array([0.02, 0.1, 0.6, 0.95]), _R.normal(size=4)), {}),
    ("signal", interp_wrt_xp, (np.array([0.0, 0.3, 0.6, 1.0]), _R.normal(size=4)), {}),
    ("signal", trapezoid_2d, (_R.normal(size=(2, 4)), np.array([0.0, 0.2, 0.7, 1.5])), dict(hess=True)),
    ("signal", sinc_and_windows, (_R.normal(size=6),), dict(hess=True, jax=False)),
    ("indexing", take_modes, (_R.normal(size=6),), dict(jax=False)),
    ("indexing", take_along_repeated, (_R.normal(size=(2, 3)),), {}),
    ("indexing", put_and_copyto, (np.array([0.3, -0.7, 1.2, -0.1, 0.8]), np.array([1.0, 2.0, 3.0])), dict(jax=False)),
    ("indexing", choose_select, (np.array([0.3, -0.7, 1.2, -0.1, 0.8]),), dict(jax=False)),
    ("indexing", fancy_write_reversed, (_R.normal(size=5), _R.normal(size=3)), dict(jax=False, hess=True)),
    ("indexing", augmented_fancy_repeat, (_R.normal(size=4), np.array([1.0, 2.0, 3.0])), dict(jax=False, hess=True)),
    ("indexing", boolean_2d, (np.array([[0.3, -0.7, 1.2], [-0.1, 0.8, 0.4]]),), dict(jax=False)),
    ("indexing", where_one_arg, (np.array([0.3, -0.7, 1.2, -0.1, 0.8]),), dict(jax=False)),
    ("indexing", stack_split_more, (_R.normal(size=(2, 4)),), dict(hess=True)),
    ("indexing", pad_stat_modes, (_R.normal(size=4),), {}),
    ("indexing", rot_and_friends, (_R.normal(size=(3, 4)),), dict(hess=True)),
    ("indexing", expand_squeeze, (_R.normal(size=3),), dict(hess=True)),
    ("stats", sort_ties_axis, (np.array([[1.0, 1.0, 0.5], [2.0, 0.5, 2.0]]),), dict(fd=False)),
    ("stats", max_ties_keepdims, (np.array([[1.0, 3.0, 3.0], [2.0, 0.5, 0.5]]),), dict(fd=False)),
    ("stats", argmax_ties_gather, (np.array([1.0, 3.0, 3.0, 0.2]),), dict(fd=False, jax=False)),
    ("stats", median_even_ties, (np.array([1.0, 2.0, 2.0, 0.5]),), dict(fd=False)),
    ("python", minmax_builtin_ties, (0.7, 0.7), dict(fd=False, jax=False)),
    ("stats", std_zero_variance, (np.array([0.5, 0.5, 0.5]),), dict(fd=False)),
    ("stats", std_ddof_axis, (_R.normal(size=(2, 3, 4)),), dict(hess=True)),
    ("stats", average_returned, (_R.normal(size=3), _R.uniform(0.5, 1.5, size=3)), dict(hess=True)),
    ("stats", cov_fweights, (_R.normal(size=(2, 4)),), dict(jax=False)),
    ("stats", quantile_weighted_ok, (_R.normal(size=6),), dict(jax=False)),
    ("stats", quantile_keepdims, (_R.normal(size=(2, 3, 2)),), {}),
    ("python", math_more, (0.7, 0.4), dict(jax=False)),
    ("python", math_domain_edges, (0.3,), dict(jax=False, hess=True)),
    ("python", python_round_forms, (0.3712,), dict(jax=False)),
    ("python", generator_minmax, (0.7, 0.4), dict(jax=False)),
    ("python", sorted_key, (0.7, 0.4, 1.1), dict(jax=False)),
    ("python", nested_dict_loop, (0.7, 0.4), dict(jax=False, hess=True)),
    ("python", zero_d_array, (np.array(0.7),), dict(hess=True)),
    ("python", empty_parts, (_R.normal(size=3),), dict(hess=True)),
]

# checked by test_hunt_numerics.py (cheap to run; the others pass too, `hunt_numerics.py`
# runs them all, with JAX)
CORPUS = {
    "solve_quadratic", "inv_trace", "det_and_slogdet", "cholesky_logdet", "gp_nll", "eigh_top", "svd_nuclear", "qr_solve",
    "lstsq_fit", "vector_norms", "matrix_norms", "axis_norms", "einsum_many", "einsum_batch", "matmul_batch", "kron_outer",
    "tensordot_forms", "kalman_filter", "gram_schmidt", "gram_schmidt_inplace", "power_iteration", "cholesky_solve_manual",
    "eigh_lower_only", "det_singular", "slogdet_negative", "qr_wide", "norm_keepdims_3d", "einsum_implicit",
    "convolve_modes", "correlate_modes", "convolve_long_kernel", "diff_forms", "cum_forms", "interp_forms",
    "interp_at_knots", "trapezoid_2d", "moving_average", "lfilter_loop", "cumulative_zeros",
    "mask_read_write", "repeated_gather", "repeated_scatter_last_wins", "add_at_accumulates", "takes", "argsort_gather",
    "where_forms", "choose_select", "strides_roll_flip", "pad_modes", "repeat_tile", "concat_split", "reshape_chain", "fancy_2d",
    "fancy_write_reversed", "augmented_fancy_repeat", "boolean_2d", "take_along_repeated",
    "sort_weighted", "median_forms", "percentile_methods", "quantile_axis", "std_var_forms", "average_weights", "cov_corr",
    "extrema_no_ties", "std_ddof_axis", "quantile_keepdims",
    "math_edges", "builtin_minmax", "sum_generators", "pow_forms", "recursion_scalar", "sqrt_newton", "dict_of_floats",
    "list_of_floats", "fixed_point", "divmod_floor", "generator_minmax", "sorted_key", "zero_d_array", "empty_parts",
}
NUMPY2_ONLY = {"cumulative_zeros", "trapezoid_2d"}  # np.cumulative_sum and np.trapezoid are NumPy 2's
CORPUS_HESSIAN = {"solve_quadratic", "gp_nll", "eigh_top", "kalman_filter", "convolve_modes", "cum_forms", "mask_read_write",
                  "pad_modes", "std_var_forms", "math_edges", "dict_of_floats"}
