"""Scientific, statistical and Python-shaped programs as people write them (n-body
stepping, explicit PDE stepping with slice writes, Runge-Kutta stages, root finding with
`while` and `break`, splines, mixtures, dynamic programming in log space, optimizers
unrolled in a loss, dataclasses and NamedTuples of arrays, star-unpacking, `np.add.at`,
`np.ix_`, `np.put_along_axis`), from a hunt for wrong derivatives; `hunt_science.py` runs
every transform on each, `test_hunt_science.py` checks them against central differences,
in forward mode and on the second (specialized) call.

`CASES`: (area, function, arguments, options) as in numerics_programs.py: `hess` checks
the Hessian of the first differentiated argument too, `jax=False` one JAX cannot run
(writes in place, Python-only types). `REFUSED`: (function, arguments, what the error
says) of programs srcgrad refuses."""

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

try:  # the programs that call SciPy run where it is installed (it is no dependency of srcgrad)
    import scipy.special as _sps
except ImportError:
    _sps = None

_R = np.random.default_rng(11)

# --- 1. physics and numerical methods ---------------------------------------------------


def nbody_leapfrog(pos, vel, masses):
    """Kick-drift-kick with pairwise softened gravity; the energy at the end."""
    n = pos.shape[0]
    dt = 0.01
    p = pos.copy()
    v = vel.copy()

    def accel(p):
        a = np.zeros_like(p)
        for i in range(n):
            for j in range(n):
                if i != j:
                    d = p[j] - p[i]
                    r2 = d @ d + 0.01
                    a[i] = a[i] + masses[j] * d / r2 ** 1.5
        return a

    a = accel(p)
    for step in range(3):
        v = v + 0.5 * dt * a
        p = p + dt * v
        a = accel(p)
        v = v + 0.5 * dt * a
    kinetic = 0.5 * np.sum(masses[:, None] * v ** 2)
    potential = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            potential -= masses[i] * masses[j] / np.sqrt(np.sum((p[i] - p[j]) ** 2) + 0.01)
    return kinetic + potential


def velocity_verlet_spring(x0, v0, k):
    x, v = x0, v0
    dt = 0.05
    a = -k * x
    traj = []
    for _ in range(10):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = -k * x
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
        traj.append(x)
    return sum(t * t for t in traj) + v * v


def heat_explicit(u0, kappa):
    u = u0.copy()
    r = kappa * 0.2
    for _ in range(8):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2) + u[len(u) // 2]


def heat_2d_neumann(u0, alpha):
    u = u0.copy()
    for _ in range(4):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        u = u + alpha * lap
        u[0, :] = u[1, :]
        u[-1, :] = u[-2, :]
        u[:, 0] = u[:, 1]
        u[:, -1] = u[:, -2]
    return np.mean(u ** 3)


def wave_equation(u0, c):
    prev = u0.copy()
    cur = u0.copy()
    c2 = (c * 0.5) ** 2
    for _ in range(6):
        nxt = np.empty_like(cur)
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + c2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        nxt[0] = 0.0
        nxt[-1] = 0.0
        prev, cur = cur, nxt
    return np.sum(cur * np.arange(len(cur)))


def rk4_lotka_volterra(y0, params):
    a, b, c, d = params

    def f(y):
        return np.array([a * y[0] - b * y[0] * y[1], d * y[0] * y[1] - c * y[1]])

    y = y0
    h = 0.1
    for _ in range(5):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] + 2 * y[1]


def rk_tableau(y0, lam):
    """A general explicit Runge-Kutta driven by a Butcher tableau held in lists."""
    A = [[], [0.5], [0.0, 0.5], [0.0, 0.0, 1.0]]
    b = [1 / 6, 1 / 3, 1 / 3, 1 / 6]
    c = [0.0, 0.5, 0.5, 1.0]
    y, t, h = y0, 0.0, 0.2
    for _ in range(4):
        ks = []
        for i in range(4):
            yi = y + h * sum(aij * kj for aij, kj in zip(A[i], ks))
            ks.append(-lam * yi * (1.0 + t + c[i] * h))
        y = y + h * sum(bi * ki for bi, ki in zip(b, ks))
        t += h
    return np.sum(y ** 2)


def shooting_projectile(v0, angle):
    """Integrates until the projectile falls below the ground; the range reached."""
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    dt = 0.01
    drag = 0.1
    while True:
        speed = math.sqrt(vx * vx + vy * vy)
        vx = vx - drag * speed * vx * dt
        vy = vy - (9.81 + drag * speed * vy) * dt
        x += vx * dt
        y += vy * dt
        if y < 0:
            break
    return x


def gauss_seidel(A, b):
    n = len(b)
    x = np.zeros(n)
    for sweep in range(6):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s = s - A[i, j] * x[j]
            x[i] = s / A[i, i]
    return np.sum(x ** 2) + x[0]


def jacobi_vectorized(A, b):
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for _ in range(10):
        x = (b - R @ x) / D
    return x @ x


def sor_sweeps(A, b, omega):
    n = len(b)
    x = np.ones(n)
    for _ in range(4):
        for i in range(n):
            sigma = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i]
    return np.sum(x)


def natural_cubic_spline(xs, ys, t):
    """Natural cubic spline through (xs, ys) by the tridiagonal (Thomas) algorithm,
    evaluated at the points `t`."""
    n = len(xs)
    h = np.diff(xs)
    alpha = np.zeros(n)
    for i in range(1, n - 1):
        alpha[i] = 3 / h[i] * (ys[i + 1] - ys[i]) - 3 / h[i - 1] * (ys[i] - ys[i - 1])
    l = np.ones(n)
    mu = np.zeros(n)
    z = np.zeros(n)
    for i in range(1, n - 1):
        l[i] = 2 * (xs[i + 1] - xs[i - 1]) - h[i - 1] * mu[i - 1]
        mu[i] = h[i] / l[i]
        z[i] = (alpha[i] - h[i - 1] * z[i - 1]) / l[i]
    c = np.zeros(n)
    b = np.zeros(n - 1)
    d = np.zeros(n - 1)
    for j in range(n - 2, -1, -1):
        c[j] = z[j] - mu[j] * c[j + 1]
        b[j] = (ys[j + 1] - ys[j]) / h[j] - h[j] * (c[j + 1] + 2 * c[j]) / 3
        d[j] = (c[j + 1] - c[j]) / (3 * h[j])
    out = 0.0
    for tk in t:
        j = int(np.searchsorted(xs, tk)) - 1
        j = min(max(j, 0), n - 2)
        dx = tk - xs[j]
        out += ys[j] + b[j] * dx + c[j] * dx ** 2 + d[j] * dx ** 3
    return out


def horner_poly(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return np.sum(result)


def horner_reversed_deriv(coeffs, x):
    """p(x) and p'(x) together by Horner, over the coefficients reversed."""
    p, dp = 0.0, 0.0
    for c in reversed(list(coeffs)):
        dp = dp * x + p
        p = p * x + c
    return p + 0.5 * dp


def bisection_root(a):
    """The root of x**3 - a in [0, 4] by bisection; the gradient flows only through the
    final midpoint (zero almost everywhere), so the value times a smooth term."""
    lo, hi = 0.0, 4.0
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if mid ** 3 - a > 0:
            hi = mid
        else:
            lo = mid
    return a * a + lo * 0.0


def secant_sqrt(a):
    x0, x1 = 1.0, 2.0
    for it in range(50):
        f0 = x0 * x0 - a
        f1 = x1 * x1 - a
        if abs(f1 - f0) < 1e-300:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        x0, x1 = x1, x2
        if abs(x1 - x0) < 1e-14:
            break
    return x1


def newton_kepler(M, e):
    """Kepler's equation E - e sin E = M by Newton with a tolerance test."""
    E = M
    while True:
        step = (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
        E = E - step
        if abs(step) < 1e-13:
            break
    return E


def fixed_point_cos(a):
    x = 0.5
    for _ in range(200):
        x_new = np.cos(a * x)
        if abs(x_new - x) < 1e-15:
            x = x_new
            break
        x = x_new
    return x


def trapezoid_integral(params):
    a, b = params[0], params[1]
    xs = np.linspace(0.0, 1.0, 21)
    ys = np.exp(-a * xs ** 2) * np.cos(b * xs)
    return np.sum((ys[1:] + ys[:-1]) * np.diff(xs)) / 2


def simpson_loop(w):
    n = 10
    h = 1.0 / n
    total = 0.0
    for i in range(n + 1):
        x = i * h
        fx = math.sin(w * x) / (1 + x * x)
        if i == 0 or i == n:
            total += fx
        elif i % 2 == 1:
            total += 4 * fx
        else:
            total += 2 * fx
    return total * h / 3


def finite_difference_stencil(u):
    """Second derivative by a 5-point stencil written with np.roll on a periodic grid."""
    h = 0.1
    d2 = (-np.roll(u, 2) + 16 * np.roll(u, 1) - 30 * u + 16 * np.roll(u, -1) - np.roll(u, -2)) / (12 * h * h)
    return np.sum(d2 ** 2) * h


def advection_upwind(u0, c):
    u = u0.copy()
    for _ in range(5):
        if c > 0:
            u[1:] -= c * (u[1:] - u[:-1])
        else:
            u[:-1] -= c * (u[1:] - u[:-1])
    return np.sum(u * u)


def pendulum_energy_drift(theta0, omega0):
    th, om = theta0, omega0
    h = 0.05
    energies = []
    for _ in range(8):
        om_half = om - 0.5 * h * math.sin(th)
        th = th + h * om_half
        om = om_half - 0.5 * h * math.sin(th)
        energies.append(0.5 * om * om - math.cos(th))
    return max(energies) - min(energies)


def spring_chain_forces(x, k):
    """Forces of a chain of springs accumulated into an array with np.add.at."""
    n = len(x)
    i = np.arange(n - 1)
    j = i + 1
    ext = x[j] - x[i] - 1.0
    f = np.zeros(n)
    np.add.at(f, i, k * ext)
    np.add.at(f, j, -k * ext)
    return np.sum(f ** 2)


def lennard_jones(pos):
    n = len(pos)
    energy = 0.0
    for i in range(n - 1):
        d = pos[i + 1:] - pos[i]
        r2 = np.sum(d * d, axis=1)
        inv6 = 1.0 / r2 ** 3
        energy += np.sum(4 * (inv6 * inv6 - inv6))
    return energy


# --- 2. statistics and machine learning ------------------------------------------------


def gmm_loglik(x, means, log_sigmas, logits):
    w = logits - np.max(logits)
    log_w = w - np.log(np.sum(np.exp(w)))
    sig = np.exp(log_sigmas)
    comp = (-0.5 * ((x[:, None] - means[None, :]) / sig) ** 2 - np.log(sig) - 0.5 * np.log(2 * np.pi) + log_w)
    m = np.max(comp, axis=1, keepdims=True)
    ll = m[:, 0] + np.log(np.sum(np.exp(comp - m), axis=1))
    return np.sum(ll)


def huber_and_quantile(pred, y):
    r = pred - y
    delta = 1.0
    huber = np.where(np.abs(r) <= delta, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta))
    tau = 0.3
    pinball = np.where(r >= 0, tau * r, (tau - 1) * r)
    return np.mean(huber) + np.mean(pinball)


def soft_kmeans(X, centers):
    beta = 2.0
    d2 = np.sum((X[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
    logits = -beta * d2
    logits = logits - logits.max(axis=1, keepdims=True)
    resp = np.exp(logits)
    resp /= resp.sum(axis=1, keepdims=True)
    new_centers = (resp.T @ X) / resp.sum(axis=0)[:, None]
    return np.sum(resp * d2) + 0.1 * np.sum(new_centers ** 2)


def batch_norm_running(x, gamma, beta):
    state = {"mean": np.zeros(x.shape[1]), "var": np.ones(x.shape[1]), "momentum": 0.1}
    out = 0.0
    for step in range(3):
        xb = x * (1.0 + 0.1 * step)
        mu = xb.mean(axis=0)
        var = xb.var(axis=0)
        state["mean"] = (1 - state["momentum"]) * state["mean"] + state["momentum"] * mu
        state["var"] = (1 - state["momentum"]) * state["var"] + state["momentum"] * var
        y = gamma * (xb - mu) / np.sqrt(var + 1e-5) + beta
        out = out + np.sum(y ** 3)
    infer = gamma * (x - state["mean"]) / np.sqrt(state["var"] + 1e-5) + beta
    return out + np.sum(infer ** 2)


def masked_attention(q, k, v):
    T = q.shape[0]
    s = q @ k.T / np.sqrt(q.shape[1])
    mask = np.tril(np.ones((T, T), dtype=bool))
    s = np.where(mask, s, -np.inf)
    s = s - np.max(s, axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / np.sum(p, axis=-1, keepdims=True)
    return np.sum((p @ v) ** 2)


def padding_mask_attention(x, W):
    lengths = [3, 2]
    B, T, D = x.shape
    valid = np.arange(T)[None, :] < np.array(lengths)[:, None]
    h = x @ W
    scores = np.einsum("btd,bsd->bts", h, h)
    scores = np.where(valid[:, None, :], scores, -1e9)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True)
    out = w @ x
    return np.sum(out[valid] ** 2)


def maml_adam_inner(w, X, y):
    """Meta-learning: three Adam steps on a least-squares loss unrolled inside the loss,
    the analytic gradient written out; the loss after the steps."""
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    b1, b2, lr, eps = 0.9, 0.999, 0.1, 1e-8
    theta = w
    for t in range(1, 4):
        r = X @ theta - y
        g = X.T @ r / len(y)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        theta = theta - lr * mhat / (np.sqrt(vhat) + eps)
    r = X @ theta - y
    return 0.5 * np.mean(r ** 2)


def sgd_momentum_clip(w, X, y):
    vel = np.zeros_like(w)
    for _ in range(4):
        g = X.T @ (np.tanh(X @ w) - y)
        norm = np.sqrt(np.sum(g ** 2))
        if norm > 1.0:
            g = g / norm
        vel = 0.9 * vel + g
        w = w - 0.1 * vel
    return np.sum((np.tanh(X @ w) - y) ** 2)


def cosine_triplet(anchor, pos, neg):
    def cos(a, b):
        return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))

    margin = 0.5
    loss = np.maximum(0.0, cos(anchor, neg) - cos(anchor, pos) + margin)
    return loss + 0.1 * np.sum((anchor - pos) ** 2)


def triplet_batch(emb):
    d = np.sum((emb[:, None, :] - emb[None, :, :]) ** 2, axis=-1)
    total = 0.0
    for a, p, q in [(0, 1, 2), (1, 0, 3), (2, 3, 0)]:
        total += np.logaddexp(0.0, d[a, p] - d[a, q] + 1.0)
    return total / 3


def ctc_like_forward(log_probs):
    """A CTC-style alignment DP filled in a table with loops (blank = 0, label 1 2 1)."""
    labels = [1, 2, 1]
    ext = [0]
    for l in labels:
        ext += [l, 0]
    T = log_probs.shape[0]
    S = len(ext)
    alpha = np.full((T, S), -np.inf)
    alpha[0, 0] = log_probs[0, ext[0]]
    alpha[0, 1] = log_probs[0, ext[1]]
    for t in range(1, T):
        for s in range(S):
            a = alpha[t - 1, s]
            if s >= 1:
                a = np.logaddexp(a, alpha[t - 1, s - 1])
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2]:
                a = np.logaddexp(a, alpha[t - 1, s - 2])
            alpha[t, s] = a + log_probs[t, ext[s]]
    return np.logaddexp(alpha[T - 1, S - 1], alpha[T - 1, S - 2])


def hmm_forward_log(log_pi, log_A, log_B):
    obs = [0, 1, 1, 0, 2]
    la = log_pi + log_B[:, obs[0]]
    for o in obs[1:]:
        m = np.max(la)
        la = m + np.log(np.exp(la - m) @ np.exp(log_A)) + log_B[:, o]
    m = la.max()
    return m + np.log(np.sum(np.exp(la - m)))


def viterbi_score(log_A, emissions):
    T, K = emissions.shape
    score = emissions[0].copy()
    back = []
    for t in range(1, T):
        cand = score[:, None] + log_A
        best = np.argmax(cand, axis=0)
        back.append(best)
        score = cand[best, np.arange(K)] + emissions[t]
    last = int(np.argmax(score))
    path = [last]
    for b in reversed(back):
        path.append(int(b[path[-1]]))
    return score[last] + 0.01 * sum(path)


def logistic_l2_dataset(w, X, y):
    z = X @ w
    nll = np.sum(np.logaddexp(0.0, z) - y * z)
    return nll + 0.5 * 0.1 * w @ w


def focal_loss(logits, y):
    p = 1 / (1 + np.exp(-logits))
    pt = np.where(y == 1, p, 1 - p)
    alpha = np.where(y == 1, 0.25, 0.75)
    return -np.sum(alpha * (1 - pt) ** 2 * np.log(pt))


def label_smoothing_ce(logits, targets):
    K = logits.shape[1]
    eps = 0.1
    onehot = np.eye(K)[targets]
    soft = onehot * (1 - eps) + eps / K
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -np.mean(np.sum(soft * logp, axis=1))


def layer_norm_mlp(x, W1, W2):
    h = x @ W1
    mu = h.mean(-1, keepdims=True)
    sd = np.sqrt(((h - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    h = (h - mu) / sd
    h = h * 0.5 * (1 + np.tanh(0.79788456 * (h + 0.044715 * h ** 3)))
    return np.sum((h @ W2) ** 2)


def contrastive_infonce(za, zb):
    za = za / np.linalg.norm(za, axis=1, keepdims=True)
    zb = zb / np.linalg.norm(zb, axis=1, keepdims=True)
    logits = za @ zb.T / 0.5
    n = len(za)
    lse = np.log(np.sum(np.exp(logits), axis=1))
    return np.mean(lse - logits[np.arange(n), np.arange(n)])


def kde_loglik(x, data):
    h = 0.5
    diffs = (x[:, None] - data[None, :]) / h
    dens = np.mean(np.exp(-0.5 * diffs ** 2), axis=1) / (h * np.sqrt(2 * np.pi))
    return np.sum(np.log(dens))


def ewma_volatility(returns, lam):
    var = returns[0] ** 2
    out = []
    for r in returns[1:]:
        var = lam * var + (1 - lam) * r * r
        out.append(np.sqrt(var))
    return sum(out)


def ar_process_nll(phi, x):
    resid = x[2:] - phi[0] * x[1:-1] - phi[1] * x[:-2]
    s2 = np.mean(resid ** 2)
    return 0.5 * len(resid) * np.log(s2)


def poisson_regression(beta, X, counts):
    eta = X @ beta
    return np.sum(np.exp(eta) - counts * eta)


def robust_median_of_means(x):
    groups = np.split(x, 3)
    means = sorted([np.mean(g) for g in groups])
    return means[1] ** 2 + np.sum(x) * 0.01


def pca_reconstruction(X, W):
    Xc = X - X.mean(axis=0)
    Z = Xc @ W
    R = Z @ W.T
    return np.sum((Xc - R) ** 2)


def weighted_least_squares(beta, X, y, w):
    r = y - X @ beta
    return np.sum(w * r ** 2) / np.sum(w)


# --- 3. Python shapes ------------------------------------------------------------------


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    act: str = "tanh"


def dataclass_network(W1, b1, W2, b2):
    layers = [Layer(W1, b1), Layer(W2, b2, act="linear")]
    h = np.array([0.3, -0.2, 0.5])
    for layer in layers:
        h = layer.W @ h + layer.b
        if layer.act == "tanh":
            h = np.tanh(h)
    return np.sum(h ** 2)


class Gaussian(NamedTuple):
    mu: np.ndarray
    log_sigma: np.ndarray


def namedtuple_kl(mu, log_sigma):
    q = Gaussian(mu, log_sigma)
    p = Gaussian(np.zeros_like(mu), np.zeros_like(log_sigma))
    var_q = np.exp(2 * q.log_sigma)
    var_p = np.exp(2 * p.log_sigma)
    kl = p.log_sigma - q.log_sigma + (var_q + (q.mu - p.mu) ** 2) / (2 * var_p) - 0.5
    return np.sum(kl)


def namedtuple_replace(mu, log_sigma):
    g = Gaussian(mu, log_sigma)
    g = g._replace(mu=g.mu * 2.0)
    mu2, ls2 = g
    return np.sum(mu2 * np.exp(ls2))


def dict_of_lists(x):
    buckets = {"pos": [], "neg": []}
    for v in x:
        key = "pos" if v > 0 else "neg"
        buckets[key].append(v * v)
    return sum(buckets["pos"]) - 2.0 * sum(buckets["neg"])


def sum_generator_min_key(x):
    pairs = [(x[i], x[i + 1]) for i in range(len(x) - 1)]
    best = min(pairs, key=lambda p: p[0] * p[1])
    worst = max(pairs, key=lambda p: p[0] + p[1])
    return sum(a * b for a, b in pairs) + best[0] * best[1] + worst[1]


def any_all_guard(x):
    total = np.sum(x ** 2)
    if any(v > 5.0 for v in x):
        total = total * 0.0
    if all(v > -5.0 for v in x):
        total = total + np.prod(x)
    return total


def nested_comprehension(A):
    n, m = A.shape
    vals = [A[i, j] * A[j, i] for i in range(n) for j in range(m) if i < j and j < n]
    rows = [[A[i, j] ** 2 for j in range(m) if j % 2 == 0] for i in range(n)]
    return sum(vals) + sum(sum(r) for r in rows)


def zip_star_transpose(a, b, c):
    lists = [[a, b], [b * c, a * c], [c, a + b]]
    cols = list(zip(*lists))
    return sum(x * y for x, y in zip(cols[0], cols[1])) + math.fsum([a * a, b * b])


def star_unpacking(x):
    first, *middle, last = x
    head, *tail = sorted([first, last, x[1] * 2.0])
    return first * last + sum(m ** 2 for m in middle) + head * sum(tail)


def tree_recursion(x):
    def reduce(v, depth):
        if depth == 0:
            return np.sum(v ** 2)
        half = len(v) // 2
        return reduce(v[:half], depth - 1) * reduce(v[half:], depth - 1) + 0.1 * np.sum(v)

    return reduce(x, 2)


CONFIG = {"activation": "softplus", "l2": 0.01, "layers": 2}


def string_keyed_config(w, x):
    h = x
    for _ in range(CONFIG["layers"]):
        h = h @ w
        if CONFIG["activation"] == "relu":
            h = np.maximum(h, 0)
        elif CONFIG["activation"] == "softplus":
            h = np.log1p(np.exp(h))
    return np.sum(h) + CONFIG["l2"] * np.sum(w ** 2)


def _scaled_loss(x, *, scale=2.0, offset=0.5, power=2):
    return scale * np.sum((x - offset) ** power)


def keyword_only_defaults(x, y):
    return _scaled_loss(x) + _scaled_loss(y, scale=0.5, power=3) + _scaled_loss(x * y, offset=y[0])


def _sum_of_products(*args):
    total = 1.0
    for a in args:
        total = total * np.sum(a)
    return total


def varargs_products(x, y):
    parts = [x, y, x * y]
    return _sum_of_products(*parts) + _sum_of_products(x ** 2) + _sum_of_products()


_BASIS = np.array([[1.0, 0.5, -0.2], [0.0, 1.0, 0.3], [0.2, -0.1, 1.0]])


def global_basis(c):
    v = _BASIS @ c
    return np.sum(np.sin(v)) + v @ _BASIS[0]


def inplace_slice_add(x):
    y = np.zeros(6)
    y[:3] += x
    y[2:5] += 2 * x
    y[::2] *= 1.5
    y[-1] -= x[0] * x[1]
    return np.sum(y ** 2)


def add_at_histogram(weights, values):
    bins = np.array([0, 2, 1, 2, 0, 1])
    hist = np.zeros(3)
    np.add.at(hist, bins, weights * values)
    return np.sum(hist ** 2) + hist[2] * hist[0]


def fancy_boolean_rw(x):
    y = x.copy()
    idx = np.array([0, 3, 3, 1])
    y[y > 0.5] = y[y > 0.5] ** 2
    z = y[idx] * 2.0
    y[[1, 2]] = z[:2]
    return np.sum(y * z[-1]) + np.sum(z ** 2)


def ix_block(A, B):
    rows = [0, 2]
    cols = np.array([1, 2])
    sub = A[np.ix_(rows, cols)]
    C = B.copy()
    C[np.ix_(rows, cols)] = sub * 2 + C[np.ix_(rows, cols)]
    return np.sum(C ** 2) + np.sum(sub)


def take_put_along(A):
    order = np.argsort(A, axis=1)
    s = np.take_along_axis(A, order, axis=1)
    out = np.zeros_like(A)
    np.put_along_axis(out, order, s * np.arange(A.shape[1]), axis=1)
    return np.sum(out * A) + np.sum(np.take(A, [0, 4, 5]))


def int_float_mix(x):
    counts = np.array([1, 2, 3, 4])
    idx = counts % 3
    y = x * counts + x[idx] / counts
    return np.sum(y ** 2) + int(counts.sum()) * x[0]


def float32_mlp(W, x):
    h = np.tanh(W @ x)
    return np.sum(h * h) + np.float32(0.5) * np.sum(W ** 2)



# --- 4. more science and learning ------------------------------------------------------


def gae_advantages(values, rewards):
    """Generalized advantage estimation, filled backwards in time."""
    gamma, lam = 0.99, 0.95
    T = len(rewards)
    adv = np.zeros(T)
    last = 0.0
    for t in reversed(range(T)):
        next_value = values[t + 1] if t + 1 < T else 0.0
        delta = rewards[t] + gamma * next_value - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    returns = adv + values
    return np.sum(adv ** 2) + 0.5 * np.sum((returns - values) ** 2)


def policy_gradient(logits, advantages):
    actions = np.array([0, 2, 1, 2])
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    chosen = logp[np.arange(len(actions)), actions]
    entropy = -np.sum(np.exp(logp) * logp, axis=1)
    return -np.mean(chosen * advantages) - 0.01 * np.mean(entropy)


def discounted_returns(rewards, gamma):
    out = []
    running = 0.0
    for r in rewards[::-1]:
        running = r + gamma * running
        out.append(running)
    return np.sum(np.array(out[::-1]) * np.arange(1, len(rewards) + 1))


def sinkhorn(cost, eps):
    n, m = cost.shape
    a = np.full(n, 1.0 / n)
    b = np.full(m, 1.0 / m)
    K = np.exp(-cost / eps)
    u = np.ones(n)
    for _ in range(20):
        v = b / (K.T @ u)
        u = a / (K @ v)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * cost)


def sinkhorn_log(cost, eps):
    n, m = cost.shape
    log_a = np.log(np.full(n, 1.0 / n))
    log_b = np.log(np.full(m, 1.0 / m))
    f = np.zeros(n)
    g = np.zeros(m)
    for _ in range(15):
        M = (f[:, None] + g[None, :] - cost) / eps
        mx = M.max(axis=0)
        g = g + eps * (log_b - mx - np.log(np.exp(M - mx).sum(axis=0)))
        M = (f[:, None] + g[None, :] - cost) / eps
        mx = M.max(axis=1)
        f = f + eps * (log_a - mx - np.log(np.exp(M - mx[:, None]).sum(axis=1)))
    return f.mean() + g.mean()


def newton_2d(p):
    """Newton's method on a 2-D system with np.linalg.solve inside the loop."""
    x = np.array([1.0, 1.0])
    for _ in range(6):
        F = np.array([x[0] ** 2 + x[1] ** 2 - p[0], x[0] - x[1] * p[1]])
        J = np.array([[2 * x[0], 2 * x[1]], [1.0, -p[1]]])
        x = x - np.linalg.solve(J, F)
    return x[0] * x[1]


def conjugate_gradient(A, b):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    k = 0
    while k < len(b) and rs > 1e-30:
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        k += 1
    return x @ b


def expm_taylor(A):
    """exp(A) by scaling and squaring a truncated Taylor series."""
    s = 3
    X = A / 2 ** s
    E = np.eye(len(A))
    term = np.eye(len(A))
    for k in range(1, 10):
        term = term @ X / k
        E = E + term
    for _ in range(s):
        E = E @ E
    return np.trace(E) + E[0, 1]


def chebyshev_series(c, x):
    T = [np.ones_like(x), x]
    for n in range(2, len(c)):
        T.append(2 * x * T[-1] - T[-2])
    return np.sum(sum(ck * Tk for ck, Tk in zip(c, T)) ** 2)


def romberg(w):
    def f(x):
        return math.exp(-w * x * x)

    R = [[0.0] * 4 for _ in range(4)]
    h = 1.0
    R[0][0] = 0.5 * h * (f(0.0) + f(1.0))
    for i in range(1, 4):
        h /= 2
        R[i][0] = 0.5 * R[i - 1][0] + h * sum(f((2 * k - 1) * h) for k in range(1, 2 ** (i - 1) + 1))
        for j in range(1, i + 1):
            R[i][j] = R[i][j - 1] + (R[i][j - 1] - R[i - 1][j - 1]) / (4 ** j - 1)
    return R[3][3]


def _simpson(w, a, b):
    c = 0.5 * (a + b)
    return (b - a) / 6 * (math.sin(w * a) ** 2 + 4 * math.sin(w * c) ** 2 + math.sin(w * b) ** 2)


def _adapt(w, a, b, whole, tol, depth):
    c = 0.5 * (a + b)
    left, right = _simpson(w, a, c), _simpson(w, c, b)
    if depth <= 0 or abs(left + right - whole) <= 15 * tol:
        return left + right + (left + right - whole) / 15
    return _adapt(w, a, c, left, tol / 2, depth - 1) + _adapt(w, c, b, right, tol / 2, depth - 1)


def adaptive_simpson(w):
    """Adaptive Simpson's rule: the recursion depth depends on the error estimate (a
    recursive helper at module level: a nested one reading `w` is refused)."""
    return _adapt(w, 0.0, 2.0, _simpson(w, 0.0, 2.0), 1e-6, 8)


def euler_maruyama(theta, noise):
    """An Ornstein-Uhlenbeck path driven by fixed increments."""
    mu, sigma = theta[0], theta[1]
    x = 1.0
    dt = 0.1
    path = [x]
    for dw in noise:
        x = x + 2.0 * (mu - x) * dt + sigma * math.sqrt(dt) * dw
        path.append(x)
    return sum(p * p for p in path) / len(path)


def metropolis_energy(x):
    """Metropolis steps with fixed proposals and uniforms: the accept decisions are fixed
    near this point, the energy of the kept states smooth."""
    props = [0.3, -0.2, 0.5, -0.4]
    us = [0.1, 0.9, 0.2, 0.95]
    cur = x
    total = 0.0
    for dx, u in zip(props, us):
        cand = cur + dx
        if math.exp(-(cand ** 2) + cur ** 2) > u:
            cur = cand
        total += cur ** 2
    return total


def ising_energy(s, J):
    return -J * np.sum(s * np.roll(s, 1, axis=0) + s * np.roll(s, 1, axis=1)) + 0.1 * np.sum(s ** 4)


def gru_unrolled(Wz, Wh, xs):
    h = np.zeros(Wz.shape[0])
    for x in xs:
        hx = np.concatenate([h, x])
        z = 1 / (1 + np.exp(-(Wz @ hx)))
        cand = np.tanh(Wh @ np.concatenate([z * h, x]))
        h = (1 - z) * h + z * cand
    return np.sum(h ** 2)


def lstm_gates_dict(W, xs):
    H = W.shape[0] // 4
    h, c = np.zeros(H), np.zeros(H)
    for x in xs:
        pre = W @ np.concatenate([x, h])
        gates = {name: pre[k * H:(k + 1) * H] for k, name in enumerate(["i", "f", "o", "g"])}
        i, f, o = (1 / (1 + np.exp(-gates[k])) for k in "ifo")
        g = np.tanh(gates["g"])
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum(h) + np.sum(c ** 2)


def conv1d_sliding(x, w):
    windows = np.lib.stride_tricks.sliding_window_view(x, len(w))
    y = windows @ w
    return np.sum(np.maximum(y, 0.1 * y) ** 2)


def conv2d_loops(img, k):
    H, W = img.shape
    kh, kw = k.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(kh):
        for j in range(kw):
            out += k[i, j] * img[i:i + H - kh + 1, j:j + W - kw + 1]
    pooled = out.reshape(out.shape[0] // 2, 2, out.shape[1] // 2, 2).max(axis=(1, 3))
    return np.sum(np.tanh(pooled))


def gumbel_softmax(logits, noise):
    tau = 0.7
    y = (logits + noise) / tau
    y = np.exp(y - y.max(axis=-1, keepdims=True))
    y = y / y.sum(axis=-1, keepdims=True)
    return np.sum(y * np.arange(y.shape[-1]))


def dropout_fixed_mask(W, x):
    mask = np.array([1.0, 0.0, 1.0, 1.0]) / 0.75
    h = np.tanh(W @ x) * mask
    return np.sum(h ** 2)


def positional_encoding(x):
    T, D = x.shape
    pos = np.arange(T)[:, None]
    i = np.arange(D)[None, :]
    angle = pos / 10000 ** (2 * (i // 2) / D)
    pe = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
    h = x + pe
    return np.sum(h ** 2 * np.linspace(0.5, 1.5, D))


def correlate_convolve(x, k):
    c = np.correlate(x, k, mode="valid")
    d = np.convolve(x, k[::-1], mode="same")
    return np.sum(c ** 2) + np.sum(d * x)


def interp_clip(x, lo):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    fp = np.array([0.0, 0.8, 0.9, 2.0])
    y = np.interp(np.clip(x, lo, 2.9), xp, fp)
    return np.sum(y ** 2)


def value_iteration(R, P):
    """Bellman backups with a max over actions (no ties at this point)."""
    V = np.zeros(R.shape[0])
    for _ in range(5):
        Q = R + 0.9 * np.einsum("asn,n->sa", P, V)
        V = Q.max(axis=1)
    return np.sum(V)


# --- 5. more Python shapes ---------------------------------------------------------------


def enumerate_zip_start(xs, ys):
    total = 0.0
    for k, (a, b) in enumerate(zip(xs, ys), start=1):
        total += k * a * b
    return total


def nested_unpacking(x):
    a, (b, c) = x[0], (x[1], x[2])
    (p, q), r = (a * b, b * c), c * a
    return p + q * r


def sum_with_start(vs):
    parts = [vs[i] * (i + 1.0) for i in range(vs.shape[0])]
    return np.sum(sum(parts, np.zeros(vs.shape[1])) ** 2)


def builtin_min_max_abs(x):
    a = max(x[0], x[1])
    b = min(x[2], x[3], x[0])
    c = abs(x[1] - x[2])
    return a * b + c ** 2


def early_return_in_loop(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] ** 2
        if total > 2.0:
            return total * x[i]
    return total


def while_else(x):
    k = 0
    acc = x
    while k < 5:
        acc = acc * 1.1 + 0.1 * np.sin(acc)
        if np.sum(acc) > 100.0:
            break
        k += 1
    else:
        acc = acc * 2.0
    return np.sum(acc ** 2)


def continue_nested(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if i == j:
                continue
            if A[i, j] < -1.5:
                continue
            s += A[i, j] * A[j % A.shape[0], i % A.shape[1]]
    return s


def lambda_table(x):
    ops = {"sq": lambda v: v ** 2, "sin": np.sin, "cube": lambda v: v * v * v}
    order = ["sin", "sq", "cube"]
    y = x
    for name in order:
        y = ops[name](y)
    return np.sum(y)


class Scaler:
    def __init__(self, scale, shift):
        self.scale = scale
        self.shift = shift

    @staticmethod
    def soft(v):
        return np.log1p(np.exp(v))

    @property
    def ratio(self):
        return self.scale / (1.0 + self.shift ** 2)

    def __call__(self, v):
        return self.soft(v * self.ratio + self.shift)


def callable_object(x, scale):
    f = Scaler(scale, 0.3)
    return np.sum(f(x) ** 2)


def callable_object_of_a_differentiated_value(scale, x):
    f = Scaler(scale, 0.3)  # a plain class made from a differentiated value: its attributes get no gradient
    return np.sum(f(x) ** 2)


def functools_reduce(xs):
    import functools

    return functools.reduce(lambda acc, v: acc * 0.5 + v ** 2, list(xs), 1.0)


def itertools_accumulate_product(x):
    import itertools

    partial = list(itertools.accumulate(x))
    pairs = sum(a * b for a, b in itertools.product(x[:2], x[2:]))
    return sum(p ** 2 for p in partial) + pairs


def sorted_key_lambda(x):
    items = [(x[i], i) for i in range(len(x))]
    ranked = sorted(items, key=lambda t: -t[0])
    return sum(v * (k + 1) for k, (v, _) in enumerate(ranked))


def dict_comprehension_items(x):
    d = {f"w{i}": x[i] * (i + 1) for i in range(len(x))}
    return sum(v ** 2 for k, v in sorted(d.items()) if k != "w1")


def assert_and_isinstance(x, y):
    assert x.shape == (3,)
    scale = 2.0 if isinstance(y, float) else 1.0
    return np.sum(x ** 2) * scale * y


def ravel_item_T(A):
    v = A.T.ravel()
    s = v[0].item() if False else v[0]
    return np.sum(v * np.arange(v.size)) + s * A.dot(A.T)[0, 1]


def mask_increment(x):
    y = x.copy()
    m = y > 0
    y[m] += 1.0
    y[~m] *= 0.5
    return np.sum(y ** 3)


def ix_accumulate(A):
    B = np.zeros((4, 4))
    idx = [0, 2, 3]
    B[np.ix_(idx, idx)] += A
    B[np.ix_([1], idx)] -= A[:1] * 2
    return np.sum(B ** 2) + np.trace(B)


def take_modes(x):
    a = np.take(x, [0, 5, -1, 7], mode="wrap")
    b = np.take(x, [0, 9, 2], mode="clip")
    return np.sum(a * b[:, None][:, 0].repeat(1)[:1]) + np.sum(a ** 2) + np.sum(b ** 3)


def add_at_2d(v):
    M = np.zeros((3, 3))
    rows = np.array([0, 1, 1, 2, 0])
    cols = np.array([1, 2, 2, 0, 1])
    np.add.at(M, (rows, cols), v)
    return np.sum(M @ M)


def float32_program(W, x):
    h = np.tanh(W @ x)
    h = h / np.sqrt(np.sum(h * h) + np.float32(1e-3))
    return np.sum(h[:2]) + np.float32(0.1) * np.sum(W * W)


def int_float_arrays(x):
    n = np.array([3, 1, 2])
    w = n / n.sum()
    y = x ** n + w * x
    return np.sum(y) + float(n[0]) * x[1]



# --- 6. more shapes: views, stacks, piecewise, special functions ------------------------


def running_max_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    dd = (peak - prices) / peak
    return np.sum(dd ** 2) + np.log(prices[-1] / prices[0])


def trimmed_mean(x):
    s = np.sort(x)
    k = len(x) // 5
    core = s[k:len(x) - k]
    return np.mean(core) ** 2 + np.var(core)


def pairwise_upper(X):
    n = X.shape[0]
    D = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1) + 1e-12)
    iu = np.triu_indices(n, 1)
    d = D[iu]
    return np.sum(np.exp(-d)) + np.einsum("ii->", D @ D.T)


def piecewise_select(x):
    y = np.select([x < -1.0, x < 1.0], [-(x + 1.0) ** 2, 0.5 * x ** 3], default=np.sqrt(np.abs(x)))
    return np.sum(y * np.heaviside(x + 2.0, 0.5))


def padded_stencil(u):
    p = np.pad(u, 1, mode="reflect")
    lap = p[2:] - 2 * p[1:-1] + p[:-2]
    q = np.pad(u, (2, 1), mode="edge")
    return np.sum(lap ** 2) + np.sum(q * np.arange(len(q)))


def negative_binomial_nll(log_mu, log_r, y):
    from scipy.special import gammaln

    mu = np.exp(log_mu)
    r = np.exp(log_r)
    ll = (gammaln(y + r) - gammaln(r) - gammaln(y + 1) + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return -np.sum(ll)


def expit_logit(z):
    from scipy.special import expit, logit

    p = expit(z)
    return np.sum(logit(0.5 * p + 0.25) ** 2) + np.sum(np.nan_to_num(np.log(p)))


def powers_mixed(x, y):
    return np.sum(x ** -2) + np.sum(x ** y) + np.sum(np.abs(x - 3.0) ** 1.5)


def stack_based_eval(x):
    """A postfix expression evaluated with a list used as a stack."""
    program = ["x0", "x1", "*", "x2", "+", "x0", "x0", "*", "-"]
    stack = []
    for tok in program:
        if tok == "+":
            b, a = stack.pop(), stack.pop()
            stack.append(a + b)
        elif tok == "-":
            b, a = stack.pop(), stack.pop()
            stack.append(a - b)
        elif tok == "*":
            b, a = stack.pop(), stack.pop()
            stack.append(a * b)
        else:
            stack.append(x[int(tok[1:])])
    return stack.pop()


def chained_comparisons(x):
    total = 0.0
    for v in x:
        if -1.0 < v < 1.0:
            total += v ** 3
        elif (v, 0.0) > (1.0, 0.0):
            total += 2.0 * v
        else:
            total -= v
    return total


def argmin_key_range(x, c):
    d = [(x[i] - c) ** 2 for i in range(len(x))]
    best = min(range(len(x)), key=lambda i: d[i])
    return d[best] + x[best] * c


def try_except_fallback(A, b):
    try:
        z = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        z = b
    return np.sum(z ** 2)


def next_iter_first(x):
    first = next(iter(x))
    rest = x[1:]
    return first * np.sum(rest ** 2)


@dataclass
class Params:
    weights: list
    bias: np.ndarray
    scale: float = 1.0


def dataclass_list_field(w0, w1, b):
    import dataclasses

    p = Params([w0, w1], b)
    p = dataclasses.replace(p, scale=2.0)
    h = b.copy()
    for w in p.weights:
        h = np.tanh(w @ h + p.bias)
    return p.scale * np.sum(h ** 2)


def augmented_alias_local(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * x)


def outer_triu(x):
    M = np.outer(x, x)
    return np.sum(np.triu(M, 1)) + np.sum(np.tril(M) ** 2)


def cumprod_reversed(x):
    return np.sum(np.cumprod(x[::-1])) + np.sum(np.flip(np.cumsum(x)) * x)


def diff_second(x):
    d2 = np.diff(x, n=2)
    return np.sum(d2 ** 2) + np.sum(np.diff(x) * x[1:])


def stack_columns_loop(x):
    cols = []
    for k in range(3):
        cols.append(np.sin(x * (k + 1)))
    M = np.stack(cols, axis=1)
    return np.sum(M[:, 0] * M[:, 2]) + np.sum(M[1] ** 2)


def kwargs_forwarding(x, y):
    def inner(a, b, *, w=1.0, p=2):
        return w * np.sum((a - b) ** p)

    opts = {"w": 0.5, "p": 2}
    return inner(x, y, **opts) + inner(y, x * 2.0, w=3.0)


def _inner_kw(a, b, *, w=1.0, p=2):
    return w * np.sum((a - b) ** p)


def kwargs_forwarding_module(x, y):
    opts = {"w": 0.5, "p": 2}
    return _inner_kw(x, y, **opts) + _inner_kw(y, x * 2.0, w=3.0)


def get_with_default(x):
    cache = {"a": x * 2.0}
    u = cache.get("a", np.zeros(3))
    v = cache.get("b", np.ones(3) * 0.5)
    return np.sum(u * v) + np.sum(cache.get("a") ** 2)


def norm_orders(x):
    return np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x) ** 3


# --- 7. dynamic programs, filters, casts, records, lists of arrays ---------------------


def _merge_sort(xs):
    if len(xs) <= 1:
        return xs
    mid = len(xs) // 2
    left, right = _merge_sort(xs[:mid]), _merge_sort(xs[mid:])
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _merge_sort_listed(xs):
    """_merge_sort with its slices joined as `list(...)`, as the refusal of _merge_sort advises."""
    if len(xs) <= 1:
        return xs
    mid = len(xs) // 2
    left, right = _merge_sort_listed(xs[:mid]), _merge_sort_listed(xs[mid:])
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + list(left[i:]) + list(right[j:])


def merge_sort_listed(x):
    s = _merge_sort_listed(list(x))
    return sum((k + 1.0) * v for k, v in enumerate(s))


def merge_sort_weighted(x):
    s = _merge_sort(list(x))
    return sum((k + 1.0) * v for k, v in enumerate(s))


def soft_dtw(X, Y):
    gamma = 0.5
    n, m = len(X), len(Y)
    D = (X[:, None] - Y[None, :]) ** 2
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            prev = np.array([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]])
            R[i, j] = D[i - 1, j - 1] - gamma * _sps.logsumexp(-prev / gamma)
    return R[n, m]


def soft_dtw_manual(X, Y):
    gamma = 0.5
    n, m = len(X), len(Y)
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            a, b, c = -R[i - 1, j - 1] / gamma, -R[i - 1, j] / gamma, -R[i, j - 1] / gamma
            mx = max(a, b, c)
            soft = mx + math.log(math.exp(a - mx) + math.exp(b - mx) + math.exp(c - mx))
            R[i, j] = (X[i - 1] - Y[j - 1]) ** 2 - gamma * soft
    return R[n, m]


def rts_smoother(q, ys):
    A, H, r = 0.9, 1.0, 0.2
    m, P = 0.0, 1.0
    ms, Ps, mps, Pps = [], [], [], []
    for y in ys:
        mp, Pp = A * m, A * P * A + q
        K = Pp * H / (H * Pp * H + r)
        m, P = mp + K * (y - H * mp), (1 - K * H) * Pp
        ms.append(m); Ps.append(P); mps.append(mp); Pps.append(Pp)
    sm = ms[-1]
    total = sm ** 2
    for k in range(len(ys) - 2, -1, -1):
        G = Ps[k] * A / Pps[k + 1]
        sm = ms[k] + G * (sm - mps[k + 1])
        total += sm ** 2
    return total


def particle_filter(theta):
    idx_sets = [np.array([0, 0, 2, 3]), np.array([1, 1, 1, 0]), np.array([3, 2, 2, 0])]
    parts = np.array([0.1, -0.4, 0.8, 1.2])
    loglik = 0.0
    for t, idx in enumerate(idx_sets):
        parts = theta * parts[idx] + 0.1 * t
        w = np.exp(-0.5 * (parts - 0.3) ** 2)
        loglik += np.log(np.mean(w))
    return loglik


def adaptive_rk(k):
    t, y, h, T = 0.0, 1.0, 0.1, 1.0
    steps = 0
    while t < T and steps < 100:
        h = min(h, T - t)
        k1 = -k * y
        k2 = -k * (y + h * k1)
        y_new = y + 0.5 * h * (k1 + k2)
        err = abs(0.5 * h * (k2 - k1)) + 1e-12
        if err < 1e-4:
            t += h
            y = y_new
        h = h * min(2.0, max(0.2, 0.9 * (1e-4 / err) ** 0.5))
        steps += 1
    return y


def float_cast(x):
    s = float(np.sum(x ** 2))
    return s * x[0]


def item_tolist(x):
    a = x[0].item()
    vals = (x * 2).tolist()
    return a * sum(v * v for v in vals)


def np_float64_cast(x):
    s = np.float64(np.sum(x))
    return s ** 2 + float(x[1]) * 3


def methods_heavy(A):
    B = A.reshape(-1).reshape(A.shape)
    c = B.sum(axis=0) * B.mean(1).max() + B.clip(-0.5, 0.5).std()
    d = B.cumsum(1).prod() + B.T.dot(B).trace()
    e = B.swapaxes(0, 1).flatten()[::2].repeat(2).squeeze()
    return c.sum() + d + (e ** 2).sum() + B.astype(np.float64).copy().min()


def asarray_scalars(a, b):
    v = np.asarray([a, b * a, math.sin(b)])
    M = np.array([[a, b], [b, a * a]])
    return float(v @ v) + np.linalg.det(M)


def rng_inside(x):
    rng = np.random.default_rng(0)
    noise = rng.normal(size=x.shape)
    return np.sum((x + 0.1 * noise) ** 2)


def max_of_inf_columns(x):
    A = np.array([[0.0, -np.inf], [1.0, -np.inf]]) + x[:, None]
    m = np.max(A, axis=0)
    return m[0] * 2.0 + np.sum(np.exp(m))


def masked_log_softmax(z):
    mask = np.array([True, True, False, True])
    s = np.where(mask, z, -np.inf)
    m = s.max()
    logp = s - m - np.log(np.sum(np.exp(s - m)))
    return -np.sum(np.where(mask, logp * np.array([0.1, 0.5, 0.0, 0.4]), 0.0))


def minimum_reduce_where(x):
    return np.minimum.reduce(x) + np.add.reduce(x ** 2) + np.multiply.reduce(x)


def ufunc_outer(x, y):
    return np.sum(np.subtract.outer(x, y) ** 2) + np.sum(np.multiply.outer(x, y))


@dataclass(frozen=True)
class Frozen:
    a: np.ndarray
    b: float = 2.0


def frozen_dc(a):
    f = Frozen(a)
    return np.sum(f.a ** 3) * f.b


class _Inner(NamedTuple):
    w: np.ndarray
    s: float


class _Outer(NamedTuple):
    inner: _Inner
    b: np.ndarray


def nested_nt(w, b):
    o = _Outer(_Inner(w, 0.5), b)
    return np.sum(o.inner.w * o.b) * o.inner.s + np.sum(o.b ** 2)


def _even_depth(x, n):
    if n == 0:
        return x
    return _odd_depth(x * 1.1, n - 1) + 0.1 * x


def _odd_depth(x, n):
    if n == 0:
        return x * x
    return _even_depth(np.sin(x), n - 1)


def mutual_recursion(x):
    return np.sum(_even_depth(x, 4))


def stack_partial(w0, w1):
    M = np.stack([w0, w1 * 2.0, np.ones(3)])
    return np.sum(M ** 2 * np.arange(3)[:, None])


def concat_partial(w0, w1):
    v = np.concatenate([w0, [1.0, 2.0], w1[:1]])
    return np.sum(np.sin(v))


def sum_list_partial(w0, w1):
    parts = [w0 * 2, np.ones(3), w1]
    return np.sum(sum(parts) ** 2)


def where_lists(w0, w1):
    xs = [w0, w1]
    ys = [np.where(x > 0, x, 0.1 * x) for x in xs]
    return np.sum(np.stack(ys) ** 2)


# --- 8. loops that stop early and write in place, nested functions, edge points ----------


def gs_break(A, b):
    n = len(b)
    x = np.zeros(n)
    for sweep in range(50):
        old = x.copy()
        for i in range(n):
            x[i] = (b[i] - A[i, :i] @ x[:i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
        if np.max(np.abs(x - old)) < 1e-12:
            break
    return np.sum(x * np.arange(1, n + 1))


def bubble_sort_flag(x):
    y = x.copy()
    n = len(y)
    while True:
        swapped = False
        for i in range(n - 1):
            if y[i] > y[i + 1]:
                y[i], y[i + 1] = y[i + 1], y[i]
                swapped = True
        if not swapped:
            break
    return np.sum(y * np.arange(n))


def inplace_scan(x):
    y = x * 1.0
    for i in range(1, len(y)):
        y[i] += y[i - 1] * 0.5
    return np.sum(y ** 2)


def jacobi_slice_assign(A, b):
    x = np.zeros_like(b)
    D = np.diag(A)
    it = 0
    while it < 100:
        new = (b - (A @ x - D * x)) / D
        done = np.linalg.norm(new - x) < 1e-13
        x[:] = new
        it += 1
        if done:
            break
    return x @ b


def nested_break_continue(x):
    total = 0.0
    for i in range(len(x)):
        j = 0
        while True:
            j += 1
            if j > 3:
                break
            if (i + j) % 2 == 0:
                continue
            total = total + x[i] * j
            if total > 5.0:
                break
    return total


def insertion_sort(x):
    y = list(x)
    for i in range(1, len(y)):
        key = y[i]
        j = i - 1
        while j >= 0 and y[j] > key:
            y[j + 1] = y[j]
            j -= 1
        y[j + 1] = key
    return sum((k + 1.0) * v for k, v in enumerate(y))


def power_iter_converge(A):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    for _ in range(500):
        w = A @ v
        new_lam = v @ w
        v = w / np.linalg.norm(w)
        if abs(new_lam - lam) < 1e-14:
            break
        lam = new_lam
    return lam


def in_place_2d_rows(M):
    Y = M.copy()
    for i in range(1, Y.shape[0]):
        Y[i, :] = Y[i, :] - Y[i - 1, :] * 0.3
        Y[i] *= 1.1
    Y[:, 0] += Y[:, -1]
    return np.sum(Y ** 2)


def shadow_param(x):
    def g(x):
        return x * 2.0 + 1.0
    return np.sum(g(x) * x)


def late_binding(x):
    def g(v):
        return v * scale
    scale = np.sum(x)
    out = g(x)
    scale = 2.0
    return np.sum(out) + np.sum(g(x))


def alias_call(x):
    def g(v):
        return np.sin(v)
    h = g
    return np.sum(h(x) * x)


def chain_nested(x):
    def a(v):
        return v * x[0]
    def b(v):
        return a(v) + 1.0
    def c(v):
        return b(v) * b(v)
    return np.sum(c(x))


def loop_defs(x):
    total = 0.0
    for k in range(3):
        def f(v):
            return v * (k + 1.0) + x[0]
        total = total + np.sum(f(x) ** 2)
    return total


def if_else_defs(x, flag=True):
    if flag:
        def act(v):
            return np.tanh(v)
    else:
        def act(v):
            return v * v
    return np.sum(act(x) * x)


def nested_in_comprehension(x):
    def sq(v):
        return v * v * x[1]
    return sum(sq(v) for v in x) + sum([sq(v) for v in x[:2]])


def recursive_with_global_default(x):
    def rec(v, depth, scale=_SCALE):
        if depth == 0:
            return v * scale
        return rec(v * 0.5, depth - 1) + v
    return np.sum(rec(x, 3))


def nested_returns_tuple(x):
    def stats(v):
        m = np.mean(v)
        return m, np.mean((v - m) ** 2)
    mu, var = stats(x)
    return mu ** 2 + var


def nested_with_kw_call(x):
    def f(a, b=2.0):
        return a ** b
    return np.sum(f(x, b=3.0) + f(x))


_SCALE = 1.7


def sinc_zero(x):
    return np.sum(np.sinc(x) * np.arange(1.0, 4.0))


def det_singular(A):
    return np.linalg.det(A)


def det_singular_batched(A):
    return np.sum(np.linalg.det(np.stack([A, 2.0 * A])))


def var_single(x):
    return np.var(x[:1]) + np.std(x[:1] * 0.0 + x[1:2]) * 0.0 + np.sum(x)


def log_softmax_masked(z):
    s = np.where(np.array([True, False, True]), z, -np.inf)
    lp = _sps.log_softmax(s)
    return lp[0] + 2.0 * lp[2]


def softmax_masked(z):
    s = np.where(np.array([True, False, True]), z, -np.inf)
    p = _sps.softmax(s)
    return p[0] * 3.0 + p[1]


def xlogy_zero(x, y):
    return np.sum(_sps.xlogy(x, y)) + np.sum(_sps.xlog1py(x, y))


def prod_with_zero(x):
    return np.prod(x) + np.sum(np.cumprod(x))


def norm_zero_vector(x):
    return np.linalg.norm(x * 0.0) + np.sum(x)


# --- 9. programs whose result is an array, a tuple or a dict -----------------------------


def rk4_trajectory(y0, k):
    ys = [y0]
    y = y0
    h = 0.1
    for _ in range(4):
        f = lambda v: np.array([v[1], -k * v[0] - 0.1 * v[1]])
        k1 = f(y); k2 = f(y + h / 2 * k1); k3 = f(y + h / 2 * k2); k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ys.append(y)
    return np.stack(ys)


def softmax_rows(Z):
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def sorted_output(x):
    return np.sort(x * np.array([1.0, -2.0, 0.5, 3.0]))


def heat_profile(u0, kappa):
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + kappa * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def tuple_output(x):
    return np.cumsum(x), np.sum(x ** 2), x[::-1] * 2.0


def dict_output(W, x):
    h = np.tanh(W @ x)
    return {"h": h, "norm": np.sqrt(np.sum(h ** 2)), "logits": W.T @ h}


def cumulative_max_output(x):
    return np.maximum.accumulate(x * np.array([1.0, 0.5, 2.0, -1.0, 3.0]))


def put_along_output(A):
    out = np.zeros_like(A)
    order = np.argsort(A, axis=1)
    np.put_along_axis(out, order, np.cumsum(np.take_along_axis(A, order, axis=1), axis=1), axis=1)
    return out


def newton_roots(c):
    x = np.ones_like(c)
    for _ in range(30):
        x = x - (x ** 3 - c) / (3 * x ** 2)
    return x


# --- 10. filters, images, options, implicit steps ------------------------------------------


def iir_filter(b, a, x):
    y = np.zeros_like(x)
    for n in range(len(x)):
        acc = 0.0
        for k in range(len(b)):
            if n - k >= 0:
                acc += b[k] * x[n - k]
        for k in range(1, len(a)):
            if n - k >= 0:
                acc -= a[k] * y[n - k]
        y[n] = acc / a[0]
    return np.sum(y ** 2)


def bilinear_sample(img, pts):
    H, W = img.shape
    total = 0.0
    for p in pts:
        x0 = int(np.floor(p[0])); y0 = int(np.floor(p[1]))
        fx, fy = p[0] - x0, p[1] - y0
        v = (img[y0, x0] * (1 - fx) * (1 - fy) + img[y0, x0 + 1] * fx * (1 - fy)
             + img[y0 + 1, x0] * (1 - fx) * fy + img[y0 + 1, x0 + 1] * fx * fy)
        total += v ** 2
    return total


def gather_floor(img, pts):
    ix = np.floor(pts[:, 0]).astype(int)
    iy = np.floor(pts[:, 1]).astype(int)
    fx = pts[:, 0] - ix
    return np.sum(img[iy, ix] * (1 - fx) + img[iy, ix + 1] * fx)


def black_scholes(S, sigma):
    K, r, T = 1.0, 0.02, 0.5
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return np.sum(S * _sps.ndtr(d1) - K * np.exp(-r * T) * _sps.ndtr(d2))


def binomial_american(S0, sigma):
    N, K, r, T = 6, 1.0, 0.03, 1.0
    dt = T / N
    u = math.exp(sigma * math.sqrt(dt)); d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    prices = S0 * u ** np.arange(N, -1, -1) * d ** np.arange(0, N + 1)
    values = np.maximum(K - prices, 0.0)
    for step in range(N - 1, -1, -1):
        prices = prices[:-1] / u
        cont = math.exp(-r * dt) * (p * values[:-1] + (1 - p) * values[1:])
        values = np.maximum(cont, K - prices)
    return values[0]


def implicit_euler_spring(k, c):
    M = np.array([[0.0, 1.0], [-k, -c]])
    y = np.array([1.0, 0.0])
    h = 0.1
    for _ in range(5):
        y = np.linalg.solve(np.eye(2) - h * M, y)
    return y[0] ** 2 + y[1]


def stiff_kinetics(k1):
    y = np.array([1.0, 0.0, 0.0])
    h = 0.05
    for _ in range(4):
        z = y.copy()
        for _ in range(6):
            F = z - y - h * np.array([-k1 * z[0] + 1e2 * z[1] * z[2],
                                       k1 * z[0] - 1e2 * z[1] * z[2] - 3.0 * z[1] ** 2,
                                       3.0 * z[1] ** 2])
            J = np.eye(3) - h * np.array([[-k1, 1e2 * z[2], 1e2 * z[1]],
                                          [k1, -1e2 * z[2] - 6.0 * z[1], -1e2 * z[1]],
                                          [0.0, 6.0 * z[1], 0.0]])
            z = z - np.linalg.solve(J, F)
        y = z
    return y[1] * 1e3 + y[2]


# --- 11. states in records, optimizer state, sorted pairs, logs in dicts -----------------


class _State(NamedTuple):
    pos: np.ndarray
    vel: np.ndarray


def integrate_states(p0, v0):
    s = _State(p0, v0)
    history = [s]
    for _ in range(4):
        acc = -s.pos * 2.0 - 0.1 * s.vel
        s = _State(s.pos + 0.1 * s.vel, s.vel + 0.1 * acc)
        history.append(s)
    return sum(np.sum(h.pos ** 2) for h in history) + np.sum(history[-1].vel)


def states_replace(p0, v0):
    s = _State(p0, v0)
    for _ in range(3):
        s = s._replace(vel=s.vel - 0.1 * s.pos)
        s = s._replace(pos=s.pos + 0.1 * s.vel)
    pos, vel = s
    return np.sum(pos * vel)


@dataclass
class _Optim:
    lr: float
    m: np.ndarray = None


def dataclass_optimizer_state(w):
    opt = _Optim(0.1, np.zeros_like(w))
    for _ in range(3):
        g = 2 * w + np.sin(w)
        opt.m = 0.9 * opt.m + g
        w = w - opt.lr * opt.m
    return np.sum(w ** 2)


def list_of_tuples_sorted_key(x):
    pairs = [(x[i] * x[i], i) for i in range(len(x))]
    pairs.sort(key=lambda t: t[0])
    return sum(v * (k + 1) for k, (v, _) in enumerate(pairs))


def dict_of_lists_accumulate(x):
    log = {"loss": [], "reg": []}
    w = x
    for step in range(3):
        loss = np.sum((w - 1.0) ** 2)
        reg = 0.1 * np.sum(w ** 2)
        log["loss"].append(loss)
        log["reg"].append(reg)
        w = w - 0.1 * (2 * (w - 1.0) + 0.2 * w)
    return sum(log["loss"]) + max(log["reg"])


_xs = np.sort(_R.uniform(0.0, 3.0, size=6))
_xs[0], _xs[-1] = 0.0, 3.0

CASES = [
    # 1. physics and numerical methods
    ("science", nbody_leapfrog, (_R.normal(size=(3, 2)), 0.3 * _R.normal(size=(3, 2)), np.array([1.0, 0.5, 0.8])), dict(hess=True)),
    ("science", velocity_verlet_spring, (0.7, -0.3, 2.0), dict(hess=True)),
    ("science", heat_explicit, (_R.normal(size=8), 0.9), dict(hess=True, jax=False)),
    ("science", heat_2d_neumann, (_R.normal(size=(4, 5)), 0.15), dict(jax=False)),
    ("science", wave_equation, (np.sin(np.linspace(0, np.pi, 7)), 0.8), dict(hess=True, jax=False)),
    ("science", rk4_lotka_volterra, (np.array([1.0, 0.5]), np.array([1.1, 0.4, 0.4, 0.1])), dict(hess=True)),
    ("science", rk_tableau, (np.array([1.0, -0.5]), 0.7), dict(hess=True)),
    ("science", shooting_projectile, (10.0, 0.7), dict(hess=True, jax=False)),
    ("science", gauss_seidel, (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]]), np.array([1.0, -2.0, 0.5])), dict(hess=True, jax=False)),
    ("science", jacobi_vectorized, (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]]), np.array([1.0, -2.0, 0.5])), dict(hess=True)),
    ("science", sor_sweeps, (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]]), np.array([1.0, -2.0, 0.5]), 1.2), dict(jax=False)),
    ("science", natural_cubic_spline, (_xs, _R.normal(size=6), np.array([0.4, 1.3, 2.2, 2.9])), dict(hess=True, jax=False)),
    ("science", horner_poly, (np.array([0.5, -1.0, 2.0, 0.3]), np.array([0.2, -0.7, 1.1])), dict(hess=True)),
    ("science", horner_reversed_deriv, (np.array([0.5, -1.0, 2.0, 0.3]), 0.8), dict(hess=True)),
    ("science", bisection_root, (2.0,), dict(jax=False)),
    ("science", secant_sqrt, (3.0,), dict(hess=True, jax=False)),
    ("science", newton_kepler, (0.8, 0.3), dict(hess=True, jax=False)),
    ("science", fixed_point_cos, (0.9,), dict(hess=True, jax=False)),
    ("science", trapezoid_integral, (np.array([1.3, 2.0]),), dict(hess=True)),
    ("science", simpson_loop, (2.5,), dict(hess=True)),
    ("science", finite_difference_stencil, (_R.normal(size=8),), dict(hess=True)),
    ("science", advection_upwind, (_R.normal(size=6), 0.4), dict(hess=True, jax=False)),
    ("science", pendulum_energy_drift, (0.9, 0.2), dict(jax=False)),
    ("science", spring_chain_forces, (np.array([0.0, 1.2, 2.1, 3.3]), 2.0), dict(hess=True, jax=False)),
    ("science", lennard_jones, (np.array([[0.0, 0.0], [1.1, 0.1], [0.3, 1.2], [1.4, 1.3]]),), dict(hess=True)),
    # 2. statistics and machine learning
    ("stats", gmm_loglik, (_R.normal(size=6), np.array([-1.0, 0.5, 1.5]), np.array([0.1, -0.2, 0.3]), np.array([0.2, 0.0, -0.4])), dict(hess=True)),
    ("stats", huber_and_quantile, (np.array([0.3, 2.5, -1.7, 0.1]), np.array([0.0, 0.2, 0.4, -0.6])), dict(hess=True)),
    ("stats", soft_kmeans, (_R.normal(size=(5, 2)), _R.normal(size=(3, 2))), dict(hess=True)),
    ("stats", batch_norm_running, (_R.normal(size=(4, 3)), np.array([1.0, 0.5, 2.0]), np.array([0.1, 0.0, -0.2])), dict(hess=True)),
    ("stats", masked_attention, (_R.normal(size=(3, 2)), _R.normal(size=(3, 2)), _R.normal(size=(3, 2))), dict(hess=True)),
    ("stats", padding_mask_attention, (_R.normal(size=(2, 3, 2)), _R.normal(size=(2, 2))), {}),
    ("stats", maml_adam_inner, (np.array([0.3, -0.2]), _R.normal(size=(4, 2)), _R.normal(size=4)), dict(hess=True)),
    ("stats", sgd_momentum_clip, (np.array([0.3, -0.2]), _R.normal(size=(4, 2)), _R.normal(size=4)), dict(hess=True)),
    ("stats", cosine_triplet, (_R.normal(size=3), _R.normal(size=3), _R.normal(size=3)), dict(hess=True)),
    ("stats", triplet_batch, (_R.normal(size=(4, 2)),), dict(hess=True)),
    ("stats", ctc_like_forward, (np.log(_R.dirichlet(np.ones(3), size=5)),), dict(hess=True, jax=False)),
    ("stats", hmm_forward_log, (np.log([0.6, 0.4]), np.log([[0.7, 0.3], [0.4, 0.6]]), np.log([[0.5, 0.4, 0.1], [0.1, 0.3, 0.6]])), dict(hess=True)),
    ("stats", viterbi_score, (_R.normal(size=(3, 3)), _R.normal(size=(4, 3))), dict(hess=True, jax=False)),
    ("stats", logistic_l2_dataset, (_R.normal(size=3), _R.normal(size=(6, 3)), np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])), dict(hess=True)),
    ("stats", focal_loss, (_R.normal(size=5), np.array([1, 0, 1, 1, 0])), dict(hess=True)),
    ("stats", label_smoothing_ce, (_R.normal(size=(4, 3)), np.array([0, 2, 1, 2])), dict(hess=True)),
    ("stats", layer_norm_mlp, (_R.normal(size=(2, 3)), _R.normal(size=(3, 4)), _R.normal(size=(4, 2))), dict(hess=True)),
    ("stats", contrastive_infonce, (_R.normal(size=(3, 2)), _R.normal(size=(3, 2))), dict(hess=True)),
    ("stats", kde_loglik, (_R.normal(size=3), _R.normal(size=5)), dict(hess=True)),
    ("stats", ewma_volatility, (_R.normal(size=6), 0.9), dict(hess=True)),
    ("stats", ar_process_nll, (np.array([0.5, -0.2]), _R.normal(size=8)), dict(hess=True)),
    ("stats", poisson_regression, (np.array([0.1, -0.2]), _R.normal(size=(5, 2)), np.array([1.0, 0.0, 2.0, 3.0, 1.0])), dict(hess=True)),
    ("stats", robust_median_of_means, (_R.normal(size=6),), dict(hess=True, jax=False)),
    ("stats", pca_reconstruction, (_R.normal(size=(5, 3)), _R.normal(size=(3, 2))), dict(hess=True)),
    ("stats", weighted_least_squares, (np.array([0.5, -1.0]), _R.normal(size=(5, 2)), _R.normal(size=5), _R.uniform(0.5, 2.0, size=5)), dict(hess=True)),
    # 3. Python shapes
    ("python", dataclass_network, (_R.normal(size=(4, 3)), _R.normal(size=4), _R.normal(size=(2, 4)), _R.normal(size=2)), dict(hess=True, jax=False)),
    ("python", namedtuple_kl, (_R.normal(size=3), 0.3 * _R.normal(size=3)), dict(hess=True, jax=False)),
    ("python", namedtuple_replace, (_R.normal(size=3), 0.3 * _R.normal(size=3)), dict(hess=True, jax=False)),
    ("python", dict_of_lists, (np.array([0.5, -1.2, 2.0, -0.3]),), dict(hess=True, jax=False)),
    ("python", sum_generator_min_key, (np.array([0.5, -1.2, 2.0, 0.7]),), dict(hess=True, jax=False)),
    ("python", any_all_guard, (np.array([0.5, -1.2, 2.0]),), dict(hess=True, jax=False)),
    ("python", nested_comprehension, (_R.normal(size=(3, 4)),), dict(hess=True, jax=False)),
    ("python", zip_star_transpose, (0.5, -1.5, 2.0), dict(hess=True, jax=False)),
    ("python", star_unpacking, (np.array([0.5, -1.2, 2.0, 0.3, 1.1]),), dict(hess=True, jax=False)),
    ("python", tree_recursion, (_R.normal(size=8),), dict(hess=True, jax=False)),
    ("python", string_keyed_config, (0.5 * _R.normal(size=(3, 3)), _R.normal(size=(2, 3))), dict(hess=True, jax=False)),
    ("python", keyword_only_defaults, (_R.normal(size=3), _R.normal(size=3)), dict(hess=True, jax=False)),
    ("python", varargs_products, (_R.normal(size=3), _R.normal(size=3)), dict(hess=True, jax=False)),
    ("python", global_basis, (_R.normal(size=3),), dict(hess=True)),
    ("python", inplace_slice_add, (_R.normal(size=3),), dict(hess=True, jax=False)),
    ("python", add_at_histogram, (_R.normal(size=6), _R.normal(size=6)), dict(hess=True, jax=False)),
    ("python", fancy_boolean_rw, (np.array([0.2, 0.9, -0.4, 1.3]),), dict(hess=True, jax=False)),
    ("python", ix_block, (_R.normal(size=(3, 3)), _R.normal(size=(3, 3))), dict(hess=True, jax=False)),
    ("python", take_put_along, (_R.normal(size=(2, 3)),), dict(hess=True, jax=False)),
    ("python", int_float_mix, (_R.normal(size=4),), dict(hess=True)),
    ("python", float32_mlp, (_R.normal(size=(2, 3)), _R.normal(size=3)), dict(hess=True)),
    # 4. more science and learning
    ("science2", gae_advantages, (_R.normal(size=5), _R.normal(size=5)), dict(hess=True, jax=False)),
    ("science2", policy_gradient, (_R.normal(size=(4, 3)), _R.normal(size=4)), dict(hess=True)),
    ("science2", discounted_returns, (_R.normal(size=5), 0.9), dict(hess=True, jax=False)),
    ("science2", sinkhorn, (_R.uniform(size=(3, 4)), 0.5), dict(hess=True)),
    ("science2", sinkhorn_log, (_R.uniform(size=(3, 4)), 0.5), dict(hess=True)),
    ("science2", newton_2d, (np.array([2.0, 0.7]),), dict(hess=True)),
    ("science2", conjugate_gradient, (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]]), np.array([1.0, -2.0, 0.5])), dict(jax=False)),
    ("science2", expm_taylor, (0.5 * _R.normal(size=(3, 3)),), dict(hess=True)),
    ("science2", chebyshev_series, (np.array([0.5, -1.0, 0.3, 0.2, 0.1]), np.linspace(-0.9, 0.9, 4)), dict(hess=True, jax=False)),
    ("science2", romberg, (1.3,), dict(hess=True, jax=False)),
    ("science2", adaptive_simpson, (1.3,), dict(hess=True, jax=False)),
    ("science2", euler_maruyama, (np.array([0.5, 0.3]), _R.normal(size=6)), dict(hess=True, jax=False)),
    ("science2", metropolis_energy, (0.4,), dict(hess=True, jax=False)),
    ("science2", ising_energy, (_R.normal(size=(3, 4)), 0.7), dict(hess=True)),
    ("science2", gru_unrolled, (0.5 * _R.normal(size=(2, 4)), 0.5 * _R.normal(size=(2, 4)), _R.normal(size=(3, 2))), dict(hess=True)),
    ("science2", lstm_gates_dict, (0.5 * _R.normal(size=(8, 4)), _R.normal(size=(3, 2))), dict(hess=True, jax=False)),
    ("science2", conv1d_sliding, (_R.normal(size=7), _R.normal(size=3)), dict(hess=True, jax=False)),
    ("science2", conv2d_loops, (_R.normal(size=(5, 5)), _R.normal(size=(2, 2))), dict(hess=True, jax=False)),
    ("science2", gumbel_softmax, (_R.normal(size=(2, 3)), _R.gumbel(size=(2, 3))), dict(hess=True)),
    ("science2", dropout_fixed_mask, (_R.normal(size=(4, 3)), _R.normal(size=3)), dict(hess=True)),
    ("science2", positional_encoding, (_R.normal(size=(3, 4)),), dict(hess=True)),
    ("science2", correlate_convolve, (_R.normal(size=6), _R.normal(size=3)), dict(hess=True)),
    ("science2", interp_clip, (np.array([0.3, 1.4, 2.2, 2.95]), 0.1), dict(hess=True, jax=False)),
    ("science2", value_iteration, (_R.normal(size=(3, 2)), _R.dirichlet(np.ones(3), size=(2, 3))), dict(hess=True)),
    # 5. more Python shapes
    ("python2", enumerate_zip_start, (_R.normal(size=4), _R.normal(size=4)), dict(hess=True, jax=False)),
    ("python2", nested_unpacking, (_R.normal(size=3),), dict(hess=True, jax=False)),
    ("python2", sum_with_start, (_R.normal(size=(3, 2)),), dict(hess=True, jax=False)),
    ("python2", builtin_min_max_abs, (np.array([0.5, -1.2, 2.0, 0.7]),), dict(hess=True, jax=False)),
    ("python2", early_return_in_loop, (np.array([0.5, -1.2, 2.0, 0.7]),), dict(hess=True, jax=False)),
    ("python2", while_else, (_R.normal(size=3),), dict(hess=True, jax=False)),
    ("python2", continue_nested, (_R.normal(size=(3, 3)),), dict(hess=True, jax=False)),
    ("python2", sorted_key_lambda, (np.array([0.5, -1.2, 2.0, 0.7]),), dict(hess=True, jax=False)),
    ("python2", assert_and_isinstance, (_R.normal(size=3), 0.7), dict(hess=True, jax=False)),
    ("python2", ravel_item_T, (_R.normal(size=(2, 3)),), dict(hess=True, jax=False)),
    ("python2", mask_increment, (np.array([0.5, -1.2, 2.0, -0.7]),), dict(hess=True, jax=False)),
    ("python2", ix_accumulate, (_R.normal(size=(3, 3)),), dict(hess=True, jax=False)),
    ("python2", take_modes, (_R.normal(size=6),), dict(hess=True, jax=False)),
    ("python2", add_at_2d, (_R.normal(size=5),), dict(hess=True, jax=False)),
    ("python2", float32_program, (_R.normal(size=(3, 3)).astype(np.float32), _R.normal(size=3).astype(np.float32)), dict(fd=False, jax=False)),
    ("python2", int_float_arrays, (np.array([0.5, 1.2, 2.0]),), dict(hess=True, jax=False)),
    # 6. more shapes
    ("more", running_max_drawdown, (np.array([1.0, 1.2, 1.1, 1.5, 1.3, 1.4]),), dict(hess=True, jax=False)),
    ("more", trimmed_mean, (np.array([0.5, -1.2, 2.0, 0.7, 1.1, -0.3, 0.2, 3.0, -2.2, 0.9]),), dict(hess=True)),
    ("more", pairwise_upper, (_R.normal(size=(4, 2)),), dict(hess=True)),
    ("more", piecewise_select, (np.array([-1.5, -0.5, 0.3, 1.7, 2.5]),), dict(hess=True)),
    ("more", padded_stencil, (_R.normal(size=6),), dict(hess=True)),
    ("more", negative_binomial_nll, (np.array([0.3, 1.1, -0.2]), 0.4, np.array([1.0, 4.0, 0.0])), dict(hess=True, jax=False)),
    ("more", expit_logit, (_R.normal(size=4),), dict(hess=True, jax=False)),
    ("more", powers_mixed, (np.array([0.5, 1.2, 2.0]), np.array([1.5, -0.5, 2.5])), dict(hess=True)),
    ("more", stack_based_eval, (np.array([0.5, -1.2, 2.0]),), dict(hess=True, jax=False)),
    ("more", chained_comparisons, (np.array([0.5, -1.5, 2.0, 0.3]),), dict(hess=True, jax=False)),
    ("more", argmin_key_range, (np.array([0.5, -1.2, 2.0, 0.7]), 0.9), dict(hess=True, jax=False)),
    ("more", try_except_fallback, (np.array([[2.0, 0.5], [0.3, 1.5]]), np.array([1.0, -0.5])), dict(hess=True, jax=False)),
    ("more", dataclass_list_field, (0.5 * _R.normal(size=(3, 3)), 0.5 * _R.normal(size=(3, 3)), _R.normal(size=3)), dict(hess=True, jax=False)),
    ("more", outer_triu, (_R.normal(size=4),), dict(hess=True)),
    ("more", cumprod_reversed, (np.array([0.5, -1.2, 2.0, 0.7]),), dict(hess=True)),
    ("more", diff_second, (_R.normal(size=6),), dict(hess=True)),
    ("more", stack_columns_loop, (_R.normal(size=4),), dict(hess=True, jax=False)),
    ("more", kwargs_forwarding_module, (_R.normal(size=3), _R.normal(size=3)), dict(hess=True, jax=False)),
    ("more", get_with_default, (_R.normal(size=3),), dict(hess=True, jax=False)),
    ("more", norm_orders, (np.array([0.5, -1.2, 2.0, 0.7]),), dict(hess=True)),
    # 7. dynamic programs, filters, casts, records, lists of arrays
    ("more2", merge_sort_listed, (np.array([0.5, -1.2, 2.0, 0.7, 1.1, -0.3]),), dict(hess=True, jax=False)),
    ("more2", soft_dtw, (np.array([0.5, -1.2, 2.0, 0.7]), np.array([0.1, 0.9, -0.5])), dict(hess=True, jax=False)),
    ("more2", soft_dtw_manual, (np.array([0.5, -1.2, 2.0, 0.7]), np.array([0.1, 0.9, -0.5])), dict(hess=True, jax=False)),
    ("more2", rts_smoother, (0.3, np.array([0.5, -1.2, 2.0, 0.7])), dict(hess=True, jax=False)),
    ("more2", particle_filter, (0.8,), dict(hess=True, jax=False)),
    ("more2", adaptive_rk, (1.3,), dict(hess=True, jax=False)),
    ("more2", float_cast, (np.array([0.5, -1.2, 2.0]),), dict(hess=True, jax=False)),
    ("more2", item_tolist, (np.array([0.5, -1.2, 2.0]),), dict(hess=True, jax=False, f32=False)),  # a Python float out: weak
    ("more2", np_float64_cast, (np.array([0.5, -1.2, 2.0]),), dict(hess=True, jax=False)),
    ("more2", methods_heavy, (np.random.default_rng(1).normal(size=(3, 4)),), dict(jax=False)),
    ("more2", asarray_scalars, (0.7, 1.3), dict(hess=True, jax=False)),
    ("more2", rng_inside, (np.array([0.5, -1.2, 2.0]),), dict(hess=True, jax=False)),
    ("more2", max_of_inf_columns, (np.array([0.5, -1.2]),), dict(hess=True, jax=False)),
    ("more2", masked_log_softmax, (np.array([0.5, -1.2, 2.0, 0.3]),), dict(hess=True, jax=False)),
    ("more2", minimum_reduce_where, (np.array([0.5, -1.2, 2.0]),), dict(hess=True, jax=False)),
    ("more2", ufunc_outer, (np.array([0.5, -1.2, 2.0]), np.array([0.3, 0.9])), dict(hess=True, jax=False)),
    ("more2", frozen_dc, (np.array([0.5, -1.2]),), dict(hess=True, jax=False)),
    ("more2", nested_nt, (np.array([0.5, -1.2]), np.array([1.5, 0.7])), dict(hess=True, jax=False)),
    ("more2", mutual_recursion, (np.array([0.5, -1.2]),), dict(hess=True, jax=False)),
    ("more2", stack_partial, (np.array([0.3, -0.8, 1.1]), np.array([0.5, 0.2, -0.6])), dict(hess=True)),
    ("more2", concat_partial, (np.array([0.3, -0.8, 1.1]), np.array([0.5, 0.2, -0.6])), dict(hess=True)),
    ("more2", sum_list_partial, (np.array([0.3, -0.8, 1.1]), np.array([0.5, 0.2, -0.6])), dict(hess=True, jax=False)),
    ("more2", where_lists, (np.array([0.3, -0.8, 1.1]), np.array([0.5, 0.2, -0.6])), dict(hess=True)),
    # 8. loops that stop early and write in place, nested functions, edge points
    ("more3", dict_comprehension_items, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", kwargs_forwarding, (np.array([0.35, -0.8, 1.3]), np.array([0.3, 0.1, -0.4])), dict(hess=True, jax=False)),
    ("more3", gs_break, (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]]), np.array([1.0, -2.0, 0.5])), dict(hess=True, jax=False)),
    ("more3", bubble_sort_flag, (np.array([0.5, -1.2, 2.0, 0.7, 1.1]),), dict(hess=True, jax=False)),
    ("more3", inplace_scan, (np.array([0.4, -0.3, 1.2, 0.8, -1.1]),), dict(hess=True, jax=False)),
    ("more3", jacobi_slice_assign, (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]]), np.array([1.0, -2.0, 0.5])), dict(hess=True, jax=False)),
    ("more3", nested_break_continue, (np.array([0.5, 1.2, 2.0, 0.7]),), dict(hess=True, jax=False)),
    ("more3", insertion_sort, (np.array([0.5, -1.2, 2.0, 0.7, 1.1]),), dict(hess=True, jax=False)),
    ("more3", power_iter_converge, (np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]]),), dict(jax=False)),
    ("more3", in_place_2d_rows, (np.array([[0.3, -0.2, 0.5, 1.1], [0.7, 0.1, -0.9, 0.4], [-0.6, 1.3, 0.2, 0.8]]),), dict(hess=True, jax=False)),
    ("more3", shadow_param, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", late_binding, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", alias_call, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", chain_nested, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", loop_defs, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", if_else_defs, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", nested_in_comprehension, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", recursive_with_global_default, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", nested_returns_tuple, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", nested_with_kw_call, (np.array([0.35, -0.8, 1.3]),), dict(hess=True, jax=False)),
    ("more3", sinc_zero, (np.array([0.0, 0.5, 1.5]),), dict(hess=True, jax=False)),
    ("more3", det_singular, (np.array([[1.0, 2.0], [2.0, 4.0]]),), dict(hess=True)),
    ("more3", det_singular_batched, (np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 0.1, 0.3]]),), dict(hess=True)),
    ("more3", var_single, (np.array([0.5, 1.0]),), dict(hess=True, jax=False)),
    ("more3", log_softmax_masked, (np.array([0.5, 1.0, -0.3]),), dict(hess=True, jax=False)),
    ("more3", softmax_masked, (np.array([0.5, 1.0, -0.3]),), dict(hess=True, jax=False)),
    ("more3", xlogy_zero, (np.array([0.0, 0.5]), np.array([0.3, 2.0])), dict(hess=True, jax=False)),
    ("more3", prod_with_zero, (np.array([0.0, 0.5, 2.0]),), dict(hess=True, jax=False)),
    ("more3", norm_zero_vector, (np.array([0.3, 0.5]),), dict(hess=True, jax=False)),
    # 9. programs whose result is an array, a tuple or a dict (Jacobians)
    ("vector", rk4_trajectory, (np.array([1.0, 0.0]), 2.0), dict(jax=False)),
    ("vector", softmax_rows, (np.array([[0.5, -1.0, 0.2], [1.5, 0.3, -0.7]]),), {}),
    ("vector", sorted_output, (np.array([0.5, -1.2, 2.0, 0.7]),), {}),
    ("vector", heat_profile, (np.array([0.0, 0.3, 1.0, 0.4, -0.2, 0.0]), 0.2), dict(jax=False)),
    ("vector", tuple_output, (np.array([0.5, -1.2, 2.0]),), dict(jax=False)),
    ("vector", dict_output, (np.array([[0.5, -1.0, 0.2], [1.5, 0.3, -0.7]]), np.array([0.3, -0.6, 0.9])), dict(jax=False)),
    ("vector", cumulative_max_output, (np.array([0.5, -1.2, 2.0, 0.7, 0.4]),), dict(jax=False)),
    ("vector", put_along_output, (np.array([[0.5, -1.0, 0.2], [1.5, 0.3, -0.7]]),), dict(jax=False)),
    ("vector", newton_roots, (np.array([2.0, 5.0, 0.5]),), dict(jax=False)),
    # 10. filters, images, options, implicit steps
    ("more4", iir_filter, (np.array([0.2, 0.3, 0.1]), np.array([1.0, -0.5, 0.2]), np.array([0.4, -1.1, 0.7, 1.5, -0.2, 0.3])), dict(hess=True, jax=False)),
    ("more4", bilinear_sample, (np.arange(16.0).reshape(4, 4) ** 0.5, np.array([[0.3, 1.6], [2.2, 0.4], [1.5, 2.5]])), dict(hess=True, jax=False)),
    ("more4", gather_floor, (np.arange(16.0).reshape(4, 4) ** 0.5, np.array([[0.3, 1.6], [2.2, 0.4], [1.5, 2.5]])), dict(hess=True, jax=False)),
    ("more4", black_scholes, (np.array([0.9, 1.0, 1.2]), 0.25), dict(hess=True, jax=False)),
    ("more4", binomial_american, (0.95, 0.3), dict(hess=True, jax=False)),
    ("more4", implicit_euler_spring, (2.0, 0.3), dict(hess=True)),
    ("more4", stiff_kinetics, (0.04,), dict(hess=True, jax=False)),
    # 11. states in records, optimizer state, sorted pairs, logs in dicts
    ("more4", integrate_states, (np.array([1.0, 0.5]), np.array([0.0, -0.3])), dict(hess=True, jax=False)),
    ("more4", states_replace, (np.array([1.0, 0.5]), np.array([0.0, -0.3])), dict(hess=True, jax=False)),
    ("more4", list_of_tuples_sorted_key, (np.array([0.5, -1.2, 2.0, 0.7]),), dict(hess=True, jax=False)),
    ("more4", dict_of_lists_accumulate, (np.array([0.5, -1.2, 2.0]),), dict(hess=True, jax=False)),
]

# programs srcgrad refuses, with what the error says (a clear refusal at the user's line)
REFUSED = [
    (lambda_table, (_R.normal(size=3),), "a `lambda` that is not assigned to a name"),
    (callable_object_of_a_differentiated_value, (1.5, _R.normal(size=3)), "no derivative rule for science_programs.Scaler"),
    (functools_reduce, (_R.normal(size=4),), "a `lambda` that is not assigned to a name"),
    (itertools_accumulate_product, (_R.normal(size=4),), "no derivative rule for itertools.accumulate"),
    (next_iter_first, (_R.normal(size=4),), "no derivative rule for `iter`"),
    (augmented_alias_local, (_R.normal(size=3),), "changes the array `z` in place, and `z` shares memory with `y`"),
    (dataclass_optimizer_state, (np.array([0.5, -1.2, 2.0]),), "assignment to an attribute is not supported"),
    (merge_sort_weighted, (np.array([0.5, -1.2, 2.0, 0.7, 1.1, -0.3]),), "the gradient of a list of 0 entries has 6"),
]

# of those, the ones forward mode differentiates (the refusal is reverse mode's)
REFUSED_IN_REVERSE_ONLY = {"merge_sort_weighted"}


_NEED_SCIPY = {"negative_binomial_nll", "expit_logit", "soft_dtw", "log_softmax_masked", "softmax_masked",
               "xlogy_zero", "black_scholes"}
if _sps is None:
    CASES = [case for case in CASES if case[1].__name__ not in _NEED_SCIPY]
    REFUSED = [case for case in REFUSED if case[0].__name__ not in _NEED_SCIPY]
