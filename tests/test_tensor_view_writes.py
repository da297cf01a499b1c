"""In-place writes into views, and into the bases of views: PyTorch's graphs (CopySlices,
AsStridedBackward0, CopyBackwards, FillBackward3, ...), values and gradients.

Each case is a program; the expected node names, next_functions, values and
requires_grad of some of its tensors, and the gradients of `x` (and `z`) after
`out.backward()`, are what PyTorch 2.13 gives for the same program. No PyTorch needed.
"""

import pytest

import srcgrad as torch

CASES = {  # name: (program, {tensor: (grad_fn, next_functions, values, requires_grad)}, grads)
    'slice_mul': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * 2\nv = y[1:]\nv.mul_(3)\nout = y.sum()',
        {'y': ('CopySlices', ['MulBackward0', None], [2.0, 12.0, 18.0], True), 'v': ('AsStridedBackward0', ['CopySlices'], [12.0, 18.0], True)},
        {'x': [2.0, 6.0, 6.0]},
    ),
    'diagonal_fill': (
        'x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\ny = x * 2\nd = y.diagonal()\nd.fill_(0)\nout = y.sum()',
        {'y': ('CopySlices', ['MulBackward0'], [[0.0, 4.0], [6.0, 0.0]], True), 'd': ('AsStridedBackward0', ['CopySlices'], [0.0, 0.0], True)},
        {'x': [[0.0, 2.0], [2.0, 0.0]]},
    ),
    't_add': (
        'x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\ny = x * 2\nt = y.t()\nt.add_(1)\nout = (y * y).sum()',
        {'y': ('CopySlices', ['MulBackward0', None], [[3.0, 5.0], [7.0, 9.0]], True), 't': ('AsStridedBackward0', ['CopySlices'], [[3.0, 7.0], [5.0, 9.0]], True)},
        {'x': [[12.0, 20.0], [28.0, 36.0]]},
    ),
    'row_copy': (
        'x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\nz = torch.tensor([5., 6.], requires_grad=True)\ny = x * 2\nr = y[0]\nr.copy_(z)\nout = (y * y).sum()',
        {'y': ('CopySlices', ['MulBackward0', 'AccumulateGrad'], [[5.0, 6.0], [6.0, 8.0]], True), 'r': ('AsStridedBackward0', ['CopySlices'], [5.0, 6.0], True)},
        {'x': [[0.0, 0.0], [24.0, 32.0]], 'z': [10.0, 12.0]},
    ),
    'other_view': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * 2\nv = y[1:]\nw = y[:2]\nv.mul_(3)\nout = (w * v).sum()',
        {'y': ('CopySlices', ['MulBackward0', None], [2.0, 12.0, 18.0], True), 'v': ('AsStridedBackward0', ['CopySlices'], [12.0, 18.0], True), 'w': ('AsStridedBackward0', ['CopySlices'], [2.0, 12.0], True)},
        {'x': [24.0, 120.0, 72.0]},
    ),
    'base_add': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * 2\nv = y[1:]\ny.add_(1)\nout = (v * v).sum()',
        {'y': ('AddBackward0', ['MulBackward0', None], [3.0, 5.0, 7.0], True), 'v': ('AsStridedBackward0', ['AddBackward0'], [5.0, 7.0], True)},
        {'x': [0.0, 20.0, 28.0]},
    ),
    'untracked_base': (
        'a = torch.zeros(3)\nz = torch.tensor([1., 2.], requires_grad=True)\nv = a[1:]\nw = a[:2]\nv.copy_(z)\nout = (a * w.sum()).sum()',
        {'a': ('CopySlices', [None, 'AccumulateGrad'], [0.0, 1.0, 2.0], True), 'v': ('AsStridedBackward0', ['CopySlices'], [1.0, 2.0], True), 'w': ('AsStridedBackward0', ['CopySlices'], [0.0, 1.0], True)},
        {'z': [4.0, 1.0]},
    ),
    'leaf_no_grad_write': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\nv = x[1:]\nwith torch.no_grad():\n    x.add_(1)\nout = (v * v).sum()',
        {'v': ('AsStridedBackward0', ['AccumulateGrad'], [3.0, 4.0], True)},
        {'x': [0.0, 6.0, 8.0]},
    ),
    'twice': (
        'x = torch.ones(3, requires_grad=True)\ny = x * 1\nv = y[1:]\nv.mul_(2)\nv.mul_(3)\nout = y.sum()',
        {'y': ('CopySlices', ['CopySlices', None], [1.0, 6.0, 6.0], True), 'v': ('AsStridedBackward0', ['CopySlices'], [6.0, 6.0], True)},
        {'x': [1.0, 6.0, 6.0]},
    ),
    'sqrt_view': (
        'x = torch.tensor([1., 4., 9.], requires_grad=True)\ny = x * 1\nv = y[1:]\nv.sqrt_()\nout = (y * y).sum()',
        {'y': ('CopySlices', ['MulBackward0'], [1.0, 2.0, 3.0], True), 'v': ('AsStridedBackward0', ['CopySlices'], [2.0, 3.0], True)},
        {'x': [2.0, 1.0, 1.0]},
    ),
    'expand_after_base_write': (
        'x = torch.ones(2, 3, requires_grad=True)\ny = x * 2\ne = y.expand(2, 2, 3)\ny.mul_(2)\nout = e.sum()',
        {'e': ('AsStridedBackward0', ['MulBackward0'], [[[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]], [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]], True)},
        {'x': [[8.0, 8.0, 8.0], [8.0, 8.0, 8.0]]},
    ),
    'setitem_full_number': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * 1\ny[:] = 2\nout = y.sum()',
        {'y': ('FillBackward3', ['MulBackward0', None], [2.0, 2.0, 2.0], True)},
        {'x': [0.0, 0.0, 0.0]},
    ),
    'setitem_select_number': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * 1\ny[0] = 2\nout = (y * y).sum()',
        {'y': ('CopySlices', ['MulBackward0', None], [2.0, 2.0, 3.0], True)},
        {'x': [0.0, 4.0, 6.0]},
    ),
    'setitem_full_tensor': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * 1\ny[:] = x\nout = (y * y).sum()',
        {'y': ('CopyBackwards', ['MulBackward0', 'AccumulateGrad'], [1.0, 2.0, 3.0], True)},
        {'x': [2.0, 4.0, 6.0]},
    ),
    'setitem_slice_tensor': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * 1\ny[1:] = x[:2]\nout = (y * y).sum()',
        {'y': ('CopySlices', ['MulBackward0', 'SliceBackward0'], [1.0, 1.0, 2.0], True)},
        {'x': [4.0, 4.0, 0.0]},
    ),
    'setitem_expand': (
        'x = torch.ones(3, requires_grad=True)\nz = torch.tensor([1.], requires_grad=True)\ny = x * 1\ny[:] = z\nout = (y * y).sum()',
        {'y': ('CopyBackwards', ['MulBackward0', 'ExpandBackward0'], [1.0, 1.0, 1.0], True)},
        {'x': [0.0, 0.0, 0.0], 'z': [6.0]},
    ),
    'setitem_view_of_value': (
        'x = torch.ones(3, requires_grad=True)\nz = torch.tensor([2.], requires_grad=True)\ny = x * 1\ny[0] = z\nout = (y * y).sum()',
        {'y': ('CopySlices', ['MulBackward0', 'ViewBackward0'], [2.0, 1.0, 1.0], True)},
        {'x': [0.0, 2.0, 2.0], 'z': [4.0]},
    ),
    'index_put': (
        'x = torch.ones(3, requires_grad=True)\nz = torch.tensor([5.], requires_grad=True)\ny = x * 1\ny[[0]] = z\nout = (y * y).sum()',
        {'y': ('IndexPutBackward0', ['MulBackward0', 'ViewBackward0'], [5.0, 1.0, 1.0], True)},
        {'x': [0.0, 2.0, 2.0], 'z': [10.0]},
    ),
    'int_fill': (
        'a = torch.tensor([[2, 2], [0, 1]])\nz = torch.tensor(0.5, requires_grad=True)\na[1:] = z\nout = None',
        {'a': ('CopySlices', [None, 'AccumulateGrad'], [[2, 2], [0, 0]], True)},
        {},
    ),
    'int_copy': (
        'a = torch.tensor([3, 3])\nz = torch.tensor(0.5, requires_grad=True)\na[..., 0] = z\nout = None',
        {'a': (None, None, [0, 3], False)},
        {},
    ),
    'empty_view': (
        'x = torch.ones(1, 3, requires_grad=True)\ny = x * 1\ny[1:] = 2.0\nout = y.sum()',
        {'y': ('CopySlices', ['MulBackward0', None], [[1.0, 1.0, 1.0]], True)},
        {'x': [[1.0, 1.0, 1.0]]},
    ),
    'copy_from_graph': (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\nb = torch.zeros(3)\nb.copy_(x * 2)\nout = (b * b).sum()',
        {'b': ('CopyBackwards', [None, 'MulBackward0'], [2.0, 4.0, 6.0], True)},
        {'x': [8.0, 16.0, 24.0]},
    ),
    't_in_place': (
        'x = torch.ones(2, 3, requires_grad=True)\ny = x * 1\ny.t_()\nout = (y * torch.arange(6.).reshape(3, 2)).sum()',
        {'y': ('TBackward1', ['MulBackward0'], [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]], True)},
        {'x': [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]},
    ),
    'transpose_in_place': (
        'x = torch.ones(2, 3, requires_grad=True)\ny = x * 1\ny.transpose_(0, 1)\nout = y.sum()',
        {'y': ('TransposeBackward1', ['MulBackward0'], [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]], True)},
        {'x': [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]},
    ),
    'squeeze_in_place': (
        'x = torch.ones(1, 3, requires_grad=True)\ny = x * 1\ny.squeeze_(0)\nout = y.sum()',
        {'y': ('SqueezeBackward4', ['MulBackward0'], [1.0, 1.0, 1.0], True)},
        {'x': [[1.0, 1.0, 1.0]]},
    ),
    't_of_view': (
        'x = torch.ones(2, 3, requires_grad=True)\ny = x * 1\nv = y.t()\nv.t_()\nout = (v * torch.arange(6.).reshape(2, 3)).sum()',
        {'v': ('TBackward1', ['TBackward0'], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], True)},
        {'x': [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]},
    ),
}


def _names(fn):
    return [None if f is None else type(f).__name__ for f, _ in fn.next_functions]


@pytest.mark.parametrize("case", sorted(CASES))
def test_view_writes_match_pytorch(case):
    code, tensors, grads = CASES[case]
    ns = {"torch": torch}
    exec(code, ns)
    for name, (node, edges, values, requires_grad) in tensors.items():
        t = ns[name]
        assert t.detach().tolist() == values, name
        assert t.requires_grad == requires_grad, name
        assert (None if t.grad_fn is None else type(t.grad_fn).__name__) == node, name
        assert (None if t.grad_fn is None else _names(t.grad_fn)) == edges, name
    if ns["out"] is not None:
        ns["out"].backward()
    for name, grad in grads.items():
        assert ns[name].grad.tolist() == grad, name


def _raises(code, message):
    with pytest.raises(RuntimeError) as info:
        exec(code, {"torch": torch})
    assert str(info.value) == message


def test_writes_pytorch_refuses():
    several = (
        " is a view and is being modified inplace. This view is the output of a function that returns multiple "
        "views. Such functions do not allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one."
    )
    x = "x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\ny = x * 1\n"
    _raises(x + "y.unbind(0)[1].add_(1)", "Output 1 of Unbind" + several)
    _raises(x + "y.split(1)[1].add_(1)", "Output 1 of Split" + several)
    _raises(x + "y.chunk(2)[0].mul_(2)", "Output 0 of Split" + several)
    _raises(x + "y.split([1, 1])[0].mul_(2)", "Output 0 of SplitWithSizes" + several)
    _raises(x + "x[1:].mul_(2)", "a view of a leaf Variable that requires grad is being used in an in-place operation.")
    _raises(x + "x[1:] = 0.5", "a view of a leaf Variable that requires grad is being used in an in-place operation.")
    _raises(x + "x[:] = 0.5", "a leaf Variable that requires grad is being used in an in-place operation.")
    _raises("x = torch.ones(1, 1, 3, requires_grad=True)\nx[1:] = True",
            "a view of a leaf Variable that requires grad is being used in an in-place operation.")
    _raises(x + "y[1:].detach_()", (
        "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
        "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
        "detach_() cannot be called on these gradients. To fix this error, please refer to the "
        "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
    ))
    for op in ("t_()", "transpose_(0, 1)", "squeeze_()"):
        _raises("x = torch.ones(1, 3, requires_grad=True)\nx." + op,
                "a leaf Variable that requires grad is being used in an in-place operation.")
    for op in ("unsqueeze_(0)", "t_()", "squeeze_()"):  # the shape of a view of a leaf, in place
        _raises("x = torch.ones(2, 1, requires_grad=True)\nx[0]." + op,
                "a view of a leaf Variable that requires grad is being used in an in-place operation.")
    _raises("x = torch.ones(1, 2, 2, requires_grad=True)\nx.t_()",  # before its dims
            "a leaf Variable that requires grad is being used in an in-place operation.")
    _raises("x = torch.ones(1, requires_grad=True)\nx[None] = x",  # before the overlap
            "a view of a leaf Variable that requires grad is being used in an in-place operation.")
    _raises("x = torch.ones(1, requires_grad=True)\nx[[0]] = torch.ones(3)",  # before index_put's shape check
            "a leaf Variable that requires grad is being used in an in-place operation.")
    _raises("x = torch.ones(2, 6, requires_grad=True)\nx[:] = torch.ones(2)",  # after copy_to's expand
            "The expanded size of the tensor (6) must match the existing size (2) at non-singleton dimension 1.  "
            "Target sizes: [2, 6].  Tensor sizes: [2]")


REBASED = " is a view and its base or another view of its base has been modified inplace."
SEVERAL = (
    " This view is the output of a function that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation by an out-of-place one."
)
NO_GRAD = (
    "A view was created in no_grad mode and its base or another view of its base has been modified inplace with "
    "grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked)."
)


@pytest.mark.parametrize("code, message", [
    ("a, b = w.chunk(2)\nwith torch.no_grad():\n    w.mul_(2)", "Output 1 of Split" + REBASED + SEVERAL),
    ("y = w * 1\na, b = y.unbind(0)[:2]\ny.mul_(2)", "Output 1 of Unbind" + REBASED + SEVERAL),
    ("y = w * 1\na, b = y.split([1, 2])\ny[2:].add_(1)", "Output 1 of SplitWithSizes" + REBASED + SEVERAL),
    ("with torch.no_grad():\n    b = w[:2]\nwith torch.no_grad():\n    w.mul_(2)", NO_GRAD),
    ("y = w * 1\nwith torch.no_grad():\n    b = y[:2]\ny.mul_(2)", NO_GRAD),
])
def test_views_pytorch_cannot_rebuild_after_a_write_into_their_base(code, message):
    """PyTorch raises as soon as such a view's grad_fn is read (by an op, `is_leaf` or
    `grad_fn`); the shim when it is read directly, or by backward, before anything runs.
    The view prints `grad_fn=<Invalid>` and requires grad."""
    ns = {"torch": torch, "w": torch.ones(3, requires_grad=True)}
    exec(code, ns)
    b = ns["b"]
    for read in (lambda: b.grad_fn, lambda: b.is_leaf, lambda: (b * 2).sum().backward()):
        with pytest.raises(RuntimeError) as info:
            read()
        assert str(info.value) == message
    assert b.requires_grad and repr(b).endswith("grad_fn=<Invalid>)")
    assert ns["w"].grad is None
    with torch.no_grad():
        assert "grad" not in repr(b * 1)


def test_views_and_bases():
    x = torch.ones(2, 3, requires_grad=True)
    y = x * 1
    v = y[1:]
    w = v.t()
    assert w._base is y and v._base is y and y._base is None
    assert w._is_view() and not y._is_view() and not y.detach()._is_view()
    assert y.reshape(6)._is_view() and not y.t().reshape(6)._is_view()


def test_untracked_writes_leave_views_of_untracked_bases_alone():
    a = torch.zeros(3)
    v = a[1:]
    a.add_(1)
    assert v.grad_fn is None and not v.requires_grad and v.tolist() == [1.0, 1.0]


def test_a_write_through_data_regenerates_nothing():
    x = torch.ones(3, requires_grad=True)
    y = x * 1
    v = y[1:]
    y.data.add_(1)
    assert type(v.grad_fn).__name__ == "SliceBackward0" and v._version == 0


def test_a_saved_output_written_through_a_view_raises_at_backward():
    """exp_ keeps its result; a later write into it is counted (PyTorch's error)."""
    x = torch.ones(3, requires_grad=True)
    y = x * 1
    y.exp_()
    y.mul_(2)
    with pytest.raises(RuntimeError, match=r"output 0 of Exp, is at version 2; expected version 1 instead"):
        y.sum().backward()


def test_flip_copies():
    """PyTorch's flip makes a new tensor (NumPy's is a view)."""
    x = torch.tensor([1.0, 2.0, 3.0])
    y = x.flip(0)
    y.add_(1)
    assert x.tolist() == [1.0, 2.0, 3.0] and y.tolist() == [4.0, 3.0, 2.0]


def test_a_tensor_that_retains_its_grad_keeps_it_after_an_in_place_write():
    """Its new node stores the gradient (PyTorch 2.13: ones, [12, 12], ones)."""
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0, 1.0]
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    v = y[1:]
    v.retain_grad()
    y.mul_(3)
    (v * v).sum().backward()
    assert v.grad.tolist() == [12.0, 12.0]
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y[1:].mul_(3)
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0, 1.0]


OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
EXPANDED = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
SIZES = "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"


@pytest.mark.parametrize("code, message", [
    ("v[[0]] = v", OVERLAP),
    ("v[[0, 1]] = v[:2]", OVERLAP),
    ("v[1:] = v[:-1]", OVERLAP),
    ("v[:] = v", None),
    ("v[torch.tensor([True, False, False, False, False, False])] = v[0]", None),
    ("v[v > 1] = v[:1]", None),  # one bool mask, one value: masked_fill_, which reads it first
    ("v[v > 1] = v[2:]", OVERLAP),
    ("v[None] = v", None),  # the same elements, the value expanded
    ("v[1::2] = v[::2]", None),  # PyTorch does not judge a strided (not dense) part
    ("v[[1, 2, 3]] = v[:3]", OVERLAP),
    ("v[0] = v[1]", None),
    # one element of one or more dims into a part of another shape: PyTorch's view of it is
    # 0-d, which, expanded, overlaps partly
    ("u = v[:1]\nu[None] = u", OVERLAP),
    ("u = v[:1].reshape(1, 1)\nu[None, None] = u", OVERLAP),
    ("u = v[:1]\nu[True] = u", OVERLAP),
    ("u = v[:1]\nu[...] = u", None),
    ("u = v[0]\nu[None] = u", None),  # a 0-d value is filled in
    ("u = v[:1]\nu[None] = u[None]", None),
    # in-place arithmetic and copy_: PyTorch 2.13's errors, checked case by case (a NumPy
    # ValueError was raised, or NumPy's buffered answer given, before)
    ("v[[0]] = v[1]", OVERLAP),  # a 0-d value through an advanced index
    ("v[[0, 2]] = v[1]", OVERLAP),
    ("u = torch.tensor(-1)\nw = u.reshape((1,))\nw[torch.tensor([0])] = u", OVERLAP),
    ("v[1:3].copy_(v[2:4])", OVERLAP),
    ("v[0:2].copy_(v[0:2])", None),  # the same elements
    ("v[0:2].copy_(v[0])", OVERLAP),
    ("m = v[:4].reshape(2, 2)\nm.copy_(m.t())", OVERLAP),
    ("v[1:3].copy_(v[3:5])", None),
    ("v[0:3].copy_(v[::2])", None),  # a strided operand: PyTorch does not judge it
    ("v[1:3] += v[2:4]", OVERLAP),
    ("v[1:3].add_(v[2:4])", OVERLAP),
    ("v[1:3].sub_(v[2:4], alpha=2)", OVERLAP),
    ("v[1:3] *= v[1:3]", None),
    ("v += v", None),
    ("v[0:3].add_(v[4:6])", SIZES),
    ("v[0:3] /= v[4:6]", SIZES),
    ("v[::2].copy_(v.reshape(3, 2).t())", "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("v[:3].add_(torch.ones(2, 3))", "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("v[1].copy_(v[0:1])", "output with shape [] doesn't match the broadcast shape [1]"),
    ("v[2:3].expand(3).add_(v[:3])", EXPANDED),  # the written-to tensor's overlap first
    ("w = torch.arange(6.0, requires_grad=True) * 1\nw[1:3] += w[2:4]", OVERLAP),
    ("w = torch.arange(6.0, requires_grad=True) * 1\nw[:3].add_(w[3:5])", SIZES),
    # the graph's errors before the write's own
    ("w = torch.arange(6.0, requires_grad=True)\nw[1:3] += w[2:4]",
     "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("w = torch.arange(6.0, requires_grad=True)\nw.add_(w[0])",
     "a leaf Variable that requires grad is being used in an in-place operation."),
])
def test_a_value_overlapping_the_elements_written(code, message):
    """The write raises PyTorch's error before it changes anything."""
    ns = {"torch": torch, "v": torch.arange(6.0)}
    if message is None:
        exec(code, ns)
        return
    with pytest.raises(RuntimeError) as info:
        exec(code, ns)
    assert str(info.value) == message
    assert ns["v"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_writes_into_an_expanded_tensor():
    v = torch.tensor([-0.95]).unsqueeze(-1).expand((1, 2))
    v[1:] = 1  # no element written
    assert v.tolist() == [[-0.949999988079071, -0.949999988079071]]
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor"):
        v[0:] = 1


@pytest.mark.parametrize("code, error", [
    ("v2 = torch.tensor(128.87).reshape(-1)\nv2[..., 0] = v2", None),  # the same element, once viewed
    ("v1 = torch.ones(2)\nv1[..., 0] = v1", "expand(srcgrad.FloatTensor{[2]}, size=[]): the number of sizes provided (0) "
     "must be greater or equal to the number of dimensions in the tensor (1)"),  # the shape's error first
    ("v2 = torch.tensor([0.59, -1.48, -0.86], requires_grad=True) * 1e-3\nv2[[0, 0]] = v2", OVERLAP),  # index_put: first
    ("v2 = torch.tensor([0.59, -1.48, -0.86], requires_grad=True) * 1e-3\nv2[1:] = v2[:2]", OVERLAP),
])
def test_which_error_a_write_from_an_overlapping_value_raises(code, error):
    ns = {"torch": torch}
    if error is None:
        exec(code, ns)
        return
    with pytest.raises(RuntimeError) as info:
        exec(code, ns)
    assert str(info.value) == error


def test_an_empty_diagonal_is_a_view_too():
    """An empty diagonal (an offset past the matrix) shares no element, but is still a
    view of its base: a write into the base gives it a new node, as in PyTorch."""
    y = torch.zeros(1, 1)
    d = y.diagonal(-1)
    y.add_(torch.tensor(-0.01, requires_grad=True))
    assert d.requires_grad and type(d.grad_fn).__name__ == "AsStridedBackward0" and d.shape == (0,)
    x = torch.ones(2, 2, requires_grad=True)
    e = x.diagonal(offset=2, dim1=1, dim2=0)
    with torch.no_grad():
        x.mul_(2)
    assert type(e.grad_fn).__name__ == "AsStridedBackward0"


def test_an_elementwise_loss_over_extra_dims_is_a_view():
    """PyTorch's cross_entropy (or nll_loss) with reduction='none' over (N, C, d) reshapes
    to 4-D and views the result back: an in-place op on it writes through the view."""
    x = torch.ones(1, 3, 3, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(x * 1, torch.tensor([[2, 2, 0]]), weight=torch.arange(1.0, 4.0),
                                             reduction="none")
    assert type(loss.grad_fn).__name__ == "ViewBackward0" and loss._is_view()
    loss.tanh_()
    assert repr(loss) == "tensor([[0.9973, 0.9973, 0.8000]], grad_fn=<AsStridedBackward0>)"
    loss.sum().backward()
    assert repr(x.grad) == (
        "tensor([[[ 0.0055,  0.0055, -0.2400],\n         [ 0.0055,  0.0055,  0.1200],\n"
        "         [-0.0109, -0.0109,  0.1200]]])"
    )


def test_a_write_into_a_tensor_of_another_memory_order_drops_the_old_values_gradient():
    """A clone of a fancy-indexed part is F-ordered in NumPy; the gradient of the values a
    write replaced is zero whatever the layout of the incoming gradient (PyTorch 2.13)."""
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x[:, [0, 1]].clone()
    y[0] = torch.tensor(3.0)
    z = y.t().reshape(-1)
    (z * z).sum().backward()
    assert repr(x.grad) == "tensor([[ 0.,  0.,  0.],\n        [ 8., 10.,  0.]])"


def test_copy_nodes_are_named_by_their_cpp_class():
    """PyTorch names CopySlices and CopyBackwards by their C++ class in `name()` and in
    version errors (torch::autograd::...; the shim's prefix is srcgrad::)."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y[0] = 3.0
    assert y.grad_fn.name() == "srcgrad::autograd::CopySlices" and repr(y.grad_fn).startswith("<CopySlices object")
    z = (x * 1).sum()
    w = z * x[1]  # keeps z
    z.copy_(x[0])
    assert z.grad_fn.name() == "srcgrad::autograd::CopyBackwards"
    with pytest.raises(RuntimeError, match=r"\[srcgrad.FloatTensor \[\]\], which is output 0 of "
                                           r"srcgrad::autograd::CopyBackwards, is at version"):
        w.backward()


def test_views_taken_in_a_loop_leave_a_short_list_and_live_views_are_still_refreshed():
    """The list of a base's views drops references to dead views as it grows: a thousand
    `y[0]` dropped at once leave fewer than 200 entries, and the views kept alive still get
    their AsStridedBackward0 node after a write into the base (PyTorch's graph)."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    kept = [y[1:]]
    for i in range(1000):
        y[0].sum()
        if i == 500:
            kept.append(y[2])
    family = y._counter[1]
    assert len(family.views) < 200 and sum(ref() is not None for ref in family.views) == 2
    y.mul_(3)
    assert [type(v.grad_fn).__name__ for v in kept] == ["AsStridedBackward0", "AsStridedBackward0"]
    (kept[0].sum() * 10 + kept[1] * 100).backward()
    assert x.grad.tolist() == [0.0, 60.0, 660.0]
