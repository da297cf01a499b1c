"""Realistic user programs for the independent suite (written fresh, NumPy style).

Argument conventions: a, b, c Python floats; x, y vectors of 4; M, W 4x4 matrices;
X a 5x4 batch. Every function is smooth at the test inputs used in
test_independent.py.
"""

import math
from functools import partial  # noqa: F401

import numpy as np

G = 9.81
SCALE = 0.5
WEIGHTS = [0.2, -0.4, 0.6, 0.1]


# ----------------------------------------------------------------- helpers


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def logsumexp(z):
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


def dense(v, W, b=0.0, act=np.tanh):
    return act(W @ v + b)


def poly_eval(coeffs, t):
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * t + c
    return acc


def layer_norm(v, eps=1e-5):
    mu = v.mean()
    var = ((v - mu) ** 2).mean()
    return (v - mu) / np.sqrt(var + eps)


def rk4_step(f, y, t, h):
    k1 = f(y, t)
    k2 = f(y + 0.5 * h * k1, t + 0.5 * h)
    k3 = f(y + 0.5 * h * k2, t + 0.5 * h)
    k4 = f(y + h * k3, t + h)
    return y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def decay_rhs(y, t):
    return -0.5 * y + np.sin(t)


def clamp(v, lo=-1.0, hi=1.0):
    return min(max(v, lo), hi)


def fact_pow(v, n):
    if n == 0:
        return 1.0
    return v * fact_pow(v, n - 1)


def stats(v):
    return v.mean(), v.std()


def scaled(v, *, factor=2.0):
    return v * factor


# ----------------------------------------------------------------- scalar float programs


def projectile_range(a, b):
    # a: launch angle, b: speed; simple Euler with drag until it lands
    vx = b * math.cos(a)
    vy = b * math.sin(a)
    px, py = 0.0, 0.0
    dt = 0.01
    while py >= 0.0:
        vx = vx - 0.05 * vx * dt
        vy = vy - G * dt - 0.05 * vy * dt
        px += vx * dt
        py += vy * dt
    return px


def newton_sqrt(a):
    z = a
    for _ in range(30):
        z = 0.5 * (z + a / z)
    return z


def newton_sqrt_while(a):
    z = a
    while abs(z * z - a) > 1e-12:
        z = 0.5 * (z + a / z)
    return z


def fixed_point_cos(a):
    z = 0.5
    it = 0
    while it < 200:
        z_new = math.cos(a * z)
        if abs(z_new - z) < 1e-13:
            break
        z = z_new
        it += 1
    return z


def horner_scalar(a):
    coeffs = [1.0, -2.0, 0.5, 3.0, -0.25]
    return poly_eval(coeffs, a)


def piecewise(a):
    if a < 0.0:
        return a * a
    elif a < 1.0:
        return 2.0 * a
    else:
        return math.log(a) + 2.0


def ternary_chain(a, b):
    m = a if a > b else b
    s = -1.0 if a * b < 0 else 1.0
    return m * s + a * b


def bool_ops_cond(a, b):
    if a > 0 and b > 0 or not (a > 3.0):
        r = a * b
    else:
        r = a + b
    return r


def logistic_map(a):
    x = 0.3
    for _ in range(10):
        x = a * x * (1.0 - x)
    return x


def math_mix(a, b):
    return math.exp(a) * math.sin(b) + math.sqrt(a * a + b * b) + math.atan2(a, b) + math.hypot(a, b)


def math_more(a):
    return math.log1p(a) + math.expm1(a) + math.cosh(a) + math.pow(a, 2.5) + math.log(a, 2.0)


def builtin_minmax(a, b):
    return max(a, b, 0.5) * min(a * b, 1.0) + abs(a - b)


def recursive_power(a):
    return fact_pow(a, 5)


def recursion_fib_like(a):
    def f(n, u):
        if n <= 1:
            return u
        return f(n - 1, u) * 0.5 + f(n - 2, u * u) * 0.25
    return f(5, a)


def swap_loop(a, b):
    for _ in range(4):
        a, b = b, a * 0.5 + b
    return a * b


def continue_loop(a):
    s = 0.0
    for k in range(10):
        if k % 3 == 0:
            continue
        s += a ** k / (k + 1)
    return s


def early_return_loop(a):
    s = a
    for k in range(100):
        s = s * 1.1 + 0.1
        if s > 10.0:
            return s * k
    return -s


def nested_loop_scalar(a, b):
    s = 0.0
    for i in range(3):
        for j in range(i, 4):
            s += (a ** i) * (b ** j) / (1 + i + j)
    return s


def range_step(a):
    s = 0.0
    for i in range(10, 0, -3):
        s = s * a + i
    return s


def kw_defaults_call(a, b):
    return clamp(a * b, hi=2.0) + clamp(a - b, -0.1) + clamp(v=a, lo=0.0, hi=10.0)


def keyword_only_call(a):
    return scaled(a, factor=3.0) + scaled(a)


def float_builtin(a):
    return float(a) * 2.0 + float(3) * a


def closure_scalar(a, b):
    k = a * 2.0

    def inner(t):
        return k * t + b

    return inner(a) * inner(b)


def lambda_assigned(a, b):
    sq = lambda t: t * t  # noqa: E731
    lin = lambda t, s=2.0: s * t + b  # noqa: E731
    return sq(a) + lin(a) + lin(b, s=a)


def while_halving(a):
    n = 0
    v = a
    while v > 1.0:
        v = v / 2.0
        n += 1
    return v * (n + 1)


def bisect_free_param(a):
    # Bisection for root of t^3 - a = 0; gradient flows only via final t (zero derivative)
    # plus one Newton polish step which carries the derivative.
    lo, hi = 0.0, 10.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid ** 3 - a > 0:
            hi = mid
        else:
            lo = mid
    t = 0.5 * (lo + hi)
    t = t - (t ** 3 - a) / (3 * t * t)
    return t


def tuple_state(a, b):
    state = (a, b)
    for _ in range(3):
        p, q = state
        state = (p * q, p + q)
    return state[0] + state[1]


def dict_state(a, b):
    d = {"pos": a, "vel": b}
    for _ in range(5):
        d["vel"] = d["vel"] - 0.1 * d["pos"]
        d["pos"] = d["pos"] + 0.1 * d["vel"]
    return d["pos"] ** 2 + d["vel"] ** 2


def list_append_sum(a):
    vals = []
    v = a
    for i in range(5):
        v = math.sin(v) + i * 0.1
        vals.append(v)
    return sum(vals) + max(vals)


def comprehension_scalar(a, b):
    terms = [a ** k / math.factorial(k) for k in range(8)]
    return sum(terms) + sum(b * t for t in terms if t > 0.01)


def enumerate_zip_scalar(a, b):
    xs = [a, b, a * b]
    ws = [0.5, 1.5, -2.0]
    s = 0.0
    for i, (u, w) in enumerate(zip(xs, ws)):
        s += (i + 1) * u * w
    return s


def multi_assign_aug(a, b):
    x = y = a
    x *= b
    y -= b
    x /= 2.0
    y **= 2
    return x + y


def global_weights(a):
    s = 0.0
    for k, w in enumerate(WEIGHTS):
        s += w * a ** (k + 1)
    return s * SCALE


def nested_helper_defaults(a, b):
    def area(r, pi=math.pi):
        return pi * r * r

    return area(a) + area(b, pi=3.0)


def ode_euler_scalar(a):
    y = 1.0
    t = 0.0
    h = 0.05
    while t < 1.0 - 1e-12:
        y = y + h * (-a * y + math.sin(t))
        t += h
    return y


def pendulum(a):
    theta, omega = a, 0.0
    dt = 0.01
    for _ in range(200):
        omega -= G * math.sin(theta) * dt
        theta += omega * dt
    return theta


# ----------------------------------------------------------------- vector / matrix programs


def softmax_xent(x, y):
    p = softmax(x)
    return -np.sum(y * np.log(p))


def logsumexp_fn(x):
    return logsumexp(x * 2.0)


def layer_norm_loss(x, W):
    h = layer_norm(W @ x)
    return np.sum(h * np.arange(4.0))


def mlp2(x, W):
    h = dense(x, W, b=0.1)
    out = dense(h, W.T, act=sigmoid)
    return np.sum(out ** 2)


def mlp_relu(W, X):
    h = np.maximum(X @ W, 0.0)
    return np.mean(h ** 2)


def attention(M, W):
    q = M @ W
    k = M @ W.T
    v = M
    scores = q @ k.T / np.sqrt(4.0)
    a = softmax(scores, axis=1)
    return np.sum((a @ v) ** 2)


def rnn_loop(W, X):
    h = np.zeros(4)
    for t in range(X.shape[0]):
        h = np.tanh(W @ h + X[t])
    return np.sum(h * h)


def rnn_over_rows(W, X):
    h = np.zeros(4)
    for row in X:
        h = np.tanh(h @ W + row)
    return h.sum()


def gru(W, X):
    h = np.zeros(4)
    Wz, Wr, Wh = W, W.T, 0.5 * W
    for xt in X:
        z = sigmoid(Wz @ h + xt)
        r = sigmoid(Wr @ h - xt)
        hh = np.tanh(Wh @ (r * h) + xt)
        h = (1 - z) * h + z * hh
    return np.sum(h)


def lstm(W, X):
    h = np.zeros(4)
    c = np.zeros(4)
    for t in range(len(X)):
        gates = W @ h + X[t]
        i = sigmoid(gates)
        f = sigmoid(gates + 1.0)
        o = sigmoid(gates - 0.5)
        g = np.tanh(gates)
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum(h ** 2) + np.sum(c)


def rnn_collect_stack(W, X):
    hs = []
    h = np.zeros(4)
    for t in range(X.shape[0]):
        h = np.tanh(W @ h + X[t])
        hs.append(h)
    H = np.stack(hs)
    return np.sum(H * H) / len(hs)


def reversed_scan(x):
    acc = 0.0
    out = []
    for v in reversed(list(x)):
        acc = acc * 0.5 + v
        out.append(acc)
    return sum(out)


def horner_vec(x):
    # evaluate polynomial with coefficients x at t = 0.7
    return poly_eval(x, 0.7)


def polyfit_residual(x):
    t = np.linspace(0.0, 1.0, 6)
    y = np.sin(3 * t)
    V = np.vander(t, 4)
    pred = V @ x
    return np.sum((pred - y) ** 2)


def lstsq_normal(x):
    A = np.array([[1.0, 2.0], [3.0, 4.5], [0.5, -1.0], [2.0, 0.0]])
    b = A.T @ x
    sol = np.linalg.solve(A.T @ A + np.eye(2), b)
    return np.sum(sol ** 2)


def inplace_index_write(x):
    y = np.zeros(4)
    for i in range(4):
        y[i] = x[i] * x[(i + 1) % 4]
    return np.sum(y ** 2)


def inplace_aug_write(x):
    y = np.ones(4)
    for i in range(1, 4):
        y[i] += y[i - 1] * x[i]
    return y.sum()


def inplace_overwrite(x):
    y = x * 2.0
    y[0] = y[1] * y[2]
    y[1] = y[0] + 1.0
    y[2] *= y[3]
    return np.sum(y * y)


def inplace_slice(x):
    y = np.zeros(6)
    y[1:5] = x ** 2
    y[::2] += 1.0
    y[-1] = y[0] * x[3]
    return np.sum(np.sin(y))


def inplace_mask(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[y > 0.5] *= 2.0
    return np.sum(y ** 3)


def inplace_2d(M):
    A = M.copy()
    for i in range(4):
        A[i, i] = A[i, i] ** 2
        A[i, :] = A[i, :] / (1.0 + np.sum(A[i, :] ** 2))
    return np.sum(A)


def inplace_col_write(M):
    A = np.zeros((4, 4))
    A[:, 0] = M[:, 1]
    A[:, 1:] = M[:, :3] * 2.0
    A[2] = np.tanh(A[2])
    return np.sum(A * M)


def cumulative_manual(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in range(len(x)):
        acc = acc + x[i]
        out[i] = acc
    return np.sum(out ** 2)


def fancy_index(x):
    idx = np.array([3, 0, 0, 2])
    return np.sum(x[idx] * np.arange(1.0, 5.0)) + np.sum(x[[1, 2]] ** 2)


def bool_mask_read(x):
    return np.sum(x[x > 0] ** 2) + np.sum(np.where(x > 0, x, 0.1 * x))


def slicing_reads(M):
    return np.sum(M[:, ::2] ** 2) + np.sum(M[1:3, 1:]) * M[-1, -1] + np.sum(M[::-1, 0] * np.arange(4.0))


def methods_axis(M):
    return M.sum(axis=0).dot(M.max(axis=1)) + M.mean(axis=1).sum() + M.T.reshape(-1)[3]


def methods_misc(M):
    return (M.clip(-0.5, 0.5) ** 2).sum() + M.transpose().copy()[0, 1] + M.astype(np.float64).prod() + M.min()


def broadcast_ops(x, M):
    return np.sum((M - x[None, :]) ** 2 / (1.0 + x[:, None] ** 2)) + np.sum(M * x)


def norm_ops(x, M):
    return np.linalg.norm(x) + np.linalg.norm(M @ x) ** 2 + np.sqrt(np.dot(x, x) + 1.0)


def matrix_power_loop(M):
    P = np.eye(4)
    for _ in range(3):
        P = P @ (M * 0.5)
    return np.trace(P)


def power_iteration(M):
    A = M @ M.T
    v = np.ones(4) / 2.0
    for _ in range(50):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v


def jacobi_solve(x):
    A = np.array([[4.0, 1, 0, 0], [1, 5.0, 1, 0], [0, 1, 6.0, 1], [0, 0, 1, 7.0]])
    z = np.zeros(4)
    for _ in range(60):
        z = (x - (A - np.diag(np.diag(A))) @ z) / np.diag(A)
    return np.sum(z ** 2)


def gauss_seidel(x):
    A = np.array([[4.0, 1, 0, 0], [1, 5.0, 1, 0], [0, 1, 6.0, 1], [0, 0, 1, 7.0]])
    z = np.zeros(4)
    for _ in range(25):
        for i in range(4):
            s = x[i]
            for j in range(4):
                if j != i:
                    s = s - A[i, j] * z[j]
            z[i] = s / A[i, i]
    return np.sum(z * np.arange(1.0, 5.0))


def newton_vector(x):
    # solve z + 0.1 z^3 = x elementwise
    z = x.copy()
    while np.max(np.abs(z + 0.1 * z ** 3 - x)) > 1e-12:
        z = z - (z + 0.1 * z ** 3 - x) / (1.0 + 0.3 * z ** 2)
    return np.sum(z ** 2)


def spring_chain(x):
    pos = x.copy()
    vel = np.zeros_like(x)
    dt = 0.02
    for _ in range(50):
        force = np.zeros_like(pos)
        force[1:] -= pos[1:] - pos[:-1]
        force[:-1] += pos[1:] - pos[:-1]
        vel = vel + dt * force
        pos = pos + dt * vel
    return np.sum(pos ** 2)


def nbody_energy(M):
    # positions rows of M (4 bodies in 4d); pairwise inverse distance potential
    e = 0.0
    n = M.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = M[i] - M[j]
            e -= 1.0 / np.sqrt(np.sum(d * d) + 0.1)
    return e


def rk4_integrate(x):
    y = x
    t = 0.0
    for _ in range(10):
        y = rk4_step(decay_rhs, y, t, 0.1)
        t = t + 0.1
    return np.sum(y ** 2)


def heat_equation(x):
    u = x.copy()
    for _ in range(20):
        lap = np.zeros_like(u)
        lap[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
        u = u + 0.1 * lap
    return np.sum(u ** 2)


def bouncing_ball(a):
    h, v = a, 0.0
    dt = 0.01
    t = 0.0
    while t < 1.5:
        v = v - G * dt
        h = h + v * dt
        if h < 0.0:
            h = -h * 0.8
            v = -v * 0.8
        t += dt
    return h


def gradient_descent_inner(x):
    w = np.zeros(4)
    for _ in range(20):
        g = 2.0 * (w - x) + 0.1 * w
        w = w - 0.1 * g
    return np.sum(w ** 3)


def kmeans_like(M):
    c = M[0] * 1.0
    for _ in range(3):
        d = np.sum((M - c) ** 2, axis=1)
        w = np.exp(-d)
        c = (w[:, None] * M).sum(axis=0) / w.sum()
    return np.sum(c ** 2)


def conv1d_manual(x):
    k = np.array([0.25, 0.5, 0.25])
    out = np.zeros(len(x) - 2)
    for i in range(len(out)):
        out[i] = np.sum(x[i:i + 3] * k)
    return np.sum(out ** 2)


def conv1d_np(x, y):
    return np.sum(np.convolve(x, y, mode="valid") ** 2) + np.sum(np.convolve(x, y) * 0.5)


def cumsum_cumprod(x):
    return np.sum(np.cumsum(x) ** 2) + np.sum(np.cumprod(1.0 + 0.1 * x))


def stack_concat(x, y):
    z = np.concatenate([x, y * 2.0, x[:2]])
    s = np.stack([x, y], axis=1)
    return np.sum(z ** 2) + np.sum(s[:, 0] * s[:, 1]) + np.sum(np.hstack([x, y]) ** 3)


def outer_einsum(x, M):
    return np.sum(np.outer(x, x) * M) + np.einsum("ij,j->", M, x) + np.einsum("i,ij,j", x, M, x)


def sort_topk(x):
    s = np.sort(x)
    return s[-1] * 2.0 + s[0] + np.sum(s[1:3] ** 2)


def logistic_regression(W, X):
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    w = W[:, 0]
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)


def hinge_loss(x, X):
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    margins = 1.0 - y * (X @ x)
    return np.sum(np.maximum(margins, 0.0)) + 0.01 * np.dot(x, x)


def huber(x):
    r = x * 3.0
    out = 0.0
    for v in r:
        if abs(v) < 1.0:
            out = out + 0.5 * v * v
        else:
            out = out + abs(v) - 0.5
    return out


def list_of_arrays_sum(x, y):
    parts = [x, y, x * y]
    total = sum(parts)
    return np.sum(total ** 2)


def dict_of_arrays(x, y):
    layers = {"a": x, "b": y}
    layers["c"] = layers["a"] * layers["b"]
    s = 0.0
    for k in ["a", "b", "c"]:
        s = s + np.sum(np.sin(layers[k]))
    return s


def generator_expr_vec(x):
    return sum(np.sum(x ** k) / k for k in range(1, 5))


def comprehension_vec(x):
    rows = [x * i for i in range(3)]
    return sum([np.dot(r, r) for r in rows]) + np.sum(np.array([np.sum(x), np.prod(x)]))


def zip_arrays(x, y):
    s = 0.0
    for u, v in zip(x, y):
        s += u * v + max(u, v)
    return s


def enumerate_array(x):
    s = 0.0
    for i, v in enumerate(x):
        s = s + (i + 1.0) * v ** 2
    return s


def len_shape_attrs(M):
    n = len(M)
    r, c = M.shape
    return np.sum(M) * n / (r * c) + M.size + M.ndim * np.sum(M ** 2)


def zero_d_ops(x):
    s = np.sum(x)
    m = np.max(x)
    return np.exp(s - m) + s * m


def scalar_array_roundtrip(x):
    v = float(x[0])
    w = x[1].item() if False else x[1]
    return v * w + math.tanh(float(np.sum(x)))


def math_on_array_elements(x):
    return math.exp(x[0]) + math.sin(x[1]) * math.cos(x[2]) + math.sqrt(x[3] ** 2 + 1.0)


def np_funcs_zoo(x):
    return np.sum(np.arctan(x) + np.arcsinh(x) + np.log1p(x ** 2) + np.expm1(x) / 3 + np.cbrt(x + 2.0)
                  + np.sinh(x) * np.cosh(x) + np.abs(x) ** 1.5 + np.square(x) + np.reciprocal(x + 3.0)
                  + np.hypot(x, 1.0) + np.arctan2(x, 2.0))


def np_reductions(M):
    return np.prod(M[0] + 2.0) + np.var(M) + np.std(M, axis=0).sum() + np.amax(M) + np.mean(M ** 2, axis=(0, 1))


def np_minmax_axis(M):
    return np.sum(np.max(M, axis=0) * np.min(M, axis=1)) + np.sum(np.maximum(M, M.T)) + np.sum(np.fmin(M, 0.2))


def where_select(x):
    y = np.where(x > 0.0, np.sqrt(np.abs(x) + 1.0), x ** 2)
    return np.sum(y * np.clip(x, -0.3, 0.3))


def float32_mlp(x, W):
    h = np.tanh(W @ x)
    return np.sum(h * h)


def matmul_chain(M, W):
    return np.sum(np.linalg.inv(M @ M.T + 4 * np.eye(4)) @ W) + np.linalg.det(M + 3 * np.eye(4))


def triangular_ops(M):
    return np.sum(np.triu(M) ** 2) + np.sum(np.tril(M, -1)) + np.trace(M @ M)


def reshape_transpose(X):
    Y = X.reshape(4, 5).T
    Z = np.transpose(Y[:, :, None] * Y[:, None, :], (2, 0, 1))
    return np.sum(Z ** 2) + np.sum(X.ravel()[::3]) + np.sum(X.flatten() ** 2)


def expand_squeeze(x):
    y = np.expand_dims(x, 0)
    z = np.squeeze(y * 2.0)
    return np.sum(np.tile(z, 2) ** 2) + np.sum(np.repeat(x, 2) * np.arange(8.0))


def pad_roll_flip(x):
    return np.sum(np.pad(x, 1) * np.arange(6.0)) + np.sum(np.roll(x, 1) * x) + np.sum(np.flip(x) * np.arange(4.0))


def mean_squared_while(x):
    w = x.copy()
    k = 0
    while np.sum(w ** 2) > 0.01 and k < 100:
        w = w * 0.9
        k += 1
    return np.sum(w) * k


def tutorial_while(x):
    y = x * 2
    while np.linalg.norm(y) < 1000:
        y = y * 2
    return np.sum(y)


def break_in_vector_loop(x):
    s = np.zeros(4)
    for i in range(20):
        s = s + x * i
        if np.sum(s) > 5.0:
            break
    return np.sum(s ** 2)


def aliasing_view(x):
    y = x * 1.0
    z = y
    z[0] = 5.0 * y[1]
    return np.sum(y ** 2)


def slice_view_alias(x):
    y = x * 1.0
    v = y[1:3]
    v *= 3.0
    return np.sum(y ** 2)


def pytree_dict(params, X):
    h = np.tanh(X @ params["W"] + params["b"])
    return np.sum(h ** 2) + params["s"] * np.sum(h)


def pytree_list(params, X):
    h = X
    for W in params:
        h = np.tanh(h @ W)
    return np.sum(h)


def pytree_tuple(params, x):
    W, b = params
    return np.sum(sigmoid(W @ x + b))


def pytree_nested(params, x):
    s = 0.0
    for layer in params["layers"]:
        x = np.tanh(layer[0] @ x + layer[1])
        s = s + np.sum(x)
    return s * params["scale"]


def returns_tuple_helper(x):
    m, s = stats(x)
    return m * s + s ** 2


def nested_def_closure_vec(x, W):
    def layer(v):
        return np.tanh(W @ v)

    def net(v, depth=3):
        for _ in range(depth):
            v = layer(v)
        return v

    return np.sum(net(x) ** 2) + np.sum(net(x, depth=1))


def stop_grad_like(x):
    import srcgrad
    c = srcgrad.stop_gradient(np.sum(x))
    return np.sum(x * c)


def max_builtin_array_elems(x):
    return max(x[0], x[1]) * min(x[2], x[3]) + abs(x[0] - x[3])


def sum_builtin_start(x):
    return sum([x[0], x[1] * 2], 1.0) + sum(x)


def integer_power_loop(x):
    out = np.ones_like(x)
    p = 0
    while p < 3:
        out = out * x
        p += 1
    return np.sum(out)


def nested_function_returns_multiple(a, b):
    def polar(u, v):
        r = math.sqrt(u * u + v * v)
        th = math.atan2(v, u)
        return r, th

    r, th = polar(a, b)
    return r * math.cos(th * 2.0)


def string_keyed_config(a):
    cfg = dict(rate=0.1, steps=5)
    v = a
    for _ in range(cfg["steps"]):
        v = v - cfg["rate"] * v ** 3
    return v


def multiple_returns_branch(x):
    if np.sum(x) > 0:
        return np.sum(x ** 2)
    if np.max(x) > 1.0:
        return np.max(x)
    return -np.sum(x)


def nested_while_for(a):
    tot = 0.0
    i = 0
    while i < 4:
        for j in range(i):
            tot = tot + a ** j * (i - j)
        i += 1
    return tot


def running_max(x):
    best = -1e9
    for v in x:
        if v > best:
            best = v
    return best * 2.0


def argmax_pick(x):
    i = np.argmax(x)
    return x[i] ** 2 + np.sum(x)


def cross_entropy_batch(W, X):
    labels = np.array([0, 1, 2, 3, 1])
    logits = X @ W
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -logp[np.arange(5), labels].mean()


def batchnorm(X):
    mu = X.mean(axis=0)
    var = X.var(axis=0)
    Y = (X - mu) / np.sqrt(var + 1e-5)
    return np.sum(Y * np.arange(1.0, 5.0) ** 2)


def attention_batched(X, W):
    Q = X @ W
    scores = Q @ X.T
    P = softmax(scores)
    return np.sum(P @ X)


def unpack_star(x):
    first, *rest = x
    return first * np.sum(np.array(rest) ** 2)


def augmented_matrix_loop(M):
    S = np.zeros((4, 4))
    for k in range(3):
        S += M ** (k + 1) / (k + 1)
    S -= 0.1 * M.T
    S *= 0.5
    return np.sum(S)


def early_exit_while_true(a):
    v = a
    n = 0
    while True:
        v = v * 0.7 + 0.1
        n += 1
        if v < 0.2 or n > 50:
            break
    return v


def recursion_on_array(x, n=3):
    if n == 0:
        return x
    return recursion_on_array(np.sin(x) + x * 0.5, n - 1)


def recursive_entry(x):
    return np.sum(recursion_on_array(x) ** 2)


def conditional_list_build(x):
    pos = [v for v in x if v > 0]
    neg = [v * v for v in x if v <= 0]
    return sum(pos) * 2.0 + sum(neg)


def nested_comprehension(x):
    return sum(x[i] * x[j] for i in range(4) for j in range(4) if i < j)


def dict_comprehension(x):
    d = {i: x[i] ** 2 for i in range(4)}
    return sum(d.values()) + d[2] * d[3]


def min_max_with_key_free(x):
    vals = [x[0] ** 2, x[1] + 1.0, x[2] * x[3]]
    return max(vals) + min(vals)


def np_array_from_list(a, b):
    v = np.array([a, b, a * b])
    return np.sum(v ** 2) + v[2]


def np_float_ops_0d(a):
    z = np.float64(a)
    return float(np.exp(z) + np.sin(z) * z)


def interp_fn(x):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    return np.sum(np.interp(np.array([0.5, 1.7, 2.2]), xp, x))


def diff_fn(x):
    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2))


def sign_abs_mix(x):
    return np.sum(np.sign(x) * x ** 2) + np.sum(np.abs(x) * np.floor(np.abs(x * 3)))


def dot_variants(x, y, M):
    return x.dot(y) + np.inner(x, y) + np.vdot(x, M @ y) + np.matmul(x, M).sum() + (x @ M @ y)


def ode_adaptive(a):
    # adaptive-ish step: step size depends on value (data-dependent trip count)
    y = a
    t = 0.0
    while t < 1.0:
        h = min(0.1, 1.0 - t)
        y = y + h * (-y * y)
        t = t + h
    return y


def gradient_free_int_ops(x):
    n = int(np.sum(x > 0))
    return np.sum(x) * n + len(x)


def bilinear_pytree(params, x):
    A = params[0]
    c = params[1]
    return x @ A @ x + c * np.sum(x)


def np_logistic_helpers(x):
    return np.sum(np.log(sigmoid(x))) + np.sum(np.tanh(x) / np.cosh(x))


def sumsq_axis_keepdims(M):
    n = np.sqrt(np.sum(M ** 2, axis=1, keepdims=True))
    return np.sum(M / n)


def integer_index_loop_reverse(x):
    s = 0.0
    for i in range(len(x) - 1, -1, -1):
        s = s * 0.5 + x[i] * x[i - 1]
    return s


# ----------------------------------------------------------------- more realistic programs (list/tuple idioms)


def tuple_concat_state(a):
    t = (a,) + (a * 2.0,)
    return t[0] * t[1]


def list_repeat_init(a):
    weights = [a] * 3
    return sum(weights)


def list_concat_features(a, b):
    feats = [a] + [b, a * b]
    return feats[2] + feats[0] * 2.0


def sum_plus_max_list(a, b):
    vals = [a, b]
    return sum(vals) + max(vals)


def max_plus_min_list(a, b):
    vals = [a * a, b]
    return max(vals) + min(vals)


def tuple_sum_plus_max(a, b):
    t = (a, b)
    return sum(t) + max(t)


def phase_wrap(a):
    # wrap angle into [0, 1) then use it: d/da (a % 1.0) == 1 almost everywhere
    return (a % 1.0) * a


def history_of_state(x):
    hist = []
    y = x * 1.0
    hist.append(y)
    y[1] = y[1] * 2.0
    return np.sum(hist[0])


def int_buffer_write(x):
    buf = np.zeros(2, dtype=int)
    buf[0] = x[0]
    return buf[0] * 1.0 + x[1]


def repeated_index_list_rhs(x):
    y = x * 1.0
    y[[0, 0]] = [x[1], x[2]]
    return np.sum(y * y)


def einsum_scalar(x, M):
    return np.einsum("ij,j->", M, x)


def pad_edges(x):
    return np.sum(np.pad(x, 1) * np.arange(6.0))


def diff_of_series(x):
    return np.sum(np.diff(x) ** 2)
