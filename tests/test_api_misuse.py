"""Misuse of the public API: each wrong call is refused early by a TypeError or
ValueError naming the user's function and what to do, never a bare error from inside
the generated code, a wrong gradient or a mistake silently accepted."""

import collections
import decimal

import numpy as np
import pytest

from conftest import numerical_grad

import srcgrad


def total(s):
    return sum(s)


def double(x):
    return 2.0 * x


def scaled(x, y):
    return x * 2.0


def pair_out(x):
    return (x * 2.0, np.sum(x))


def nested_out(x):
    return ((x * 2.0, x), x * 3.0)


def nothing(x):
    x * 2.0


# --- grad: arguments that have no gradient -------------------------------------------


@pytest.mark.parametrize("value, what", [
    ({1.0, 2.0}, "it is a set, whose entries have no order"),  # a list gradient came back
    (frozenset({1.0, 2.0}), "it is a frozenset"),
    ((v for v in [1.0, 2.0]), "it is a generator, which is used up once read"),  # [] came back
    (collections.OrderedDict(a=1.0), "it is an OrderedDict (a subclass of dict)"),  # RecursionError
    (None, "it is None, which has no gradient"),  # a TypeError from the generated code
    ("abc", "it is a str ('abc')"),
    (decimal.Decimal("0.5"), "it is a Decimal, not a real number"),
    (np.array(["a", "b"]), "it is an array of <U1"),
    (np.array([1.0, 2.0], dtype=object), "it is an array of object"),  # an object gradient came back
    (range(3), "it is a range"),
    (object(), "it is an object object"),
])
def test_an_argument_that_is_not_a_number_array_or_pytree_is_refused_by_grad(value, what):
    with pytest.raises(TypeError, match="cannot differentiate `total`") as info:
        srcgrad.grad(total)(value)
    assert what in str(info.value)
    assert "test_api_misuse.py" in str(info.value) and "with respect to `s`" in str(info.value)


def test_jacobian_refuses_a_set_rather_than_failing_inside():
    with pytest.raises(TypeError, match="with respect to `s`: it is a set"):
        srcgrad.jacobian(total)({1.0, 2.0})


def test_a_differentiated_parameter_given_none_names_the_parameter():
    with pytest.raises(TypeError, match=r"with respect to `y`: it is None.*is an argument missing\?"):
        srcgrad.grad(scaled, wrt=(0, 1))(1.0, None)


def test_none_and_string_leaves_of_a_dict_still_get_zero_gradients():
    g = srcgrad.grad(lambda p: p["a"] * 2.0)({"a": 1.0, "b": None, "c": "name"})
    assert g == {"a": 2.0, "b": 0.0, "c": 0.0}


# --- vjp: arguments ----------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, "name", object(), np.ma.array([1.0])])
def test_vjp_gives_none_for_an_argument_that_has_no_gradient(value):
    out, pullback = srcgrad.vjp(scaled, 1.5, value)
    assert out == 3.0
    gx, gy = pullback(1.0)
    assert gx == 2.0 and gy is None  # 0.0 (or array([0.])) before


@pytest.mark.parametrize("value, what", [
    ({1.0, 2.0}, "it is a set"), ((v for v in [1.0]), "it is a generator"),
    (collections.OrderedDict(a=1.0), "it is an OrderedDict"),
])
def test_vjp_refuses_a_set_an_iterator_and_a_dict_subclass(value, what):
    with pytest.raises(TypeError, match="cannot differentiate `total`") as info:
        srcgrad.vjp(total, value)
    assert what in str(info.value)


# --- vjp: seeds --------------------------------------------------------------------------


@pytest.mark.parametrize("seed, message", [
    ("a", "must be a number or an array (of shape (3,)), not str"),
    (None, "must be a number or an array (of shape (3,)), not NoneType"),
    (object(), "not object"),
    (np.ones(3) * 1j, "is complex, and srcgrad's rules are for real numbers"),  # named the argument before
])
def test_a_seed_that_is_not_a_real_number_or_array_is_refused(seed, message):
    out, pullback = srcgrad.vjp(double, np.ones(3))
    with pytest.raises(TypeError, match="the seed of the pullback of `double`") as info:
        pullback(seed)
    assert message in str(info.value)


def test_a_leaf_seed_of_the_wrong_shape_names_the_leaf():
    out, pullback = srcgrad.vjp(pair_out, np.ones(3))
    with pytest.raises(ValueError, match=r"`pair_out`.*for the output\[0\] has shape \(4,\), which does not "
                                         r"broadcast against the output\[0\]'s shape \(3,\)"):
        pullback((np.ones(4), 1.0))  # NumPy's broadcasting error from inside before
    with pytest.raises(TypeError, match=r"for the output\[1\] must be a number or an array \(of shape \(\)\), not str"):
        pullback((np.ones(3), "1"))
    out, pullback = srcgrad.vjp(lambda x: {"a": x * 2.0}, np.ones(3))
    with pytest.raises(ValueError, match=r"for the output\['a'\] has shape \(5,\)"):
        pullback({"a": np.ones(5)})
    gx, = pullback({"a": np.array([1.0, 2.0, 3.0])})
    np.testing.assert_allclose(gx, [2.0, 4.0, 6.0])


def test_a_list_seed_is_the_array_it_spells_and_a_larger_leaf_seed_is_summed():
    out, pullback = srcgrad.vjp(double, np.ones(3))
    np.testing.assert_allclose(pullback([1.0, 2.0, 3.0])[0], [2.0, 4.0, 6.0])  # a TypeError from inside before
    out, pullback = srcgrad.vjp(pair_out, np.ones(3))
    gx, = pullback(([1.0, 2.0, 3.0], [2.0]))  # the (1,) seed of the scalar output, summed to ()
    np.testing.assert_allclose(gx, [4.0, 6.0, 8.0])
    gx, = pullback((np.ones((2, 3)), 0.0))  # the output broadcast to (2, 3): its seed summed
    np.testing.assert_allclose(gx, [4.0, 4.0, 4.0])


def test_a_nested_seed_must_have_the_nested_structure():
    out, pullback = srcgrad.vjp(nested_out, 1.0)
    with pytest.raises(TypeError, match=r"structure of its output\[0\], a tuple of 2 entries; got float"):
        pullback((1.0, 1.0))
    assert pullback(((1.0, 1.0), 1.0)) == (6.0,)


def test_the_pullback_of_a_function_returning_none_is_refused():
    out, pullback = srcgrad.vjp(nothing, np.ones(3))
    assert out is None
    with pytest.raises(TypeError, match=r"`nothing`.*the output is None \(is a `return` missing\?\)"):
        pullback(1.0)  # zeros before


# --- jvp ---------------------------------------------------------------------------------


@pytest.mark.parametrize("primal, kind", [(None, "None"), ("name", "str"), (object(), "object")])
def test_a_tangent_of_an_argument_without_a_derivative_is_refused_not_ignored(primal, kind):
    with pytest.raises(TypeError, match=f"`y` of `scaled` .* is {kind}, which has no tangent; pass None"):
        srcgrad.jvp(scaled, (1.0, primal), (1.0, 1.0))
    assert srcgrad.jvp(scaled, (1.0, primal), (1.0, None)) == (2.0, 2.0)


def test_a_tangent_of_a_none_leaf_is_refused():
    with pytest.raises(TypeError, match=r"`p\['b'\]` of `<lambda>` .* is None, which has no tangent"):
        srcgrad.jvp(lambda p: p["a"] * 2.0, ({"a": 1.0, "b": None},), ({"a": 1.0, "b": 1.0},))


def test_jvp_with_too_few_primals_names_the_function():
    with pytest.raises(TypeError, match=r"^scaled\(\) missing a required argument: 'y'"):
        srcgrad.jvp(scaled, (1.0,), (1.0,))


# --- jacobian and hessian: arity ---------------------------------------------------------


def cubes(x):
    return np.sum(x ** 3)


def test_hessian_and_jacobian_with_too_many_arguments_name_the_function():
    x = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match=r"^cubes\(\) too many positional arguments"):
        srcgrad.hessian(cubes)(x, x)  # `f1_grad_jvp() got multiple values for argument 'x_dot'` before
    with pytest.raises(TypeError, match=r"^double\(\) too many positional arguments"):
        srcgrad.jacobian(double)(x, x)
    np.testing.assert_allclose(srcgrad.hessian(cubes)(x), np.diag(6 * x))


# --- wrt naming **kwargs ---------------------------------------------------------------


def keywords(x, **options):
    return np.sum(x)


def test_wrt_naming_a_double_star_parameter_says_keyword_arguments_are_not_differentiated():
    with pytest.raises(TypeError, match=r"wrt='options' names no parameter of `keywords`.*keyword arguments that "
                                        r"`\*\*options` collects"):
        srcgrad.grad(keywords, wrt="options")(np.ones(2))


# --- source= -------------------------------------------------------------------------


def _exec(text, filename):
    """The namespace `text` defines, compiled under a file name of its own (srcgrad keeps
    a text given as `source=` in linecache under the function's file name)."""
    namespace = {}
    exec(compile(text, filename, "exec"), namespace)
    return namespace


def test_source_that_is_not_a_string_is_refused():
    namespace = _exec("def cube(x):\n    return x * x * x\n", "<test_api_misuse 1>")
    with pytest.raises(TypeError, match="source= for `cube` must be the text of its `def` statement, a str, not int"):
        srcgrad.grad(namespace["cube"], source=123)


# --- custom rules ----------------------------------------------------------------------


def test_a_custom_rule_returning_a_string_names_the_rule():
    @srcgrad.custom_vjp
    def square(x):
        return x * x

    square.defvjp(lambda g, ans, x: "2x")
    with pytest.raises(TypeError, match=r"custom vjp rule `<lambda>` of `square` returned str '2x' for `x`; return "
                                        r"numbers"):
        srcgrad.grad(lambda x: square(x))(2.0)  # `could not convert string to float` before


def test_rules_given_to_a_lambda_are_used():
    triple = lambda x: x * 2.0  # noqa: E731 - a function without a `def` name
    srcgrad.defvjp(triple, lambda g, ans, x: g * 3.0)  # a SyntaxError from its stand-in before
    assert srcgrad.grad(lambda x: triple(x))(1.0) == 3.0


# --- @srcgrad.compile -------------------------------------------------------------------


def test_compile_refuses_a_function_returning_no_array():
    @srcgrad.compile
    def label(x):
        return "s"

    @srcgrad.compile
    def forgot(x):
        x * 2.0

    t = srcgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match=r"`label` \(.*test_api_misuse.py:\d+\) returned str 's': a function under "
                                        r"@srcgrad.compile returns arrays or numbers"):
        label(t)
    with pytest.raises(TypeError, match=r"`forgot` .* returned None \(is a `return` missing\?\)"):
        forgot(t)


def test_compile_of_something_not_callable_is_refused():
    with pytest.raises(TypeError, match="@srcgrad.compile decorates a function, not 3"):
        srcgrad.compile(3)


def test_valid_calls_next_to_the_refused_ones_agree_with_differences():
    x = np.array([0.3, -1.2, 2.0])
    g = srcgrad.grad(lambda p: np.sum(np.sin(p[0]) * p[1]))([x, 2.0 * x])
    expected = numerical_grad(lambda a: np.sum(np.sin(a) * 2.0 * x), (x,), 0)
    np.testing.assert_allclose(g[0], expected, rtol=1e-6)


# --- functions that are not differentiated themselves ---------------------------------


def bump(a):
    return np.exp(-a * a)


@pytest.mark.parametrize("transform", [
    lambda f: srcgrad.grad(f)(0.5), lambda f: srcgrad.jacobian(f)(np.ones(2)),
    lambda f: srcgrad.vjp(f, np.ones(2)), lambda f: srcgrad.jvp(f, (np.ones(2),), (np.ones(2),)),
])
def test_an_np_vectorize_object_is_refused_saying_what_to_differentiate(transform):
    with pytest.raises(TypeError, match=r"not an np.vectorize object \(of `bump`\): differentiate the function it "
                                        r"vectorizes"):
        transform(np.vectorize(bump))  # `wrt=0 is out of range ... 0 positional parameters ()` before


@pytest.mark.parametrize("transform", [
    lambda f: srcgrad.grad(f)(2.0), lambda f: srcgrad.jvp(f, (2.0,), (1.0,)), lambda f: srcgrad.vjp(f, 2.0),
])
def test_stop_gradient_differentiated_itself_is_refused_plainly(transform):
    with pytest.raises(TypeError, match=r"`srcgrad.stop_gradient` holds its argument constant"):
        transform(srcgrad.stop_gradient)  # `no derivative rule for the method .detach()` before
    assert srcgrad.grad(lambda x: x * srcgrad.stop_gradient(x))(3.0) == 3.0


# --- custom rules for pytree parameters, custom functions of lambdas --------------------


def first_key(p):
    return p["a"] * 2.0 + p["b"]


def pair_sum(p):
    return p[0] * p[1]


def test_a_custom_rule_returning_a_dict_of_other_keys_is_refused_not_taken_as_zero():
    scaled = srcgrad.custom_vjp(first_key)
    scaled.defvjp(lambda g, ans, p: {"z": g})
    with pytest.raises(ValueError, match=r"custom vjp rule `<lambda>` of `first_key` returned a dict with keys 'z' "
                                         r"for `p`, a dict with keys 'a', 'b'"):
        srcgrad.grad(scaled)({"a": 1.0, "b": 1.0})  # {'a': 0.0, 'b': 0.0} before
    scaled.defvjp(lambda g, ans, p: 3.0 * g)
    with pytest.raises(ValueError, match=r"returned float 3.0 for `p`, a dict with keys 'a', 'b'"):
        srcgrad.grad(scaled)({"a": 1.0, "b": 1.0})
    scaled.defvjp(lambda g, ans, p: {"a": 2.0 * g})  # a key left out: its gradient 0
    assert srcgrad.grad(scaled)({"a": 1.0, "b": 1.0}) == {"a": 2.0, "b": 0.0}


def test_a_custom_rule_may_return_the_list_gradient_of_a_list_parameter():
    product = srcgrad.custom_vjp(pair_sum)
    product.defvjp(lambda g, ans, p: [g * p[1], g * p[0]])  # `returned 2 values` before
    assert srcgrad.grad(product)([2.0, 5.0]) == [5.0, 2.0]
    product.defvjp(lambda g, ans, p: [g, g, g])
    with pytest.raises(ValueError, match="returned 3 values, but `pair_sum` has 1 differentiable parameter"):
        srcgrad.grad(product)([2.0, 5.0])


def test_a_custom_function_of_a_lambda_is_differentiated():
    cube = srcgrad.custom_vjp(lambda x: x ** 3)  # `its text was not found` before: its wrapper taken for a lambda
    cube.defvjp(lambda g, ans, x: g * 3.0 * x * x)
    assert srcgrad.grad(cube)(2.0) == 12.0
    assert srcgrad.grad(lambda x: cube(x) * 2.0)(2.0) == 24.0


# --- Tensors passed to the transforms of NumPy code ------------------------------------


@pytest.mark.parametrize("transform", [
    lambda f, t: srcgrad.grad(f)(t), lambda f, t: srcgrad.vjp(f, t), lambda f, t: srcgrad.jvp(f, (t,), (t,)),
])
def test_a_tensor_argument_is_refused_saying_what_to_pass(transform):
    t = srcgrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"with respect to `x`: it is a srcgrad Tensor.*x.detach\(\).numpy\(\)"):
        transform(lambda x: (x * x).sum(), t)  # vjp: AttributeError 'dtype' object has no attribute 'kind' before


def test_grad_of_a_function_returning_a_tuple_says_so():
    with pytest.raises(TypeError, match=r"`pair_out` returned a tuple of 2 values; use srcgrad.vjp for non-scalar "
                                        r"outputs, or, to keep other values it returns, differentiate a function that "
                                        r"returns the scalar alone"):
        srcgrad.grad(pair_out)(np.ones(3))  # `a value of shape (2,)` before
    with pytest.raises(TypeError, match=r"`<lambda>_value_and_grad` returned a tuple of 2 values; use srcgrad.jacobian"):
        srcgrad.grad(srcgrad.value_and_grad(lambda x: x ** 3))(2.0)  # `of shape tuple` before


def test_source_text_of_another_function_is_refused_not_differentiated():
    text = "def cube(x):\n    return x * x * x\n"
    cube = _exec(text, "<test_api_misuse 2>")["cube"]
    for other in ("def cube(x):\n    return x * x\n", "def cube(x):\n    return x * x * 2.0\n"):
        with pytest.raises(srcgrad.SrcGradError, match=r"the source given with source= for `cube` is not the text it "
                                                        r"was made from"):
            srcgrad.grad(cube, source=other)  # the gradient of the other text (4.0 at 2.0) before
    assert srcgrad.grad(cube, source=text)(2.0) == 12.0
    assert srcgrad.grad(cube, source="def cube(x):  # a comment, other spacing\n    return x*x*x\n")(2.0) == 12.0


def test_a_function_made_by_exec_is_not_read_from_the_text_given_for_an_earlier_one():
    first = _exec("def square(x):\n    return x * x * x\n", "<test_api_misuse 3>")["square"]
    assert srcgrad.grad(first, source="def square(x):\n    return x * x * x\n")(2.0) == 12.0
    second = _exec("def square(x):\n    return x * x\n", "<test_api_misuse 3>")["square"]
    with pytest.raises(srcgrad.SrcGradError, match=r"cannot read the source of `square` \(<test_api_misuse 3>\): the "
                                                    r"text kept for <test_api_misuse 3> defines another `square`"):
        srcgrad.grad(second)  # differentiated from the first one's text before: 12.0, not 4.0, at 2.0
    assert srcgrad.grad(second, source="def square(x):\n    return x * x\n")(2.0) == 4.0
