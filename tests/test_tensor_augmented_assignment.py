"""Python's augmented assignments `//=`, `%=`, `**=`, `&=`, `|=`, `^=`, `<<=`, `>>=` on a
Tensor, and `heaviside_`: in place as PyTorch's (the same object, its version counted,
views and bases written), with PyTorch 2.13's values, dtypes, grad_fn names and errors
(stored); gradients against central differences."""

import numpy as np
import pytest

import srcgrad as torch

E11 = "a leaf Variable that requires grad is being used in an in-place operation."
E11_VIEW = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def _augmented(t, op, other):
    """`t op= other` as Python runs it: the name is rebound to what the operator returns."""
    scope = {"t": t, "other": other}
    exec(f"t {op}= other", scope)
    return scope["t"]


F, I = [1.5, -2.0, 3.0], [5, -7, 8]

IN_PLACE = [  # self, op, other, values, dtype (stored from PyTorch 2.13)
    (F, "//", 2, [0.0, -1.0, 1.0], "float32"),
    (F, "//", 2.5, [0.0, -1.0, 1.0], "float32"),
    (F, "//", [2.0, 0.5, 3.0], [0.0, -4.0, 1.0], "float32"),
    (F, "//", [True, True, False], [1.0, -2.0, np.inf], "float32"),
    (I, "//", 2, [2, -4, 4], "int64"),
    (I, "//", -1, [-5, 7, -8], "int64"),
    (I, "//", [2, 3, 1], [2, -3, 8], "int64"),
    (F, "%", 2.5, [1.5, 0.5, 0.5], "float32"),
    (F, "%", [2, 3, 1], [1.5, 1.0, 0.0], "float32"),
    (I, "%", 2, [1, 1, 0], "int64"),
    (I, "%", [2, 3, 1], [1, 2, 0], "int64"),
    (F, "**", 2, [2.25, 4.0, 9.0], "float32"),
    (F, "**", -1, [0.6666666865348816, -0.5, 0.3333333432674408], "float32"),
    (F, "**", [2, 3, 1], [2.25, -8.0, 3.0], "float32"),
    (F, "**", [True, True, False], [1.5, -2.0, 1.0], "float32"),
    (I, "**", 2, [25, 49, 64], "int64"),
    (I, "**", [2, 3, 1], [25, -343, 8], "int64"),
    ([True, False, True], "**", True, [True, False, True], "bool"),
    (I, "&", 2, [0, 0, 0], "int64"),
    (I, "|", [2, 3, 1], [7, -5, 9], "int64"),
    (I, "^", -1, [-6, 6, -9], "int64"),
    (I, "<<", 2, [20, -28, 32], "int64"),
    (I, ">>", [True, True, False], [2, -4, 8], "int64"),
    ([True, False, True], "&", [True, True, False], [True, False, False], "bool"),
]


@pytest.mark.parametrize("start, op, other, values, dtype", IN_PLACE)
def test_augmented_assignment_writes_into_the_same_tensor(start, op, other, values, dtype):
    t = torch.tensor(start)
    alias = t.view(-1)  # shares t's elements: sees the write
    other = torch.tensor(other) if isinstance(other, list) else other
    out = _augmented(t, op, other)
    assert out is t and str(t.dtype) == f"srcgrad.{dtype}"
    assert t.tolist() == values and alias.tolist() == values


ERRORS = [  # self, op, other, exception type, message (stored)
    (I, "//", 2.5, RuntimeError, "result type Float can't be cast to the desired output type Long"),
    (I, "%", [2.0, 0.5, 3.0], RuntimeError, "result type Float can't be cast to the desired output type Long"),
    (I, "**", torch.tensor(2.0, dtype=torch.float64), RuntimeError,
     "result type Double can't be cast to the desired output type Long"),
    ([True, False, True], "//", 2, RuntimeError, "result type Long can't be cast to the desired output type Bool"),
    (I, "&", 2.5, RuntimeError, "result type Float can't be cast to the desired output type Long"),
    ([True, False, True], "<<", 2, RuntimeError, "result type Long can't be cast to the desired output type Bool"),
    (F, "**", [[1.0], [2.0]], RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (I, "**", [[1.0], [2.0]], RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (F, "&", [[1.0], [2.0]], RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (I, "//", 0, RuntimeError, "ZeroDivisionError"),
    (I, "**", -1, RuntimeError, "Integers to negative integer powers are not allowed."),
    # PyTorch's CPU kernels have no bool (or floating, for the bitwise ops) form
    ([True, False], "//", True, NotImplementedError, "\"div_floor_cpu\" not implemented for 'Bool'"),
    ([True, False], "%", [True, True], NotImplementedError, "\"remainder_cpu\" not implemented for 'Bool'"),
    ([True, False], "**", [True, True], NotImplementedError, "\"pow\" not implemented for 'Bool'"),
    ([1.5, 2.0], "&", 2, NotImplementedError, "\"bitwise_and_cpu\" not implemented for 'Float'"),
    ([1.5, 2.0], "<<", [1.0, 2.0], NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'"),
    ([True, False], ">>", True, NotImplementedError, "\"rshift_cpu\" not implemented for 'Bool'"),
]


@pytest.mark.parametrize("start, op, other, kind, message", ERRORS)
def test_augmented_assignment_errors_as_pytorch_and_writes_nothing(start, op, other, kind, message):
    t = torch.tensor(start)
    other = torch.tensor(other) if isinstance(other, list) else other
    with pytest.raises(kind) as e:
        _augmented(t, op, other)
    assert type(e.value) is kind and str(e.value) == message
    assert t.tolist() == start


def test_bool_rounding_divisions_out_of_place_refused_as_pytorch():
    b = torch.tensor([True, False])
    cases = [(lambda: b // b, "div_floor"), (lambda: True // b, "div_floor"), (lambda: b % True, "remainder"),
             (lambda: torch.remainder(True, b), "remainder"), (lambda: b.div(b, rounding_mode="trunc"), "div_trunc"),
             (lambda: torch.fmod(b, b), "fmod"), (lambda: b ** b, None), (lambda: torch.pow(True, b), None)]
    for call, kernel in cases:
        with pytest.raises(NotImplementedError) as e:
            call()
        assert str(e.value) == (f"\"{kernel}_cpu\" not implemented for 'Bool'" if kernel else
                                "\"pow\" not implemented for 'Bool'")
    assert (b ** True).tolist() == [True, False] and (b ** 2).tolist() == [1, 0]


@pytest.mark.parametrize("op, symbol", [("//", "//="), ("%", "%="), ("**", "**="), ("&", "&="), ("|", "|="),
                                        ("^", "^="), ("<<", "<<="), (">>", ">>=")])
def test_augmented_assignment_with_no_operand_raises_pythons_type_error(op, symbol):
    t = torch.tensor([1, 2])
    for other, name in (("a", "str"), (None, "NoneType"), (object(), "object")):
        with pytest.raises(TypeError) as e:
            _augmented(t, op, other)
        assert str(e.value) == f"unsupported operand type(s) for {symbol}: 'Tensor' and '{name}'"
    with pytest.raises(TypeError) as e:
        t // "a"
    assert str(e.value) == "unsupported operand type(s) for //: 'Tensor' and 'str'"


@pytest.mark.parametrize("op", ["//", "%", "**", "<<", "&"])
def test_augmented_assignment_on_a_leaf_that_requires_grad_or_its_view_is_refused(op):
    x = torch.tensor([1.5, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError) as e:
        _augmented(x, op, 2)
    assert str(e.value) == E11
    with pytest.raises(RuntimeError) as e:
        _augmented(x[1:], op, 2)
    assert str(e.value) == E11_VIEW
    with torch.no_grad():
        if op in ("//", "%", "**"):
            assert _augmented(x, op, 2) is x and x.requires_grad and x._version == 1


def test_power_in_place_is_recorded_as_pytorchs_nodes_with_its_gradients():
    x = torch.tensor([1.5, 2.0], requires_grad=True)
    e = torch.tensor([2.0, 3.0], requires_grad=True)
    y = x * 1
    assert _augmented(y, "**", 2) is y
    assert type(y.grad_fn).__name__ == "PowBackward0" and y._version == 1
    z = x * 1
    z **= e
    assert type(z.grad_fn).__name__ == "PowBackward1" and z.tolist() == [2.25, 8.0]
    (y.sum() + z.sum()).backward()
    assert x.grad.tolist() == [6.0, 16.0]  # 2 x + e x^(e - 1)
    assert np.allclose(e.grad.numpy(), [2.25 * np.log(1.5), 8.0 * np.log(2.0)], rtol=1e-6)


def test_power_in_place_gradient_matches_central_differences():
    x0, e0 = np.array([0.7, 1.3, 2.1]), np.array([1.5, -0.5, 2.5])

    def f(xv, ev):
        y = torch.tensor(xv, requires_grad=True) * 1
        y **= torch.tensor(ev)
        return y

    x = torch.tensor(x0, requires_grad=True)
    e = torch.tensor(e0, requires_grad=True)
    y = x * 1
    y **= e
    (y * torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)).sum().backward()
    w = np.array([1.0, -2.0, 0.5])
    h = 1e-6
    for i in range(3):
        d = np.zeros(3)
        d[i] = h
        numeric_x = (w @ f(x0 + d, e0).detach().numpy() - w @ f(x0 - d, e0).detach().numpy()) / (2 * h)
        numeric_e = (w @ f(x0, e0 + d).detach().numpy() - w @ f(x0, e0 - d).detach().numpy()) / (2 * h)
        assert abs(x.grad.numpy()[i] - numeric_x) < 1e-7 and abs(e.grad.numpy()[i] - numeric_e) < 1e-7


def test_remainder_in_place_nodes_and_gradients():
    x = torch.tensor([1.5, 5.0], requires_grad=True)
    d = torch.tensor([2.0, 3.0], requires_grad=True)
    y = x * 1
    y %= d
    assert type(y.grad_fn).__name__ == "RemainderBackward1" and y.tolist() == [1.5, 2.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and d.grad.tolist() == [-0.0, -1.0]  # -floor(x / d)
    z = torch.tensor([1.5, -2.0], requires_grad=True) * 1
    z %= 2.5
    assert type(z.grad_fn).__name__ == "RemainderBackward0" and z.tolist() == [1.5, 0.5]


def test_remainder_zero_has_the_sign_of_the_dividend_as_pytorchs():
    t = torch.tensor([-2.0, 2.0, -0.0, 0.0, 1.5])
    t %= -1
    assert np.signbit(t.numpy()).tolist() == [True, False, True, False, True] and t.tolist()[4] == -0.5
    assert np.signbit(torch.remainder(-2.0, torch.tensor([2.0, -2.0])).numpy()).tolist() == [True, True]
    assert np.signbit((torch.tensor([-2.0, 2.0]) % torch.tensor([[1.0], [-1.0]])).numpy()).tolist() == [
        [True, False], [True, False]]


def test_floor_division_in_place_has_pytorchs_node_without_derivative():
    x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = x * 1
    y //= 2
    assert y.tolist() == [0.0, -1.0, 1.0] and y._version == 1
    assert type(y.grad_fn).__name__ == "NotImplemented" and y.grad_fn.name() == "srcgrad::autograd::NotImplemented"
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    assert str(e.value) == "derivative for aten::floor_divide_ is not implemented"
    with pytest.raises(RuntimeError) as e:
        (x // 2).sum().backward()
    assert str(e.value) == "derivative for aten::floor_divide is not implemented"


def test_augmented_assignment_into_a_view_writes_the_base_through_copy_slices():
    x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    a = x * 1
    v = a[1:]
    v **= 2
    assert a.tolist() == [1.5, 4.0, 9.0] and v.tolist() == [4.0, 9.0]
    assert type(v.grad_fn).__name__ == "AsStridedBackward0" and a.grad_fn.name() == "srcgrad::autograd::CopySlices"
    assert a._version == 1 and v._version == 1
    a.sum().backward()
    assert x.grad.tolist() == [1.0, -4.0, 6.0]
    b = torch.tensor([1.5, -2.0, 3.0])
    w = b[1:]
    w %= 2.5
    assert b.tolist() == [1.5, 0.5, 0.5]
    with pytest.raises(RuntimeError) as e:
        w **= torch.tensor([1.0, 2.0, 3.0])
    assert str(e.value) == "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"


def test_power_in_place_bumps_the_version_a_saved_tensor_checks():
    x = torch.tensor([1.5, 2.0], requires_grad=True)
    y = x * 1
    z = y * y
    y **= 2
    with pytest.raises(RuntimeError) as e:
        z.sum().backward()
    assert str(e.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[srcgrad.FloatTensor [2]], which is output 0 of Pow, is at version 1; expected version 0 instead. Hint: "
        "enable anomaly detection to find the operation that failed to compute its gradient, with "
        "srcgrad.autograd.set_detect_anomaly(True, check_nan=False).")


def test_overlapping_and_expanded_writes_refused_as_pytorch():
    t = torch.arange(4.0)
    with pytest.raises(RuntimeError) as e:
        t[1:] **= t[:3]
    assert str(e.value) == ("unsupported operation: some elements of the input tensor and the written-to tensor refer "
                            "to a single memory location. Please clone() the tensor before performing the operation.")
    with pytest.raises(RuntimeError) as e:
        u = torch.tensor([1.0]).expand(3)
        u //= 2
    assert str(e.value).startswith("unsupported operation: more than one element of the written-to tensor")


def test_heaviside_in_place_values_errors_and_no_gradient():
    t = torch.tensor([-1.5, 0.0, 2.0])
    assert t.heaviside_(torch.tensor([0.5])) is t and t.tolist() == [0.0, 0.5, 1.0]
    i = torch.tensor([-1, 0, 3])
    assert i.heaviside_(torch.tensor([7])).tolist() == [0, 7, 1]
    for call, kind, message in [
        (lambda: torch.tensor([1.0]).heaviside_(torch.tensor([1])), RuntimeError,
         "heaviside is not yet implemented for tensors with different dtypes."),
        (lambda: torch.tensor([1.0]).heaviside_(0.5), TypeError,
         "heaviside_(): argument 'values' (position 1) must be Tensor, not float"),
        (lambda: torch.heaviside(torch.tensor([1.0]), 0.5), TypeError,
         "heaviside(): argument 'values' (position 2) must be Tensor, not float"),
        (lambda: torch.tensor([1.0, 2.0, 3.0]).heaviside_(torch.tensor([[1.0], [2.0]])), RuntimeError,
         "output with shape [3] doesn't match the broadcast shape [2, 3]"),
        (lambda: torch.heaviside(torch.tensor([1 + 1j]), torch.tensor([1.0])), RuntimeError,
         "heaviside is not yet implemented for complex tensors."),
        (lambda: torch.tensor([1.0], requires_grad=True).heaviside_(torch.tensor([0.5])), RuntimeError, E11),
    ]:
        with pytest.raises(kind) as e:
            call()
        assert str(e.value) == message
    y = torch.tensor([-1.5, 0.0, 2.0], requires_grad=True) * 1
    y.heaviside_(torch.tensor([0.5]))
    assert y.grad_fn.name() == "srcgrad::autograd::NotImplemented" and y._version == 1
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    assert str(e.value) == "derivative for aten::heaviside_ is not implemented"


def test_augmented_assignments_agree_with_pytorch():
    real = pytest.importorskip("torch")
    selves = {"F": [1.5, -2.0, 3.0], "I": [5, -7, 8], "B": [True, False, True]}
    others = [2, 2.5, -1, True, [2.0, 0.5, 3.0], [2, 3, 1], [True, True, False], [[1.0], [2.0]]]
    agree = total = 0
    for op in ("//", "%", "**", "&", "|", "^", "<<", ">>"):
        for start in selves.values():
            for other in others:
                got = []
                for lib in (torch, real):
                    t = lib.tensor(start)
                    o = lib.tensor(other) if isinstance(other, list) else other
                    try:
                        out = _augmented(t, op, o)
                        got.append((out is t, str(t.dtype).split(".")[1], np.asarray(t.tolist(), dtype=float)))
                    except Exception as e:  # noqa: BLE001 - the exception is what is compared
                        got.append((type(e).__name__, str(e)))
                total += 1
                mine, theirs = got
                if len(mine) == 3 and len(theirs) == 3:  # values and the signs of zeros
                    agree += mine[:2] == theirs[:2] and np.array_equal(mine[2], theirs[2], equal_nan=True) and (
                        np.array_equal(np.signbit(mine[2]), np.signbit(theirs[2])))
                else:
                    agree += mine == theirs
    assert agree == total == 192


def test_augmented_assignment_of_a_dual_tensor_pushes_the_tangent_as_pytorch():
    fa = torch.autograd.forward_ad
    with fa.dual_level():
        x = fa.make_dual(torch.tensor([1.5, 2.5], dtype=torch.float64), torch.tensor([1.0, -1.0], dtype=torch.float64))
        e = fa.make_dual(torch.tensor([2.0, 3.0], dtype=torch.float64), torch.tensor([0.5, 0.5], dtype=torch.float64))
        y = x * 1
        y **= e
        primal, tangent = fa.unpack_dual(y)
        assert primal.tolist() == [2.25, 15.625]
        # e x^(e-1) dx + x^e log(x) de
        expected = [2 * 1.5 + 2.25 * np.log(1.5) * 0.5, -3 * 2.5 ** 2 + 15.625 * np.log(2.5) * 0.5]
        assert np.allclose(tangent.numpy(), expected, rtol=1e-12)
        z = x * 1
        z %= 2
        assert fa.unpack_dual(z).tangent.tolist() == [1.0, -1.0]
        w = x * 1
        with pytest.raises(NotImplementedError) as err:
            w //= 2
        assert str(err.value) == "Trying to use forward AD with aten::floor_divide_ that does not support it."


def test_relu_in_place_of_a_complex_tensor_is_refused_as_pytorch():
    with pytest.raises(NotImplementedError) as e:
        torch.tensor([1 + 1j]).relu_()
    assert str(e.value) == "clamp is not supported for complex types"
