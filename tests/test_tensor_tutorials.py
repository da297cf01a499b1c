"""Autograd tutorial programs ("A Gentle Introduction to torch.autograd", "The
Fundamentals of Autograd", "Learning PyTorch with Examples", blog-style fits) run with
`import srcgrad as torch` and print what PyTorch 2.13 prints.

Each expected text below was printed by PyTorch 2.13 on CPU (object addresses
normalized to 0x?, `torch.` read as `srcgrad.`); none of these tests needs PyTorch.
"""

import contextlib
import hashlib
import io
import math
import re
import textwrap

import numpy as np
import pytest

import srcgrad
import srcgrad as torch


def printed(source):
    """What `source` prints with `torch` bound to srcgrad (addresses normalized)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(textwrap.dedent(source), {"torch": srcgrad, "np": np, "math": math})
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", out.getvalue())


def expect(source, text):
    assert printed(source) == textwrap.dedent(text).lstrip("\n")


# --- torch.device and torch.cuda ("Learning PyTorch with Examples") ------------------


def test_device_as_the_examples_use_it():
    expect(
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        x = torch.ones(2, 2, device=device, dtype=torch.float)
        print(x.device, device, repr(device), x.device == device, device == "cpu")
        print(x.to(device) is x, x.to(device, torch.float64).dtype, x.to("cpu") is x)
        print(repr(torch.device("cpu:0")), torch.device("cuda", 1), torch.device("cuda").type, torch.device("cpu").index)
        print({torch.device("cpu"): 1}[x.device], torch.cuda.device_count())
        for bad in ["gpu", "cpu:x"]:
            try:
                torch.device(bad)
            except RuntimeError as e:
                print(str(e)[-30:])
        """,
        """
        cpu cpu device(type='cpu') True False
        True srcgrad.float64 True
        device(type='cpu', index=0) cuda:1 cuda None
        1 0
        at start of device string: gpu
        Invalid device string: 'cpu:x'
        """,
    )


# --- in-place functions ("The Fundamentals of Autograd": torch.sin_(a) on a leaf) ------


def test_in_place_functions_refuse_a_leaf_and_record_a_node():
    expect(
        """
        a = torch.linspace(0., 2. * math.pi, steps=5, requires_grad=True)
        for f in [lambda: torch.sin_(a), lambda: a.log_(), lambda: torch.clamp_min_(a, 1.0)]:
            try:
                f()
            except RuntimeError as e:
                print(e)
        b = torch.tensor([0.3, 2.0], requires_grad=True)
        c = b * 1
        c.log_()
        print(c)
        c.cos_().sum().backward()
        print(b.grad)
        d = torch.tensor([0.5, 1.0])
        print(torch.sin_(d) is d, d)
        print(d.floor_())
        print(torch.exp_(d))
        print(d.add_(1).reciprocal_())
        print(d.clip_(0.4, 0.45))
        try:
            torch.tensor([1, 2]).sin_()
        except RuntimeError as e:
            print(e)
        """,
        """
        a leaf Variable that requires grad is being used in an in-place operation.
        a leaf Variable that requires grad is being used in an in-place operation.
        a leaf Variable that requires grad is being used in an in-place operation.
        tensor([-1.2040,  0.6931], grad_fn=<LogBackward0>)
        tensor([ 3.1116, -0.3195])
        True tensor([0.4794, 0.8415])
        tensor([0., 0.])
        tensor([1., 1.])
        tensor([0.5000, 0.5000])
        tensor([0.4500, 0.4500])
        result type Float can't be cast to the desired output type Long
        """,
    )


# --- linspace and arange: PyTorch's arithmetic, to the last bit -----------------------


def test_linspace_values_are_pytorchs():
    # the elements of PyTorch's linspace(0, 2 pi, 25) that NumPy's linspace rounds the other way
    values = srcgrad.linspace(0.0, 2.0 * math.pi, steps=25).numpy()
    assert values.dtype == np.float32
    assert values[[7, 11, 14, 15, 21, 22]].tolist() == [
        1.8325958251953125, 2.879793405532837, 3.665191650390625, 3.9269909858703613, 5.4977874755859375, 5.759586811065674,
    ]
    # "Learning PyTorch with Examples": x = torch.linspace(-math.pi, math.pi, 2000); NumPy rounds 604 of them differently
    digests = {
        srcgrad.float32: "015ad3d111e14c15eafafd6e8d75ba87f6e72d1bb1daea1f5dead5522269f8e5",
        srcgrad.float64: "2d864e18202a3a059428d9b9408631e784d2e8e643917b82717b4cac9aaac698",
    }
    for dtype, digest in digests.items():
        values = srcgrad.linspace(-math.pi, math.pi, 2000, dtype=dtype).numpy()
        assert values[0] == np.float32(-math.pi) if dtype is srcgrad.float32 else values[0] == -math.pi
        assert hashlib.sha256(values.tobytes()).hexdigest() == digest
    expect(
        """
        print(torch.linspace(0, 10, 4, dtype=torch.int64), torch.linspace(3, 3, 1), torch.linspace(0, 1, 0))
        try:
            torch.linspace(0, 1, -1)
        except RuntimeError as e:
            print(e)
        """,
        """
        tensor([ 0,  3,  6, 10]) tensor([3.]) tensor([])
        number of steps must be non-negative
        """,
    )


def test_arange_values_are_pytorchs():
    assert srcgrad.arange(0, 1, 0.1).numpy().tolist() == [
        0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645, 0.5,
        0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.8999999761581421,
    ]
    values = srcgrad.arange(-3.0, 3.0, 0.01).numpy()
    assert values.shape == (600,) and values.dtype == np.float32
    assert hashlib.sha256(values.tobytes()).hexdigest() == "e3f12fe8f6b24d021f4e7540135aac5a5c3a15b2a33fa347b004cbc06c4f1844"
    values = srcgrad.arange(-3.0, 3.0, 0.01, dtype=srcgrad.float64).numpy()
    assert hashlib.sha256(values.tobytes()).hexdigest() == "f90f8772a1de662eea91b4bd01b2606f5722afffc5f2a376dc53fb7139ddf29f"
    expect(
        """
        for args in [(0, 1, 0), (0, 1, -0.5), (5, 1)]:
            try:
                torch.arange(*args)
            except RuntimeError as e:
                print(e)
        print(torch.arange(5), torch.arange(1, 2.5, 0.5), torch.arange(3, 3))
        """,
        """
        step must be nonzero
        upper bound and lower bound inconsistent with step sign
        upper bound and lower bound inconsistent with step sign
        tensor([0, 1, 2, 3, 4]) tensor([1.0000, 1.5000, 2.0000]) tensor([], dtype=srcgrad.int64)
        """,
    )


# --- tensor(data): NumPy scalars, tensors and ragged rows inside sequences --------------


def test_tensor_infers_the_dtype_of_numpy_scalars_and_tensors_in_a_list():
    # a NumPy polynomial fit's float64 coefficients gathered into a tensor stay float64
    expect(
        """
        a, b = np.float64(0.0529), np.float64(-0.0138)
        print(torch.tensor([a, b]), torch.tensor([[a], [1.0]]).dtype, torch.tensor([np.float32(1), np.float64(2)]).dtype)
        print(torch.tensor([np.int32(3)]).dtype, torch.tensor([np.int32(3), 4]).dtype, torch.tensor([np.uint8(1), np.int8(2)]).dtype)
        print(torch.tensor([np.float16(1.0), 1.0]).dtype, torch.tensor([1, np.float32(2.0)]).dtype, torch.tensor([np.int32(1), 2.5]).dtype)
        print(torch.tensor([torch.tensor(1.5, dtype=torch.float64), 2.0]), torch.tensor([torch.tensor(1), 2]))
        print(torch.tensor([torch.tensor([1.5]), torch.ones(1, 1)]), torch.tensor([[torch.tensor(1.)], [torch.tensor(2.)]]).shape)
        print(torch.tensor([np.array([1., 2.]), np.array([3., 4.])]).dtype, torch.tensor([np.ones(2, dtype=np.float32), [3., 4.]]).dtype)
        print(torch.tensor([np.complex128(1), 1.0]).dtype, torch.tensor([[], []]).shape, torch.tensor([np.complex128(1j), 1.0], dtype=torch.float64))
        for data, kwargs in [([torch.ones(2), torch.ones(2)], {}), ([torch.ones(2)], {'dtype': torch.float64}),
                             ([[1, 2], [3]], {}), ([[1., 2.], [3., 4., 5.]], {}), ([[[1], [2]], [[3], [4, 5]]], {}),
                             ([[1, 2], 3], {}), ([1, [2, 3]], {}), ([1., [2., 3.]], {}), ([None], {}), ([None], {'dtype': torch.float64}),
                             ([1j, 2.0], {'dtype': torch.float32}), ([np.array([1., 2.]), np.array([3., 4., 5.])], {})]:
            try:
                torch.tensor(data, **kwargs)
            except Exception as e:
                print(type(e).__name__ + ':', e)
        """,
        """
        tensor([ 0.0529, -0.0138], dtype=srcgrad.float64) srcgrad.float64 srcgrad.float64
        srcgrad.int32 srcgrad.int64 srcgrad.int16
        srcgrad.float32 srcgrad.float32 srcgrad.float32
        tensor([1.5000, 2.0000], dtype=srcgrad.float64) tensor([1, 2])
        tensor([1.5000, 1.0000]) srcgrad.Size([2, 1])
        srcgrad.float64 srcgrad.float32
        srcgrad.complex128 srcgrad.Size([2, 0]) tensor([0., 1.], dtype=srcgrad.float64)
        ValueError: only one element tensors can be converted to Python scalars
        ValueError: only one element tensors can be converted to Python scalars
        ValueError: expected sequence of length 2 at dim 1 (got 1)
        ValueError: expected sequence of length 2 at dim 1 (got 3)
        ValueError: expected sequence of length 1 at dim 2 (got 2)
        TypeError: not a sequence
        TypeError: 'list' object cannot be interpreted as an integer
        TypeError: must be real number, not list
        RuntimeError: Could not infer dtype of NoneType
        TypeError: must be real number, not NoneType
        TypeError: must be real number, not complex
        ValueError: expected sequence of length 2 at dim 1 (got 3)
        """,
    )


# --- old tutorials: loss.data[0]; backward's gradient argument; type(t) ---------------


def test_indexing_a_0_dim_tensor_says_use_item():
    expect(
        """
        loss = (torch.tensor([1.0, 2.0], requires_grad=True) ** 2).sum()
        t = torch.ones(2, 2)
        for f in [lambda: loss.data[0], lambda: loss[-1], lambda: loss[0:1], lambda: loss[(0,)], lambda: loss[[0]],
                  lambda: t[0, 0, 0], lambda: t[1, :, None, 0]]:
            try:
                f()
            except IndexError as e:
                print(e)
        print(loss[None].shape, loss[...], loss.data.item())
        """,
        """
        invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number
        index -1 is out of bounds for dimension 0 with size 0
        slice() cannot be applied to a 0-dim tensor.
        too many indices for tensor of dimension 0
        too many indices for tensor of dimension 0
        too many indices for tensor of dimension 2
        too many indices for tensor of dimension 2
        srcgrad.Size([1]) tensor(5., grad_fn=<AliasBackward0>) 5.0
        """,
    )


def test_backward_reads_its_gradient_argument_as_pytorch():
    expect(
        """
        x = torch.ones(3, requires_grad=True)
        y = (x * 2).sum()
        v = x * 3
        for out, g in [(y, 1.0), (y, [1.0]), (y, (torch.tensor(1.0),)), (y, [torch.tensor(2.0)]), (y, [None]), (y, []),
                       (y, [torch.tensor(1.), torch.tensor(1.)]), (v, np.ones(3)), (v, [1., 2., 3.]), (v, (torch.ones(3),))]:
            try:
                out.backward(g, retain_graph=True)
                print('ok', x.grad)
            except Exception as e:
                print(type(e).__name__ + ':', e)
        for g in [1.0, [torch.tensor(3.0)]]:
            try:
                print(torch.autograd.grad(y, x, g, retain_graph=True))
            except Exception as e:
                print(type(e).__name__ + ':', e)
        """,
        """
        TypeError: 'float' object is not iterable
        TypeError: gradients can be either Tensors or None, but got float
        ok tensor([2., 2., 2.])
        ok tensor([6., 6., 6.])
        ok tensor([8., 8., 8.])
        RuntimeError: got 1 tensors and 0 gradients
        ok tensor([10., 10., 10.])
        TypeError: gradients can be either Tensors or None, but got float64
        TypeError: gradients can be either Tensors or None, but got float
        ok tensor([13., 13., 13.])
        TypeError: 'float' object is not iterable
        (tensor([6., 6., 6.]),)
        """,
    )


def test_tensor_type_and_contiguity():
    expect(
        """
        x = torch.ones(2, 3)
        print(type(x), type(x.sum()), isinstance(x, torch.Tensor))
        print(x.is_contiguous(), x.t().is_contiguous(), x.t().contiguous().is_contiguous(), x[:, 1].is_contiguous())
        print(torch.ones(3, 1).expand(3, 2).is_contiguous(), torch.ones(1, 3).t().is_contiguous(), x.view(6).is_contiguous())
        """,
        """
        <class 'srcgrad.Tensor'> <class 'srcgrad.Tensor'> True
        True False True False
        False True True
        """,
    )


# --- torch.autograd.functional.vjp ("The Fundamentals of Autograd", high-level API) ----


def test_functional_vjp():
    expect(
        """
        F = torch.autograd.functional
        def do_some_doubling(x):
            y = x * 2
            while y.data.norm() < 1000:
                y = y * 2
            return y
        inputs = torch.tensor([0.5, -0.2, 1.3])
        my_gradients = torch.tensor([0.1, 1.0, 0.0001])
        print(F.vjp(do_some_doubling, inputs, v=my_gradients))
        print(inputs, inputs.requires_grad, inputs.grad)
        print(F.vjp(lambda a: (a ** 2).sum(), inputs))
        print(F.vjp(lambda a, b: a * b.exp(), (inputs, torch.tensor([1.0, 2.0, 3.0])), torch.ones(3)))
        print(F.vjp(lambda a, b: (a * 2, b.sum()), (inputs, torch.tensor([1.0, 2.0])), (torch.ones(3), torch.tensor(2.0))))
        print(F.vjp(lambda a, b: a * 2, (inputs, torch.tensor([1.0, 2.0])), torch.ones(3)))
        for f in [lambda: F.vjp(lambda a: a * 2, inputs), lambda: F.vjp(lambda a: a * 2, inputs, torch.ones(2)),
                  lambda: F.vjp(lambda a: (a * 2, a.sum()), inputs, (torch.ones(3), torch.ones(2)))]:
            try:
                f()
            except RuntimeError as e:
                print(e)
        """,
        """
        (tensor([ 512.0000, -204.8000, 1331.2000]), tensor([1.0240e+02, 1.0240e+03, 1.0240e-01]))
        tensor([ 0.5000, -0.2000,  1.3000]) False None
        (tensor(1.9800), tensor([ 1.0000, -0.4000,  2.6000]))
        (tensor([ 1.3591, -1.4778, 26.1112]), (tensor([ 2.7183,  7.3891, 20.0855]), tensor([ 1.3591, -1.4778, 26.1112])))
        ((tensor([ 1.0000, -0.4000,  2.6000]), tensor(3.)), (tensor([2., 2., 2.]), tensor([2., 2.])))
        (tensor([ 1.0000, -0.4000,  2.6000]), (tensor([2., 2., 2.]), tensor([0., 0.])))
        The vector v can only be None if the user-provided function returns a single Tensor with a single element.
        v has invalid size: should be srcgrad.Size([3]) but got srcgrad.Size([2]).
        Entry 1 in v has invalid size: should be srcgrad.Size([]) but got srcgrad.Size([2]).
        """,
    )


# --- the last bits of printed losses: PyTorch's sum order and its multiplied powers -------


def test_sum_and_mean_add_in_pytorchs_order():
    # "Learning PyTorch with Examples" prints loss.item() in full; NumPy's pairwise sum
    # gave 6586.31884765625 here, PyTorch's cascade sum 6586.31982421875
    x = srcgrad.linspace(-math.pi, math.pi, 2000)
    assert (x ** 2).sum().item() == 6586.31982421875
    assert x.exp().mean().item() == 3.680039167404175
    v = srcgrad.arange(1, 101, dtype=srcgrad.float32) / 7
    assert v.sum().item() == 721.4285888671875  # NumPy: 721.4285278320312
    assert v.mean().item() == 7.214285850524902  # NumPy: 7.214285373687744
    assert (v ** -2).sum().item() == 80.11420440673828 and (1 / v).sum().item() == 36.311641693115234
    w = srcgrad.tensor([0.1, 0.2, 0.3, 0.4, 0.7])  # fewer elements than a vector holds
    assert w.sum().item() == 1.6999999284744263 and w.mean().item() == 0.3399999737739563  # NumPy: 1.7000000476837158
    assert srcgrad.tensor([0.1, 0.2, 0.3], dtype=srcgrad.float64).sum().item() == 0.6000000000000001
    m = srcgrad.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 3)
    assert m.sum().item() == float(np.float32(22.0)) and m.sum().dtype == srcgrad.float32
    assert repr(srcgrad.tensor([]).sum()) == "tensor(0.)" and repr(srcgrad.ones(2, 3).sum()) == "tensor(6.)"
    assert math.isnan(srcgrad.tensor([]).mean().item())
    # the gradients stay the registry's: d(sum)/dx = 1, d(mean)/dx = 1/n
    t = srcgrad.tensor([0.5, 1.5, 2.5], requires_grad=True)
    (t.sum() + t.mean()).backward()
    assert t.grad.tolist() == [np.float32(1 + 1 / 3)] * 3


def test_cube_is_multiplied_out_as_pytorch():
    y = srcgrad.arange(1, 101, dtype=srcgrad.float32) / 7
    cubes = y ** 3  # x * x * x, where NumPy's power rounds once: 0.18658895790576935, ...
    assert cubes[[3, 10, 50, 97]].tolist() == [0.18658894300460815, 3.8804659843444824, 386.7375793457031, 2744.0]
    assert (y ** 3).sum().item() == 74351.3125
    x = srcgrad.tensor([1.5, -2.0, 0.25], requires_grad=True)
    for p, values, grads in [(3, [3.375, -8.0, 0.015625], [6.75, 12.0, 0.1875]), (-2, [0.4444444477558136, 0.25, 16.0], None),
                             (-1, [0.6666666865348816, -0.5, 4.0], None), (2, [2.25, 4.0, 0.0625], [3.0, -4.0, 0.5])]:
        out = x ** p
        assert out.tolist() == values and type(out.grad_fn).__name__ == "PowBackward0"
        if grads is not None:
            x.grad = None
            out.sum().backward()
            assert x.grad.tolist() == grads
    o = (x ** 3).sum()
    o.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        o.backward()
    assert repr(srcgrad.tensor(2) ** 3) == "tensor(8)" and repr(srcgrad.tensor([0.0]) ** -2) == "tensor([inf])"


# --- nn: replacing a layer keeps its place (fine-tuning in the Gentle Introduction) ------


def test_replaced_layers_and_parameters_keep_their_place():
    expect(
        """
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = torch.nn.Linear(3, 4)
                self.act = torch.nn.ReLU()
                self.fc = torch.nn.Linear(4, 2)
                self.w = torch.nn.Parameter(torch.ones(2))
                self.v = torch.nn.Parameter(torch.zeros(1))
        m = Net()
        for param in m.parameters():
            param.requires_grad = False
        m.fc1 = torch.nn.Linear(3, 5)
        m.w = torch.nn.Parameter(torch.ones(3))
        m.register_buffer('b', torch.ones(1)); m.register_buffer('b', torch.zeros(1))
        print(m)
        print([n for n, p in m.named_parameters() if p.requires_grad], list(m.state_dict()))
        s = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
        s[0] = torch.nn.Tanh()
        s[-1] = torch.nn.Linear(4, 10)
        print(s)
        for bad in [lambda: s.__setitem__(3, torch.nn.ReLU()), lambda: s.__setitem__(0, 5)]:
            try:
                bad()
            except Exception as e:
                print(type(e).__name__ + ':', e)
        """,
        """
        Net(
          (fc1): Linear(in_features=3, out_features=5, bias=True)
          (act): ReLU()
          (fc): Linear(in_features=4, out_features=2, bias=True)
        )
        ['w', 'fc1.weight', 'fc1.bias'] ['w', 'v', 'b', 'fc1.weight', 'fc1.bias', 'fc.weight', 'fc.bias']
        Sequential(
          (0): Tanh()
          (1): ReLU()
          (2): Linear(in_features=4, out_features=10, bias=True)
        )
        IndexError: index 3 is out of range
        TypeError: cannot assign 'int' as child module '0' (srcgrad.nn.Module or None expected)
        """,
    )


def test_one_hot():
    expect(
        """
        F = torch.nn.functional
        print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([[0], [3]]), 5).shape, F.one_hot(torch.tensor(2), 4))
        print(F.one_hot(torch.tensor([], dtype=torch.long), 3), F.one_hot(torch.tensor([1, 0]), 2).dtype)
        for f in [lambda: F.one_hot(torch.tensor([0., 1.])), lambda: F.one_hot(torch.tensor([-1, 1])), lambda: F.one_hot(torch.tensor([3]), 2),
                  lambda: F.one_hot(torch.tensor([], dtype=torch.long)), lambda: F.one_hot(torch.tensor([1], dtype=torch.int32), 3)]:
            try:
                f()
            except RuntimeError as e:
                print(e)
        """,
        """
        tensor([[1, 0, 0],
                [0, 0, 1],
                [0, 1, 0]]) srcgrad.Size([2, 1, 5]) tensor([0, 0, 1, 0])
        tensor([], size=(0, 3), dtype=srcgrad.int64) srcgrad.int64
        one_hot is only applicable to index tensor of type LongTensor.
        Class values must be non-negative.
        Class values must be smaller than num_classes.
        Can not infer total number of classes from empty tensor.
        one_hot is only applicable to index tensor of type LongTensor.
        """,
    )


# --- torch.set_printoptions --------------------------------------------------------------


def test_set_printoptions():
    try:
        expect(
            """
            ts = [torch.tensor([1.23456, 2.34567]), torch.tensor([1e-5, 1.0]), torch.zeros(2), torch.arange(2000.),
                  torch.tensor([1.5, float('nan')], requires_grad=True) * 2, torch.arange(8.).reshape(2, 4) / 7]
            for opts in [dict(precision=2), dict(sci_mode=False), dict(sci_mode=True), dict(profile="short"),
                         dict(threshold=5, edgeitems=1, linewidth=40)]:
                torch.set_printoptions(**opts)
                print(opts)
                for t in ts:
                    print(t)
            """,
            """
            {'precision': 2}
            tensor([1.23, 2.35])
            tensor([1.00e-05, 1.00e+00])
            tensor([0., 0.])
            tensor([0.00e+00, 1.00e+00, 2.00e+00,  ..., 2.00e+03, 2.00e+03, 2.00e+03])
            tensor([3., nan], grad_fn=<MulBackward0>)
            tensor([[0.00, 0.14, 0.29, 0.43],
                    [0.57, 0.71, 0.86, 1.00]])
            {'sci_mode': False}
            tensor([1.23, 2.35])
            tensor([0.00, 1.00])
            tensor([0., 0.])
            tensor([   0.,    1.,    2.,  ..., 1997., 1998., 1999.])
            tensor([3., nan], grad_fn=<MulBackward0>)
            tensor([[0.00, 0.14, 0.29, 0.43],
                    [0.57, 0.71, 0.86, 1.00]])
            {'sci_mode': True}
            tensor([1.23e+00, 2.35e+00])
            tensor([1.00e-05, 1.00e+00])
            tensor([0., 0.])
            tensor([0.00e+00, 1.00e+00, 2.00e+00,  ..., 2.00e+03, 2.00e+03, 2.00e+03])
            tensor([3.00e+00,      nan], grad_fn=<MulBackward0>)
            tensor([[0.00e+00, 1.43e-01, 2.86e-01, 4.29e-01],
                    [5.71e-01, 7.14e-01, 8.57e-01, 1.00e+00]])
            {'profile': 'short'}
            tensor([1.23, 2.35])
            tensor([1.00e-05, 1.00e+00])
            tensor([0., 0.])
            tensor([0.00e+00, 1.00e+00,  ..., 2.00e+03, 2.00e+03])
            tensor([3., nan], grad_fn=<MulBackward0>)
            tensor([[0.00, 0.14, 0.29, 0.43],
                    [0.57, 0.71, 0.86, 1.00]])
            {'threshold': 5, 'edgeitems': 1, 'linewidth': 40}
            tensor([1.23, 2.35])
            tensor([1.00e-05, 1.00e+00])
            tensor([0., 0.])
            tensor([   0.,  ..., 1999.])
            tensor([3., nan],
                   grad_fn=<MulBackward0>)
            tensor([[0.00,  ..., 0.43],
                    [0.57,  ..., 1.00]])
            """,
        )
    finally:
        srcgrad.set_printoptions(profile="default")
