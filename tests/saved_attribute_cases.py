"""Ops whose graph nodes' saved-value attributes (`grad_fn._saved_self`, ...) are
compared with PyTorch's: `cases(module)` builds them with `module` (srcgrad or torch),
returning {case name: a function making the op's output} and the named inputs. The
expected attributes, recorded from PyTorch 2.13, are tests/golden/saved_attributes_pytorch.json
(tests/test_saved_attributes.py)."""
def cases(torch):  # noqa: C901, PLR0915 - one table
    F = torch.nn.functional
    def T(*shape, rg=True, seed=0):
        n = 1
        for s in shape: n *= s
        vals = [((i * 7 + seed * 3) % 11) / 5.0 - 1.0 + 0.05 for i in range(n)]
        t = torch.tensor(vals, dtype=torch.float32).reshape(*shape) if shape else torch.tensor(0.7)
        return t.requires_grad_(rg)
    x = T(2, 3); w = T(2, 3, seed=1); m = T(3, 4, seed=2); v = T(3, seed=3); b = T(4, seed=4)
    pos = (T(2, 3, rg=False).abs() + 0.5).requires_grad_()
    p01 = (T(2, 3, rg=False).sigmoid()).requires_grad_()
    img = T(1, 2, 5, 5); ker = T(3, 2, 3, 3, seed=1); kb = T(3, seed=2)
    idx = torch.tensor([2, 0, 1]); tgt = torch.tensor([1, 0])
    emb = T(5, 3)
    C = {
        "add": lambda: x + w, "sub": lambda: x - w, "mul": lambda: x * w, "mul_scalar": lambda: x * 2.5,
        "div": lambda: x / w, "div_scalar": lambda: x / 2.0, "neg": lambda: -x, "rsub": lambda: 2 - x,
        "pow_scalar": lambda: x.pow(2), "pow_tensor": lambda: pos.pow(w), "rpow": lambda: 2 ** x,
        "exp": lambda: x.exp(), "log": lambda: pos.log(), "sin": lambda: x.sin(), "cos": lambda: x.cos(),
        "tanh": lambda: x.tanh(), "sigmoid": lambda: x.sigmoid(), "relu": lambda: x.relu(), "sqrt": lambda: pos.sqrt(),
        "abs": lambda: x.abs(), "rsqrt": lambda: pos.rsqrt(), "reciprocal": lambda: pos.reciprocal(),
        "matmul_mm": lambda: x @ m, "mm": lambda: torch.mm(x, m), "mv": lambda: torch.mv(x, v),
        "dot": lambda: torch.dot(v, v * 1), "addmm": lambda: torch.addmm(b, x, m), "linear": lambda: F.linear(x, m.t(), b),
        "bmm": lambda: torch.bmm(x.reshape(1, 2, 3), m.reshape(1, 3, 4)),
        "sum": lambda: x.sum(), "sum_dim": lambda: x.sum(1), "sum_dim_keep": lambda: x.sum(dim=0, keepdim=True),
        "mean": lambda: x.mean(), "mean_dim": lambda: x.mean(1),
        "view": lambda: x.view(3, 2), "reshape": lambda: x.reshape(6), "permute": lambda: x.permute(1, 0),
        "transpose": lambda: x.transpose(0, 1), "t": lambda: x.t(), "select": lambda: x[1], "slice": lambda: x[:, 1:3],
        "index": lambda: x[:, idx[:2]], "unsqueeze": lambda: x.unsqueeze(1), "squeeze": lambda: x.reshape(1, 6).squeeze(0),
        "expand": lambda: v.expand(2, 3), "flatten": lambda: img.flatten(1),
        "softmax": lambda: x.softmax(1), "log_softmax": lambda: x.log_softmax(-1),
        "cat": lambda: torch.cat([x, w], 0), "stack": lambda: torch.stack([x, w], 1),
        "clamp": lambda: x.clamp(-0.5, 0.5), "clamp_min": lambda: x.clamp(min=0.1),
        "where": lambda: torch.where(x > 0, x, w), "max_all": lambda: x.max(), "max_dim": lambda: x.max(1)[0],
        "min_all": lambda: x.min(), "maximum": lambda: torch.maximum(x, w),
        "norm": lambda: x.norm(), "norm_dim": lambda: x.norm(dim=1),
        "mse": lambda: F.mse_loss(x, w), "bce_logits": lambda: F.binary_cross_entropy_with_logits(x, p01.detach()),
        "bce": lambda: F.binary_cross_entropy(p01, w.detach().sigmoid()),
        "nll": lambda: F.nll_loss(x.log_softmax(1), tgt), "cross_entropy": lambda: F.cross_entropy(x, tgt),
        "layer_norm": lambda: F.layer_norm(x, (3,), v, v * 1), "conv2d": lambda: F.conv2d(img, ker, kb),
        "embedding": lambda: F.embedding(idx, emb), "gelu": lambda: F.gelu(x), "leaky_relu": lambda: F.leaky_relu(x, 0.1),
        "silu": lambda: F.silu(x), "softplus": lambda: F.softplus(x), "log1p": lambda: pos.log1p(), "expm1": lambda: x.expm1(),
        "var": lambda: x.var(1), "std": lambda: x.std(), "prod": lambda: x.prod(), "cumsum": lambda: x.cumsum(1),
        "gather": lambda: x.gather(1, torch.tensor([[0], [2]])), "atan2": lambda: torch.atan2(x, w),
        "erf": lambda: x.erf(), "tan": lambda: x.tan(), "logsumexp": lambda: x.logsumexp(1), "amax": lambda: x.amax(1),
        "dropout_eval": lambda: F.dropout(x, 0.5, False) * 1, "l1": lambda: F.l1_loss(x, w),
        "smooth_l1": lambda: F.smooth_l1_loss(x, w), "hardtanh": lambda: F.hardtanh(x), "elu": lambda: F.elu(x),
        "repeat": lambda: x.repeat(2, 1), "roll": lambda: x.roll(1, 0), "flip": lambda: x.flip(0),
        "masked_fill": lambda: x.masked_fill(x > 0, 0.0), "sort": lambda: x.sort(1)[0], "topk": lambda: x.topk(2)[0],
        "mul_nograd_other": lambda: x * w.detach(), "mul_nograd_self": lambda: x.detach() * w,
        "sub_alpha": lambda: torch.sub(x, w, alpha=2), "add_alpha": lambda: torch.add(x, w, alpha=3),
        "unbind": lambda: x.unbind(0)[1], "split": lambda: x.split(1, 0)[1], "chunk": lambda: x.chunk(3, 1)[1],
        "narrow": lambda: x.narrow(1, 0, 2), "diag": lambda: torch.diag(v), "trace": lambda: x.reshape(3,2)[:2].trace(),
        "baddbmm_like_matmul3": lambda: x.reshape(1, 2, 3) @ m, "outer": lambda: torch.outer(v, v * 1),
        "sign": lambda: x.sign(), "floor": lambda: x.floor(), "sinh": lambda: x.sinh(), "asin": lambda: (x*0.5).asin(),
        "pad": lambda: F.pad(x, (1, 1)), "avg_pool2d": lambda: F.avg_pool2d(img, 2), "max_pool2d": lambda: F.max_pool2d(img, 2),
        "batch_norm_train": lambda: F.batch_norm(x, None, None, v, v * 1, training=True),
        "huber": lambda: F.huber_loss(x, w), "kl_div": lambda: F.kl_div(x, p01.detach(), reduction="batchmean"),
        "cosine_similarity": lambda: F.cosine_similarity(x, w), "normalize": lambda: F.normalize(x),
    }
    return C, {"x": x, "w": w, "m": m, "v": v, "b": b, "pos": pos, "p01": p01, "img": img, "ker": ker, "kb": kb, "emb": emb}
