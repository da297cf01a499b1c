"""Realistic programs from a hunt for wrong gradients (integrators with early exits, Newton
and fixed-point iterations, a Kalman step, attention with a causal mask, layer norm, a
GRU, soft k-means, GP likelihoods, stencils, small linear solvers written out by hand,
pair forces, Burgers' equation, 1-D finite elements, Sinkhorn, an HMM forward pass, a
robot arm): each passed when it was written; test_real_programs.py checks every one
against central differences and in forward mode, with its arguments left unchanged.
`CASES`: (function, arguments, whether to check its Hessian too)."""

import math

import numpy as np

def rhs(y, k):
    return np.array([y[1], -k * y[0] - 0.1 * y[1]])


def rk4_integrate(y0, k):
    y = y0.copy()
    t = 0.0
    h = 0.05
    while t < 2.0:
        k1 = rhs(y, k)
        k2 = rhs(y + 0.5 * h * k1, k)
        k3 = rhs(y + 0.5 * h * k2, k)
        k4 = rhs(y + h * k3, k)
        y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
        if np.linalg.norm(y) < 1e-3:
            break
    return np.sum(y ** 2)


def leapfrog(q0, p0, m, n_steps):
    q = q0
    p = p0
    dt = 0.1
    p = p - 0.5 * dt * q  # grad of U = q^2/2
    for i in range(n_steps):
        q = q + dt * p / m
        if i != n_steps - 1:
            p = p - dt * q
    p = p - 0.5 * dt * q
    return 0.5 * np.sum(p ** 2) / m + 0.5 * np.sum(q ** 2)


def verlet(x0, v0):
    x, v = x0.copy(), v0.copy()
    dt = 0.05
    traj = []
    a = -np.sin(x)
    for _ in range(15):
        x = x + v * dt + 0.5 * a * dt ** 2
        a_new = -np.sin(x)
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
        traj.append(x)
    traj = np.stack(traj)
    return np.mean(traj[:, 0] * traj[:, -1])


def newton_root(a, b):
    x = 1.0
    for it in range(50):
        fx = x ** 3 + a * x - b
        dfx = 3 * x ** 2 + a
        step = fx / dfx
        x = x - step
        if abs(step) < 1e-12:
            break
    return x


def kalman_step(x, P, z, F, H, Q, R):
    x_pred = F @ x
    P_pred = F @ P @ F.T + Q
    y = z - H @ x_pred
    S = H @ P_pred @ H.T + R
    K = P_pred @ H.T @ np.linalg.inv(S)
    x_new = x_pred + K @ y
    P_new = (np.eye(len(x)) - K @ H) @ P_pred
    return np.sum(x_new ** 2) + np.trace(P_new)


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V):
    d = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d)
    n = scores.shape[0]
    mask = np.tril(np.ones((n, n), dtype=bool))
    scores = np.where(mask, scores, -1e9)
    w = softmax(scores)
    out = w @ V
    return np.sum(out ** 2)


def layer_norm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + 1e-5)
    y = gamma * xhat + beta
    return np.sum(np.tanh(y) * np.arange(y.shape[-1]))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gru(xs, Wz, Wr, Wh):
    h = np.zeros(Wz.shape[0])
    hs = []
    for t in range(xs.shape[0]):
        xh = np.concatenate([xs[t], h])
        z = sigmoid(Wz @ xh)
        r = sigmoid(Wr @ xh)
        hh = np.tanh(Wh @ np.concatenate([xs[t], r * h]))
        h = (1 - z) * h + z * hh
        hs.append(h)
    H = np.stack(hs, axis=0)
    return np.sum(H[-1] ** 2) + np.mean(H)


def soft_kmeans(X, C, beta):
    d2 = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    logits = -beta * d2
    logits = logits - logits.max(axis=1, keepdims=True)
    R = np.exp(logits)
    R = R / R.sum(axis=1, keepdims=True)
    return np.sum(R * d2)


def gp_nll_chol(log_ell, X, y):
    ell = np.exp(log_ell)
    d = X[:, None] - X[None, :]
    K = np.exp(-0.5 * (d / ell) ** 2) + 0.1 * np.eye(len(X))
    L = np.linalg.cholesky(K)
    a = np.linalg.solve(L, y)
    return 0.5 * a @ a + np.sum(np.log(np.diag(L)))


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def heat_2d(u0, kappa):
    u = u0.copy()
    for _ in range(3):
        lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * kappa * lap
    return np.sum(u * u)


def aug_sub(x):
    y = np.zeros((3, 4))
    for i in range(3):
        y[i] += x[i] * 2
        y[i, 1:] -= x[i, :-1]
        y[:, i] *= 1.5
    return np.sum(y ** 2)


def lennard_jones(pos):
    n = pos.shape[0]
    i, j = np.triu_indices(n, k=1)
    r = np.linalg.norm(pos[i] - pos[j], axis=1)
    sr6 = (1.0 / r) ** 6
    return np.sum(4 * (sr6 ** 2 - sr6))


def gram_schmidt(A):
    Q = np.zeros_like(A)
    for j in range(A.shape[1]):
        v = A[:, j].copy()
        for i in range(j):
            v -= (Q[:, i] @ A[:, j]) * Q[:, i]
        Q[:, j] = v / np.linalg.norm(v)
    return np.sum(Q * np.arange(Q.size).reshape(Q.shape))


def hmm_forward(log_pi, log_A, log_B, obs):
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        m = alpha.max()
        alpha = m + np.log(np.exp(alpha - m) @ np.exp(log_A)) + log_B[:, obs[t]]
    m = alpha.max()
    return m + np.log(np.sum(np.exp(alpha - m)))


def black_scholes(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    N = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
    return S * N(d1) - K * math.exp(-r * T) * N(d2)


def discounted_returns(r, gamma):
    T = len(r)
    returns = np.zeros(T)
    G = 0.0
    for t in reversed(range(T)):
        G = r[t] + gamma * G
        returns[t] = G
    return np.sum(returns * np.linspace(0, 1, T))


def tridiag_solve(a, b, c, d):
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return np.sum(x ** 2)


def lu_nopivot(A):
    n = A.shape[0]
    U = A.copy()
    L = np.eye(n)
    for k in range(n - 1):
        for i in range(k + 1, n):
            L[i, k] = U[i, k] / U[k, k]
            U[i, k:] -= L[i, k] * U[k, k:]
    return np.sum(np.log(np.abs(np.diag(U)))) + np.sum(L)


def conv2d_valid(img, k):
    H, W = img.shape
    kh, kw = k.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.sum(img[i:i + kh, j:j + kw] * k)
    return np.sum(np.maximum(out, 0) ** 2)


def adam_unrolled(w0, X, y):
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, 6):
        g = 2 * X.T @ (X @ w - y) / len(y)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mh = m / (1 - 0.9 ** t)
        vh = v / (1 - 0.999 ** t)
        w = w - 0.1 * mh / (np.sqrt(vh) + 1e-8)
    return np.mean((X @ w - y) ** 2)


def pair_forces(x):
    n = x.shape[0]
    F = np.zeros_like(x)
    E = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = x[i] - x[j]
            r2 = np.sum(d ** 2)
            f = d / r2 ** 2
            F[i] += f
            F[j] -= f
            E += 0.5 / r2
    return E + 0.1 * np.sum(F ** 2)


def burgers_upwind(u0, nu):
    u = u0.copy()
    dx, dt = 0.1, 0.01
    for _ in range(5):
        back = np.zeros_like(u)
        fwd = np.zeros_like(u)
        back[1:] = (u[1:] - u[:-1]) / dx
        fwd[:-1] = (u[1:] - u[:-1]) / dx
        adv = np.where(u > 0, back, fwd)
        lap = np.zeros_like(u)
        lap[1:-1] = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx ** 2
        u = u - dt * u * adv + dt * nu * lap
    return np.sum(u ** 2)


def fem_compliance(k):
    n = len(k)
    K = np.zeros((n + 1, n + 1))
    ke = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for i in range(n):
        K[i:i + 2, i:i + 2] += ke * k[i]
    K = K[1:, 1:]
    f = np.ones(n)
    u = np.linalg.solve(K, f)
    return f @ u


def sinkhorn(a, b, C, eps):
    log_K = -C / eps
    f = np.zeros_like(a)
    g = np.zeros_like(b)
    err = 1.0
    it = 0
    while err > 1e-10 and it < 500:
        M = log_K + g[None, :]
        m = M.max(axis=1, keepdims=True)
        f_new = np.log(a) - (m[:, 0] + np.log(np.exp(M - m).sum(axis=1)))
        M2 = log_K + f_new[:, None]
        m2 = M2.max(axis=0, keepdims=True)
        g = np.log(b) - (m2[0] + np.log(np.exp(M2 - m2).sum(axis=0)))
        err = np.max(np.abs(f_new - f))
        f = f_new
        it += 1
    P = np.exp(log_K + f[:, None] + g[None, :])
    return np.sum(P * C)


def gmm_loglik(means, log_w, log_s, x):
    lw = log_w - np.log(np.sum(np.exp(log_w)))
    s = np.exp(log_s)
    comp = lw[None, :] - 0.5 * ((x[:, None] - means[None, :]) / s[None, :]) ** 2 - np.log(s)[None, :] - 0.5 * np.log(2 * np.pi)
    m = comp.max(axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.exp(comp - m).sum(axis=1)))


def chebyshev(c, x):
    T_prev = np.ones_like(x)
    T = x
    s = c[0] * T_prev + c[1] * T
    for n in range(2, len(c)):
        T_prev, T = T, 2 * x * T - T_prev
        s = s + c[n] * T
    return np.sum(s ** 2)


def adaptive_rk(y0, k):
    t, y, h = 0.0, y0, 0.1
    T = 1.0
    while t < T:
        h = min(h, T - t)
        k1 = -k * y
        k2 = -k * (y + h * k1)
        y_euler = y + h * k1
        y_heun = y + 0.5 * h * (k1 + k2)
        err = abs(y_heun - y_euler)
        if err < 1e-4 or h < 1e-3:
            t = t + h
            y = y_heun
        h = 0.9 * h * min(2.0, max(0.2, (1e-4 / (err + 1e-12)) ** 0.5))
    return y


def bisect_then_newton(c):
    lo, hi = 0.0, 3.0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        if mid ** 3 - c > 0:
            hi = mid
        else:
            lo = mid
    x = 0.5 * (lo + hi)
    for _ in range(3):
        x = x - (x ** 3 - c) / (3 * x ** 2)
    return x


def gp_condition(X, y, ell):
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2 / ell ** 2) + 1e-2 * np.eye(len(X))
    train = np.array([0, 2, 3])
    test = np.array([1, 4])
    Ktt = K[np.ix_(train, train)]
    Kst = K[np.ix_(test, train)]
    mu = Kst @ np.linalg.solve(Ktt, y[train])
    return np.sum((mu - y[test]) ** 2)


def flag_break(X):
    found = False
    acc = 0.0
    for row in X:
        for v in row:
            acc = acc + v ** 2
            if acc > 2.0:
                found = True
                break
        if found:
            break
        acc = acc * 1.1
    return acc


def gauss_pivot_solve(A, b):
    A = A.copy()
    b = b.copy()
    n = len(b)
    for k in range(n - 1):
        p = k + int(np.argmax(np.abs(A[k:, k])))
        if p != k:
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            m = A[i, k] / A[k, k]
            A[i, k:] = A[i, k:] - m * A[k, k:]
            b[i] = b[i] - m * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    return np.sum(x ** 2)


def gauss_seidel(A, b):
    x = np.zeros_like(b)
    n = len(b)
    for _ in range(15):
        for i in range(n):
            s = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (b[i] - s) / A[i, i]
    return np.sum(x ** 2)


def robot_arm(angles, lengths):
    T = np.eye(3)
    points = []
    for th, L in zip(angles, lengths):
        c, s = np.cos(th), np.sin(th)
        step = np.array([[c, -s, L * c], [s, c, L * s], [0.0, 0.0, 1.0]])
        T = T @ step
        points.append(T[:2, 2])
    tip = points[-1]
    return np.sum((tip - np.array([1.0, 1.0])) ** 2) + 0.1 * sum(np.sum(p ** 2) for p in points)


def multi_head(X, Wq, Wk, Wv):
    n, d = X.shape
    h = 2
    Q = (X @ Wq).reshape(n, h, d // h).transpose(1, 0, 2)
    K = (X @ Wk).reshape(n, h, d // h).transpose(1, 0, 2)
    V = (X @ Wv).reshape(n, h, d // h).transpose(1, 0, 2)
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(d // h)
    S = S - S.max(axis=-1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=-1, keepdims=True)
    O = (A @ V).transpose(1, 0, 2).reshape(n, d)
    return np.sum(O ** 2)


_R = np.random.default_rng(7)
_M = _R.normal(size=(4, 4))
_SPD = _M @ _M.T + 4 * np.eye(4)
_T = np.linspace(0, 2, 5)

CASES = [
    (rk4_integrate, (np.array([1.0, 0.2]), 2.0), True),
    (leapfrog, (_R.normal(size=3), _R.normal(size=3), 1.3, 7), False),
    (verlet, (_R.normal(size=4), _R.normal(size=4)), True),
    (newton_root, (2.0, 5.0), True),
    (kalman_step, (_R.normal(size=2), np.eye(2) * 0.5 + 0.1, _R.normal(size=1), np.array([[1.0, 0.1], [0.0, 1.0]]),
                   np.array([[1.0, 0.3]]), 0.01 * np.eye(2), np.array([[0.2]])), False),
    (attention, (_R.normal(size=(4, 3)), _R.normal(size=(4, 3)), _R.normal(size=(4, 2))), False),
    (layer_norm, (_R.normal(size=(3, 4)), _R.normal(size=4), _R.normal(size=4)), True),
    (gru, (_R.normal(size=(3, 2)), _R.normal(size=(3, 5)), _R.normal(size=(3, 5)), _R.normal(size=(3, 5))), False),
    (soft_kmeans, (_R.normal(size=(6, 2)), _R.normal(size=(3, 2)), 1.5), True),
    (gp_nll_chol, (0.1, _R.normal(size=5), _R.normal(size=5)), True),
    (huber, (np.array([0.3, -2.0, 1.7, -0.1]),), True),
    (heat_2d, (_R.normal(size=(5, 5)), 0.8), False),
    (aug_sub, (_R.normal(size=(3, 4)),), True),
    (lennard_jones, (np.array([[0.0, 0.0], [1.1, 0.1], [0.3, 1.2], [1.4, 1.3]]),), True),
    (gram_schmidt, (_R.normal(size=(4, 3)),), True),
    (hmm_forward, (np.log(np.array([0.6, 0.4])), _R.normal(size=(2, 2)), _R.normal(size=(2, 3)), [0, 2, 1, 1]), False),
    (black_scholes, (100.0, 95.0, 0.5, 0.02, 0.25), True),
    (discounted_returns, (_R.normal(size=6), 0.9), True),
    (tridiag_solve, (_R.normal(size=5), 4 + _R.random(5), _R.normal(size=5), _R.normal(size=5)), False),
    (lu_nopivot, (_R.normal(size=(3, 3)) + 4 * np.eye(3),), True),
    (conv2d_valid, (_R.normal(size=(5, 5)), _R.normal(size=(2, 2))), False),
    (adam_unrolled, (_R.normal(size=3), _R.normal(size=(6, 3)), _R.normal(size=6)), False),
    (pair_forces, (_R.normal(size=(4, 2)) * 2,), True),
    (burgers_upwind, (np.sin(np.linspace(0, 3, 8)) + 0.05, 0.05), False),
    (fem_compliance, (1.0 + _R.random(5),), True),
    (sinkhorn, (np.array([0.2, 0.5, 0.3]), np.array([0.1, 0.4, 0.3, 0.2]), _R.random((3, 4)), 0.5), False),
    (gmm_loglik, (_R.normal(size=3), _R.normal(size=3), _R.normal(size=3) * 0.3, _R.normal(size=6)), True),
    (chebyshev, (_R.normal(size=5), _R.normal(size=3) * 0.5), True),
    (adaptive_rk, (1.0, 2.0), False),
    (bisect_then_newton, (2.0,), True),
    (gp_condition, (np.linspace(0, 2, 5), _R.normal(size=5), 0.8), False),
    (flag_break, (np.array([[0.3, 0.5, 0.2], [0.9, 1.0, 0.7], [0.1, 0.1, 0.1]]),), True),
    (gauss_pivot_solve, (_R.normal(size=(4, 4)), _R.normal(size=4)), True),
    (gauss_seidel, (_SPD, _R.normal(size=4)), True),
    (robot_arm, (_R.normal(size=3), np.array([1.0, 0.8, 0.5])), True),
    (multi_head, (_R.normal(size=(3, 4)), _R.normal(size=(4, 4)), _R.normal(size=(4, 4)), _R.normal(size=(4, 4))), False),
]
