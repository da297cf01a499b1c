"""srcgrad.testing.check_grad and its pytest fixture."""

import numpy as np
import pytest

import srcgrad
from srcgrad.testing import check_grad

pytest_plugins = ["pytester"]


def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def scaled_sine(x, a):
    return np.sin(x) * a


def cubic(a, b):
    return a * b * b


def step(x):
    # a jump at x == 1: finite differences see it, the derivative does not
    return np.sum(np.where(x > 1.0, 10.0 * x, x))


def test_scalar_output_arrays_and_names():
    check_grad(loss, np.full(3, 0.3), np.eye(3), wrt=("w", "x"))


def test_non_scalar_output_goes_through_vjp():
    check_grad(scaled_sine, np.ones((2, 3)), 2.0, wrt=(0, 1))


def test_float_arguments_and_single_wrt():
    check_grad(cubic, 1.5, 2.0, wrt=1)
    check_grad(cubic, 1.5, 2.0, wrt="a")


def test_float32_arguments_are_checked_in_float64():
    check_grad(loss, np.ones(3, dtype=np.float32), np.eye(3))


def test_arguments_are_not_modified():
    w = np.full(3, 0.3)
    check_grad(loss, w, np.eye(3))
    np.testing.assert_array_equal(w, np.full(3, 0.3))


def test_failure_shows_the_worst_element_its_index_and_both_values():
    x = np.array([[0.5, 2.0], [1.0, 3.0]])
    with pytest.raises(AssertionError) as info:
        check_grad(step, x)
    message = str(info.value)
    assert "`step` w.r.t. `x`" in message
    assert "worst element x[1, 0]" in message
    assert "srcgrad 1.0" in message
    assert "central finite differences 45000" in message
    assert "1 of 4 element(s)" in message


def test_failure_on_a_float_argument_names_it():
    def kink(a):
        return 3.0 * a if a > 1.0 else a

    with pytest.raises(AssertionError, match=r"worst element a: srcgrad 1.0"):
        check_grad(kink, 1.0)


def log_sum(x):
    return np.sum(np.log(x))


def test_nan_on_one_side_fails():
    # log(-1) is NaN, so every finite difference is NaN while the derivative 1/x is not
    with np.errstate(invalid="ignore"), pytest.raises(AssertionError, match="central finite differences nan"):
        check_grad(log_sum, np.array([-1.0, 2.0]))


def test_integer_argument_is_a_type_error():
    with pytest.raises(TypeError, match="integer or boolean"):
        check_grad(cubic, 1, 2.0)


def test_bad_wrt_is_a_type_error():
    with pytest.raises(TypeError, match="names no parameter"):
        check_grad(cubic, 1.0, 2.0, wrt="z")


@pytest.mark.skipif(not hasattr(srcgrad, "jvp"), reason="srcgrad.jvp is not available")
def test_dot_product_test_runs_with_forward_mode():
    check_grad(scaled_sine, np.linspace(0.1, 1.0, 6).reshape(2, 3), 2.0, wrt=(0, 1))
    check_grad(loss, np.full(3, 0.3), np.eye(3), wrt=("w", "x"))


def test_fixture_is_registered_through_the_entry_point(pytester):
    pytester.makepyfile(
        """
        import numpy as np

        def f(x):
            return np.sum(np.exp(x) * x)

        def test_f(check_grad):
            check_grad(f, np.array([0.1, 0.2, 0.3]))

        def test_fails(check_grad):
            def g(x):
                return np.sum(np.where(x > 0.0, x, 0.0))
            check_grad(g, np.array([0.0]))
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*worst element x[[]0[]]*"])


@pytest.mark.skipif(not (hasattr(srcgrad, "jvp") and hasattr(srcgrad, "custom_vjp")), reason="needs jvp and custom rules")
def test_dot_product_test_catches_a_wrong_forward_rule():
    @srcgrad.custom_vjp
    def square(x):
        return x * x

    @square.defvjp
    def square_vjp(g, ans, x):
        return g * 2.0 * x

    @square.defjvp
    def square_jvp(t, ans, x):
        return t * 3.0 * x  # wrong: finite differences cannot see it, the dot-product test can

    def total(x):
        return np.sum(square(x))

    with pytest.raises(AssertionError, match="forward and reverse mode of `total` disagree"):
        check_grad(total, np.array([1.0, 2.0]))


def test_a_function_returning_a_dict_or_list_is_refused_saying_so():
    """check_grad used a float cotangent for it, and the pullback failed with IndexError."""
    for f in (lambda x: {"sq": x * x}, lambda x: [x * x, -x]):
        with pytest.raises(TypeError, match="checks functions returning a float or an array"):
            check_grad(f, np.array([1.0, 2.0]))
