"""PyTorch as the oracle: each snippet runs once with `torch` bound to PyTorch and once
to srcgrad, and both must print the same text (addresses normalized, `torch.` read as
`srcgrad.`). Skipped when PyTorch is not installed."""

import contextlib
import io
import re
import textwrap
import warnings

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")

import srcgrad  # noqa: E402

SNIPPETS = {
    "recent-ops": """
        import warnings
        F = torch.nn.functional
        x = torch.tensor([[-1.5, 0.3, 2.0, 0.1], [0.7, -0.2, 1.1, -3.0]], requires_grad=True)
        t = torch.tensor([[-1.0, 0.5, 0.0, 0.2], [2.0, -0.2, 1.0, -1.0]])
        p = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.0, 0.5, 0.25, 0.25]])
        for y in (F.normalize(x), F.smooth_l1_loss(x, t), F.huber_loss(x, t, delta=2.0, reduction="sum"), F.kl_div(x, p, reduction="batchmean"),
                  F.gelu(x, approximate="tanh"), F.silu(x), F.leaky_relu(x, 0.2), F.elu(x), F.softplus(x),
                  x.abs().reciprocal(), x.abs().rsqrt(), x.square(), x.abs().log2(), x.abs().log10(), x.exp2(),
                  (x / 4).asin(), (x / 4).acos(), x.atan(), x.sinh(), x.cosh(), x.erf(), x.erfc(), x.median(),
                  x.median(1).values, x % 0.8, x % (t.abs() + 0.3), x.div(0.7, rounding_mode="floor"), x.true_divide(2),
                  x.roll(1, 1), x.flip(0, 1), x.narrow(1, 1, 2), x.select(1, 2), x.view_as(t.reshape(8))):
            print(y)
            x.grad = None
            y.sum().backward()
            print(x.grad)
        print(x // 0.7, torch.isnan(x), torch.isfinite(x / 0), torch.std_mean(x, 1), torch.var_mean(x, 0))
        print(x.new_zeros(2), x.new_ones((1, 2)), x.new_full((2,), 3), x.new_tensor([1, 2]))
        y = x * 1; y.exp_(); print(y)
        y = x * 1; y.pow_(2); print(y)
        y = x * 1; y.clamp_(-0.5, 0.5); print(y)
        print(torch.nn.Sequential(torch.nn.GELU(), torch.nn.SiLU(), torch.nn.LeakyReLU(), torch.nn.ELU(), torch.nn.Dropout(0.1),
                                  torch.nn.SmoothL1Loss(), torch.nn.HuberLoss(), torch.nn.KLDivLoss()))
        d = torch.nn.Dropout(0.5); d.eval(); print(d(x) is x)
        try:
            (x // 2).sum().backward()
        except RuntimeError as e:
            print(e)
    """,
    "reference-transcript": """
        x = torch.ones(2, 2, requires_grad=True); print(x)
        y = x + 2; print(y); print(y.grad_fn)
        z = y * y * 3; out = z.mean(); print(z, out)
        print(x.grad); out.backward(); print(x.grad)
        print((x**2).grad_fn, (x*x).sum().grad_fn, (x - 1).grad_fn, (x / 2).grad_fn)
        x = torch.ones(1, requires_grad=True); print(x.data, x.data.requires_grad)
        y = 2 * x; x.data *= 100; y.backward(); print(x, x.grad)
    """,
    "printing-floats": """
        rng = np.random.default_rng(0)
        for scale in [1e-6, 1e-4, 1e-3, 0.1, 1, 10, 999, 1000, 1e4, 1e8, 1e9]:
            for shape in [(), (1,), (5,), (3, 4), (2, 2, 3), (25,), (4, 30)]:
                print(torch.tensor((rng.standard_normal(shape) * scale).astype(np.float32)))
        for data in [[204.8, 2048, 0.2048], [204.8, 2048, 2.048], [1001., 1.], [1e9, 1.], [1000., 1.],
                     [float('nan'), 1.5], [float('inf'), -2.], [0., 0.], [-0.], [1e-5], [0.1, 1.0, 0.0001],
                     [-914.8675, 456.0132, 679.7536], [3., -50., 27.], [1e8, 1.], [123456789.]]:
            print(torch.tensor(data))
        print(torch.tensor(-0.), torch.tensor(1e-5), torch.tensor(27.), torch.tensor(0.8962))
        print(torch.tensor([]), torch.zeros(0, 3), torch.tensor([], dtype=torch.int64))
        print(torch.arange(2000.).reshape(40, 50))
        print(torch.arange(3000.))
        print(torch.ones(3, 3, 500))
    """,
    "printing-other-dtypes": """
        print(torch.tensor([1, 2, -3]), torch.tensor([True, False]), torch.tensor(5), torch.tensor(True))
        print(torch.tensor([1, 2], dtype=torch.int32), torch.ones(2, dtype=torch.float64))
        print(torch.from_numpy(np.ones(2)), torch.from_numpy(np.ones((2, 2), dtype=np.float32)))
        print(torch.tensor(np.arange(40, dtype=np.int64) * 1000))
        print(torch.ones(2, dtype=torch.float64, requires_grad=True) * 2)
        print(repr(torch.float32), torch.float64, torch.int64, torch.bool, torch.ones(2, 3).shape, torch.tensor(1.).shape)
    """,
    "printing-suffix-wrap": """
        z = torch.tensor([0.4741, 0.3133, 1.1269], requires_grad=True)
        print(torch.nn.functional.binary_cross_entropy_with_logits(z, torch.zeros(3), reduction='none'))
        print(torch.nn.functional.binary_cross_entropy_with_logits(z, torch.zeros(3)))
        w = torch.tensor(np.linspace(-3, 3, 15).reshape(5, 3).astype(np.float32), requires_grad=True)
        print(w, w * 2, (w * 1e-5).double(), torch.matmul(torch.ones(5), w))
        print(torch.tensor([1.,2.,3.,4.,5.,6.,7.], dtype=torch.float64, requires_grad=True) * 1.5)
    """,
    "logistic-layer": """
        x = torch.ones(5); y = torch.zeros(3)
        w = torch.tensor(np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32), requires_grad=True)
        b = torch.tensor(np.random.default_rng(2).standard_normal(3).astype(np.float32), requires_grad=True)
        z = torch.matmul(x, w) + b
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
        print(z, loss, z.grad_fn, loss.grad_fn)
        loss.backward(); print(w.grad, b.grad)
        with torch.no_grad():
            print((torch.matmul(x, w) + b).requires_grad)
        print(z.detach().requires_grad)
    """,
    "node-names": """
        a = torch.ones(2, 2, requires_grad=True); v = torch.ones(2, requires_grad=True)
        for t in [a + 1, a - 1, 1 - a, a * 2, 2 / a, a / 2, a ** 2, a ** a, 2 ** a, -a, a.sum(), a.mean(),
                  a.norm(), v @ a, a @ a, a @ v, v @ v, a.sum(0), a.mean(1), a.max(), a[0], a[:, 1:],
                  a[[0, 1]], a.reshape(4), a.view(4), a.t(), a.T, a.transpose(0, 1), a.permute(1, 0),
                  a.unsqueeze(0), a.unsqueeze(0).squeeze(), a.unsqueeze(0).squeeze(0), a.clone(),
                  a.double(), a.exp(), a.log(), a.sqrt(), a.abs(), a.tanh(), torch.sigmoid(a), a.relu(),
                  torch.nn.functional.softmax(a, 1), torch.nn.functional.log_softmax(a, 1),
                  torch.nn.functional.mse_loss(a, torch.zeros(2, 2)),
                  torch.nn.functional.binary_cross_entropy(torch.sigmoid(a), torch.zeros(2, 2)),
                  torch.nn.functional.cross_entropy(a, torch.tensor([0, 1])),
                  torch.nn.functional.cross_entropy(a, torch.ones(2, 2) / 2)]:
            print(type(t.grad_fn).__name__, t.requires_grad, t.is_leaf)
        y = a * 1; y *= 2; print(y.grad_fn.name()); y.zero_(); print(y)
        print((a * 2).grad_fn.next_functions[1])
    """,
    "class-indices-over-extra-dims": """
        rng = np.random.default_rng(4)
        F = torch.nn.functional
        for shape in [(2, 3, 4), (2, 3, 2, 3), (1, 3, 2, 1, 2)]:
            x = torch.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
            target = torch.tensor(rng.integers(0, 3, shape[:1] + shape[2:]))
            for reduction in ['mean', 'sum', 'none']:
                for kwargs in [{}, {'weight': torch.tensor([0.5, 2.0, 1.0])}, {'ignore_index': 1}]:
                    for loss in [F.cross_entropy(x, target, reduction=reduction, **kwargs),
                                 F.nll_loss(F.log_softmax(x, 1), target, reduction=reduction, **kwargs)]:
                        print(loss)
                        x.grad = None
                        loss.sum().backward()
                        print(x.grad)
        for target in [torch.zeros(2, 4, dtype=torch.int64), torch.zeros(3, 5, dtype=torch.int64), torch.zeros(2, 5),
                       torch.tensor([[0, 3, 0, 0, 0], [0] * 5]), torch.zeros(2, 3, 4)]:
            try:
                F.cross_entropy(torch.ones(2, 3, 5), target)
            except Exception as e:
                print(type(e).__name__ + ':', e)
    """,
    "values": """
        a = torch.tensor([[0.5, -1.25, 2.0], [3.5, 0.1, -0.7]], requires_grad=True)
        b = torch.tensor([0.3, 0.6, -0.9])
        outs = [a + b, a - b, a * b, a / b, a ** 2, a.abs() ** b, 2 ** a, a.exp(), torch.sigmoid(a),
                a.tanh(), a.relu(), a.sum(), a.mean(), a.norm(), a.sum(1), a.mean(0), a @ b, a.max(),
                torch.nn.functional.softmax(a, 1), torch.nn.functional.log_softmax(a, 0),
                torch.nn.functional.binary_cross_entropy_with_logits(a, torch.ones(2, 3) * 0.25),
                torch.nn.functional.mse_loss(a, torch.zeros(2, 3), reduction='sum'),
                torch.nn.functional.cross_entropy(a, torch.tensor([2, 0]))]
        for o in outs:
            print(o)
            if a.grad is not None:
                a.grad.zero_()
            o.sum().backward()
            print(a.grad)
    """,
    "backward-semantics": """
        x = torch.ones(2, 2, requires_grad=True)
        out = (3 * (x ** 2) ** 2).mean(); out.backward(); print(x.grad)
        g = x.grad; x.sum().backward(); print(x.grad, g is x.grad)
        x.grad.data.zero_(); x.sum().backward(); print(x.grad)
        o = (x + 2).sum(); o.backward(); o.backward(); print(x.grad)
        for build in [lambda: (x * x).sum(), lambda: (x * 2 * 2).sum(), lambda: (x * 2).sum(), lambda: x.norm()]:
            o = build(); o.backward()
            try:
                o.backward()
            except RuntimeError as e:
                print('RuntimeError:', e)
            print(x.grad)
        o = (x * x).sum(); o.backward(retain_graph=True); o.backward(); print(x.grad)
        y = torch.ones(1, requires_grad=True); (y * 3).backward(); print(y.grad)
        w = torch.ones(3, requires_grad=True); w.backward(torch.tensor([1., 2., 3.])); print(w.grad)
        u = torch.ones(2, requires_grad=True); print(u.grad); (u * 2).sum().backward(); print(u.grad)
        x = torch.tensor([0.5, -0.25, 1.0], requires_grad=True); y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        print(y)
        y.backward(torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)); print(x.grad)
        print(x.eq(x.detach()).all(), x < 0.6)
    """,
    "errors": """
        y = torch.ones(3, requires_grad=True) * 2
        leaf = torch.ones(2, requires_grad=True)
        nonleaf = leaf * 2
        attempt(lambda: y.backward())
        attempt(lambda: y.backward(torch.ones(2)))
        attempt(lambda: torch.ones(3).backward(torch.ones(2)))
        attempt(lambda: leaf.sum().backward(torch.ones(1)))
        attempt(lambda: torch.ones(3).backward())
        attempt(lambda: setattr(nonleaf, 'requires_grad', False))
        attempt(lambda: nonleaf.requires_grad_(False))
        attempt(lambda: torch.tensor([1, 2]).requires_grad_(True))
        attempt(lambda: torch.tensor([1, 2], requires_grad=True))
        attempt(lambda: bool(torch.ones(2)))
        attempt(lambda: bool(torch.ones(0)))
        attempt(lambda: leaf.numpy())
        attempt(lambda: leaf.item())
        attempt(lambda: torch.ones(3, 2).item())
        attempt(lambda: leaf.zero_())
        attempt(lambda: leaf.__imul__(2))
        attempt(lambda: torch.tensor([1, 2]).mean())
        attempt(lambda: torch.tensor([1, 2], dtype=torch.int32).mean())
        attempt(lambda: torch.nn.functional.binary_cross_entropy_with_logits(torch.ones(3), torch.zeros(2)))
        attempt(lambda: torch.nn.functional.binary_cross_entropy(torch.ones(3), torch.zeros(2)))
        attempt(lambda: torch.nn.functional.binary_cross_entropy(torch.ones(2) * 2, torch.zeros(2)))
        attempt(lambda: torch.nn.functional.mse_loss(torch.ones(2), torch.ones(2), reduction='avg'))
        attempt(lambda: torch.ones(2, dtype=torch.int64).__itruediv__(2))
        attempt(lambda: torch.matmul(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)))
        attempt(lambda: len(torch.tensor(1.)))
        attempt(lambda: float(torch.ones(2)))
        attempt(lambda: torch.ones(2).__index__())
        attempt(lambda: torch.autograd.grad((leaf * leaf).sum(), [leaf, torch.ones(2, requires_grad=True)]))
        o = (leaf * leaf).sum(); o.backward()
        attempt(lambda: o.backward())
        print(leaf.grad)
    """,
    "differential-hunt": """
        x = torch.ones(3, requires_grad=True); y = x.exp(); y.add_(1)
        attempt(lambda: y.sum().backward())
        attempt(lambda: x[0].mul_(2)); attempt(lambda: x.__setitem__([0], 5))
        t = torch.ones(3); t[0].mul_(2); print(t, y._version)
        w = torch.tensor([[0.5], [1.5]], requires_grad=True); o = (w * w).sum(); w.requires_grad_(False); o.backward(); print(w.grad)
        print(torch.tensor([-0.0, 0.0, -1.0]).relu(), torch.tril(x.reshape(1, 3)).grad_fn)
        z = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
        print(torch.nn.functional.binary_cross_entropy_with_logits(z, torch.tensor([0.5, 0.25])))
        print(torch.tensor([1, -1, 2]) ** torch.tensor([-2, -3, -1])); attempt(lambda: torch.tensor([1, 2]) ** -1)
        o = x.add(x, alpha=2).sum(); o.backward(); o.backward(); print(x.grad)
    """,
    "item-assignment": """
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True); w = torch.tensor([0.5, -1.0], requires_grad=True)
        y = x.clone(); y[0] = 5.0; y[1:] = w * 2; print(y); (y * y).sum().backward(); print(x.grad, w.grad)
        z = torch.zeros(2, 3); z[1] = x; print(z, z.is_leaf); z.sum().backward(); print(x.grad)
        m = x * 1.0; v = torch.tensor([7.0, 8.0], requires_grad=True); m[[0, 0]] = v; print(m)
        (m * m).sum().backward(); print(x.grad, v.grad)
        t = x * 1.0; t[1] = torch.ones(1, 1); print(t); attempt(lambda: t.__setitem__(slice(0, 2), torch.ones(3)))
        b = x * 2; c = b * b; b[0] = 0.0; attempt(lambda: c.sum().backward())
    """,
    "custom-function": """
        class Exp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, i):
                result = i.exp()
                ctx.save_for_backward(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                result, = ctx.saved_tensors
                return grad_output * result

        x = torch.tensor([0.0, 1.0], requires_grad=True)
        y = Exp.apply(x)
        print(y, y.grad_fn, y.grad_fn.name())
        y.sum().backward(); print(x.grad)
        try:
            y.sum().backward()
        except RuntimeError as e:
            print(e)
        print(Exp.apply(torch.tensor([1.0])))
        print(torch.autograd.grad((x * x).sum(), x))
    """,
    "promotion": """
        f32, f64, i64 = torch.ones(2), torch.ones(2, dtype=torch.float64), torch.tensor([1, 2])
        for t in [f32 * 2, f32 + 0.5, i64 * 0.5, i64 + 1, f32 * f64, i64 / 2, i64 / i64, f32 < 2, i64 * True,
                  torch.tensor([True]) + 1, torch.ones(3, dtype=torch.float64) * torch.tensor(2.0),
                  torch.tensor(2) * 1.5, torch.tensor([1, 2], dtype=torch.int32) + 1, i64 ** 2, 2 ** i64,
                  torch.tensor([0.1, 0.2]) * 3, torch.tensor([1., 3.]) / 3, torch.tensor(0.1) + torch.tensor(0.2)]:
            print(t, t.dtype)
        print(torch.tensor([1, 2.5]), torch.tensor([True, False]), torch.tensor(3), torch.tensor(np.ones(2)))
    """,
    "no-grad-and-data": """
        x = torch.ones(2, requires_grad=True)
        with torch.no_grad():
            print((x ** 2).requires_grad, x, torch.is_grad_enabled())
            with torch.enable_grad():
                print((x ** 2).requires_grad)
        print((x ** 2).requires_grad, torch.is_grad_enabled())
        @torch.no_grad()
        def f(t):
            return t * 2
        print(f(x))
        a = torch.ones(2, 2)
        a = (a * 3) / (a - 2)
        print(a.requires_grad, a.requires_grad_(True).requires_grad, (a * a).sum().grad_fn.name())
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        with torch.no_grad():
            w -= 0.1 * torch.ones(2)
        print(w, w.is_leaf)
        print(f"{torch.tensor(0.123456):.3f}", float(torch.tensor([2.5])), int(torch.tensor(3.7)))
    """,
    "loss-edges": """
        F = torch.nn.functional
        p = torch.tensor([0.0, 1.0, 0.5, 1e-13, 1 - 1e-7], requires_grad=True)
        y = torch.tensor([1.0, 0.0, 1.0, 0.3, 0.2], requires_grad=True)
        for kwargs in [{}, {'reduction': 'sum'}, {'reduction': 'none'}, {'weight': torch.arange(5.)}]:
            p.grad = y.grad = None
            loss = F.binary_cross_entropy(p, y, **kwargs)
            print(loss)
            loss.sum().backward()
            print(p.grad, y.grad)
    """,
    "shape-views": """
        a = torch.ones(1, 3, 1, requires_grad=True); v = torch.tensor([1., 2.], requires_grad=True)
        for f in [lambda: a.squeeze(3), lambda: a.squeeze(-4), lambda: a.unsqueeze(4), lambda: a.unsqueeze(-5),
                  lambda: a.squeeze((0, 2)), lambda: a.squeeze([0, 1]), lambda: a.squeeze(()), lambda: a.squeeze(-1),
                  lambda: a.unsqueeze(-4), lambda: v.t(), lambda: torch.tensor(2., requires_grad=True).t(),
                  lambda: v.flatten(), lambda: a.t(), lambda: torch.ones(2, 2).squeeze(5)]:
            try:
                r = f()
                print(r.shape, r.grad_fn, r is v)
            except Exception as e:
                print(type(e).__name__ + ':', e)
        x = torch.tensor([[1., 5., 2.], [3., 2., 7.]], requires_grad=True)
        print(x.max(1)); print(x.min(0, keepdim=True)); print(torch.max(x, dim=-1))
        r = x.max(0); print(type(r).__name__, r.values, r.indices, str(r) == repr(r))
    """,
    "pointwise-losses": """
        F = torch.nn.functional
        a = torch.tensor([[1.0, -2.0, 0.0], [0.5, 3.0, -1.5]], requires_grad=True)
        for target in [torch.zeros(2, 3), torch.zeros(3), torch.ones(1, 3)]:
            for reduction in ['mean', 'sum', 'none']:
                for loss in [F.l1_loss(a, target, reduction=reduction), F.mse_loss(a, target, reduction=reduction)]:
                    a.grad = None
                    loss.sum().backward()
                    print(loss, a.grad)
    """,
    "matmul-mismatch": """
        shapes = [(3,), (4,), (2, 3), (3, 2), (2, 4, 3), (4, 3, 2), (3, 2, 2, 5), (0, 3)]
        for left in shapes:
            for right in shapes:
                for left_requires_grad in [False, True]:
                    try:
                        print((torch.ones(*left, requires_grad=left_requires_grad) @ torch.ones(*right)).shape)
                    except RuntimeError as e:
                        print('RuntimeError:', e)
    """,
    "flags-and-grad-assignment": """
        import warnings
        x = torch.ones(3, requires_grad=True); y = x * 2
        attempt(lambda: setattr(y, 'requires_grad', True)); print(y.requires_grad_(True).grad_fn.name())
        for value in [torch.ones(2), torch.ones(1, 3), torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.int64),
                      torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=torch.int32), 3, [1., 2., 3.], None, torch.ones(3) * 2]:
            attempt(lambda: setattr(x, 'grad', value)); print(x.grad)
        def write():
            x[0] = 2.
        attempt(write)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            y.sum().backward(); print(y.grad)
        print([str(w.message).split(' (Triggered internally')[0] for w in caught])
        print(torch.randint(5, (3,)).shape, torch.randint(2, 5, (2, 2)).dtype, torch.randint(3, size=(4,)).shape)
    """,
    "hooks": """
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        h = x.register_hook(lambda g: g * 2)
        print(torch.autograd.grad((x * x).sum(), x)); (x * x).sum().backward(); print(x.grad)
        h.remove(); h.remove(); (x * x).sum().backward(); print(x.grad)
        z = x * 3; z.register_hook(lambda g: print('z sees', g)); z.retain_grad(); z.register_hook(lambda g: g + 1)
        z.sum().backward(); print(z.grad, x.grad)
        attempt(lambda: torch.ones(2).register_hook(lambda g: g))
        for bad in [lambda g: torch.ones(3), lambda g: g.double(), lambda g: 5]:
            w = torch.ones(2, requires_grad=True); w.register_hook(bad)
            attempt(lambda: (w * 2).sum().backward()); print(w.grad)
        a = torch.ones(2, requires_grad=True)
        a.register_hook(lambda g: print('first', g) or g * 10); a.register_hook(lambda g: print('second', g))
        (a * 2).sum().backward(); print(a.grad)
        c = torch.ones(2, requires_grad=True); c.register_hook(lambda g: print('once', g, g.requires_grad, g.grad_fn))
        (c * c).sum().backward(); print(c.grad)
        d = torch.ones(2, requires_grad=True); d.register_hook(lambda g: g.mul_(3)); (d * 2).sum().backward(); print(d.grad)
        e = torch.ones(2, requires_grad=True); e.register_hook(lambda g: [g.mul_(3), None][1])
        y = e * 2; y.sum().backward(retain_graph=True); y.sum().backward(); print(e.grad)
        m = torch.ones(2, 2, requires_grad=True); y = m.sum(0); y.register_hook(lambda g: g * torch.tensor([1., 5.]))
        y.sum().backward(); print(m.grad)
    """,
    "nn-modules": """
        import collections
        m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1), torch.nn.Flatten(0, 1))
        with torch.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(torch.arange(float(p.numel())).reshape(p.shape) * 0.1 - 0.2 * i)
        print(m); print(m[0].weight); print([n for n, _ in m.named_parameters()], list(m.state_dict()))
        print(len(m), m[1:], m[-2], [type(c).__name__ for c in m.children()], m.training, m.eval().training, m.train().training)
        x = torch.arange(12.).reshape(4, 3) * 0.25
        y = m(x); print(y, y.grad_fn, m[0](x).grad_fn, m[0](x[0]).grad_fn, torch.nn.Linear(3, 2, bias=False)(x).grad_fn)
        loss = torch.nn.MSELoss(reduction='sum')(y, torch.ones(4)); print(loss); loss.backward()
        print(m[0].weight.grad, m[2].bias.grad, type(m[0].weight.grad).__name__, type(m[0].weight).__name__)
        m.zero_grad(); print(m[0].weight.grad)
        print(m.load_state_dict(m.state_dict()), m.load_state_dict({'0.weight': torch.ones(2, 3)}, strict=False))
        attempt(lambda: m.load_state_dict({'0.weight': torch.ones(2, 3), 'foo': torch.ones(1)}))
        attempt(lambda: m.load_state_dict(collections.OrderedDict([(k, torch.ones(7)) for k in m.state_dict()])))
        attempt(lambda: setattr(m[0], 'weight', torch.ones(2, 3))); attempt(lambda: m.nothing); attempt(lambda: torch.nn.Module()(1))
        class Polynomial3(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Parameter(torch.tensor(0.1)); self.b = torch.nn.Parameter(torch.tensor(-0.2))
                self.c = torch.nn.Parameter(torch.tensor(0.3)); self.d = torch.nn.Parameter(torch.tensor(0.05))
            def forward(self, x):
                return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        model = Polynomial3(); print(model, [n for n, _ in model.named_parameters()], model.a)
        xs = torch.linspace(-3.0, 3.0, 50); ys = torch.sin(xs)
        criterion = torch.nn.MSELoss(reduction='sum'); optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
        for t in range(30):
            loss = criterion(model(xs), ys); optimizer.zero_grad(); loss.backward(); optimizer.step()
        print(round(loss.item(), 3), [round(p.item(), 4) for p in model.parameters()])
        print(torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.Sigmoid()]), torch.nn.ReLU(inplace=True), torch.nn.LogSoftmax(dim=1),
              torch.nn.Softplus(), torch.nn.Identity(), torch.nn.L1Loss(reduction='sum'), torch.nn.NLLLoss(), torch.nn.CrossEntropyLoss(),
              torch.nn.BCEWithLogitsLoss(), torch.nn.BCELoss())
        print(torch.nn.Parameter(torch.ones(2)), torch.nn.Linear(2, 2).double().weight.dtype)
        z = torch.ones(2, 3, 4, requires_grad=True)
        print(z.flatten(1).grad_fn, z.flatten(0, 1).shape, z.flatten(-2, -1).shape, torch.tensor(2.).flatten().shape)
        attempt(lambda: z.flatten(2, 1)); attempt(lambda: z.flatten(0, 5))
    """,
    "selections-rounding-products": """
        x = torch.tensor([[1.5, -2.25, 3.0], [4.0, 0.5, -6.5]], requires_grad=True)
        i = torch.tensor([[2, 0], [1, 1]])
        outs = [x.gather(1, i), x.index_select(1, torch.tensor([2, 0])), x.masked_fill(x > 2, 0.5), x.sort(dim=1).values,
                x.sort(dim=0, descending=True).values, x.topk(2).values, x.topk(1, dim=0, largest=False).values,
                x.sign(), x.round(), x.floor(), x.ceil(), x.trunc(), x.round(decimals=1), torch.atan2(x, x * 0.5 + 1),
                torch.lerp(x, x * 2, 0.25), torch.lerp(x, x * 2, x * 0.1), x.triu(), x.tril(-1), x[:, :2].trace(),
                torch.outer(x[0], x[1]), torch.addmm(x[0, :2], x[:, :2], x[:, 1:], beta=0.5, alpha=2.0),
                torch.bmm(x.reshape(1, 2, 3), x.reshape(1, 3, 2))]
        for k, out in enumerate(outs):
            x.grad = None
            out.backward(torch.ones(out.shape) * (k + 1))
            print(out, out.grad_fn, x.grad)
        print(x.sort(dim=1), x.topk(2), x.argsort() if hasattr(x, 'argsort') else None)
        for pieces in (x.split(2, 1), x.split([1, 2], 1), x.chunk(2, 1), x.chunk(3, 0), x.unbind(1)):
            x.grad = None
            sum(p.sum() * (j + 1) for j, p in enumerate(pieces)).backward()
            print([p.shape for p in pieces], [p.grad_fn for p in pieces], x.grad)
        print(torch.allclose(x, x + 1e-6), torch.isclose(x, x + 1e-3), x.allclose(x), torch.isclose(x, x, equal_nan=True))
        attempt(lambda: x.split([1, 1], 1)); attempt(lambda: x.topk(4)); attempt(lambda: torch.outer(x, x))
        attempt(lambda: torch.bmm(x, x)); attempt(lambda: torch.trace(x.reshape(1, 2, 3)))
        attempt(lambda: x.masked_fill(torch.ones(2, 3), 0.0))
        with torch.inference_mode():
            print((x * 2).requires_grad, torch.is_grad_enabled())
        @torch.no_grad
        def doubled(t):
            return t * 2
        print(doubled(x).requires_grad)
        print(torch.autograd.functional.jacobian(lambda a, b: a * b, (torch.ones(2), torch.ones(2) * 3)))
        print(torch.autograd.functional.jacobian(lambda a: (a * 2, a.sum(), a.detach()), torch.ones(2)))
        print(torch.autograd.gradcheck(lambda a: (a * a.sin()).sum(), (torch.ones(3, dtype=torch.float64, requires_grad=True),)))
        attempt(lambda: torch.autograd.gradcheck(lambda a: (a * a).sum(), (torch.ones(2, requires_grad=True),)))
    """,
    "reductions-and-expansions": """
        def shown(f):  # the result and its shape, or the error
            try:
                r = f()
                print(r, getattr(r, 'shape', None))
            except Exception as e:
                print(type(e).__name__ + ':', e)
        x = torch.tensor([[1., 3., 3.], [2., 2., 0.]], requires_grad=True)
        b = torch.tensor([[1., 0., 2.], [0., 0., 3.]])
        print(b.all(1), b.any(0), b.all(1, keepdim=True), torch.all(b, -1), torch.any(b, dim=0, keepdim=True))
        print(b.all((0, 1)), b.any(()), torch.tensor([[1, 2], [0, 3]], dtype=torch.uint8).all(1), x.all(0))
        for f in [lambda: x.amax(1), lambda: x.amin(), lambda: torch.amax(x, (0, 1), keepdim=True),
                  lambda: torch.amin(x, -1, True), lambda: torch.tensor([[1, 5], [3, 2]]).amax(0)]:
            x.grad = None
            out = f()
            if out.requires_grad:
                out.sum().backward()
            print(out, x.grad)
        for dtype in [torch.float64, torch.float16, torch.int64]:
            shown(lambda: (x.sum(1, dtype=dtype), x.sum(dtype=dtype).grad_fn.next_functions))
            shown(lambda: (x.mean(0, keepdim=True, dtype=dtype), torch.mean(x, dtype=dtype)))
        i = torch.tensor([[1, 2], [3, 4]])
        print(i.sum(1, dtype=torch.float32), torch.sum(i, 0, dtype=torch.int32), i.mean(dtype=torch.float64))
        x.grad = None; x.sum(0, dtype=torch.float64).sum().backward(); print(x.grad)
        v = torch.tensor([[1.], [2.]], requires_grad=True)
        for f in [lambda: v.expand(2, 3), lambda: v.expand(-1, 3), lambda: v.expand((4, 2, 2)), lambda: v.expand(3, 3),
                  lambda: v.expand(3), lambda: v.expand(-1, 2, 3), lambda: v.expand_as(torch.ones(3, 2, 4)),
                  lambda: v.repeat(2, 3), lambda: v.repeat(2, 1, 2), lambda: v.repeat(2), lambda: v.repeat(-1, 2),
                  lambda: torch.tensor(1.).expand(2), lambda: torch.tensor([1, 2]).repeat(2)]:
            shown(f)
        v.repeat(2, 3, 2).mul(torch.arange(24.).reshape(2, 6, 2)).sum().backward(); print(v.grad)
        v.grad = None; v.expand(3, 2, 4).sum().backward(); print(v.grad)
        e = torch.ones(0, requires_grad=True)
        print(e.softmax(0), e.log_softmax(0), e.logsumexp(0), torch.ones(2, 0).logsumexp(1), torch.ones(2, 0).softmax(1))
        e.logsumexp(0).backward(); print(e.grad)
        print(torch.get_default_dtype(), torch.is_floating_point(x), i.is_floating_point())
    """,
}


def attempt(f):
    """What snippets call to print an error: its type and text, or 'no error'."""
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001 - printed for comparison
        print(type(e).__name__ + ":", e)


def _run(library, source):
    out = io.StringIO()
    namespace = {"torch": library, "np": np, "attempt": attempt}
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(textwrap.dedent(source), namespace)
    return out.getvalue()


def _normalize(text):
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", text)
    return text.replace("torch.", "srcgrad.").replace("torch::", "srcgrad::")


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_prints_like_pytorch(name):
    expected = _normalize(_run(real_torch, SNIPPETS[name]))
    actual = _normalize(_run(srcgrad, SNIPPETS[name]))
    assert actual.splitlines() == expected.splitlines()
