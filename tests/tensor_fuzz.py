"""Differential fuzzer for the Tensor shim, run on demand (not part of the suite).

    PYTHONPATH=. python tests/tensor_fuzz.py [count] [seed]

It writes random small autograd programs over the shim's API, guided by PyTorch
(a candidate statement PyTorch rejects is usually dropped, sometimes kept as the
program's last statement so that error messages are compared too), then runs each
program under PyTorch and under srcgrad and compares, statement by statement, the
value each statement binds: dtype, shape, values (float32 tolerances), the
requires_grad / is_leaf flags, the grad_fn class name, next_functions names, the repr
(when the values agree exactly), and at the end every leaf's `.grad`. An exception
is compared by type and message. Disagreements are printed grouped by kind, with the
smallest program that shows each one (`--all`: every one). Programs where PyTorch fails
an internal assert (a PyTorch bug), and values that differ only after an optimizer step
magnified gradients that agree to rounding, are counted apart, not as disagreements.
Needs PyTorch.
"""

import collections
import re
import sys
import traceback
import warnings

import numpy as np
import torch

import srcgrad

COMPARE_NEXT = "--next" in sys.argv  # next_functions differ widely (noted, optional in the spec)


# --- running and summarizing --------------------------------------------------------

def _norm_text(text):
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", str(text))
    return text.replace("torch.", "srcgrad.").replace("torch::", "srcgrad::")


def _node_names(fn):
    try:
        return tuple(None if f is None else type(f).__name__ for f, _ in fn.next_functions)
    except Exception as e:  # noqa: BLE001
        return ("<no next_functions: %s>" % type(e).__name__,)


def summarize(obj, lib):
    if isinstance(obj, lib.Tensor):
        data = obj.detach().numpy() if obj.dtype != lib.bool else obj.detach().numpy().astype(bool)
        fn = obj.grad_fn
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grad = obj.grad if obj.is_leaf or obj.retains_grad else None
        return {
            "kind": "tensor",
            "dtype": str(obj.dtype).split(".")[-1],
            "shape": tuple(obj.shape),
            "requires_grad": obj.requires_grad,
            "is_leaf": obj.is_leaf,
            "grad_fn": None if fn is None else type(fn).__name__,
            "next": None if fn is None else _node_names(fn),
            "values": np.array(data, copy=True),
            "repr": _norm_text(repr(obj)),
            "grad": None if grad is None else summarize(grad, lib),
        }
    if isinstance(obj, (tuple, list)):
        return {"kind": type(obj).__name__ if type(obj) in (tuple, list) else "seq",
                "items": [summarize(o, lib) for o in obj]}
    if isinstance(obj, (bool, int, float)) or obj is None:
        return {"kind": "py", "type": type(obj).__name__, "value": obj}
    if isinstance(obj, (lib.Size,)):
        return {"kind": "py", "type": "Size", "value": tuple(obj)}
    return {"kind": "other", "type": type(obj).__name__}


def run(lib, program):
    """Execute `program` (a list of (code, names)) with `torch` bound to `lib`.
    Returns a list of records, one per statement, then the leaves' grads."""
    ns = {"torch": lib, "np": np, "F": lib.nn.functional}
    records = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for code, names in program:
            try:
                exec(code, ns)
            except Exception as e:  # noqa: BLE001
                records.append(("error", code, type(e).__name__, _norm_text(e)))
                return records
            try:
                records.append(("ok", code, [summarize(ns[n], lib) if n in ns else None for n in names]))
                if "grad" in code:  # what hooks and retain_grad left on every tensor so far
                    records.append(("ok", "grads", [summarize(v, lib) for k, v in sorted(ns.items())
                                                    if isinstance(v, lib.Tensor)]))
            except Exception as e:  # noqa: BLE001
                records.append(("error", code + "  # summarize", type(e).__name__, _norm_text(e)))
                return records
    return records


def _close(a, b):
    if a.shape != b.shape:
        return False
    if a.dtype == bool or b.dtype == bool or a.dtype.kind in "iu":
        return np.array_equal(a, b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if not np.array_equal(np.isnan(a64), np.isnan(b64)):
        return False
    fin = np.isfinite(a64) & np.isfinite(b64)
    if not np.array_equal(a64[~fin & ~np.isnan(a64)], b64[~fin & ~np.isnan(b64)]):
        return False
    scale = max(1.0, float(np.max(np.abs(a64[fin]), initial=0.0)))
    return bool(np.all(np.abs(a64[fin] - b64[fin]) <= 1e-4 * np.abs(a64[fin]) + 2e-5 * scale))


def _zeros(text):
    """A repr with the sign of zeros dropped (-0.0 against 0.0 is noted, not chased) and
    spaces dropped (the sign changes a column's width)."""
    if "--zeros" in sys.argv:
        return text
    return re.sub(r"\s+", "", re.sub(r"-(0\.0*(?:e[+-]\d+)?)(?![0-9])", r"\1", text))


def compare(s, t, where="value"):
    """First difference between two summaries (torch `s`, shim `t`), as (kind, text)."""
    if s is None or t is None:
        if s is not t:
            return ("presence", "%s: torch %r shim %r" % (where, s is None, t is None))
        return None
    if s["kind"] != t["kind"]:
        return ("kind", "%s: torch %s shim %s" % (where, s["kind"], t.get("type", t["kind"])))
    if s["kind"] in ("tuple", "list", "seq"):
        if len(s["items"]) != len(t["items"]):
            return ("length", where)
        for i, (a, b) in enumerate(zip(s["items"], t["items"])):
            d = compare(a, b, "%s[%d]" % (where, i))
            if d:
                return d
        return None
    if s["kind"] == "py":
        if s["type"] != t["type"]:
            return ("pytype", "%s: torch %s shim %s" % (where, s["type"], t["type"]))
        sv, tv = s["value"], t["value"]
        if isinstance(sv, float) and isinstance(tv, float):
            if not _close(np.array(sv), np.array(tv)):
                return ("pyvalue", "%s: torch %r shim %r" % (where, sv, tv))
        elif sv != tv:
            return ("pyvalue", "%s: torch %r shim %r" % (where, sv, tv))
        return None
    if s["kind"] == "other":
        return None
    for key in ("dtype", "shape", "requires_grad", "is_leaf", "grad_fn"):
        if s[key] != t[key]:
            return (key, "%s: torch %r shim %r" % (where, s[key], t[key]))
    if not _close(s["values"], t["values"]):
        if "opt.step()" in where and s["grad"] and t["grad"] and _close(s["grad"]["values"], t["grad"]["values"]):
            # gradients that agree to rounding, which an optimizer normalizing by the
            # gradient's size (Adam, RMSprop, Adagrad) magnifies: a gradient that is zero
            # up to rounding (-2e-8 in one, 0 in the other) gives steps of the learning rate
            return ("artefact", "%s: an optimizer step magnified gradients that agree to rounding" % where)
        return ("values", "%s:\n  torch %s\n  shim  %s" % (where, s["values"].tolist(), t["values"].tolist()))
    if COMPARE_NEXT and s["next"] != t["next"]:
        return ("next_functions", "%s: torch %r shim %r" % (where, s["next"], t["next"]))
    if np.array_equal(s["values"], t["values"], equal_nan=s["values"].dtype.kind == "f") and _zeros(s["repr"]) != _zeros(t["repr"]):
        return ("repr", "%s:\n  torch %s\n  shim  %s" % (where, s["repr"], t["repr"]))
    g = compare(s["grad"], t["grad"], where + ".grad")
    if g:
        return ("grad-" + g[0], g[1])
    return None


def compare_runs(a, b):
    for i, (ra, rb) in enumerate(zip(a, b)):
        if ra[0] != rb[0]:
            if ra[0] == "ok":
                return ("shim-raises", "line %d %s\n  shim raised %s: %s" % (i, ra[1], rb[2], rb[3]))
            return ("shim-no-error", "line %d %s\n  torch raised %s: %s" % (i, ra[1], ra[2], ra[3]))
        if ra[0] == "error":
            if (ra[2], ra[3]) != (rb[2], rb[3]):
                return ("error-message", "line %d %s\n  torch %s: %s\n  shim  %s: %s" % (i, ra[1], ra[2], ra[3], rb[2], rb[3]))
            continue
        for s, t in zip(ra[2], rb[2]):
            d = compare(s, t, "line %d %s" % (i, ra[1]))
            if d:
                return d
    if len(a) != len(b):
        return ("length", "records %d vs %d" % (len(a), len(b)))
    return None


# --- generating ------------------------------------------------------------------------

class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.ns = {"torch": torch, "np": np, "F": torch.nn.functional}
        self.lines = []
        self.leaves = []
        self.count = 0

    def r(self, n):
        return int(self.rng.integers(n))

    def pick(self, seq):
        return seq[self.r(len(seq))]

    def chance(self, p):
        return self.rng.random() < p

    def fresh(self):
        self.count += 1
        return "v%d" % self.count

    def tensors(self, cond=lambda t: True):
        found = []
        for n, v in self.ns.items():
            try:
                if isinstance(v, torch.Tensor) and cond(v):
                    found.append(n)
            except RuntimeError:  # a view PyTorch has invalidated
                pass
        return found

    def floats(self):
        return self.tensors(lambda t: t.dtype.is_floating_point)

    def shape(self, max_ndim=3):
        return tuple(int(self.rng.integers(1, 4)) for _ in range(self.r(max_ndim + 1)))

    def data(self, shape, kind="float"):
        if kind == "int":
            a = self.rng.integers(-3, 4, shape)
            return repr(a.tolist())
        a = np.round(self.rng.standard_normal(shape) * self.pick([1, 1, 1, 3, 0.01, 100]), 2)
        if self.chance(0.05) and a.size:
            a.flat[self.r(a.size)] = self.pick([0.0, -0.0, 1e-5, 1e5])
        return repr(a.tolist())

    def scalar(self):
        return self.pick(["2", "0.5", "-1.5", "3", "0", "1", "-2", "1e-3", "True", "2.0"])

    # leaves
    def leaf(self):
        shape = self.shape()
        rg = self.chance(0.7)
        dt = self.pick(["", ", dtype=torch.float64", ", dtype=torch.float32", "", ""])
        kind = self.r(8)
        rgs = ", requires_grad=True" if rg else ""
        if kind <= 3:
            expr = "torch.tensor(%s%s%s)" % (self.data(shape), dt, rgs)
        elif kind == 4:
            expr = "torch.%s(%s%s%s)" % (self.pick(["ones", "zeros"]), ", ".join(map(str, shape)) or "()", dt, rgs)
        elif kind == 5:
            expr = "torch.tensor(%s%s)" % (self.data(shape, "int"), self.pick(["", ", dtype=torch.int64", ""]))
            rg = False
        elif kind == 6:
            expr = "torch.full(%r, %s%s%s)" % (shape, self.pick(["1.5", "2", "-0.25"]), dt, rgs)
        else:
            expr = "torch.arange(%s%s)" % (self.pick(["5", "6.", "1, 4, 0.5", "-2, 2"]), dt if "." in dt else "")
            expr = expr + (".requires_grad_()" if rg and "." in expr[12:] else "")
        name = self.fresh()
        return "%s = %s" % (name, expr), [name], name

    def unary(self):
        x = self.pick(self.floats())
        ops = ["{x}.exp()", "torch.sin({x})", "{x}.cos()", "{x}.tanh()", "torch.sigmoid({x})", "{x}.relu()",
               "{x}.abs()", "-{x}", "{x}.sqrt()", "({x}.abs() + 1).log()", "{x}.log()", "{x}.log1p()", "{x}.expm1()",
               "{x}.clamp(min=-0.5, max=0.5)", "{x}.clamp(min=0)", "{x}.clamp(max=0.1)", "{x} ** 2", "{x} ** 3",
               "{x} ** 0.5", "{x} ** 0", "{x} ** -1", "2 ** {x}", "1 / {x}", "{x}.reciprocal()", "{x}.sign()",
               "{x}.floor()", "{x}.round()", "F.softplus({x})", "F.logsigmoid({x})", "{x}.clone()", "{x}.detach()",
               "{x}.double()", "{x}.float()", "{x}.to(torch.float64)", "{x}.long()", "{x} * 1", "{x}.neg()",
               "torch.exp({x})", "{x}.sigmoid()", "torch.relu({x})", "torch.tanh({x})", "{x}.rsqrt()",
               "{x}.square()", "torch.square({x})", "{x}.sin()", "{x}.log2()", "{x}.log10()", "{x}.exp2()",
               "{x}.trunc()", "{x}.ceil()", "{x}.frac()", "F.relu({x})", "F.leaky_relu({x}, 0.1)", "F.elu({x})",
               "F.gelu({x})", "F.silu({x})", "torch.clamp({x}, -1, 1)", "{x}.pow(2)", "torch.pow({x}, 3)",
               "{x}.mul(2)", "{x}.add(1, alpha=2)", "{x}.sub(0.5)", "{x}.div(4)", "{x}.norm()", "torch.erf({x})",
               "{x}.abs().pow(1.5)", "{x}.atan()", "{x}.asin()", "F.hardtanh({x})", "{x}.type(torch.float64)",
               "F.relu6({x})", "F.hardtanh({x}, -0.5, 0.5)"]
        name = self.fresh()
        return "%s = %s" % (name, self.pick(ops).format(x=x)), [name], name

    def binary(self):
        x = self.pick(self.tensors())
        xs = tuple(self.ns[x].shape)
        cands = [n for n in self.tensors() if _broadcasts(xs, tuple(self.ns[n].shape))]
        y = self.pick(cands) if cands and self.chance(0.7) else self.scalar()
        op = self.pick(["+", "-", "*", "/", "**", "+", "*", "-"])
        if self.chance(0.2):
            expr = self.pick(["torch.maximum({x}, {y})", "torch.minimum({x}, {y})", "torch.where({x} > 0, {x}, {y})",
                              "torch.atan2({x}, {y})", "{x}.add({y}, alpha=2)", "torch.add({x}, {y})",
                              "torch.mul({x}, {y})", "torch.sub({x}, {y}, alpha=0.5)", "torch.div({x}, {y})",
                              "torch.lerp({x}, {y}, 0.3)", "{x}.max({y})", "torch.pow({x}, {y})",
                              "{x} // {y}", "{x} % {y}", "torch.true_divide({x}, {y})", "{x} > {y}", "{x} == {y}",
                              "torch.where({x} > 0, {x}, 0.)", "torch.div({x}, {y}, rounding_mode='floor')"])
            expr = expr.format(x=x, y=y)
        elif self.chance(0.5):
            expr = "%s %s %s" % (x, op, y)
        else:
            expr = "%s %s %s" % (y, op, x)
        name = self.fresh()
        return "%s = %s" % (name, expr), [name], name

    def reduction(self):
        x = self.pick(self.tensors())
        nd = self.ns[x].dim()
        d = self.r(2 * nd) - nd if nd else 0
        kd = self.pick(["", ", keepdim=True", ", keepdim=False"])
        ops = ["{x}.sum()", "{x}.sum({d}{kd})", "{x}.mean()", "{x}.mean({d}{kd})", "{x}.prod()", "{x}.prod({d}{kd})",
               "{x}.max()", "{x}.max({d}{kd})[0]", "{x}.max({d}{kd}).indices", "{x}.min({d}{kd}).values", "{x}.min()",
               "{x}.std()", "{x}.var({d}{kd})", "{x}.std({d}, unbiased=False{kd})", "{x}.logsumexp({d}{kd})",
               "{x}.norm()", "{x}.norm(dim={d}{kd})", "{x}.norm(1)", "{x}.amax({d}{kd})", "{x}.amin()",
               "{x}.cumsum({d})", "{x}.cumprod({d})", "{x}.softmax({d})", "{x}.log_softmax({d})", "{x}.argmax()",
               "{x}.argmax({d}{kd})", "{x}.sum(({d},){kd})", "{x}.mean(dim=[{d}]{kd})", "torch.sum({x}, {d})",
               "torch.mean({x})", "{x}.sum(dtype=torch.float64)", "{x}.all()", "{x}.any()", "{x}.var(correction=0)",
               "{x}.norm(p=float('inf'))", "torch.max({x}, {d})[0]", "torch.median({x})", "{x}.sum(-1)",
               "{x}.std({d}, correction=0)", "torch.std_mean({x})[0]", "{x}.count_nonzero()", "torch.trace({x})",
               "torch.count_nonzero({x}, {d})", "{x}.count_nonzero(dim=({d},))", "torch.unique({x})",
               "torch.unique({x}, return_inverse=True)[1]", "torch.unique({x}, return_counts=True)[1]",
               "{x}.unique(sorted=False, return_inverse=True, return_counts=True)[0]", "torch.unique({x}, dim={d})",
               "torch.unique({x}, dim={d}, return_inverse=True)[1]", "torch.frac({x})"]
        name = self.fresh()
        return "%s = %s" % (name, self.pick(ops).format(x=x, d=d, kd=kd)), [name], name

    def view(self):
        x = self.pick(self.tensors())
        t = self.ns[x]
        shape = tuple(t.shape)
        nd = len(shape)
        opts = ["{x}.reshape(-1)", "{x}.flatten()", "{x}.unsqueeze({u})", "{x}.squeeze()", "{x}.view(-1)",
                "{x}.reshape({s})", "{x}.view({s})", "{x}[None]", "{x}.contiguous()", "{x}.clone()", "{x}.view_as({x})",
                "{x}.unsqueeze(-1).expand({e})", "{x}.repeat({rep})", "{x}.flatten(0, -1)", "torch.flatten({x})",
                "torch.stack([{x}, {x}])", "torch.cat([{x}, {x}])", "torch.cat([{x}, {x}], -1)", "{x}.expand_as({x})"]
        if nd:
            opts += ["{x}.squeeze({d})", "{x}.flip(0)", "{x}.chunk(2)[0]", "{x}.split(1)[-1]", "{x}.unbind(0)[0]",
                     "{x}.narrow(0, 0, 1)", "{x}.roll(1)", "{x}.select(0, -1)"]
        if nd >= 2:
            opts += ["{x}.t()", "{x}.transpose(0, 1)", "{x}.permute({p})", "{x}.T", "{x}.mT", "{x}.transpose(-1, -2)",
                     "{x}.flatten(1)", "torch.tril({x})", "torch.triu({x}, 1)", "{x}.diagonal()", "{x}.t().reshape(-1)",
                     "{x}.transpose(0, 1).contiguous().view(-1)", "{x}.transpose(0, 1).view(-1)", "{x}.mH",
                     "{x}.adjoint()", "{x}.diagonal(1)", "{x}.diagonal(-1)", "torch.diagonal({x}, 0, -1, 0)",
                     "{x}.diagonal(offset=2, dim1=1, dim2=0)", "{x}.diagonal().sum()"]
        if nd == 2:
            opts += ["{x}.H"]
        if nd >= 3:
            opts += ["{x}.diagonal(0, 1, 2)", "{x}.diagonal(1, -1, 0)", "{x}.mT.reshape(-1)"]
        s = tuple(shape[::-1]) if nd else (1,)
        p = tuple(int(i) for i in self.rng.permutation(nd)) if nd else ()
        e = shape + (self.pick([1, 2, 3]),)
        rep = tuple([self.pick([1, 2])] * (nd or 1))
        expr = self.pick(opts).format(x=x, u=self.r(nd + 1) - (nd + 1) * self.r(2) if True else 0, s=s,
                                      d=self.r(nd) if nd else 0, p=p, e=e, rep=rep)
        name = self.fresh()
        return "%s = %s" % (name, expr), [name], name

    def index(self):
        x = self.pick(self.tensors(lambda t: t.dim() > 0))
        shape = tuple(self.ns[x].shape)
        n = shape[0]
        i = self.r(2 * n) - n
        opts = ["{x}[{i}]", "{x}[{i}:]", "{x}[:{j}]", "{x}[::2]", "{x}[..., {k}]", "{x}[[0, -1]]", "{x}[[0, 0]]",
                "{x}[{x} > 0]", "{x}[torch.tensor([{i}, 0])]", "{x}[None, ..., None]", "{x}[-1:]", "{x}[:, None]",
                "{x}[torch.tensor([True] + [False] * {m})]", "{x}[[{i}]]", "{x}[1:1]", "{x}.gather(0, torch.zeros_like({x}, dtype=torch.long))",
                "{x}.index_select(0, torch.tensor([{i}, {i}]))", "{x}.masked_fill({x} > 0, 0.)", "{x}[({i},)]"]
        if len(shape) >= 2:
            opts += ["{x}[:, {k}]", "{x}[{i}, {k}]", "{x}[:, [0, {k}]]", "{x}[[0, {i}], [{k}, 0]]", "{x}[..., ::-1]"
                     if False else "{x}[:, 1:]", "{x}[[0, 0], :]"]
        k = self.r(shape[-1])
        expr = self.pick(opts).format(x=x, i=i, j=self.r(n + 1), k=k, m=n - 1)
        name = self.fresh()
        return "%s = %s" % (name, expr), [name], name

    def setitem(self):
        x = self.pick(self.tensors(lambda t: t.dim() > 0))
        shape = tuple(self.ns[x].shape)
        vals = [self.scalar()] + [n for n in self.tensors() if self.ns[n].dim() <= 1 and self.ns[n].numel() <= shape[-1]]
        v = self.pick(vals)
        idx = self.pick(["0", "-1", ":", "1:", "[0]", "..., 0", "%s > 0" % x, "torch.tensor([0])", "[0, 0]", "None"])
        if self.chance(0.6):
            name = self.fresh()
            code = "%s = %s.clone(); %s[%s] = %s" % (name, x, name, idx, v)
            return code, [name, x], name
        code = "%s[%s] = %s" % (x, idx, v)
        return code, [x], x

    def inplace(self):
        x = self.pick(self.tensors())
        others = [n for n in self.tensors() if _broadcasts(tuple(self.ns[x].shape), tuple(self.ns[n].shape), inplace=True)]
        y = self.pick(others) if others and self.chance(0.5) else self.scalar()
        op = self.pick(["{x}.add_({y})", "{x}.mul_({y})", "{x}.sub_({y})", "{x}.div_({y})", "{x} += {y}", "{x} *= {y}",
                        "{x} -= {y}", "{x} /= {y}", "{x}.zero_()", "{x}.fill_(2)", "{x}.exp_()", "{x}.clamp_(min=0)",
                        "{x}.relu_()", "{x}.sigmoid_()", "{x}.neg_()", "{x}.copy_({y})", "{x}.pow_(2)", "{x}.abs_()",
                        "{x}.data.mul_(2)", "{x}.data += 1", "{x}.tanh_()", "{x}.add_({y}, alpha=2)", "{x}.sqrt_()",
                        "{x}.requires_grad_()", "{x}.requires_grad_(False)", "{x}.detach_()", "{x}.t_()", "{x}.unsqueeze_(0)",
                        "{x}.unsqueeze_(-1)", "{x}.frac_()"])
        code = op.format(x=x, y=y)
        if self.chance(0.5) and not code.startswith(x + ".data") and "requires_grad" not in code:
            name = self.fresh()
            code = "%s = %s * 1; %s" % (name, x, op.format(x=name, y=y)) if self.chance(0.7) else \
                "%s = %s.clone(); %s" % (name, x, op.format(x=name, y=y))
            return code, [name, x], name
        return code, [x], x

    def product(self):
        x = self.pick(self.floats())
        xs = tuple(self.ns[x].shape)
        nd = len(xs)
        if nd == 0:
            return self.unary()
        k = xs[-1]
        m = self.pick([1, 2, 3])
        dt = "" if self.ns[x].dtype == torch.float32 else ", dtype=torch.float64"
        if self.chance(0.1):
            dt = self.pick(["", ", dtype=torch.float64"])
        rg = self.pick(["", ", requires_grad=True"])
        if nd == 1:
            other = self.pick(["torch.tensor(%s%s%s)" % (self.data((k, m)), dt, rg), "torch.tensor(%s%s%s)" % (self.data((k,)), dt, rg)])
            expr = self.pick(["{x} @ {o}", "torch.matmul({x}, {o})", "torch.outer({x}, {x})", "torch.dot({x}, {x})",
                              "{o}.T @ {x}" if "," in other[:20] else "{x} @ {o}", "{x}.matmul({o})"])
        elif nd == 2:
            other = self.pick(["torch.tensor(%s%s%s)" % (self.data((k, m)), dt, rg), "torch.tensor(%s%s%s)" % (self.data((k,)), dt, rg)])
            expr = self.pick(["{x} @ {o}", "torch.mm({x}, {x}.T)", "torch.mv({x}, {x}[0])", "{x}.T @ {x}",
                              "torch.matmul({x}, {o})", "{x} @ {x}.t()", "torch.addmm(torch.zeros({r}, {r}), {x}, {x}.t())",
                              "F.linear({x}, torch.ones({m}, {k}))", "F.linear({x}, torch.ones({m}, {k}), torch.ones({m}))"])
        else:
            other = "torch.tensor(%s%s%s)" % (self.data(xs[:-2] + (k, m)), dt, rg)
            expr = self.pick(["{x} @ {o}", "torch.matmul({x}, {o})", "{x} @ {x}.transpose(-1, -2)",
                              "torch.bmm({x}, {o})", "{x}.bmm({x}.transpose(1, 2))", "{x} @ torch.ones({k})"])
        name = self.fresh()
        code = "%s = %s" % (name, expr.format(x=x, o=other, k=k, m=m, r=xs[0]))
        if rg and other in code:
            leaf = self.fresh()
            code = "%s = %s; %s" % (leaf, other, code.replace(other, leaf))
            self.leaves.append(leaf)
            return code, [name, leaf], name
        return code, [name], name

    def module(self):
        x = self.pick(self.tensors(lambda t: t.dtype == torch.float32 and t.dim() in (1, 2, 3)))
        k = self.ns[x].shape[-1]
        m = self.pick([1, 2, 3])
        n = self.count + 1
        bias = self.chance(0.8)
        act = self.pick(["", "torch.nn.ReLU(), ", "torch.nn.Tanh(), ", "torch.nn.Sigmoid(), "])
        lines = ["lin%d = torch.nn.Linear(%d, %d, bias=%s)" % (n, k, m, bias),
                 "with torch.no_grad():",
                 "    lin%d.weight.copy_(torch.tensor(%s))" % (n, self.data((m, k)))]
        if bias:
            lines.append("    lin%d.bias.copy_(torch.tensor(%s))" % (n, self.data((m,))))
        lines.append("w%d = lin%d.weight" % (n, n))
        if bias:
            lines.append("b%d = lin%d.bias" % (n, n))
        name = self.fresh()
        seq = self.chance(0.5)
        if seq:
            lines.append("%s = torch.nn.Sequential(%slin%d)(%s)" % (name, act, n, x))
        else:
            lines.append("%s = lin%d(%s)" % (name, n, x))
        names = [name, "w%d" % n] + (["b%d" % n] if bias else [])
        return "\n".join(lines), names, name

    def loss(self):
        x = self.pick(self.floats())
        xs = tuple(self.ns[x].shape)
        red = self.pick(["", ", reduction='mean'", ", reduction='sum'", ", reduction='none'"])
        tgt = "torch.tensor(%s)" % self.data(xs)
        prob = "torch.tensor(%s)" % repr(np.round(self.rng.random(xs), 2).tolist())
        opts = ["F.mse_loss({x}, {t}{r})", "F.l1_loss({x}, {t}{r})", "F.binary_cross_entropy_with_logits({x}, {p}{r})",
                "F.binary_cross_entropy(torch.sigmoid({x}), {p}{r})", "F.smooth_l1_loss({x}, {t}{r})",
                "F.huber_loss({x}, {t}{r})", "torch.nn.MSELoss({r0})({x}, {t})", "torch.nn.L1Loss({r0})({x}, {t})",
                "torch.nn.BCEWithLogitsLoss({r0})({x}, {p})", "F.binary_cross_entropy_with_logits({x}, {p}, weight={p}{r})",
                "F.binary_cross_entropy_with_logits({x}, {p}, pos_weight={p}{r})", "F.binary_cross_entropy(torch.sigmoid({x}), {p}, weight={p}{r})",
                "F.mse_loss({x}, {x}.detach() * 2{r})", "F.kl_div({x}.log_softmax(-1), {p}{r})", "F.softmax({x}, -1)",
                "F.log_softmax({x}, 0)", "F.normalize({x}, dim=-1)", "F.dropout({x}, 0.0)"]
        if len(xs) >= 1:
            n = xs[0]
            c = xs[1] if len(xs) >= 2 else xs[0]
            cls = "torch.tensor(%r)" % self.rng.integers(0, c, (n,) + xs[2:] if len(xs) >= 2 else ()).tolist()
            opts += ["F.cross_entropy({x}, {c}{r})", "F.nll_loss(F.log_softmax({x}, 1), {c}{r})",
                     "torch.nn.CrossEntropyLoss({r0})({x}, {c})", "F.cross_entropy({x}, {c}, label_smoothing=0.1{r})",
                     "F.cross_entropy({x}, {c}, weight=torch.arange(1., {cc}){r})", "F.cross_entropy({x}, {c}, ignore_index=0{r})",
                     "F.cross_entropy({x}, {x}.detach().softmax(1){r})"]
        else:
            cls = "torch.tensor(0)"
        expr = self.pick(opts).format(x=x, t=tgt, p=prob, r=red, r0=red[2:], c=cls, cc=(xs[1] if len(xs) >= 2 else xs[0] if xs else 1) + 1)
        name = self.fresh()
        return "%s = %s" % (name, expr), [name], name

    def misc(self):
        x = self.pick(self.tensors())
        name = self.fresh()
        opts = ["with torch.no_grad():\n    {n} = {x} * 2", "{n} = {x}.detach().requires_grad_()",
                "{n} = {x}.data", "{n} = {x}.item() if {x}.numel() == 1 else {x}.tolist()",
                "{n} = {x}.shape", "{n} = {x}.dim()", "{n} = {x}.numel()", "{n} = {x}.is_leaf",
                "{n} = {x}.requires_grad", "{n} = float({x}.sum())", "{n} = {x}.grad_fn.name() if {x}.grad_fn else None",
                "{n} = torch.is_grad_enabled()", "{n} = {x}.size(-1) if {x}.dim() else {x}.size()",
                "{n} = torch.zeros_like({x})", "{n} = torch.ones_like({x}, requires_grad=True)" if self.ns[x].dtype.is_floating_point else "{n} = torch.ones_like({x})",
                "{n} = torch.full_like({x}, 3)", "{n} = {x}.new_zeros(2)", "{n} = {x}.new_tensor([1, 2])",
                "{n} = bool({x}.sum() > 0)", "{n} = {x}.tolist()", "{n} = int({x}.sum())", "{n} = {x}.numpy().dtype.name",
                "{n} = {x}.dtype.is_floating_point", "{n} = {x}.eq({x}).all()", "{n} = torch.allclose({x}, {x})",
                "{n} = {x}.equal({x})", "{n} = len({x})", "{n} = {x}.isnan().any()", "{n} = torch.isfinite({x})",
                "{n} = {x}.sort()[0]", "{n} = {x}.topk(1)[0]", "{n} = {x}.where({x} > 0, torch.zeros(()))",
                "{n} = {x}.abs().sqrt() * 1", "{n} = {x}.unique()", "{n} = repr({x}.grad_fn)[:5]"]
        code = self.pick(opts).format(n=name, x=x)
        return code, [name], name

    def hook(self):
        x = self.pick(self.tensors(lambda t: t.requires_grad))
        code = self.pick(["h{n} = {x}.register_hook(lambda g: g * 2)", "{x}.retain_grad()",
                          "h{n} = {x}.register_hook(lambda g: None)", "h{n} = {x}.register_hook(lambda g: g + 1)"])
        return code.format(x=x, n=self.count), [], None

    def step(self):
        if not self.floats() or self.chance(0.12):
            return self.leaf()
        kinds = [self.unary, self.binary, self.binary, self.reduction, self.view, self.index, self.setitem,
                 self.inplace, self.product, self.loss, self.misc, self.module]
        if self.tensors(lambda t: t.requires_grad) and self.chance(0.05):
            return self.hook()
        return self.pick(kinds)()

    def ending(self):
        outs = [n for n in self.tensors(lambda t: t.requires_grad and t.dtype.is_floating_point)]
        if not outs:
            return None
        y = self.pick(outs)
        yt = self.ns[y]
        leaves = [n for n in self.tensors(lambda t: t.is_leaf and t.requires_grad)]
        which = self.r(9)
        if which == 0 and yt.numel() == 1:
            code = "%s.backward()" % y
        elif which == 1:
            code = "%s.backward(torch.tensor(%s%s))" % (y, self.data(tuple(yt.shape)),
                                                         self.pick(["", ", dtype=torch.float64"]))
        elif which == 2:
            code = "%s.sum().backward(retain_graph=True); %s.sum().backward()" % (y, y)
        elif which == 3:
            code = "o = %s.sum(); o.backward(); o.backward()" % y
        elif which == 4 and leaves:
            ls = leaves[:3]
            code = "gs = torch.autograd.grad(%s.sum(), [%s], allow_unused=True%s)" % (
                y, ", ".join(ls), self.pick(["", ", retain_graph=True"]))
            return code, ["gs"]
        elif which == 5:
            code = "%s.sum().backward(); %s.mean().backward()" % (y, y)
        elif which == 7 and leaves and all(self.ns[n].dtype == self.ns[leaves[0]].dtype for n in leaves):
            opt = self.pick(["SGD(P, lr=0.1)", "SGD(P, lr=0.1, momentum=0.9, nesterov=True)",
                             "SGD(P, lr=0.05, momentum=0.5, weight_decay=0.1, dampening=0.1)", "Adam(P, lr=0.01)",
                             "Adam(P, lr=0.1, amsgrad=True, weight_decay=0.01)", "AdamW(P, lr=0.1)",
                             "RMSprop(P, lr=0.01, momentum=0.5, centered=True)", "Adagrad(P, lr=0.1)"])
            code = "opt = torch.optim.%s\nfor _ in range(2):\n    opt.zero_grad()\n    (%s * 1.0).pow(2).sum().backward(retain_graph=True)\n    opt.step()" % (
                opt.replace("P", "[%s]" % ", ".join(leaves)), y)
        elif which == 6:
            code = "%s.backward()" % y
        else:
            code = "(%s * %s).sum().backward()" % (y, y) if self.chance(0.3) else "%s.sum().backward()" % y
        return code, []


def _pytorch_bug(detail):
    """A disagreement where PyTorch failed its own internal check (`INTERNAL ASSERT FAILED`,
    which asks for a bug report): a PyTorch bug, not behaviour to copy."""
    return "INTERNAL ASSERT FAILED" in detail.split("shim ")[0]


def _unsupported(kind, message):
    """A statement the shim does not implement (not a disagreement to chase)."""
    return (kind == "AttributeError" and "has no attribute" in message) or kind == "NotImplementedError" \
        or (kind == "TypeError" and ("unsupported operand" in message or "unexpected keyword" in message))


def _broadcasts(a, b, inplace=False):
    try:
        out = np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return out == a if inplace else True


def generate(rng, length):
    g = Gen(rng)
    program = []
    tries = 0
    while len(program) < length and tries < length * 6:
        tries += 1
        try:
            code, names, _ = g.step()
        except Exception:  # noqa: BLE001  (a template that does not fit these tensors)
            continue
        snapshot = dict(g.ns)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(code, g.ns)
        except Exception:  # noqa: BLE001
            if rng.random() < 0.1:
                program.append((code, names))
                return program
            g.ns = snapshot
            continue
        program.append((code, names))
    try:
        end = g.ending()
    except Exception:  # noqa: BLE001
        end = None
    if end:
        code, names = end
        leaves = [n for n in g.tensors(lambda t: t.is_leaf)]
        others = [n for n in g.tensors(lambda t: not t.is_leaf)]
        program.append((code, names + leaves + others))
    return program


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    count = int(args[0]) if args else 500
    seed = int(args[1]) if len(args) > 1 else 0
    rng = np.random.default_rng(seed)
    found = collections.defaultdict(list)
    crashes = 0
    unsupported = collections.Counter()
    bugs = []
    for k in range(count):
        program = generate(rng, int(rng.integers(2, 12)))
        try:
            a = run(torch, program)
            b = run(srcgrad, program)
        except Exception:  # noqa: BLE001
            crashes += 1
            traceback.print_exc()
            continue
        d = compare_runs(a, b)
        if d and (_pytorch_bug(d[1]) or d[0] == "artefact"):
            bugs.append(("\n".join(c for c, _ in program), d[1]))
            continue
        if d:
            key = d[0]
            if d[0] == "shim-raises":
                m = re.search(r"shim raised (\w+): (.*)", d[1])
                key = "shim-raises %s: %s" % (m.group(1), m.group(2)[:70])
                if _unsupported(m.group(1), m.group(2)):
                    unsupported[key] += 1
                    continue
            elif d[0] in ("next_functions", "grad_fn"):
                key = d[0] + " " + d[1].split(": torch ")[-1]
            elif d[0] == "error-message":
                key = "error-message " + d[1].split("\n")[1][:90]
            found[key].append(("\n".join(c for c, _ in program), d[1]))
    print("programs:", count, "harness crashes:", crashes, "disagreeing:", sum(map(len, found.values())))
    for key, n in unsupported.most_common():
        print("[%d] unsupported: %s" % (n, key))
    if bugs:
        prog, detail = min(bugs, key=lambda it: len(it[0]))
        print("[%d] not counted: PyTorch failed an internal assert (its bug), or an optimizer magnified rounding, e.g."
              "\n%s\n-- %s" % (len(bugs), prog, detail))
    for key, items in sorted(found.items(), key=lambda kv: -len(kv[1])):
        prog, detail = min(items, key=lambda it: len(it[0]))
        print("=" * 80)
        print("[%d] %s" % (len(items), key))
        print(prog)
        print("--", detail)
        if "--all" in sys.argv:  # every program of the kind, not only the smallest
            for other, more in items:
                if other != prog:
                    print("-" * 40)
                    print(other)
                    print("--", more)


if __name__ == "__main__":
    main()
