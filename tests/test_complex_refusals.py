"""Ops PyTorch does not compute on complex tensors refuse them with its exception type
and text (srcgrad/tensor/complex_refusals.py), stored from PyTorch 2.13, instead of
NumPy's lexicographic order, clipping or TypeError; and a sweep of ops x complex dtypes
(complex64, complex128, mixed with real tensors and numbers) against PyTorch."""

import numpy as np
import pytest

import srcgrad as torch


def c64():
    return torch.tensor([1 + 2j, -3 + 0.5j, 2 - 1j], dtype=torch.complex64)


def c128():
    return torch.tensor([1 + 2j, -3 + 0.5j, 2 - 1j], dtype=torch.complex128)


def f32():
    return torch.tensor([1.5, -2.0, 3.0])


def _kernel(name, kind="ComplexFloat"):
    return NotImplementedError, f"\"{name}\" not implemented for '{kind}'"


REFUSED = [  # label, call, (exception type, message)
    ("floor", lambda: torch.floor(c64()), (NotImplementedError, "floor is not supported for complex inputs")),
    ("ceil_", lambda: c64().ceil_(), (NotImplementedError, "ceil is not supported for complex inputs")),
    ("trunc", lambda: c128().trunc(), (NotImplementedError, "trunc is not supported for complex inputs")),
    ("fix", lambda: torch.fix(c64()), (NotImplementedError, "trunc is not supported for complex inputs")),
    ("round", lambda: torch.round(c64()), _kernel("round_vml_cpu")),
    ("frac", lambda: torch.frac(c128()), _kernel("frac_cpu", "ComplexDouble")),
    ("sign", lambda: torch.sign(c64()), (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support "
                                                               "complex numbers. Please use torch.sgn instead.")),
    ("clamp", lambda: torch.clamp(c64(), -1, 1), (NotImplementedError, "clamp is not supported for complex types")),
    ("clamp_", lambda: c64().clamp_(max=1), (NotImplementedError, "clamp is not supported for complex types")),
    ("clamp real by complex", lambda: torch.clamp(f32(), min=c64()), _kernel("maximum_cpu")),
    ("relu", lambda: torch.relu(c64()), (NotImplementedError, "clamp is not supported for complex types")),
    ("hardtanh", lambda: torch.nn.functional.hardtanh(c64()),
     (NotImplementedError, "clamp is not supported for complex types")),
    ("max", lambda: c64().max(), _kernel("max_all")),
    ("min", lambda: c128().min(), _kernel("min_all", "ComplexDouble")),
    ("max dim", lambda: c64().max(0), (RuntimeError, "max(): does not support complex input")),
    ("min dim", lambda: torch.min(c64(), 0), (RuntimeError, "min(): does not support complex input")),
    ("max other", lambda: torch.max(c64(), c64()), (RuntimeError, "maximum not implemented for complex tensors.")),
    ("amax", lambda: c64().amax(), _kernel("max_values_cpu")),
    ("amin", lambda: c64().amin(0), _kernel("min_values_cpu")),
    ("aminmax", lambda: torch.aminmax(c64()), _kernel("aminmax_cpu")),
    ("histc", lambda: torch.histc(c64()), _kernel("aminmax_cpu")),
    ("argmax", lambda: c64().argmax(), (RuntimeError, "argmax(): does not support complex input")),
    ("argmin", lambda: torch.argmin(c64()), (RuntimeError, "argmin(): does not support complex input")),
    ("sort", lambda: torch.sort(c64()), (RuntimeError, " Sort does not support complex dtypes on CPU")),
    ("argsort", lambda: c64().argsort(), (RuntimeError, " Sort does not support complex dtypes on CPU")),
    ("msort", lambda: torch.msort(c64()), (RuntimeError, " Sort does not support complex dtypes on CPU")),
    ("topk", lambda: c64().topk(2), (RuntimeError, " topk does not support complex dtypes on CPU")),
    ("kthvalue", lambda: c64().kthvalue(1), _kernel("kthvalue_cpu")),
    ("median", lambda: c64().median(), _kernel("median_cpu")),
    ("nanmedian", lambda: c64().nanmedian(), _kernel("median_cpu")),
    ("mode", lambda: torch.mode(c64()), _kernel("mode_cpu")),
    ("cummax", lambda: torch.cummax(c64(), 0), _kernel("cummax_cpu")),
    ("cummin", lambda: c64().cummin(0), _kernel("cummin_cpu")),
    ("unique", lambda: torch.unique(c64()), _kernel("unique")),
    ("nansum", lambda: torch.nansum(c64()), (RuntimeError, "nansum on CPU does not support complex inputs")),
    ("//", lambda: c64() // 2, _kernel("div_floor_cpu")),
    ("// mixed", lambda: f32() // c128(), _kernel("div_floor_cpu", "ComplexDouble")),
    ("//=", lambda: c64().__ifloordiv__(2), _kernel("div_floor_cpu")),
    ("%", lambda: c64() % f32(), _kernel("remainder_cpu")),
    ("% reflected", lambda: 2 % c64(), _kernel("remainder_cpu")),
    ("div trunc", lambda: torch.div(c64(), 2, rounding_mode="trunc"), _kernel("div_trunc_cpu")),
    ("fmod", lambda: torch.fmod(c64(), 2), _kernel("fmod_cpu")),
    ("remainder", lambda: torch.remainder(c128(), c64()), _kernel("remainder_cpu", "ComplexDouble")),
    ("<", lambda: c64() < f32(), _kernel("lt_cpu")),
    ("< reflected", lambda: 2 < c64(), _kernel("gt_cpu")),
    (">", lambda: f32() > c64(), _kernel("gt_cpu")),
    ("<=", lambda: c64() <= 1, _kernel("le_cpu")),
    (">= complex number", lambda: f32() >= 1j, _kernel("ge_cpu")),
    ("ge", lambda: torch.ge(c64(), c64()), _kernel("ge_cpu")),
    ("atan2", lambda: torch.atan2(c64(), f32()), _kernel("atan2_cpu")),
    ("maximum", lambda: torch.maximum(f32(), c64()), (RuntimeError, "maximum not implemented for complex tensors.")),
    ("minimum", lambda: torch.minimum(c64(), c64()), (RuntimeError, "minimum not implemented for complex tensors.")),
    ("fmax", lambda: torch.fmax(c64(), f32()), (RuntimeError, "fmax not implemented for complex tensors.")),
    ("fmin", lambda: torch.fmin(c64(), c64()), (RuntimeError, "fmin not implemented for complex tensors.")),
    ("hypot", lambda: torch.hypot(c64(), c64()), _kernel("hypot_cpu")),
    ("logaddexp2", lambda: torch.logaddexp2(c64(), c64()), _kernel("logaddexp2_cpu")),
    ("copysign", lambda: torch.copysign(c64(), 2), _kernel("copysign_cpu")),
    ("nextafter", lambda: torch.nextafter(c64(), c64()), _kernel("nextafter_cpu")),
    ("xlogy", lambda: torch.xlogy(c64(), f32()), _kernel("xlogy_cpu")),
    ("erf", lambda: torch.erf(c64()), _kernel("erf_vml_cpu")),
    ("erfc", lambda: torch.erfc(c64()), _kernel("erfc_vml_cpu")),
    ("erfinv", lambda: torch.erfinv(c64()), _kernel("erfinv_vml_cpu")),
    ("lgamma", lambda: torch.lgamma(c64()), _kernel("lgamma_vml_cpu")),
    ("digamma", lambda: torch.digamma(c64()), _kernel("digamma")),
    ("polygamma 1", lambda: torch.polygamma(1, c64()), _kernel("trigamma")),
    ("polygamma 2", lambda: torch.polygamma(2, c64()), _kernel("polygamma")),
    ("mvlgamma", lambda: torch.mvlgamma(c64(), 1), _kernel("arange_cpu")),
    ("logit", lambda: torch.logit(c64()), _kernel("logit_cpu")),
    ("i0", lambda: torch.i0(c64()), _kernel("i0_vml_cpu")),
    ("special.i1e", lambda: torch.special.i1e(c64()), _kernel("i1e_cpu")),
    ("signbit", lambda: torch.signbit(c64()), (NotImplementedError, "signbit is not implemented for complex tensors.")),
    ("isposinf", lambda: torch.isposinf(c64()), (RuntimeError, "isposinf does not support complex inputs.")),
    ("isneginf", lambda: torch.isneginf(c64()), (RuntimeError, "isneginf does not support complex inputs.")),
    ("rad2deg", lambda: torch.rad2deg(c64()), (RuntimeError, "rad2deg is not supported for complex tensors.")),
    ("deg2rad", lambda: torch.deg2rad(c64()), (RuntimeError, "deg2rad is not supported for complex tensors.")),
    ("searchsorted", lambda: torch.searchsorted(c64(), c64()), _kernel("searchsorted_out_cpu")),
    ("bucketize", lambda: torch.bucketize(c64(), c64()), _kernel("searchsorted_out_cpu")),
    ("heaviside", lambda: torch.heaviside(c64(), c64()),
     (RuntimeError, "heaviside is not yet implemented for complex tensors.")),
    ("softplus", lambda: torch.nn.functional.softplus(c64()), _kernel("softplus_cpu")),
    ("softmax", lambda: torch.softmax(c64(), 0), _kernel("softmax_lastdim_kernel_impl")),
    ("log_softmax", lambda: torch.log_softmax(c64().view(3, 1), 0), _kernel("log_softmax_kernel_impl")),
    ("mse_loss", lambda: torch.nn.functional.mse_loss(c64(), c64()), _kernel("mse_cpu")),
    ("quantile", lambda: torch.nanquantile(c64(), 0.5),
     (RuntimeError, "quantile() input tensor must be either float or double dtype")),
]


@pytest.mark.parametrize("label, call, error", REFUSED, ids=[r[0] for r in REFUSED])
def test_op_without_a_complex_kernel_refuses_as_pytorch(label, call, error):
    kind, message = error
    with pytest.raises(kind) as e:
        call()
    assert type(e.value) is kind and str(e.value) == message


def test_complex_ops_pytorch_computes_still_compute():
    c = c64()
    assert (c == c).tolist() == [True, True, True] and (c != 1 + 2j).tolist() == [False, True, True]
    assert torch.angle(c).dtype == torch.float32  # the real dtype of its precision
    assert torch.angle(c).tolist() == [1.1071487665176392, 2.9764440059661865, -0.46364760398864746]
    assert torch.angle(c128()).dtype == torch.float64
    assert (c ** 2).tolist() == [(-3 + 4j), (8.75 - 3j), (3 - 4j)]
    assert c.sum().item() == 1.5j and c.abs().dtype == torch.float32


def test_complex_covariance_conjugates_as_pytorch():
    assert torch.cov(c64()).item() == 9.25 + 0j  # sum |x - mean|^2 / (n - 1)
    m = torch.tensor([[1 + 2j, -3 + 0.5j], [2 - 1j, 0.5 + 0j]], dtype=torch.complex64)
    assert torch.cov(m).tolist() == [[(9.125 + 0j), (2.25 + 3.125j)], [(2.25 - 3.125j), (1.625 + 0j)]]
    r = torch.corrcoef(torch.tensor([[1 + 2j, -3 + 0.5j, 2 - 1j], [1, 2, 3j]]))
    assert np.allclose(r.numpy(), [[1, -0.7809 - 0.3699j], [-0.7809 + 0.3699j, 1]], atol=1e-4)
    x = torch.tensor([[1.0, 2.0, 4.0], [1.0, 0.0, 3.0]])
    assert np.allclose(torch.cov(x).numpy(), [[7 / 3, 11 / 6], [11 / 6, 7 / 3]])


def test_complex_logaddexp_is_refused_with_a_way_out():
    with pytest.raises(NotImplementedError) as e:
        torch.logaddexp(c64(), c64())
    assert str(e.value) == ("logaddexp of complex tensors is not supported by srcgrad's Tensor shim: compute it as "
                            "(input.exp() + other.exp()).log(), or on real tensors")


# the sweep: ops x (complex64, complex128, mixed with real tensors and numbers); each op an
# expression of `lib` (srcgrad or torch) and its operands `a`, `b`
UNARY = {
    "floor": "lib.floor(a)", "ceil": "lib.ceil(a)", "trunc": "lib.trunc(a)", "round": "lib.round(a)",
    "frac": "lib.frac(a)", "sign": "lib.sign(a)", "sgn": "lib.sgn(a)", "clamp": "a.clamp(-1, 1)",
    "clamp_min": "a.clamp_min(0)", "max": "a.max()", "min": "a.min()", "max_dim": "a.max(0)", "amax": "a.amax()",
    "aminmax": "lib.aminmax(a)", "argmax": "a.argmax()", "sort": "lib.sort(a)", "argsort": "lib.argsort(a)",
    "topk": "a.topk(2)", "kthvalue": "a.kthvalue(1)", "median": "a.median()", "mode": "lib.mode(a)",
    "cummax": "a.cummax(0)", "cummin": "a.cummin(0)", "relu": "lib.relu(a)", "erf": "lib.erf(a)",
    "lgamma": "lib.lgamma(a)", "digamma": "lib.digamma(a)", "signbit": "lib.signbit(a)", "floor_": "a.floor_()",
    "clamp_": "a.clamp_(-1, 1)", "unique": "lib.unique(a)", "isposinf": "lib.isposinf(a)",
    "rad2deg": "lib.rad2deg(a)", "logit": "lib.logit(a)", "i0": "lib.i0(a)", "nansum": "lib.nansum(a)",
    "softmax": "a.softmax(0)", "angle": "lib.angle(a)", "exp": "lib.exp(a)", "isnan": "lib.isnan(a)",
    "cumsum": "a.cumsum(0)", "mean": "a.mean()", "neg": "-a", "square": "lib.square(a)", "conj": "lib.conj(a)",
    "cov": "lib.cov(a)", "prod": "a.prod()",
}
BINARY = {
    "//": "a // b", "%": "a % b", "<": "a < b", ">": "a > b", "<=": "a <= b", ">=": "a >= b", "==": "a == b",
    "+": "a + b", "*": "a * b", "/": "a / b", "fmod": "lib.fmod(a, b)", "remainder": "lib.remainder(a, b)",
    "floor_divide": "lib.floor_divide(a, b)", "div_floor": "lib.div(a, b, rounding_mode='floor')",
    "copysign": "lib.copysign(a, b)", "xlogy": "lib.xlogy(a, b)",
}
TENSOR_BINARY = {  # tensors only
    "atan2": "lib.atan2(a, b)", "maximum": "lib.maximum(a, b)", "minimum": "lib.minimum(a, b)",
    "fmax": "lib.fmax(a, b)", "hypot": "lib.hypot(a, b)", "nextafter": "lib.nextafter(a, b)",
    "heaviside": "lib.heaviside(a, b)",
}
COMPLEX = {"complex64": [1 + 2j, -3 + 0.5j, 2 - 1j], "complex128": [0.5 - 1j, 2 + 0j, -1 - 1j]}
REAL = {"float32": [1.5, -2.0, 3.0], "int64": [1, -2, 3]}


def _outcome(lib, expression, a, b):
    """What `expression` gives in `lib` for the operands `a`, `b` (dtype name and values,
    or a Python number): its result's dtypes and values, or its exception."""
    def operand(x):
        return lib.tensor(x[1], dtype=getattr(lib, x[0])) if isinstance(x, tuple) else x

    try:
        out = eval(expression, {"lib": lib, "a": operand(a), "b": operand(b)})  # noqa: S307 - the table above
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e).replace("torch.", "srcgrad.")
    outs = out if isinstance(out, tuple) else (out,)
    return tuple((str(o.dtype).split(".")[1], np.asarray(o.tolist())) for o in outs)


def _same(mine, theirs):
    if isinstance(mine[0], str) or isinstance(theirs[0], str):
        return mine == theirs
    # complex arithmetic may round differently in its last bit (NumPy's and PyTorch's formulas)
    return len(mine) == len(theirs) and all(
        a[0] == b[0] and a[1].shape == b[1].shape and np.allclose(a[1], b[1], rtol=1e-6, atol=0, equal_nan=True)
        for a, b in zip(mine, theirs))


def _cases():
    for name, expression in UNARY.items():
        for dt, values in COMPLEX.items():
            yield f"{name}({dt})", expression, (dt, values), None
    for table, numbers in ((BINARY, (2, 2.5, 1j)), (TENSOR_BINARY, ())):
        for name, expression in table.items():
            for dt, values in COMPLEX.items():
                others = [(o, (o, v)) for o, v in {**COMPLEX, **REAL}.items()] + [(repr(n), n) for n in numbers]
                for label, other in others:
                    yield f"{name}({dt}, {label})", expression, (dt, values), other
                    yield f"{name}({label}, {dt})", expression, other, (dt, values)


def test_complex_sweep_agrees_with_pytorch():
    real = pytest.importorskip("torch")
    cases = list(_cases())
    differ = [label for label, expression, a, b in cases
              if not _same(_outcome(torch, expression, a, b), _outcome(real, expression, a, b))]
    # logaddexp is left out of the sweep: PyTorch computes it for complex tensors, the shim refuses it
    assert differ == [] and len(cases) == 654
