import numpy as np, math, functools
import srcgrad

COUNTER = 0

def u_try(a):
    try:
        b = a * 2.0
    except ValueError:
        b = a
    return b

def u_with(a):
    with open("/dev/null") as fh:
        b = a * 2.0
    return b

def u_yield(a):
    yield a * 2.0

def u_global(a):
    global COUNTER
    COUNTER = COUNTER + 1
    return a * 2.0

def u_class(a):
    class K:
        pass
    return a * 2.0

def u_exec(a):
    exec("b = 1")
    return a * 2.0

def u_eval(a):
    return eval("a * 2.0")

def u_del(a):
    b = a * 2.0
    c = b
    del b
    return c

def u_attr(a):
    o = np.zeros(1)
    o.shape = (1,)
    return a * 2.0

def u_nonlocal(a):
    s = 0.0
    def add(v):
        nonlocal s
        s = s + v
    add(a * a)
    return s

def u_map(x):
    return sum(map(lambda v: v * v, x))

def u_filter(x):
    return sum(filter(lambda v: v > 0, x))

def u_reduce(x):
    return functools.reduce(lambda p, q: p * q, x)

def u_sorted(x):
    return sorted(list(x), key=lambda v: -v)[0] * 2.0

def u_vectorize(x):
    f = np.vectorize(lambda v: v * v)
    return np.sum(f(x))

def u_setattr(a):
    o = np.zeros(1)
    setattr(o, "flags", None)
    return a * 2.0

def u_async(a):
    return a

def u_lambda_call_immediately(a):
    return (lambda t: t * t)(a)

def u_walrus(a):
    if (b := a * 2.0) > 1.0:
        return b * b
    return b

def u_match(a):
    match 1:
        case 1:
            return a * 2.0
    return a

def u_starcall(x):
    return np.sum(np.add(*[x, x]))

def u_kwcall(x):
    kw = {"axis": 0}
    return np.sum(np.sum(x * x, **kw))

def u_fstring(a):
    s = f"{a}"
    return a * len(s)

def u_assert(a):
    assert a > 0, "positive"
    return a * 2.0

def u_raise(a):
    if a < 0:
        raise ValueError("neg")
    return a * 2.0

def u_while_else(a):
    i = 0
    while i < 3:
        a = a * 1.5
        i += 1
    else:
        a = a + 1.0
    return a

def u_for_else(a):
    for i in range(3):
        a = a * 1.5
        if a > 100:
            break
    else:
        a = a + 1.0
    return a

def u_list_sort(x):
    l = list(x)
    l.sort()
    return l[0] * 3.0

def u_np_random(a):
    return a * np.random.rand()

def u_set(a):
    s = {1, 2}
    return a * len(s)

def u_chained_cmp(a):
    if 0.0 < a < 1.0:
        return a * a
    return a

def u_is_none(a, b=None):
    if b is None:
        return a * 2.0
    return a * b

def u_isinstance(a):
    if isinstance(a, float):
        return a * 3.0
    return a

def u_str_format(a):
    name = "w{}".format(1)
    return a * len(name)

def u_dict_get(a):
    d = {"k": a}
    return d.get("k", 0.0) * 2.0 + d.get("z", 1.0)

def u_list_pop(a):
    l = [a, a * 2.0, a * 3.0]
    v = l.pop()
    return v + sum(l)

def u_list_insert(a):
    l = [a]
    l.insert(0, a * 2.0)
    return l[0] * l[1]

def u_tuple_concat(a):
    t = (a,) + (a * 2.0,)
    return t[0] * t[1]

def u_list_mul(a):
    l = [a] * 3
    return sum(l)

def u_list_concat(a, b):
    l = [a] + [b, a * b]
    return l[2] + l[0] * 2.0

def u_list_slice(a, b):
    l = [a, b, a * b]
    return sum(l[1:])

def u_nested_list_write(a):
    l = [[a, 0.0], [0.0, a]]
    l[0][1] = a * 3.0
    return l[0][1] + l[1][1]

def u_list_item_write(a, b):
    l = [a, b]
    l[0] = l[0] * b
    return l[0] + l[1]

def u_array_in_list_mutated(x):
    l = [x * 1.0]
    l[0][0] = 5.0
    return np.sum(l[0] * x)

def u_np_float32_cast(x):
    return np.sum(x.astype(np.float32) * x)

def u_int_cast(a):
    return a * int(a)

def u_round(a):
    return round(a, 2) * a

def u_divmod(a):
    q, r = divmod(a, 1.0)
    return r * a

def u_modulo(a):
    return (a % 1.0) * a

def u_floordiv(a):
    return (a // 0.5) * a

def u_pow_neg(a):
    return (-a) ** 2 + a ** -1

def u_complex_abs(a):
    return abs(complex(a, 1.0))

def u_npsum_where(x):
    return np.sum(x, where=x > 0)

def u_npsum_initial(x):
    return np.sum(x, initial=1.0) * np.prod(x, initial=2.0)

def u_out_kw(x):
    y = np.empty_like(x)
    np.multiply(x, 2.0, out=y)
    return np.sum(y * x)

def u_max_default(x):
    return max([v for v in x if v > 100], default=0.0) + np.sum(x)

def u_min_key(a, b):
    return min([a, b], key=lambda t: abs(t)) * 2.0

def u_np_max_builtin(x):
    return max(x) * 2.0

def u_sum_axis_none(M):
    return np.sum(M, axis=None, keepdims=True)[0, 0]

def u_inplace_arg(x):
    x[0] = x[0] * 2.0
    return np.sum(x ** 2)

def u_inplace_arg_aug(x):
    x *= 2.0
    return np.sum(x ** 2)

def u_append_same_array(x):
    acc = []
    y = x * 1.0
    for i in range(3):
        y[i] = y[i] * 2.0
        acc.append(y)
    return np.sum(acc[0])

def u_max_of_array(x):
    return max(x[0], x[1], x[2])

def u_abs_np(x):
    return np.sum(abs(x))

def u_pow_array_int(x):
    return np.sum(x ** 3 + 2 ** x + x ** x)

def u_matrix_row_alias(M):
    A = M.copy()
    r = A[0]
    r[1] = 10.0
    return np.sum(A * M)

def u_ravel_alias(M):
    A = M.copy()
    f = A.ravel()
    f[0] = 0.0
    return np.sum(A * M)

def u_reshape_alias(M):
    A = M.copy()
    B = A.reshape(-1)
    B[0] = 0.0
    return np.sum(A * M)

def u_T_alias(M):
    A = M.copy()
    A.T[0, 1] = 0.0
    return np.sum(A * M)

def u_chained_index_write(M):
    A = M.copy()
    A[0][1] = 0.0
    return np.sum(A * M)

def u_diag_view(M):
    A = M.copy()
    d = np.diagonal(A)
    return np.sum(d * 2.0) + np.sum(A)

def u_local_import(a):
    from math import sin
    return sin(a)

def u_star_args_func(*args):
    return args[0] * args[1]

def u_kwargs_func(a, **kw):
    return a * kw.get("s", 2.0)

def u_default_mutable(a, acc=[]):
    acc.append(a)
    return sum(acc)

def u_np_empty_then_partial(x):
    y = np.empty(4)
    y[:2] = x[:2]
    return np.sum(y[:2] ** 2)

def u_zeros_like_int(x):
    y = np.zeros_like(np.array([1, 2, 3, 4]))
    y[0] = x[0]
    return y[0] * 1.0 + np.sum(x)

def u_int_array_accumulate(x):
    acc = np.zeros(4, dtype=np.float32)
    acc += x
    return float(np.sum(acc * acc))

def u_bool_index_write_cond(x):
    y = x * 1.0
    y[[0, 0]] = [x[1], x[2]]
    return np.sum(y * y)

def u_repeated_index_aug(x):
    y = np.zeros(4)
    idx = np.array([0, 0, 1])
    y[idx] += x[:3]
    return np.sum(y * y)
