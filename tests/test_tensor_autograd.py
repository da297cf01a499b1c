"""srcgrad.autograd (custom Functions, grad, backward), nn.functional and @srcgrad.compile."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch

F = torch.nn.functional


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class ScaleBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


def test_custom_function_forward_backward_and_repr():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = Exp.apply(x)
    assert repr(y) == "tensor([1.0000, 2.7183], grad_fn=<ExpBackward>)"
    assert re.fullmatch(r"<srcgrad\.autograd\.function\.ExpBackward object at 0x[0-9a-f]+>", repr(y.grad_fn))
    assert y.grad_fn.name() == "ExpBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]).astype(np.float32))
    with raises(RuntimeError, "Trying to backward through the graph a second time "
                "(or directly access saved tensors after they have already been freed). Saved intermediate "
                "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or if you need to "
                "access saved tensors after calling backward."):
        y.sum().backward()


def test_custom_function_without_saved_tensors_runs_twice_and_skips_constants():
    x = torch.ones(2, requires_grad=True)
    y = ScaleBy.apply(x, 3.0).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [6.0, 6.0]
    with torch.no_grad():
        assert ScaleBy.apply(x, 2.0).grad_fn is None
    assert ScaleBy.apply(torch.ones(2), 2.0).grad_fn is None


def test_custom_function_wrong_gradient_count():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    with raises(RuntimeError, "function BadBackward returned an incorrect number of gradients (expected 2, got 1)"):
        Bad.apply(torch.ones(1, requires_grad=True), torch.ones(1)).backward()


def test_custom_function_gradient_of_a_broadcast_shape_is_summed_to_the_input():
    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):  # g has the broadcast shape (3, 4)
            return g * 3, g * 2

    a, b = torch.ones(4, requires_grad=True), torch.ones(3, 1, requires_grad=True)
    Mul.apply(a, b).sum().backward()
    assert a.grad.tolist() == [9.0] * 4 and b.grad.tolist() == [[8.0]] * 3  # PyTorch's sum_to
    assert a.grad.dtype == torch.float32


@pytest.mark.parametrize("shape, got", [((5,), (3, 4)), ((3, 4), (4,))])
def test_custom_function_gradient_of_an_incompatible_shape_is_refused(shape, got):
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            return torch.ones(*got)

    x = torch.ones(*shape, requires_grad=True)
    with raises(RuntimeError, f"Function BadBackward returned an invalid gradient at index 0 - got {list(got)} "
                f"but expected shape compatible with {list(shape)}"):
        Bad.apply(x).backward()
    assert x.grad is None


def test_autograd_grad_returns_without_accumulating():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x * x).sum(), x)
    assert g.tolist() == [2.0, 4.0] and x.grad is None
    z = torch.ones(3, requires_grad=True)
    with raises(RuntimeError, "The differentiated Tensor at index 1 appears to not have been used in the graph. "
                              "Set allow_unused=True if this is the desired behavior."):
        torch.autograd.grad((x * x).sum(), [x, z])
    gx, gz = torch.autograd.grad((x * x).sum(), [x, z], allow_unused=True)
    assert gz is None and gx.tolist() == [2.0, 4.0]


def test_autograd_grad_of_intermediate_and_backward_function():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    (gh,) = torch.autograd.grad((h * h).sum(), h)
    assert gh.tolist() == [6.0, 12.0]
    torch.autograd.backward([(x * 2).sum()])
    assert x.grad.tolist() == [2.0, 2.0]


def test_create_graph_of_functional_jacobian_records_its_graph():
    # more in tests/test_tensor_create_graph.py
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    jac = torch.autograd.functional.jacobian(lambda t: t * t * t, x, create_graph=True)
    assert jac.tolist() == [[6.75, 0.0], [0.0, 12.0]] and jac.requires_grad  # diag(3 x**2)
    (g,) = torch.autograd.grad(jac.sum(), x)
    assert g.tolist() == [9.0, -12.0]  # 6 x


# --- nn.functional -----------------------------------------------------------------


def test_functional_values():
    z = torch.tensor([-2.0, 0.0, 3.0])
    y = torch.tensor([0.0, 1.0, 1.0])
    zd = np.array([-2.0, 0.0, 3.0])
    bce = np.maximum(zd, 0) - zd * np.array([0, 1, 1]) + np.log1p(np.exp(-np.abs(zd)))
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(z, y).item(), bce.mean(), rtol=1e-6)
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(z, y, reduction="sum").item(), bce.sum(), rtol=1e-6)
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(z, y, reduction="none").numpy(), bce, rtol=1e-6)
    np.testing.assert_allclose(F.sigmoid(z).numpy(), 1 / (1 + np.exp(-zd)), rtol=1e-6)
    assert F.relu(z).tolist() == [0.0, 0.0, 3.0]
    np.testing.assert_allclose(F.softmax(z, 0).numpy(), np.exp(zd) / np.exp(zd).sum(), rtol=1e-6)
    np.testing.assert_allclose(F.log_softmax(z, 0).numpy(), zd - np.log(np.exp(zd).sum()), rtol=1e-6)
    assert F.mse_loss(z, y).item() == pytest.approx(((zd - [0, 1, 1]) ** 2).mean())
    logits = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    ce = F.cross_entropy(logits, torch.tensor([2, 0]))
    expected = np.mean([-np.log(np.exp(3) / np.exp([1, 2, 3]).sum()), np.log(3)])
    assert ce.item() == pytest.approx(expected, rel=1e-6)


def test_functional_errors():
    with raises(ValueError, "Target size (srcgrad.Size([2])) must be the same as input size (srcgrad.Size([3]))"):
        F.binary_cross_entropy_with_logits(torch.ones(3), torch.zeros(2))
    with raises(ValueError, "Using a target size (srcgrad.Size([2])) that is different to the input size "
                            "(srcgrad.Size([3])) is deprecated. Please ensure they have the same size."):
        F.binary_cross_entropy(torch.ones(3), torch.zeros(2))
    with raises(RuntimeError, "all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(torch.ones(2) * 2, torch.zeros(2))
    with raises(ValueError, "avg is not a valid value for reduction"):
        F.mse_loss(torch.ones(2), torch.ones(2), reduction="avg")


def test_pointwise_losses_warn_when_the_target_broadcasts():
    x = torch.ones(2, 3)
    for loss in (F.mse_loss, F.l1_loss):
        with pytest.warns(UserWarning) as record:
            loss(x, torch.zeros(3))
        assert [str(w.message) for w in record] == [
            "Using a target size (srcgrad.Size([3])) that is different to the input size (srcgrad.Size([2, 3])). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size."
        ]
        assert record[0].filename == __file__
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            loss(x, torch.zeros(2, 3))


def test_l1_loss_is_built_as_pytorch_builds_it():
    """(input - target).abs() then mean or sum: three node names, no L1LossBackward0."""
    a = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    y = torch.tensor([[0.0, 0.0], [0.5, 1.0]])
    for reduction, name, value in [("mean", "MeanBackward0", 1.25), ("sum", "SumBackward0", 5.0), ("none", "AbsBackward0", None)]:
        out = F.l1_loss(a, y, reduction=reduction)
        assert type(out.grad_fn).__name__ == name
        if value is not None:
            assert out.item() == pytest.approx(value)
    a.grad = None
    F.l1_loss(a, y).backward()
    assert a.grad.tolist() == [[0.25, -0.25], [0.0, 0.25]]


MATMUL_MISMATCHES = [  # shapes, whether the left operand requires grad, PyTorch 2.13's message
    ((2, 3), (2, 3), False, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    ((3,), (2, 3), True, "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x3)"),
    ((2, 4, 3), (2, 2), False, "mat1 and mat2 shapes cannot be multiplied (8x3 and 2x2)"),
    ((0, 3), (2, 5), False, "mat1 and mat2 shapes cannot be multiplied (0x3 and 2x5)"),
    ((2, 3), (4,), True, "size mismatch, got input (2), mat (2x3), vec (4)"),
    ((2, 4, 3), (4,), False, "size mismatch, got input (8), mat (8x3), vec (4)"),
    ((3,), (4,), True, "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of "
                       "elements, but got 3 and 4 elements respectively"),
    ((4, 3), (2, 4, 3), False, "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    ((2, 4, 3), (3, 2, 2, 5), True, "Expected size for first two dimensions of batch2 tensor to be: [6, 3] but got: [6, 2]."),
    ((2, 4, 3), (2, 3, 5, 1), False, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"),
    ((4, 3, 2), (2, 4, 3), True, "The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0"),
    ((2, 3), (2, 4, 3), True, "mat1 and mat2 shapes cannot be multiplied (6x4 and 3x2)"),
    ((3,), (2, 4, 3), True, "size mismatch, got input (6), mat (6x4), vec (3)"),
]


@pytest.mark.parametrize("left, right, left_requires_grad, message", MATMUL_MISMATCHES)
def test_matmul_shape_mismatch_is_pytorchs_error(left, right, left_requires_grad, message):
    """Not NumPy's ValueError about gufunc core dimensions. A left operand of at most 2-D
    that requires grad makes PyTorch multiply the transposes, and report those."""
    a = torch.ones(*left, requires_grad=left_requires_grad)
    b = torch.ones(*right)
    for product in (lambda: a @ b, lambda: torch.matmul(a, b), lambda: a.double() @ b.double()):
        with raises(RuntimeError, message):
            product()
        try:
            product()
        except RuntimeError as error:  # NumPy's ValueError is not shown as its context
            assert error.__suppress_context__ or error.__context__ is None


def test_class_index_target_errors_are_pytorchs():
    """Every mismatch of input and class-index target gets PyTorch's error, before NumPy sees it."""
    x3, x4, x2 = torch.ones(2, 3, 5), torch.ones(2, 3, 4, 5), torch.ones(2, 3)
    cases = [
        (RuntimeError, "Expected target size [2, 5], got [2, 4]", F.nll_loss, x3, torch.zeros(2, 4, dtype=torch.int64)),
        (ValueError, "Expected input batch_size (2) to match target batch_size (3).", F.nll_loss, x3,
         torch.zeros(3, 5, dtype=torch.int64)),
        (RuntimeError, "size mismatch (got input: [2, 3, 4, 5] , target: [2, 5, 4]", F.nll_loss, x4,
         torch.zeros(2, 5, 4, dtype=torch.int64)),
        (RuntimeError, "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2",
         F.nll_loss, x4, torch.zeros(2, 20, dtype=torch.int64)),
        (RuntimeError, "0D or 1D target tensor expected, multi-target not supported", F.nll_loss, x2,
         torch.zeros(2, 1, dtype=torch.int64)),
        (ValueError, "For 1D input, 1D target must have size 1, but got target size: 2", F.cross_entropy,
         torch.ones(3), torch.zeros(2, dtype=torch.int64)),
        (ValueError, "Expected 1 or more dimensions (got 0)", F.nll_loss, torch.tensor(1.0), torch.tensor(0)),
        (RuntimeError, "expected target dtype to be Long or Byte, but got Float", F.nll_loss, x3, torch.zeros(2, 5)),
        (IndexError, "Target 3 is out of bounds.", F.nll_loss, x3, torch.tensor([[0, 1, 3, 0, 4], [0] * 5])),
        (IndexError, "Target -1 is out of bounds.", F.cross_entropy, x2, torch.tensor([0, -1])),
        (RuntimeError, "Expected target size [2, 5], got [2, 3, 4]", F.cross_entropy, x3, torch.zeros(2, 3, 4)),
        (RuntimeError, "Expected floating point type for target with class probabilities, got Long", F.cross_entropy,
         x2, torch.zeros(2, 3, dtype=torch.int64)),
    ]
    for exc, message, fn, x, target in cases:
        with raises(exc, message):
            fn(x, target)
    with raises(RuntimeError, "weight tensor should be defined either for all 3 classes or no classes but got "
                              "weight tensor of shape: [4]"):
        F.nll_loss(x2, torch.tensor([0, 1]), weight=torch.ones(4))
    with raises(RuntimeError, "The function 'nll_loss2d_forward' is not differentiable with respect to argument "
                              "'weight'. This input cannot have requires_grad True."):
        F.cross_entropy(x3, torch.zeros(2, 5, dtype=torch.int64), weight=torch.ones(3, requires_grad=True))


def test_functional_node_names():
    a = torch.ones(2, 2, requires_grad=True)
    names = {
        "ReluBackward0": F.relu(a), "SigmoidBackward0": F.sigmoid(a), "TanhBackward0": F.tanh(a),
        "SoftmaxBackward0": F.softmax(a, 1), "LogSoftmaxBackward0": F.log_softmax(a, 1),
        "MseLossBackward0": F.mse_loss(a, torch.zeros(2, 2)),
        "BinaryCrossEntropyBackward0": F.binary_cross_entropy(F.sigmoid(a), torch.zeros(2, 2)),
        "NllLossBackward0": F.cross_entropy(a, torch.tensor([0, 1])),
        "DivBackward1": F.cross_entropy(a, torch.ones(2, 2) / 2),
    }
    for name, t in names.items():
        assert type(t.grad_fn).__name__ == name


# --- @srcgrad.compile -------------------------------------------------------------


@torch.compile
def compiled_loss(w, b, x, y):
    z = np.matmul(x, w) + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


@torch.compile
def compiled_features(w, x):
    return np.tanh(np.matmul(x, w))


def _layer(seed=0):
    rng = np.random.default_rng(seed)
    w = torch.tensor(rng.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    b = torch.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True)
    return w, b


def test_compiled_function_matches_eager_bce():
    x, y = torch.ones(5), torch.zeros(3)
    w, b = _layer()
    loss = compiled_loss(w, b, x, y)
    assert type(loss.grad_fn).__name__ == "compiled_lossBackward" and loss.dtype == torch.float32
    loss.backward()
    w2, b2 = _layer()
    eager = F.binary_cross_entropy_with_logits(torch.matmul(x, w2) + b2, y)
    eager.backward()
    assert loss.item() == pytest.approx(eager.item(), rel=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), b2.grad.numpy(), rtol=1e-5)
    assert w.grad.dtype == torch.float32


def test_compiled_function_only_differentiates_what_requires_grad():
    x = torch.ones(2, 5, requires_grad=True)
    w = torch.tensor(np.linspace(-1, 1, 15).reshape(5, 3).astype(np.float32))
    out = compiled_features(w, x)
    assert out.shape == (2, 3)
    out.backward(torch.ones(2, 3))
    expected = (1 - np.tanh(np.ones((2, 5)) @ w.numpy()) ** 2) @ w.numpy().T
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert w.grad is None


def test_compiled_function_under_no_grad_and_second_backward():
    w, b = _layer()
    with torch.no_grad():
        out = compiled_loss(w, b, torch.ones(5), torch.zeros(3))
    assert out.grad_fn is None and not out.requires_grad
    loss = compiled_loss(w, b, torch.ones(5), torch.zeros(3))
    loss.backward(retain_graph=True)
    loss.backward()
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()


@torch.compile
def compiled_layer(w, x):
    return np.tanh(np.matmul(x, w))


def test_source_of_a_compiled_function_shows_the_derivatives_its_calls_use():
    with raises(ValueError, "`compiled_layer` (@srcgrad.compile) has made no derivative yet: it makes one for each "
                "kind of call on Tensors that require grad, so call it on them first; the gradient of the plain "
                "function is srcgrad.source(srcgrad.grad(compiled_layer.__wrapped__, wrt=...))"):
        torch.source(compiled_layer)
    w, _ = _layer()
    with torch.no_grad():
        compiled_layer(w, torch.ones(2, 5))
    with pytest.raises(ValueError, match="made no derivative yet"):
        torch.source(compiled_layer)  # a call that records nothing uses none
    out = compiled_layer(w, torch.ones(2, 5))  # w requires grad, x does not
    text = torch.source(compiled_layer)
    assert text.count("\ndef compiled_layer_vjp(w, x):") == 1 and "        # return np.tanh(np.matmul(x, w))" in text
    assert "zeros_like_grad(x)" in text and "\n        x_bar" not in text  # the call differentiates w only
    compiled_layer(w, torch.ones(2, 5, requires_grad=True))  # another kind: both w and x
    text = torch.source(compiled_layer)
    assert text.count("\ndef compiled_layer_vjp(w, x):") == 2 and "\n        x_bar = " in text.split("\n\nimport numpy")[1]
    # the text shown is code that runs: its pullback gives what backward gives
    out.backward(torch.ones(2, 3))
    scope = {}
    exec(compile(text.split("\n\nimport numpy")[0], "<shown>", "exec"), scope)
    _, pullback = scope["compiled_layer_vjp"](w.detach().numpy(), np.ones((2, 5), np.float32))
    np.testing.assert_allclose(pullback(np.ones((2, 3), np.float32))[0], w.grad.numpy(), rtol=1e-6)


@torch.compile
def compiled_scaled(w, x, scale=1.0, bias=0.0):
    return np.sum(np.tanh(np.matmul(x, w)) + bias) * scale


@torch.compile
def compiled_keyword_only(w, *, k=2.0):
    return np.sum(w) * k


def test_compiled_function_binds_keyword_arguments_as_python_does():
    """Keywords go to their positions, left-out parameters take their defaults, and a
    Tensor passed by keyword gets its gradient: the same values and gradients as eager."""
    rng = np.random.default_rng(3)
    data = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    calls = [
        lambda f, w, x, c: f(w, x, scale=2.0),
        lambda f, w, x, c: f(w, x=x, bias=c),
        lambda f, w, x, c: f(x=x, w=w),
        lambda f, w, x, c: f(w, x, 3.0, bias=c),
    ]
    for call in calls:
        for _ in range(3):  # the first, second and later calls of a kind run different code
            results = []
            for f in (compiled_scaled, lambda w, x, scale=1.0, bias=0.0: ((x @ w).tanh() + bias).sum() * scale):
                w, x = (torch.tensor(a, requires_grad=True) for a in data)
                c = torch.tensor(0.25, dtype=torch.float64, requires_grad=True)
                out = call(f, w, x, c)
                out.backward()
                results.append((out.item(), w.grad.numpy(), x.grad.numpy(), c.grad))
            (value, gw, gx, gc), (eager, ew, ex, ec) = results
            assert value == pytest.approx(eager, rel=1e-14)
            np.testing.assert_allclose(gw, ew, rtol=1e-13)
            np.testing.assert_allclose(gx, ex, rtol=1e-13)
            assert (gc is None) == (ec is None) and (gc is None or gc.item() == pytest.approx(ec.item(), rel=1e-14))
    c = torch.tensor(0.25, dtype=torch.float64, requires_grad=True)
    compiled_scaled(torch.tensor(data[0]), torch.tensor(data[1]), bias=c, scale=2.0).backward()
    assert c.grad.item() == 16.0  # scale times the 8 elements the bias is added to
    with torch.no_grad():
        assert compiled_scaled(torch.tensor(data[0]), torch.tensor(data[1]), scale=0.0).item() == 0.0


def test_compiled_function_keyword_errors():
    w = torch.ones(2, requires_grad=True)
    with raises(TypeError, "compiled_scaled() got an unexpected keyword argument 'foo'"):
        compiled_scaled(w, w, foo=1)
    with raises(TypeError, "compiled_scaled() multiple values for argument 'w'"):
        compiled_scaled(w, w, w=w)
    with raises(TypeError, "compiled_keyword_only() too many positional arguments"):
        compiled_keyword_only(w, 3.0)  # keyword-only, as in Python
    with pytest.raises(TypeError, match=r"^@srcgrad.compile passes arguments to `compiled_collecting` \(.*"
                                        r"test_tensor_autograd.py:\d+\) by position, and `k` has no position"):
        compiled_collecting(w, k=3.0)


@torch.compile
def compiled_collecting(w, **options):
    return np.sum(w) * options.get("k", 2.0)


def test_compiled_function_takes_keyword_only_parameters():
    """A keyword-only parameter takes its default or the keyword's value, and a Tensor
    passed to one gets its gradient, in the first, second and later calls of a kind."""
    for _ in range(3):
        w = torch.tensor(np.array([1.0, -2.0, 0.5]), requires_grad=True)
        out = compiled_keyword_only(w)
        out.backward()
        assert out.item() == -1.0 and out.grad_fn.name() == "compiled_keyword_onlyBackward"
        np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])
        k = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
        out = compiled_keyword_only(w, k=k)
        out.backward()
        assert out.item() == -1.5
        np.testing.assert_array_equal(w.grad.numpy(), [5.0, 5.0, 5.0])  # accumulated: 2 + 3
        assert k.grad.item() == -0.5  # sum(w)
        assert compiled_keyword_only(w, k=0.5).item() == -0.25


@torch.compile
def compiled_pair(x, y):
    return np.sum(np.sin(x) * y), x * 2 * y


@torch.compile
def compiled_scalars(x):
    return np.sum(x), np.sum(x * x), np.argmax(x)


@torch.compile
def compiled_list(x):
    return [np.sum(x), np.sum(x)]


def test_compiled_tuple_output_is_a_tuple_of_tensors_with_one_node():
    """PyTorch's multi-output node: each output its own Tensor, one grad_fn for all, one
    backward call with the gradients of every output (zero for an unused one)."""
    rng = np.random.default_rng(2)
    xd, yd, v = rng.standard_normal((2, 3)), rng.standard_normal(3), rng.standard_normal((2, 3))
    first = (np.cos(xd) * yd, np.sin(xd).sum(0))  # gradients of output 0, in closed form
    second = (2 * yd * v, (2 * xd * v).sum(0))  # of output 1 with the seed v
    uses = [
        (lambda a, b: a.backward(), first),
        (lambda a, b: b.backward(torch.tensor(v)), second),
        (lambda a, b: (a * 3 + (b * torch.tensor(v)).sum()).backward(), [3 * f + s for f, s in zip(first, second)]),
        (lambda a, b: (a.backward(retain_graph=True), b.backward(torch.tensor(v))),
         [f + s for f, s in zip(first, second)]),
    ]
    for use, (gx, gy) in uses:
        for _ in range(3):  # the first, second and later calls of a kind run different code
            x, y = torch.tensor(xd, requires_grad=True), torch.tensor(yd, requires_grad=True)
            a, b = compiled_pair(x, y)
            assert a.grad_fn is b.grad_fn and type(a.grad_fn).__name__ == "compiled_pairBackward"
            assert a.shape == () and b.shape == (2, 3) and b.dtype == torch.float64
            assert repr(a).endswith(", dtype=srcgrad.float64, grad_fn=<compiled_pairBackward>)")
            np.testing.assert_allclose(b.detach().numpy(), 2 * xd * yd, rtol=1e-15)
            use(a, b)
            np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-13)
            np.testing.assert_allclose(y.grad.numpy(), gy, rtol=1e-13)
    x = torch.tensor(xd, requires_grad=True)
    a, b = compiled_pair(x, torch.tensor(yd))
    np.testing.assert_allclose(torch.autograd.grad(a + b.sum(), x)[0].numpy(), first[0] + 2 * yd, rtol=1e-13)
    a, b = compiled_pair(x, torch.tensor(yd))
    a.backward()
    with pytest.raises(RuntimeError, match="second time"):  # the node saved its pullback, as PyTorch's saves
        b.sum().backward()


def test_compiled_tuple_of_scalars_and_an_integer_output():
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        p.grad = None
        total, squares, at = compiled_scalars(p)
        assert (total.item(), squares.item(), at.item()) == (3.0, 5.0, 1)
        assert at.dtype == torch.int64 and not at.requires_grad and at.grad_fn is None
        (total + squares).backward()
        assert p.grad.tolist() == [3.0, 5.0]  # 1 + 2p
    with torch.no_grad():
        outs = compiled_scalars(p)
    assert isinstance(outs, tuple) and [t.item() for t in outs] == [3.0, 5.0, 1] and outs[0].grad_fn is None
    with pytest.raises(TypeError, match=r"^`compiled_list` \(.*test_tensor_autograd.py:\d+\) returned a list: a "
                                        r"function under @srcgrad.compile returns one array"):
        compiled_list(p)


def test_a_slice_stepping_backwards_is_refused_as_pytorch_refuses_it():
    # NumPy reverses; PyTorch raises (x.flip(0) is its reversal)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    for index, message in ((slice(None, None, -1), "step must be greater than zero"),
                           ((0, slice(None, None, 0)), "slice step cannot be zero")):
        with pytest.raises(ValueError, match=message):
            x[index]
        with pytest.raises(ValueError, match=message):
            x[index] = 1.0
    assert x[::2].tolist() == [[1.0, 2.0]]
