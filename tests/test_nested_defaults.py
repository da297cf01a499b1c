"""A nested function's default that reads a variable of the enclosing function is
evaluated where its `def` runs, as Python does (def_defaults.py): rebinding the variable
later does not change the default, a default in a loop is the one of the `def` that ran
last, and a default read in every transform (grad, jvp, hessian) is the same value."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian


def scaled_sum(x, k):
    def g(v, k=k):
        return v * k
    return g(x).sum()


def default_kept_after_rebinding(x, k):
    def g(v, k=k):
        return v * k
    k = k * 10.0
    return g(x).sum() + k


def keyword_only_and_lambda_defaults(x, k):
    def g(v, *, s=k * x[0]):
        return v * s
    sq = lambda v, s=x[1]: v ** 2 * s
    x = x * 2.0
    return (g(x) + sq(x)).sum()


def default_of_the_last_def_in_a_loop(x):
    for i in range(3):
        def g(v, w=x[i] * i):
            return v * w
    x2 = x * 3.0
    return g(x2[0]) + g(x2[1])


def default_in_a_branch(x, flag=True):
    if flag:
        def g(v, w=x.sum()):
            return v + w
    else:
        def g(v, w=x.prod()):
            return v * w
    x = x ** 2
    return g(x[0]) * 2.0


def default_rebound_inside_the_body(x):
    k = x[0]
    def g(v, k=k):
        k = k + 1.0
        return v * k
    k = 100.0
    return g(x[1]) + g(x[2]) + k


def default_overridden_at_a_call(x):
    def g(v, w=x[0] ** 2):
        return v * w
    return g(x[1]) + g(x[2], w=x[1])


def default_of_a_factory_s_def(x):
    def make(k):
        def g(v, s=k * 2.0):
            return v * s
        return g
    f = make(x[0])
    return f(x).sum()


def helper_with_a_default(x, k):
    def g(v, k=k):
        return v * k
    k = k + 1.0
    return g(x).sum() * k


def calls_a_helper_with_a_default(x):
    return helper_with_a_default(x, x[0]) + helper_with_a_default(x * 2.0, 3.0)


def default_of_a_def_in_a_while_loop(x):
    s = x[0]
    while s < 5.0:
        def step(v, c=s):
            return v * 1.5 + c * 0.1
        s = step(s)
    return s * x[1]


def defaults_of_nested_functions_calling_each_other(x):
    k = x[0]
    def inner(v, m=k):
        return v * m
    def outer(v, m=k * 2.0):
        return inner(v) + inner(v, m=m)
    k = 10.0
    return outer(x[1]) + outer(x[2], m=x[3])


def lambda_defaults_in_branches(x):
    if x[0] > 0:
        g = lambda v, c=x[1]: v + c
    else:
        g = lambda v, c=x[2]: v * c
    return g(x[3]) ** 2


def array_default(x):
    def g(v, w=x[:2] * 3.0):
        return (v * w).sum()
    return g(x[2]) + g(x[3])


X = np.array([0.5, 1.5, -2.0])
X4 = np.array([0.7, 1.3, -0.4, 2.1])


@pytest.mark.parametrize("fn, args, expected", [
    (scaled_sum, (X, 2.0), ([2.0, 2.0, 2.0], 0.0)),
    (default_kept_after_rebinding, (X, 2.0), ([2.0, 2.0, 2.0], 10.0)),
    (keyword_only_and_lambda_defaults, (X, 2.0), None),
    (default_of_the_last_def_in_a_loop, (X,), ([-12.0, -12.0, 12.0],)),
    (default_in_a_branch, (X,), ([4.0, 2.0, 2.0],)),
    (default_rebound_inside_the_body, (X,), ([-0.5, 1.5, 1.5],)),
    (default_overridden_at_a_call, (X,), None),
    (default_of_a_factory_s_def, (X,), ([2.0 * X.sum() + 2.0 * X[0], 2.0 * X[0], 2.0 * X[0]],)),
    (calls_a_helper_with_a_default, (X,), None),
    (default_of_a_def_in_a_while_loop, (X4,), None),
    (defaults_of_nested_functions_calling_each_other, (X4,), ([X4[1] * 3.0 + X4[2], X4[0] * 3.0, X4[0] + X4[3], X4[2]], )),
    (lambda_defaults_in_branches, (X4,), ([0.0, 2.0 * (X4[3] + X4[1]), 0.0, 2.0 * (X4[3] + X4[1])],)),
    (lambda_defaults_in_branches, (-X4,), None),
    (array_default, (X4,), None),
], ids=lambda v: getattr(v, "__name__", ""))
def test_default_evaluated_at_the_def(fn, args, expected):
    grads = check(fn, *args)
    if expected is not None:
        for g, e in zip(grads, expected):
            np.testing.assert_allclose(g, e, rtol=1e-12)
    check_hessian(fn, args, 0)


def test_values_are_python_s():
    assert srcgrad.value_and_grad(default_kept_after_rebinding)(X, 2.0)[0] == default_kept_after_rebinding(X, 2.0)
    h = srcgrad.hessian(keyword_only_and_lambda_defaults)(np.array([1.0, 2.0, 3.0]), 2.0)
    np.testing.assert_allclose(h, [[24.0, 12.0, 4.0], [12.0, 48.0, 24.0], [4.0, 24.0, 16.0]], rtol=1e-12)
    out, out_dot = srcgrad.jvp(default_kept_after_rebinding, (X, 2.0), (np.ones(3), 1.0))
    assert (out, out_dot) == (20.0, 2.0 * 3 + X.sum() + 10.0)


def shared_mutable_default(x):
    def g(v, acc=[]):
        acc.append(v)
        return sum(acc)
    return g(x) + g(x)


def test_a_mutable_default_is_one_object_not_a_new_one_per_call():
    # Python shares `acc` between the calls (the value is 3 * x): never answered as 2
    assert shared_mutable_default(2.0) == 6.0
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`acc.append\(v\)` changes an array in place"):
        srcgrad.grad(shared_mutable_default)(2.0)


def nested_def_without_evaluated_default(x):
    def g(v, w=2.0):  # a constant default: nothing to evaluate at the def
        return v * w
    return g(x).sum()


def test_the_tree_is_copied_only_where_a_default_moves():
    from srcgrad.compiler import def_defaults, frontend

    for fn in (small_function, nested_def_without_evaluated_default):
        program = frontend.load(fn)
        assert def_defaults.run(program) is program.tree  # nothing moved: the same tree, no copy
    program = frontend.load(scaled_sum)
    moved = def_defaults.run(program)
    assert moved is not program.tree
    assert [type(s).__name__ for s in moved.body] == ["Assign", "FunctionDef", "Return"]
    assert moved.body[0].targets[0].id == "g_k_default" and program.default_names == {"g_k_default"}


def small_function(x, y):
    z = x * y
    return (z * z).sum()
