"""Programs written with Python's control flow and data structures as people write them,
from a hunt for wrong derivatives: while loops with break, continue and else and
data-dependent trip counts, early returns in nested loops and in helpers, recursion
(mutual too), generators and comprehensions, zip/enumerate/reversed/sorted/min/max with
keys, lists and dicts built and changed (append, pop, insert, setdefault, get with
defaults), arrays written in place through slices, masks and repeated indices, closures
and late binding, shadowed builtins, math on Python floats, booleans and integers mixed
with floats, 0-d arrays and shapes with ones, and small real programs (adaptive ODE
steps, Newton iterations, soft-DTW, the forward algorithm, Viterbi, a stack interpreter,
particles, moving averages).

`CASES`: (function, arguments, whether its Hessian is checked too); every argument is a
float or a float array and is differentiated. test_hunt_control_flow.py checks each.
"""

import itertools
import math

import numpy as np

def newton_cuberoot(a):
    x = a
    it = 0
    while True:
        fx = x ** 3 - a
        if abs(fx) < 1e-12:
            break
        x = x - fx / (3 * x ** 2)
        it += 1
        if it > 50:
            break
    return x


def while_else_search(x):
    i = 0
    total = 0.0
    while i < len(x):
        if x[i] > 5.0:
            total = total + 100.0 * x[i]
            break
        total = total + x[i] ** 2
        i += 1
    else:
        total = total * 2.0
    return total


def for_else_found(x):
    acc = 0.0
    for v in x:
        acc += v * v
        if acc > 100.0:
            break
    else:
        acc = acc + np.sum(x)
    return acc


def rk4_adaptive(k, y0):
    def f(t, y):
        return -k * y + np.sin(t) * y ** 2 * 0.1
    t, y, h = 0.0, y0, 0.25
    steps = 0
    while t < 1.0 - 1e-12:
        h = min(h, 1.0 - t)
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
        steps += 1
    return np.sum(y) + steps


def nested_early_return(M):
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if M[i, j] > 1.5:
                return M[i, j] ** 2 + i + j
    return np.sum(M)


def _tree_sum(x, lo, hi):
    if hi - lo == 1:
        return x[lo] ** 2
    mid = (lo + hi) // 2
    return _tree_sum(x, lo, mid) * 1.5 + _tree_sum(x, mid, hi)


def recursive_tree(x):
    return _tree_sum(x, 0, len(x))


def _horner(cs, x):
    if not cs:
        return 0.0
    return cs[0] + x * _horner(cs[1:], x)


def horner_recursive(x, c):
    return _horner([c, 2.0 * c, 0.5, c * c], x)


def gen_sum(x):
    return sum(v * v for v in x if v > 0) + sum(math.sin(float(a)) for a in x[:2])


def nested_comp(M):
    rows = [[M[i, j] * (i + 1) for j in range(M.shape[1]) if j != i] for i in range(M.shape[0])]
    return sum(sum(r) for r in rows)


def any_all(x):
    if all(v > -10 for v in x) and any(v > 0.5 for v in x):
        return np.sum(x ** 3)
    return np.sum(x)


def params_parser(theta):
    spec = {"scale": ("exp", 0), "shift": ("id", 1), "power": ("softplus", 2)}
    p = {}
    for name, (kind, idx) in spec.items():
        v = theta[idx]
        if kind == "exp":
            p[name] = np.exp(v)
        elif kind == "softplus":
            p[name] = np.log1p(np.exp(v))
        else:
            p[name] = v
    return p["scale"] * (1.0 + p["shift"]) ** 2 + p["power"]


def stack_list(x):
    rows = []
    for k in range(3):
        rows.append(x * (k + 1) + x[k])
    A = np.stack(rows)
    return np.sum(A @ x)


def repeated_idx_add(x):
    y = np.zeros(4)
    idx = np.array([0, 1, 1, 3, 0])
    np.add.at(y, idx, x)
    z = x.copy()
    z[idx[:3]] += 1.0 * x[:3]
    return np.sum(y ** 2) + np.sum(z ** 2)


def fancy_aug_repeated(x):
    z = x * 1.0
    z[[0, 0, 2]] += x[:3] ** 2
    return np.sum(z * x)


def mask_assign(x):
    y = x * 2.0
    y[y > 0.5] = 0.5 * y[y > 0.5] ** 2
    return np.sum(y * x)


def math_scalars(a, b):
    s = math.sqrt(a * a + b * b)
    t = math.atan2(b, a) + math.hypot(a, b)
    n = int(a > 0) + True
    return s * t * n + math.exp(-s) + float(a > b) * a


def bool_arith(x):
    pos = x > 0
    return np.sum(pos * x ** 2 + (~pos) * x) + np.sum(pos) * x[0]


def zero_d(x, s):
    z = np.array(s)
    w = np.float64(2.0) * z
    return np.sum(x * w) + z * z


def broadcasting_ones(A, b):
    return np.sum((A[:, None, :] * b[None, :, None]) ** 2) + np.sum(A.reshape(1, -1))


def kwdefaults(x, scale=1.5, *, power=2):
    return np.sum((scale * x) ** power)


def kwcaller(x, s):
    return kwdefaults(x, power=3) + kwdefaults(x, scale=s)


def empty_loop(x):
    acc = x[0]
    for i in range(0):
        acc = acc * x[i]
    for v in x[5:]:
        acc = acc + v
    while False:
        acc = acc * 2
    return acc * 2


def _lse(v):
    m = np.max(v)
    return m + np.log(np.sum(np.exp(v - m)))


def forward_algorithm(logA, emis):
    alpha = emis[0] * 1.0
    for t in range(1, emis.shape[0]):
        alpha = np.array([_lse(alpha + logA[:, j]) for j in range(logA.shape[1])]) + emis[t]
    return _lse(alpha)


def viterbi_max(logA, emis):
    score = emis[0].copy()
    for t in range(1, emis.shape[0]):
        new = []
        for j in range(logA.shape[1]):
            cand = score + logA[:, j]
            new.append(max(cand))
        score = np.array(new) + emis[t]
    return max(score)


def interpreter(x, c):
    prog = [("push", 0), ("push", 1), ("mul",), ("push", 2), ("add",), ("dup",), ("mul",), ("pushc",), ("sub",)]
    stack = []
    for op in prog:
        name = op[0]
        if name == "push":
            stack.append(x[op[1]])
        elif name == "pushc":
            stack.append(c)
        elif name == "dup":
            stack.append(stack[-1])
        else:
            b = stack.pop()
            a = stack.pop()
            if name == "add":
                stack.append(a + b)
            elif name == "mul":
                stack.append(a * b)
            else:
                stack.append(a - b)
    return stack[0]


def piecewise_physics(v, m):
    drag = 0.0
    speed = abs(v)
    if speed < 1.0:
        drag = 0.5 * speed
    elif speed < 3.0:
        drag = 0.5 + 0.25 * (speed - 1.0) ** 2
    else:
        drag = 1.5 + (speed - 3.0)
    return m * drag * math.copysign(1.0, v) + m * v * v


def sorted_key_topk(x):
    items = [(x[i] ** 2, i) for i in range(len(x))]
    top = sorted(items, key=lambda t: t[0], reverse=True)[:2]
    return sum(s for s, _ in top)


def min_max_key(x):
    pairs = list(zip(x, x ** 2))
    lo = min(pairs, key=lambda p: p[1])
    hi = max(pairs, key=lambda p: p[0])
    return lo[0] * hi[1]


def late_binding_lambda(x):
    s = 1.0
    g = lambda v: v * s
    s = x
    return g(x) + s


def late_binding_def(x):
    s = 2.0
    def g(v):
        return v * s
    t = g(x)
    s = x * x
    return t + g(x)


def sort_inplace(x):
    y = x * 2.0
    y.sort()
    return y[0] * 3.0 + y[-1]


def float_mod_floordiv(a, b):
    return (a % 1.0) * b + (a // 0.3) * b + divmod(a * b, 0.7)[1]


def pow_variants(a, b):
    return pow(a, 3) + 2 ** a + a ** -1 + pow(b, a)


def chained_compare(x):
    t = 0.0
    for v in x:
        if -1.0 < v < 1.0:
            t += v ** 2
        elif v >= 1.0:
            t += 2 * v
    return t


def sum_start(x):
    return sum(x, 0.5) * sum([v * v for v in x], x[0])


def fsum_prod(x):
    return math.fsum(list(x)) * math.prod([1.0 + v for v in x])


def sorted_floats(x):
    s = sorted(x)
    return s[0] * 2 + s[-1] * s[1]


def walrus_comp(x):
    return sum((y := v * v) + y for v in x)


def nested_break_continue(M):
    total = 0.0
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if M[i, j] < 0:
                continue
            if M[i, j] > 1.0:
                break
            total += M[i, j] ** 2
        else:
            total += 10.0 * M[i, 0]
    return total


def while_nested_while(a):
    x = a
    k = 0
    while k < 3:
        j = 0
        while j < k + 1:
            x = x * 0.9 + math.sin(x)
            j += 1
        k += 1
    return x


def enumerate_reversed(x):
    return sum(i * v for i, v in enumerate(reversed(x)))


def reversed_list_loop(x):
    L = [v * 2 for v in x]
    t = 0.0
    for i, v in enumerate(reversed(L)):
        t = t * 0.5 + v * (i + 1)
    return t


def tuple_swap_arrays(x):
    a, b = x * 1.0, x ** 2
    for _ in range(3):
        a, b = b, a + b * 0.1
    return np.sum(a * b)


def pop_loop(x):
    stack = list(x)
    acc = 0.0
    while stack:
        v = stack.pop()
        acc = acc * 0.5 + v
    return acc


def pop_front_queue(x):
    q = [v for v in x]
    acc = 1.0
    while len(q) > 1:
        a = q.pop(0)
        b = q.pop(0)
        q.append(a * b + a)
    return q[0]


def insert_sorted(x):
    out = []
    for v in x:
        i = 0
        while i < len(out) and out[i] < v:
            i += 1
        out.insert(i, v)
    return out[0] * 2 + out[-1] ** 2


def zero_trip_while(x):
    t = x[0]
    n = 0
    while n < 0:
        t = t * 2
        n += 1
    else:
        t = t + x[1]
    return t * x[2]


def int_bool_mix(x):
    n = 0
    for v in x:
        n += v > 0
    return n * np.sum(x) + (n % 2) * x[0] + True * x[1]


def map_lambda(x):
    return sum(map(lambda v: v ** 3, x))


def local_shadow_sum(x):
    sum = 0.0
    for v in x:
        sum += v * v
    abs = lambda v: v * 3.0
    return abs(sum)


def loop_var_after(x):
    v = 10.0
    for i, v in enumerate(x):
        pass
    w = 7.0
    for w in x[3:]:
        pass
    return v * 2 + w * x[0]


def for_else_return(x):
    for v in x:
        if v > 5:
            return v * 100
    else:
        return np.sum(x ** 2)
    return 0.0


def walrus_while(a):
    x = a
    n = 0
    while (r := x * x - 2.0) > 1e-9 and n < 30:
        x = x - r / (2 * x)
        n += 1
    return x * a


def exception_flow(a, b):
    try:
        r = a / (b - 1.3)
    except ZeroDivisionError:
        r = a
    return r * a


def type_change_branch(x):
    y = 0
    for v in x:
        if v > 0:
            y = y + v
    y += x[0]
    return y * 2


def helper_return_in_loop(x):
    def first_big(v, thr):
        for e in v:
            if e > thr:
                return e * 2
        return v[0]
    return first_big(x, 0.7) * first_big(x * 2, 10.0)


def helper_with_while(x):
    def power_iter(M, n):
        v = np.ones(M.shape[0])
        for _ in range(n):
            v = M @ v
            v = v / np.linalg.norm(v)
        return v @ M @ v
    M = np.outer(x, x) + np.diag(x ** 2 + 1.0)
    return power_iter(M, 8)


def keyword_order(x, y):
    def h(a, b, c=1.0, d=2.0):
        return a * 1 + b * 10 + c * 100 + d * 1000
    return np.sum(h(d=x, b=y, a=x * y) + h(y, x, d=y))


def conditional_return_types(x):
    def f(v):
        if v > 0:
            return v, v * v
        return v * 2, 1.0
    t = 0.0
    for v in x:
        a, b = f(v)
        t = t + a * b
    return t


def list_grow_in_while(x):
    L = [x[0]]
    while len(L) < 4:
        L.append(L[-1] * 0.5 + x[len(L) % 3])
    return sum(L)


def dict_counter_loop(x):
    bins = {}
    for v in x:
        k = "pos" if v > 0 else "neg"
        bins[k] = bins.get(k, 0.0) + v ** 2
    return bins["pos"] * 2 + bins.get("neg", 0.0)


def setdefault_lists(x):
    groups = {}
    for i, v in enumerate(x):
        groups.setdefault(i % 2, []).append(v * (i + 1))
    return sum(groups[0]) * sum(groups[1])


def matrix_in_place_loop(x):
    A = np.zeros((3, 3))
    for i in range(3):
        A[i, i] = x[i]
        if i > 0:
            A[i, i - 1] = A[i - 1, i - 1] * x[i]
            A[i - 1, i] += A[i, i - 1]
    return np.sum(A @ A)


def running_scan_inplace(x):
    y = x.copy()
    for i in range(1, len(y)):
        y[i] += y[i - 1] * 0.5
    return np.sum(y ** 2)


def cumulative_mask(x):
    y = x.copy()
    y[y < 0] *= -2.0
    y[1:] -= y[:-1]
    return np.sum(y ** 2)


def fancy_repeated_set(x):
    y = np.zeros(3)
    y[[0, 1, 0]] = x[:3]
    return np.sum(y * x[:3])


def negative_strides(x):
    y = x.copy()
    y[::-1] += y * 0.5
    return np.sum(y ** 2)


def overlapping_inplace(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y ** 2)


def overlapping_self_assign(x):
    y = x.copy()
    y[1:] = y[:-1] * 2
    return np.sum(y * x)


def soft_dtw_arr(x, y):
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    g = 0.5
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            a, b, c = R[i - 1, j], R[i, j - 1], R[i - 1, j - 1]
            mn = min(a, b, c)
            soft = mn - g * np.log(np.exp(-(a - mn) / g) + np.exp(-(b - mn) / g) + np.exp(-(c - mn) / g))
            R[i, j] = (x[i - 1] - y[j - 1]) ** 2 + soft
    return R[n, m]


def soft_dtw_rows(x, y):
    prev = [0.0] + [math.inf] * len(y)
    for i in range(len(x)):
        row = [math.inf]
        for j in range(1, len(y) + 1):
            cands = [prev[j], row[j - 1], prev[j - 1]]
            m = min(cands)
            s = m - 0.5 * math.log(sum(math.exp(-(c - m) / 0.5) for c in cands))
            row.append((x[i] - y[j - 1]) ** 2 + s)
        prev = row
    return prev[-1]


def particles_arrays(pos, vel):
    p = pos.copy()
    v = vel.copy()
    for _ in range(5):
        v = v - 0.1 * p
        p = p + 0.1 * v
        hit = p < -1.0
        p = np.where(hit, -2.0 - p, p)
        v = np.where(hit, -v, v)
    return np.sum(p ** 2 + 0.5 * v ** 2)


def particles_list_rebuild(pos, vel):
    ps = [(pos[i], vel[i]) for i in range(len(pos))]
    for _ in range(5):
        new = []
        for q, w in ps:
            w = w - 0.1 * q
            q = q + 0.1 * w
            if q < -1.0:
                q, w = -2.0 - q, -w
            new.append((q, w))
        ps = new
    return sum(q ** 2 + 0.5 * w ** 2 for q, w in ps)


def moving_average_list(x):
    window = []
    out = []
    for v in x:
        window.append(v)
        if len(window) > 3:
            window.pop(0)
        out.append(sum(window) / len(window))
    return sum(o * o for o in out)


def np_append_loop(x):
    out = np.array([])
    for v in x:
        out = np.append(out, v * 2)
        if v < 0:
            out = np.concatenate([out, [v ** 2]])
    return np.sum(out ** 2)


def dict_of_arrays_update(x):
    state = {"p": x.copy(), "v": np.zeros_like(x)}
    for _ in range(3):
        state["v"] = state["v"] - 0.2 * state["p"]
        state["p"] = state["p"] + 0.2 * state["v"]
    return np.sum(state["p"] ** 2) + np.sum(state["v"])


def list_entry_replace(x):
    L = [x[0], x[1], x[2]]
    for k in range(3):
        for i in range(len(L)):
            L[i] = L[i] * 0.5 + L[(i + 1) % 3] ** 2 * 0.1
    return sum(L)


def interp_ops(x, c):
    ops = [("mul", 0), ("add", 1), ("sin", None), ("mulc", None), ("pow", 2)]
    acc = x[2]
    for name, arg in ops:
        if name == "mul":
            acc = acc * x[arg]
        elif name == "add":
            acc = acc + x[arg]
        elif name == "sin":
            acc = math.sin(acc)
        elif name == "mulc":
            acc *= c
        else:
            acc = acc ** arg
    return acc


def newton_system(p):
    x = np.array([1.0, 1.0])
    for it in range(20):
        F = np.array([x[0] ** 2 + x[1] ** 2 - p[0], x[0] - x[1] * p[1]])
        if np.linalg.norm(F) < 1e-13:
            break
        J = np.array([[2 * x[0], 2 * x[1]], [1.0, -p[1]]])
        x = x - np.linalg.solve(J, F)
    return x[0] * 3 + x[1]


def fixed_point(a):
    x = 0.0
    while True:
        nx = math.cos(x) * a
        if abs(nx - x) < 1e-14:
            break
        x = nx
    return nx


def continue_in_while(x):
    i = -1
    t = 0.0
    while i < len(x) - 1:
        i += 1
        if x[i] < 0:
            continue
        t = t + x[i] ** 2
        if t > 100:
            break
    return t


def early_return_helper(x):
    def clip_first(v):
        for i in range(len(v)):
            if v[i] < 0:
                return v[i] * -3.0
            if v[i] > 1.5:
                return v[i]
        return np.sum(v)
    s = 0.0
    for k in range(1, 4):
        s = s + clip_first(x * k)
    return s


def recursion_list(x):
    def merge_sum(L):
        if len(L) <= 1:
            return L[0] ** 2 if L else 0.0
        h = len(L) // 2
        return merge_sum(L[:h]) * 0.5 + merge_sum(L[h:])
    return merge_sum([v for v in x])


def _depth_sum(x, d):
    if d == 0:
        return np.sum(x ** 2)
    return _depth_sum(np.tanh(x) * 1.5, d - 1) + d * x[0]


def recursion_module(x):
    return _depth_sum(x, 3)


def enumerate_zip_nested(A, b):
    t = 0.0
    for i, (row, bi) in enumerate(zip(A, b)):
        for j, a in enumerate(row):
            if (i + j) % 2 == 0:
                t = t + a * bi
            else:
                t = t - a * a
    return t


def repeated_fancy_get_set(x):
    y = x ** 2
    idx = np.array([0, 2, 0])
    y[idx] = y[idx] * 2 + x[1]
    return np.sum(y * x)


def mask_from_other(x):
    y = x * 1.0
    m = x > 0
    y[m] += np.sum(y[~m] ** 2)
    return np.sum(y ** 2)


def two_d_repeated_pairs(A):
    B = A * 1.0
    r = np.array([0, 1, 0])
    c = np.array([1, 0, 1])
    B[r, c] -= A[0, 0] * np.array([1.0, 2.0, 3.0])
    return np.sum(B ** 2)


def row_broadcast_scalar(A):
    B = A.copy()
    B[1:3] = A[0, 0] ** 2
    B[:, 0] = B[:, 1] * A[:, 2]
    return np.sum(B * A)


def repeated_rows_set(A):
    B = np.zeros_like(A)
    B[[0, 0, 1]] = A[[1, 2, 0]] * 3.0
    return np.sum(B * A)


def add_at_2d(A):
    out = np.zeros((2, 2))
    np.add.at(out, (np.array([0, 0, 1]), np.array([1, 1, 0])), A[0] * A[1])
    return np.sum(out ** 2)


def self_reverse_assign(x):
    y = x * 1.0
    y[:] = y[::-1] * 2
    return np.sum(y * x)


def ellipsis_newaxis_write(A):
    B = A * 1.0
    B[..., 1] *= A[..., 0]
    B[None, 0, :] += 1.0
    return np.sum(B ** 2)


def bool_index_2d(A):
    B = A ** 2
    B[A < 0] = -A[A < 0]
    return np.sum(B * A)


def negative_index_write(x):
    y = x.copy()
    y[-1] = y[-2] * y[0]
    y[-2:] += y[:2]
    return np.sum(y ** 2)


def where_assign_loop(x):
    y = x.copy()
    for k in range(3):
        idx = np.argmax(y)
        y[idx] = y[idx] * 0.5 - k
    return np.sum(y ** 2)


def put_along(x):
    y = x.copy()
    order = np.argsort(y)
    y[order[:2]] = y[order[:2]] ** 2
    return np.sum(y * x)


def int_array_scalar_index(A):
    B = A.copy()
    i = np.int64(1)
    B[i] = B[i] * 2 + B[0]
    B[i, i] = 0.0
    return np.sum(B * A)


def cumulative_writes_views(A):
    B = A.copy()
    top = B[0]
    bottom = B[1]
    s = np.sum(top * bottom)
    B[1] = B[1] + s
    return np.sum(B ** 2)


def zip_unequal(x, y):
    return sum(a * b for a, b in zip(x, y[:2])) + sum(a for a in x[len(y):])


def backward_range(x):
    t = 0.0
    for i in range(len(x) - 1, -1, -1):
        t = t * 0.5 + x[i] ** 2
    return t


def shrinking_loop(x):
    y = x
    t = 0.0
    while len(y) > 1:
        t = t + y[0] * y[-1]
        y = y[1:] * 0.9
    return t + y[0]


def star_unpack(x):
    L = [v * 2 for v in x]
    first, *rest = L
    *init, last = L
    return first * sum(rest) + last * len(init)


def mutual_even(x, n):
    if n == 0:
        return x
    return _mutual_odd(x * 1.5, n - 1) + 0.1


def _mutual_odd(x, n):
    if n == 0:
        return x ** 2
    return mutual_even(np.sin(x), n - 1)


def mutual(x):
    return np.sum(mutual_even(x, 5))


def rec_tuple(x):
    def stats(L):
        if len(L) == 1:
            return L[0], L[0] ** 2
        a, b = stats(L[1:])
        return a + L[0], b + L[0] ** 2
    s, q = stats(list(x))
    return q - s * s / len(x)


def isinstance_branch(x):
    t = 0.0
    for v in [x[0], x, float(x[1]), 2.0]:
        if isinstance(v, np.ndarray):
            t = t + np.sum(v ** 2)
        elif isinstance(v, float):
            t = t + v * 3
        else:
            t = t + v
    return t


def index_from_value(x):
    i = int(abs(x[0]) * 3) % len(x)
    return x[i] ** 2 + x[-1 - i]


def empty_defaults(x):
    neg = [v for v in x if v < -10]
    a = max(neg, default=x[0])
    b = min([], default=x[1] * 2)
    return a * b + sum(neg) + sum([], x[2])


def except_fallback(x):
    try:
        L = np.linalg.cholesky(np.outer(x, x))
        return np.sum(L)
    except np.linalg.LinAlgError:
        return np.sum(x ** 3)


def loop_over_dict_sorted(x):
    d = {"c": x[0], "a": x[1], "b": x[2]}
    t = 0.0
    for k in sorted(d):
        t = t * 2 + d[k]
    return t


def accumulate_dict_keys(x):
    d = {}
    for i, v in enumerate(x):
        d[i % 2] = d.get(i % 2, 1.0) * v
    return d[0] + d[1] * 2


def tuple_list_mix(x):
    pts = [(x[i], x[i + 1]) for i in range(0, len(x) - 1)]
    area = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]):
        area += x0 * y1 - x1 * y0
    return 0.5 * area


def step_control(a):
    t, y, h = 0.0, 1.0, 0.5
    n = 0
    while t < 2.0 and n < 100:
        n += 1
        y1 = y + h * (-a * y)
        y2 = y + h / 2 * (-a * y)
        y2 = y2 + h / 2 * (-a * y2)
        err = abs(y1 - y2)
        if err > 1e-3:
            h *= 0.5
            continue
        t += h
        y = y2
        if err < 1e-4:
            h *= 1.5
    return y


CASES = [
    (newton_cuberoot, (2.5,), True),
    (while_else_search, (np.array([0.5, -1.2, 2.0]),), True),
    (for_else_found, (np.array([0.5, -1.2, 2.0]),), True),
    (rk4_adaptive, (0.7, np.array([0.5, 1.0]),), True),
    (nested_early_return, (np.array([[0.2, 0.3], [1.7, 0.1]]),), True),
    (recursive_tree, (np.array([0.5, -1.0, 2.0, 0.7, 1.1]),), True),
    (horner_recursive, (0.7, 1.3,), True),
    (gen_sum, (np.array([0.5, -1.0, 2.0]),), True),
    (nested_comp, (np.array([[0.2, 0.3, 0.4], [1.7, 0.1, -0.5]]),), True),
    (any_all, (np.array([0.5, -1.0, 2.0]),), True),
    (params_parser, (np.array([0.2, -0.3, 0.5]),), True),
    (stack_list, (np.array([0.5, -1.0, 2.0]),), True),
    (repeated_idx_add, (np.array([0.5, -1.0, 2.0, 0.3, 0.9]),), True),
    (fancy_aug_repeated, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (mask_assign, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (math_scalars, (0.7, 1.3,), True),
    (bool_arith, (np.array([0.5, -1.0, 2.0]),), True),
    (zero_d, (np.array([0.5, -1.0, 2.0]), 0.7,), True),
    (broadcasting_ones, (np.array([[0.5, -1.0, 2.0]]), np.array([0.3]),), True),
    (kwcaller, (np.array([0.5, -1.0, 2.0]), 1.2,), True),
    (empty_loop, (np.array([0.5, -1.0, 2.0]),), True),
    (forward_algorithm, (np.array([[-0.35667494393873245, -1.2039728043259361], [-0.916290731874155, -0.5108256237659907]]), np.array([[-0.5, -1.0], [-2.0, -0.1], [-0.3, -0.9]]),), True),
    (viterbi_max, (np.array([[-0.35667494393873245, -1.2039728043259361], [-0.916290731874155, -0.5108256237659907]]), np.array([[-0.5, -1.0], [-2.0, -0.1], [-0.3, -0.9]]),), True),
    (interpreter, (np.array([0.5, -1.0, 2.0]), 0.4,), True),
    (piecewise_physics, (1.7, 0.9,), True),
    (piecewise_physics, (-3.7, 0.9,), True),
    (sorted_key_topk, (np.array([0.5, -1.0, 2.0, 0.1]),), True),
    (min_max_key, (np.array([0.5, -1.2, 2.0, 0.1]),), True),
    (late_binding_lambda, (0.7,), True),
    (late_binding_def, (0.7,), True),
    (sort_inplace, (np.array([0.5, -1.0, 2.0]),), True),
    (float_mod_floordiv, (0.77, 1.3,), True),
    (pow_variants, (0.7, 1.3,), True),
    (chained_compare, (np.array([0.5, -1.3, 2.0, 0.2]),), True),
    (sum_start, (np.array([0.5, -1.0, 2.0]),), True),
    (fsum_prod, (np.array([0.5, -1.0, 2.0]),), True),
    (sorted_floats, (np.array([0.5, -1.0, 2.0]),), True),
    (walrus_comp, (np.array([0.5, -1.0, 2.0]),), True),
    (nested_break_continue, (np.array([[0.5, -1.0, 2.0], [0.3, 0.2, 0.1]]),), True),
    (while_nested_while, (0.7,), True),
    (enumerate_reversed, (np.array([0.5, -1.0, 2.0]),), True),
    (reversed_list_loop, (np.array([0.5, -1.0, 2.0]),), True),
    (tuple_swap_arrays, (np.array([0.5, -1.0, 2.0]),), True),
    (pop_loop, (np.array([0.5, -1.0, 2.0]),), True),
    (pop_front_queue, (np.array([0.5, -1.0, 2.0, 0.4]),), True),
    (insert_sorted, (np.array([0.5, -1.0, 2.0, 0.4]),), True),
    (zero_trip_while, (np.array([0.5, -1.0, 2.0]),), True),
    (int_bool_mix, (np.array([0.5, -1.0, 2.0]),), True),
    (map_lambda, (np.array([0.5, -1.0, 2.0]),), True),
    (local_shadow_sum, (np.array([0.5, -1.0, 2.0]),), True),
    (loop_var_after, (np.array([0.5, -1.0, 2.0]),), True),
    (for_else_return, (np.array([0.5, -1.0, 2.0]),), True),
    (walrus_while, (0.7,), True),
    (exception_flow, (0.7, 1.9,), True),
    (type_change_branch, (np.array([0.5, -1.0, 2.0]),), True),
    (helper_return_in_loop, (np.array([0.5, -1.0, 2.0]),), True),
    (helper_with_while, (np.array([0.5, -1.0, 2.0]),), True),
    (keyword_order, (np.array([0.5, -1.0, 2.0]), np.array([0.3, 0.2, 1.0]),), True),
    (conditional_return_types, (np.array([0.5, -1.0, 2.0]),), True),
    (list_grow_in_while, (np.array([0.5, -1.0, 2.0]),), True),
    (dict_counter_loop, (np.array([0.5, -1.0, 2.0]),), True),
    (setdefault_lists, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (matrix_in_place_loop, (np.array([0.5, -1.0, 2.0]),), True),
    (running_scan_inplace, (np.array([0.5, -1.0, 2.0]),), True),
    (cumulative_mask, (np.array([0.5, -1.0, 2.0]),), True),
    (fancy_repeated_set, (np.array([0.5, -1.0, 2.0]),), True),
    (negative_strides, (np.array([0.5, -1.0, 2.0]),), True),
    (overlapping_inplace, (np.array([0.5, -1.0, 2.0]),), True),
    (overlapping_self_assign, (np.array([0.5, -1.0, 2.0]),), True),
    (soft_dtw_arr, (np.array([0.5, -1.0, 2.0]), np.array([0.3, 1.0]),), True),
    (soft_dtw_rows, (np.array([0.5, -1.0, 2.0]), np.array([0.3, 1.0]),), True),
    (particles_arrays, (np.array([0.5, -0.95, 2.0]), np.array([0.1, -0.6, 0.2]),), True),
    (particles_list_rebuild, (np.array([0.5, -0.95, 2.0]), np.array([0.1, -0.6, 0.2]),), True),
    (moving_average_list, (np.array([0.5, -1.0, 2.0, 0.4, 0.8]),), True),
    (np_append_loop, (np.array([0.5, -1.2, 2.0]),), True),
    (dict_of_arrays_update, (np.array([0.5, -1.2, 2.0]),), True),
    (list_entry_replace, (np.array([0.5, -1.2, 2.0]),), True),
    (interp_ops, (np.array([0.5, -1.2, 2.0]), 0.7,), True),
    (newton_system, (np.array([2.0, 0.5]),), True),
    (fixed_point, (0.8,), True),
    (continue_in_while, (np.array([0.5, -1.2, 2.0]),), True),
    (early_return_helper, (np.array([0.4, 1.2, 2.0]),), True),
    (early_return_helper, (np.array([0.4, -1.2, 2.0]),), True),
    (recursion_list, (np.array([0.5, -1.2, 2.0, 0.3, 0.9]),), True),
    (recursion_module, (np.array([0.5, -1.2, 2.0]),), True),
    (enumerate_zip_nested, (np.array([[0.5, -1.2], [2.0, 0.3]]), np.array([0.7, 1.1]),), True),
    (repeated_fancy_get_set, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (mask_from_other, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (two_d_repeated_pairs, (np.array([[0.5, -1.0, 2.0], [0.3, 0.7, -0.4]]),), True),
    (row_broadcast_scalar, (np.array([[0.5, -1.0, 2.0], [0.3, 0.7, -0.4], [1.1, -0.6, 0.2]]),), True),
    (repeated_rows_set, (np.array([[0.5, -1.0, 2.0], [0.3, 0.7, -0.4], [1.1, -0.6, 0.2]]),), True),
    (add_at_2d, (np.array([[0.5, -1.0, 2.0], [0.3, 0.7, -0.4]]),), True),
    (self_reverse_assign, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (ellipsis_newaxis_write, (np.array([[0.5, -1.0, 2.0], [0.3, 0.7, -0.4]]),), True),
    (bool_index_2d, (np.array([[0.5, -1.0, 2.0], [0.3, 0.7, -0.4]]),), True),
    (negative_index_write, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (where_assign_loop, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (put_along, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (int_array_scalar_index, (np.array([[0.5, -1.0, 2.0], [0.3, 0.7, -0.4], [1.1, -0.6, 0.2]]),), True),
    (cumulative_writes_views, (np.array([[0.5, -1.0, 2.0], [0.3, 0.7, -0.4]]),), True),
    (zip_unequal, (np.array([0.5, -1.0, 2.0, 0.3]), np.array([0.2, 0.4, 0.6]),), True),
    (backward_range, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (shrinking_loop, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (star_unpack, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (mutual, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (rec_tuple, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (isinstance_branch, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (index_from_value, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (empty_defaults, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (except_fallback, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (loop_over_dict_sorted, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (accumulate_dict_keys, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (tuple_list_mix, (np.array([0.5, -1.0, 2.0, 0.3]),), True),
    (step_control, (1.3,), True),
]
