"""Regression cases from a differential hunt against PyTorch 2.13 (tests/tensor_fuzz.py).

Each case is one place where the shim and PyTorch disagreed; the expected values
were printed by PyTorch once (or follow by hand) and are written in, so the file
needs no PyTorch.
"""

import math
import re

import numpy as np
import pytest

import srcgrad as torch

F = torch.nn.functional

E11 = "a leaf Variable that requires grad is being used in an in-place operation."
HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
    "srcgrad.autograd.set_detect_anomaly(True, check_nan=False)."
)


# --- a leaf whose requires_grad was switched off after use gets no gradient ---------


@pytest.mark.parametrize("build", [
    lambda x: (x * x).sum(),  # one node over the leaf (the single-node fast path)
    lambda x: (x + 1).exp().sum(),  # the general engine
])
def test_leaf_switched_off_after_use_accumulates_nothing(build):
    x = torch.tensor([[0.5], [1.5]], requires_grad=True)
    out = build(x)
    x.requires_grad_(False)
    out.backward()
    assert x.grad is None


def test_leaf_switched_off_keeps_other_leaves_gradients():
    x = torch.tensor([[0.5], [1.5]], requires_grad=True)
    w = torch.ones(1, requires_grad=True)
    out = (x * w).sum()
    x.requires_grad = False
    out.backward()
    assert x.grad is None and w.grad.tolist() == [2.0]


# --- x[i] is a view: in-place writes through it reach x -------------------------------


def test_integer_index_is_a_view():
    t = torch.ones(3)
    t[0].mul_(2)
    r = t[2]
    r += 1
    assert t.tolist() == [2.0, 1.0, 2.0] and r.item() == 2.0
    m = torch.ones(2, 2)
    m[0, 1].zero_()
    m[1][0].fill_(7)
    assert m.tolist() == [[1.0, 0.0], [7.0, 1.0]]


def test_integer_index_gradient_unchanged():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x[1, 0] * 3 + x[0] .sum()).backward()
    assert x.grad.tolist() == [[1.0, 1.0], [3.0, 0.0]]
    assert type(x[1].grad_fn).__name__ == "SelectBackward0"


# --- in-place errors on leaves and their views ---------------------------------------


@pytest.mark.parametrize("write", [
    lambda x: x[0].mul_(2), lambda x: x.view(3).zero_(), lambda x: x[1:].add_(1), lambda x: x[0:2][0].neg_(),
])
def test_in_place_on_a_view_of_a_leaf(write):
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        write(x)
    assert str(info.value) == "a view of " + E11
    assert x.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("index", [[0], "mask"])
def test_advanced_index_assignment_into_a_leaf(index):
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        x[x > 0 if index == "mask" else index] = 5
    assert str(info.value) == E11


# --- in-place writes into saved values: PyTorch's error at backward -------------------


def test_write_into_a_saved_output_raises_at_backward():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)
    assert y._version == 1 and type(y.grad_fn).__name__ == "AddBackward0"
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[srcgrad.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead. " + HINT
    )
    assert x.grad is None


def test_write_into_a_saved_input_raises_at_backward():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    z = y * y
    y.add_(1)
    assert y.tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(RuntimeError) as info:
        z.sum().backward()
    assert str(info.value) == (  # named after y's node now, the in-place add (PyTorch's wording)
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[srcgrad.FloatTensor [3]], which is output 0 of Add, is at version 1; expected version 0 instead. " + HINT
    )


def test_versions_count_every_recorded_write():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.add_(1)
    y.mul_(y)  # saves y at version 1, then writes it: version 2
    with pytest.raises(RuntimeError, match=r"\[srcgrad.FloatTensor \[3\]\], which is output 0 of Mul, is at version 2; "
                                           r"expected version 1 instead"):
        y.sum().backward()


def test_recorded_writes_no_node_reads_still_differentiate():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    w = y.detach()
    y.mul_(2)
    assert w.tolist() == [6.0, 12.0]  # the detached alias shares the storage
    (y * x).sum().backward()  # d/dx 6x^2 = 12x
    assert x.grad.tolist() == [12.0, 24.0]


def test_set_detect_anomaly_is_accepted():
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        pass
    torch.autograd.set_detect_anomaly(False)


# --- nodes that keep no tensors can run twice ------------------------------------------


@pytest.mark.parametrize("op", [torch.tril, torch.triu])
def test_tril_triu_backward_twice(op):
    x = torch.ones(3, requires_grad=True)
    o = op(x.reshape(1, 3)).sum()
    o.backward()
    o.backward()
    expected = [2.0, 0.0, 0.0] if op is torch.tril else [2.0, 2.0, 2.0]
    assert x.grad.tolist() == expected


# --- relu passes -0.0 and nan through -----------------------------------------------------


def test_relu_keeps_negative_zero_and_nan():
    x = torch.tensor([-0.0, 0.0, -1.0, float("nan"), 2.0], requires_grad=True)
    for y in [x.relu(), F.relu(x), torch.relu(x)]:
        v = y.detach().numpy()
        assert np.signbit(v[0]) and not np.signbit(v[1]) and v[2] == 0.0 and math.isnan(v[3]) and v[4] == 2.0
    print_form = repr(torch.tensor([-0.0, 0.0]).relu())
    assert print_form == "tensor([-0., 0.])"
    F.relu(x).sum().backward()
    g = x.grad.numpy()
    assert g[[0, 1, 2, 4]].tolist() == [0.0, 0.0, 0.0, 1.0]


# --- binary_cross_entropy_with_logits: the target's dtype wins ---------------------------


def test_bce_with_logits_loss_has_the_targets_dtype():
    x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, torch.tensor([0.5, 0.25]), reduction="sum")
    assert loss.dtype == torch.float32
    assert loss.item() == pytest.approx(1.4401897192001343, rel=1e-6)
    loss.backward()
    assert x.grad.dtype == torch.float64
    assert x.grad.numpy() == pytest.approx([0.2310585786300049, -0.13079707797788245], rel=1e-6)
    x.grad = None
    loss = F.binary_cross_entropy_with_logits(x, torch.tensor([0.5, 0.25]), weight=torch.tensor([1.0, 2.0]))
    assert loss.dtype == torch.float32 and type(loss.grad_fn).__name__ == "BinaryCrossEntropyWithLogitsBackward0"
    assert loss.item() == pytest.approx(1.0335588455200195, rel=1e-6)
    loss.backward()
    assert x.grad.dtype == torch.float64
    assert x.grad.numpy() == pytest.approx([0.11552928931500245, -0.13079707797788245], rel=1e-6)


def test_bce_with_logits_float32_input_float64_target():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, torch.tensor([0.5, 0.2], dtype=torch.float64))
    assert loss.dtype == torch.float64
    loss.backward()
    assert x.grad.dtype == torch.float32


# --- integer powers with negative exponents ------------------------------------------------


def test_integer_power_negative_exponents():
    out = torch.tensor([1, -1, 2, 3, -1]) ** torch.tensor([-2, -3, -1, 2, 2])
    assert out.dtype == torch.int64 and out.tolist() == [1, -1, 0, 9, 1]
    assert (2 ** torch.tensor([1, -2])).tolist() == [2, 0]
    with pytest.raises(RuntimeError, match=r"^Integers to negative integer powers are not allowed\.$"):
        torch.tensor([1, 2]) ** -1


# --- nodes that keep only numbers ----------------------------------------------------------


@pytest.mark.parametrize("method, expected", [("add", [8.0, 8.0, 8.0]), ("sub", [-4.0, -4.0, -4.0])])
def test_add_sub_with_alpha_run_backward_twice(method, expected):
    x = torch.full((3,), 1.5, requires_grad=True)
    y = getattr(x, method)(x, alpha=3)
    assert type(y.grad_fn).__name__ == ("AddBackward0" if method == "add" else "SubBackward0")
    o = y.sum()
    o.backward()
    o.backward()
    assert x.grad.tolist() == expected


def test_pow_with_a_number_keeps_no_record_of_its_output():
    """PowBackward0 saves its input, not its output: a write into the output is fine."""
    x = torch.arange(1.0, 4.0).requires_grad_()
    y = x ** 2
    y.add_(x, alpha=2)
    (g,) = torch.autograd.grad(y.sum(), [x])
    assert g.tolist() == [4.0, 6.0, 8.0]


# --- a node records the versions of what its backward reads, no more ------------------------


def test_mul_saves_only_the_operand_the_other_gradient_needs():
    """`w * x` with x constant saves x, not w (PyTorch's MulBackward0): an optimizer step
    between two backward passes over a retained graph is fine."""
    x = torch.tensor([[[1.0]], [[3.0]], [[0.0]]])
    w = torch.ones(3, requires_grad=True)
    y = w * x
    opt = torch.optim.SGD([w], lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        y.pow(2).sum().backward(retain_graph=True)
        opt.step()
    assert w.grad.tolist() == [20.0, 20.0, 20.0]
    assert w.detach().numpy() == pytest.approx([-3.0] * 3)


def test_mul_constant_operand_changed_in_place_still_raises():
    w = torch.ones(3, requires_grad=True)
    x = torch.tensor([1.0, 2.0, 3.0])
    y = x * w
    x.add_(1)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()


def test_exp_saves_its_result_not_its_input():
    w = torch.ones(3, requires_grad=True)
    y = w.exp()
    with torch.no_grad():
        w.add_(1)
    y.sum().backward()
    assert w.grad.numpy() == pytest.approx([math.e] * 3, rel=1e-6)


def test_lerp_with_a_number_weight_runs_backward_twice():
    x = torch.tensor([[-0.4, -0.44], [-0.27, 1.0]], requires_grad=True)
    y = torch.lerp(x, x + 1, 0.3)  # x + 0.3
    assert type(y.grad_fn).__name__ == "LerpBackward0"
    y.sum().backward()
    y.mean().backward()
    assert x.grad.tolist() == [[1.25, 1.25], [1.25, 1.25]]


# --- item assignment: PyTorch's broadcasting and errors ----------------------------------------


def test_setitem_drops_leading_unit_dims_of_the_value():
    v = torch.ones(3)
    v[0] = torch.tensor([0.5])
    m = torch.zeros(2, 3)
    m[1] = torch.ones(1, 1, 3)
    m[0, 1:] = torch.tensor([[5.0, 6.0]])
    assert v.tolist() == [0.5, 1.0, 1.0] and m.tolist() == [[0.0, 5.0, 6.0], [1.0, 1.0, 1.0]]


@pytest.mark.parametrize("index, value, message", [
    (0, (2, 3), "expand(srcgrad.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater "
                "or equal to the number of dimensions in the tensor (2)"),
    (0, (1, 2), "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  "
                "Target sizes: [3].  Tensor sizes: [2]"),
    ([0, 1], (3, 3), "shape mismatch: value tensor of shape [3, 3] cannot be broadcast to indexing result of shape [2, 3]"),
])
def test_setitem_shape_errors(index, value, message):
    m = torch.zeros(2, 3)
    with pytest.raises(RuntimeError) as info:
        m[index] = torch.ones(*value)
    assert str(info.value) == message


@pytest.mark.parametrize("index, message", [
    (5, "index 5 is out of bounds for dimension 0 with size 3"),
    ((0, 2), "index 2 is out of bounds for dimension 1 with size 2"),
    (([0, 2], [2, 0]), "index 2 is out of bounds for dimension 1 with size 2"),
])
def test_index_out_of_bounds_message(index, message):
    with pytest.raises(IndexError) as info:
        torch.ones(3, 2)[index]
    assert str(info.value) == message


# --- atan2 at the origin: PyTorch's gradient is 0, not nan ---------------------------------


@pytest.mark.parametrize("x, y, gx, gy", [(-0.0, -0.0, -0.0, 0.0), (0.0, 0.0, 0.0, -0.0), (1e-30, 1e-30, 0.0, -0.0),
                                          (0.0, 1.0, 1.0, -0.0), (1.0, 0.0, 0.0, -1.0)])
def test_atan2_gradient_at_the_origin(x, y, gx, gy):
    a = torch.tensor(x, requires_grad=True)
    b = torch.tensor(y, requires_grad=True)
    torch.atan2(a, b).backward()
    got = (a.grad.item(), b.grad.item())
    assert got == (gx, gy) and [math.copysign(1, v) for v in got] == [math.copysign(1, gx), math.copysign(1, gy)]


def test_atan2_same_tensor_at_zero():
    x = torch.tensor(-0.0, requires_grad=True)
    torch.atan2(x, x).backward()
    assert x.grad.item() == 0.0


# --- small fixes: 0-d sort/topk, a writable expand ---------------------------------------------


def test_sort_and_topk_of_a_0d_tensor():
    x = torch.tensor(2.5, requires_grad=True)
    values, indices = x.topk(1)
    assert values.shape == () and indices.item() == 0 and type(values.grad_fn).__name__ == "TopkBackward0"
    assert type(x.sort()[0].grad_fn).__name__ == "SortBackward0"
    (values * 3).backward()
    assert x.grad.item() == 3.0


def test_expand_that_repeats_nothing_writes_through():
    v = torch.full((3, 2), -0.25)
    v.expand_as(v).neg_()
    w = torch.ones(3)
    w.expand(1, 3).mul_(2)
    assert v.tolist() == [[0.25, 0.25]] * 3 and w.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        torch.ones(3).expand(2, 3).mul_(2)


# --- relu and clamp select the gradient: nan or inf does not leak where they are flat ---------


def test_relu_and_clamp_do_not_leak_nan_or_inf_gradients():
    x = torch.tensor([-105.14, 53.45, 0.5], requires_grad=True)
    (torch.clamp(x, -1, 1) * float("inf")).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, float("inf")]
    x.grad = None
    (x.clamp(min=0.6) * float("inf")).sum().backward()
    assert x.grad.tolist() == [0.0, float("inf"), 0.0]
    x.grad = None
    (torch.nn.functional.relu(x) * float("nan")).sum().backward()
    g = x.grad.tolist()
    assert g[0] == 0.0 and math.isnan(g[1]) and math.isnan(g[2])


def test_in_place_add_and_sub_keep_no_tensor():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    y.add_(1e-3, alpha=2)
    y -= 1
    o = y.sum()
    o.backward()
    o.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_std_of_equal_float32_values_is_exactly_zero():
    v = torch.full((3, 2, 1), -0.25, requires_grad=True)
    w = torch.tanh(v) * 0.41 - 1.24  # three equal float32 values whose float32 mean is not exact
    s = w.std(0, unbiased=False)
    assert s.dtype == torch.float32 and s.tolist() == [[0.0], [0.0]]
    assert (s ** -1).tolist() == [[float("inf")], [float("inf")]]
    assert w.var().item() == 0.0


def test_std_float32_values_and_gradient():
    x = torch.tensor([[0.3, 1.7, -2.2], [0.1, 0.1, 0.1]], requires_grad=True)
    y = x.std(1)
    assert y.dtype == torch.float32 and y.detach().numpy() == pytest.approx([1.9756854, 0.0], rel=1e-6)
    y.sum().backward()
    assert x.grad.dtype == torch.float32
    assert x.grad.numpy() == pytest.approx(np.array([[0.0928, 0.4471, -0.5399], [0.0, 0.0, 0.0]]), abs=1e-4)


def test_sort_of_a_0d_bool_tensor():
    values, indices = torch.tensor(True).sort()
    assert values.item() is True and indices.item() == 0


@pytest.mark.parametrize("method, name", [("fill_", "FillBackward2"), ("zero_", "ZeroBackward0")])
def test_overwrites_in_place_keep_no_tensor(method, name):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x + x
    getattr(y, method)(*([2] if method == "fill_" else []))
    assert type(y.grad_fn).__name__ == name
    o = (y + x).sum()
    o.backward()
    o.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_unbind_of_a_vector_gives_views():
    v = torch.tensor([1.0, 2.0])
    first = v.unbind(0)[0]
    first += 1
    assert v.tolist() == [2.0, 2.0]
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = x.unbind()
    (a * 3 + b).backward()
    assert x.grad.tolist() == [3.0, 1.0]


# --- a zero base's gradients (PyTorch's pow_backward conventions) -------------------


def test_pow_gradients_at_a_zero_base():
    x = torch.tensor([0.0, 0.0, 0.0, 2.0], requires_grad=True)
    e = torch.tensor([-0.49, 0.0, 1.5, 0.0], requires_grad=True)
    (x ** e).sum().backward()
    assert x.grad.tolist() == [-math.inf, 0.0, 0.0, 0.0]
    assert e.grad.tolist()[:3] == [-math.inf, 0.0, 0.0] and e.grad.tolist()[3] == pytest.approx(0.6931, abs=1e-4)
    e = torch.tensor([-0.49, 0.0, 1.5], requires_grad=True)
    (0 ** e).sum().backward()
    assert e.grad.tolist() == [-math.inf, 0.0, 0.0]


# --- messages of matmul's ops and of an index out of range --------------------------


@pytest.mark.parametrize("a, b, requires_grad, message", [
    ((2,), (2,), False, "dot : expected both vectors to have same dtype, but found Double and Float"),
    ((3, 2), (2,), False, "addmv input tensors must have the same dtype, but got Float, Double, and Float"),
    ((1, 3, 2), (2,), False, "addmv input tensors must have the same dtype, but got Float, Double, and Float"),
    ((2,), (2, 3), False, "expected m1 and m2 to have the same dtype, but got: double != float"),
    ((1, 3, 2), (1, 2, 3), False, "expected scalar type Double but found Float"),
    ((2,), (1, 2, 3), False, "expected scalar type Double but found Float"),
    ((2,), (1, 2, 3), True, "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
])
def test_matmul_of_two_dtypes_raises_the_message_of_its_op(a, b, requires_grad, message):
    left = torch.ones(a, dtype=torch.float64, requires_grad=requires_grad)
    with pytest.raises(RuntimeError) as info:
        left @ torch.ones(b)
    assert str(info.value) == message


@pytest.mark.parametrize("index, message", [
    ((slice(None), [0, 2]), "index 2 is out of bounds for dimension 0 with size 2"),
    ((slice(None), slice(None), [0, 5]), "index 5 is out of bounds for dimension 0 with size 3"),
    (([0, 1], [0, 2]), "index 2 is out of bounds for dimension 1 with size 2"),
    ((slice(None), [0, 1], [0, 5]), "index 5 is out of bounds for dimension 1 with size 3"),
    ((Ellipsis, [0, 5]), "index 5 is out of bounds for dimension 0 with size 3"),
    ((0, 5), "index 5 is out of bounds for dimension 1 with size 2"),
])
def test_an_index_array_out_of_range_names_its_number_among_the_arrays(index, message):
    with pytest.raises(IndexError) as info:
        torch.zeros(2, 2, 3)[index]
    assert str(info.value) == message


# --- what nodes keep: writes PyTorch's nodes do not see -------------------------------


@pytest.mark.parametrize("build", [
    lambda v: v / 2,
    lambda v: v @ torch.ones(2, 1),
    lambda v: v.unsqueeze(0) @ torch.ones(2, 1),
    lambda v: torch.ones(3, 2) @ v,
])
def test_a_write_into_an_operand_read_for_its_shape_only_is_not_refused(build):
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    out = build(v)
    with torch.no_grad():
        v.add_(1)
    out.sum().backward()
    assert v.grad is not None


def test_copy_slices_runs_backward_once():
    x = torch.full((1, 3), -0.25, requires_grad=True)
    y = x.clone()
    y[-1] = -2
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.mean().backward()


def test_adamw_counts_its_weight_decay_as_a_write():
    p = torch.ones(2, requires_grad=True)
    opt = torch.optim.AdamW([p], lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
    assert p._version == 4


# --- the saved tensor a version error names ----------------------------------------------


@pytest.mark.parametrize("build, shape, suffix", [
    (lambda x: x * x[0], "[3]", ", which is output 0 of AsStrided,"),  # PyTorch checks the second operand first
    (lambda x: x[0] * x, "[2, 3]", ""),
    (lambda x: x @ x.t(), "[3, 2]", ", which is output 0 of AsStrided,"),
    (lambda x: x.t() @ x, "[2, 3]", ""),
    (lambda x: torch.maximum(x, x[0]), "[3]", ", which is output 0 of AsStrided,"),
])
def test_a_version_error_names_the_view_as_pytorch_regenerates_it(build, shape, suffix):
    x = torch.ones(2, 3, requires_grad=True)
    y = build(x)
    with torch.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[srcgrad.FloatTensor {shape}]{suffix} is at version 1; expected version 0 instead. " + HINT
    )


def test_an_advanced_index_keeps_no_version_of_its_input():
    x = torch.arange(6.0, requires_grad=True)
    y = x[torch.tensor([True] + [False] * 5)]
    with torch.no_grad():
        x.add_(1)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]


# --- F.linear as PyTorch computes it -------------------------------------------------------


def test_linear_of_a_vector_with_a_bias_is_a_view_of_an_addmm():
    w = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = F.linear(x, w, b)
    assert type(out.grad_fn).__name__ == "ViewBackward0" and out._base is not None
    assert [type(f).__name__ for f, _ in out.grad_fn.next_functions[0][0].next_functions] == [
        "AccumulateGrad", "ViewBackward0", "TBackward0"]
    out.zero_()  # a write into the view: its base becomes CopySlices, the view AsStridedBackward0
    assert type(out.grad_fn).__name__ == "AsStridedBackward0"
    (out * w.sum()).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0] and w.grad.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("shape, node", [((2, 2, 3), "ViewBackward0"), ((2, 2, 2, 3), "ViewBackward0")])
def test_linear_of_a_contiguous_batch_with_a_bias(shape, node):
    x = torch.ones(*shape, requires_grad=True)
    out = F.linear(x, torch.ones(2, 3), torch.ones(2))
    assert type(out.grad_fn).__name__ == node and out.shape == shape[:-1] + (2,)
    assert type(F.linear(x.transpose(0, 1), torch.ones(2, 3), torch.ones(2)).grad_fn).__name__ == "AddBackward0"


def test_linear_and_addmm_dtype_messages():
    w = torch.ones(2, 3)
    with pytest.raises(RuntimeError, match="^mat1 and mat2 must have the same dtype, but got Double and Float$"):
        F.linear(torch.ones(3, dtype=torch.float64), w, torch.ones(2))
    with pytest.raises(RuntimeError, match="^self and mat2 must have the same dtype, but got Double and Float$"):
        torch.addmm(torch.ones(2, 2, dtype=torch.float64), torch.ones(2, 3), torch.ones(3, 2))


def test_lerp_needs_a_tensor_end():
    with pytest.raises(TypeError) as info:
        torch.lerp(torch.zeros(3), -2, 0.3)
    assert str(info.value) == (
        "lerp() received an invalid combination of arguments - got (Tensor, int, float), but expected one of:\n"
        " * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n"
        " * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n"
    )


# --- signed zeros ----------------------------------------------------------------------


def test_a_product_over_one_column_keeps_the_sign_of_zero():
    """PyTorch's mm with an inner size of 1 is the outer product: 0 * -1 is -0."""
    out = torch.zeros(3, 1) @ -torch.ones(1, 2)
    assert np.signbit(out.numpy()).all()
    assert not np.signbit((torch.zeros(3, 2) @ -torch.ones(2, 2)).numpy()).any()
    for m, n in ((3, 1), (1, 2), (1, 1)):  # a matrix-vector product: from +0
        assert not np.signbit((torch.zeros(m, 1) @ -torch.ones(1, n)).numpy()).any()


def test_the_gradient_of_max_is_plus_zero_off_the_maximum():
    x = torch.tensor([[0.85, -0.0], [-1.2, 0.07]], requires_grad=True)
    x.max().backward(torch.tensor(-0.01))
    assert repr(x.grad) == "tensor([[-0.0100,  0.0000],\n        [ 0.0000,  0.0000]])"


# --- reshape, view, contiguous -----------------------------------------------------------


def test_reshape_view_and_contiguous_as_pytorch():
    x = torch.ones(2, 3, requires_grad=True)
    assert type(x.reshape(-1).grad_fn).__name__ == "ViewBackward0"
    assert type(x.t().reshape(3, 2).grad_fn).__name__ == "ReshapeAliasBackward0"
    copied = x.t().reshape(-1)
    assert type(copied.grad_fn).__name__ == "UnsafeViewBackward0" and not copied._is_view()
    assert type(copied.grad_fn.next_functions[0][0]).__name__ == "CloneBackward0"
    assert type(x.t().contiguous().grad_fn).__name__ == "CloneBackward0" and x.contiguous() is x
    with pytest.raises(RuntimeError, match=r"^view size is not compatible with input tensor's size and stride"):
        x.t().view(-1)
    with pytest.raises(RuntimeError, match=r"^shape '\[4\]' is invalid for input of size 6$"):
        x.reshape(4)
    y = torch.ones(2, 3)
    z = y.t().contiguous()
    z.add_(1)
    assert y.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("build, shape", [
    (lambda x: torch.mv(x, x[0]), "[3, 1]"),  # self before vec
    (lambda x: torch.bmm(x[None], x.t()[None]), "[1, 1, 3]"),  # mat2 before self
])
def test_the_saved_operand_a_version_error_names_first(build, shape):
    x = torch.full((3, 1), 1.5, requires_grad=True)
    y = build(x)
    with torch.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match=r"\[srcgrad.FloatTensor " + re.escape(shape) + r"\]"):
        y.sum().backward()
