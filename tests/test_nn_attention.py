"""scaled_dot_product_attention, MultiheadAttention and the transformer layers, as in
PyTorch: values against NumPy's softmax(q k^T / sqrt(E) + mask) v, gradients (and second
derivatives of the attention) against central differences in float64, PyTorch's
parameter names, shapes and initialization, mask conventions and errors; outputs and
gradients compared with PyTorch itself, its state_dict loaded, where installed."""

import math
import re
import warnings

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _attention(q, k, v, mask=None, scale=None):
    s = q @ np.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    return _softmax(s if mask is None else s + mask) @ v


def test_sdpa_against_numpy_and_differences():
    q, k, v = RNG.standard_normal((2, 3, 4, 5)), RNG.standard_normal((2, 3, 6, 5)), RNG.standard_normal((2, 3, 6, 2))
    y = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v))
    assert y.shape == (2, 3, 4, 2) and y.dtype == torch.float64
    np.testing.assert_allclose(y.numpy(), _attention(q, k, v), rtol=1e-12, atol=1e-13)
    y = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), scale=0.25)
    np.testing.assert_allclose(y.numpy(), _attention(q, k, v, scale=0.25), rtol=1e-12, atol=1e-13)
    mask = RNG.standard_normal((4, 6))
    y = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), attn_mask=torch.tensor(mask))
    np.testing.assert_allclose(y.numpy(), _attention(q, k, v, mask), rtol=1e-12, atol=1e-13)
    check_against_differences(lambda *t: F.scaled_dot_product_attention(*t), [q[:1, :2], k[:1, :2], v[:1, :2]])
    check_second_against_differences(lambda *t: F.scaled_dot_product_attention(*t, is_causal=True),
                                     [q[0, 0], k[0, 0], v[0, 0]])


def test_sdpa_masks_causal_and_grouped_heads():
    q, k, v = RNG.standard_normal((2, 4, 5)), RNG.standard_normal((2, 6, 5)), RNG.standard_normal((2, 6, 3))
    allowed = RNG.random((4, 6)) > 0.4
    allowed[1] = False  # a row that may attend to nothing gives zeros, not nan
    y = F.scaled_dot_product_attention(*(torch.tensor(a, requires_grad=True) for a in (q, k, v)),
                                       attn_mask=torch.tensor(allowed))
    expected = _attention(q, k, v, np.where(allowed, 0.0, -1e300))
    expected[:, 1] = 0.0
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-12, atol=1e-13)
    check_against_differences(lambda *t: F.scaled_dot_product_attention(*t, attn_mask=torch.tensor(allowed)), [q, k, v])
    causal = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), is_causal=True)
    np.testing.assert_allclose(causal.numpy(), _attention(q, k, v, np.where(np.tril(np.ones((4, 6))), 0, -np.inf)),
                               rtol=1e-12)
    heads = RNG.standard_normal((1, 4, 3, 5))
    grouped = F.scaled_dot_product_attention(torch.tensor(heads), torch.tensor(k[None]), torch.tensor(v[None]),
                                             enable_gqa=True)
    np.testing.assert_allclose(grouped.numpy(), _attention(heads, np.repeat(k[None], 2, 1), np.repeat(v[None], 2, 1)),
                               rtol=1e-12)


def test_sdpa_errors():
    q, k, v = torch.ones(2, 3, 4, 5), torch.ones(2, 3, 6, 5), torch.ones(2, 3, 6, 7)
    with raises(RuntimeError, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(4, 6, dtype=torch.bool), is_causal=True)
    with raises(RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [6, 5] but got: [6, 4]."):
        F.scaled_dot_product_attention(q, k[..., :4], v)
    with raises(RuntimeError, "Expected query, key, and value to have the same dtype, but got query.dtype: float "
                              "key.dtype: float and value.dtype: double instead."):
        F.scaled_dot_product_attention(q, k, v.double())


def _mha_numpy(x, kv, w_in, b_in, w_out, b_out, heads, additive=None):
    """PyTorch's multi-head attention by its equations; (L, E) queries, (S, E) keys."""
    e = x.shape[-1]
    d = e // heads
    q, k, v = x @ w_in[:e].T + b_in[:e], kv @ w_in[e:2 * e].T + b_in[e:2 * e], kv @ w_in[2 * e:].T + b_in[2 * e:]
    outs, weights = [], []
    for h in range(heads):
        s = q[:, h * d:(h + 1) * d] @ k[:, h * d:(h + 1) * d].T / math.sqrt(d)
        p = _softmax(s if additive is None else s + additive)
        weights.append(p)
        outs.append(p @ v[:, h * d:(h + 1) * d])
    return np.concatenate(outs, -1) @ w_out.T + b_out, np.mean(weights, 0)


def test_multihead_attention_parameters_and_init():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dtype=torch.float64)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [
        ("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)), ("out_proj.weight", (8, 8)), ("out_proj.bias", (8,))]
    assert not m.in_proj_bias.detach().numpy().any() and not m.out_proj.bias.detach().numpy().any()
    assert np.abs(m.in_proj_weight.detach().numpy()).max() <= math.sqrt(6 / (8 + 24))  # xavier_uniform_
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, "
                       "out_features=8, bias=True)\n)")
    separate = nn.MultiheadAttention(8, 4, kdim=5, vdim=6, add_bias_kv=True, bias=False)
    assert [(n, tuple(p.shape)) for n, p in separate.named_parameters()] == [
        ("q_proj_weight", (8, 8)), ("k_proj_weight", (8, 5)), ("v_proj_weight", (8, 6)), ("bias_k", (1, 1, 8)),
        ("bias_v", (1, 1, 8)), ("out_proj.weight", (8, 8))]
    with raises(AssertionError, "embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)


def test_multihead_attention_against_numpy_and_differences():
    torch.manual_seed(1)
    m = nn.MultiheadAttention(6, 2, dtype=torch.float64)
    with torch.no_grad():
        m.in_proj_bias.copy_(torch.randn(18, dtype=torch.float64))
        m.out_proj.bias.copy_(torch.randn(6, dtype=torch.float64))
    x, mem = RNG.standard_normal((4, 2, 6)), RNG.standard_normal((5, 2, 6))
    padded = np.zeros((2, 5), bool)
    padded[1, 3:] = True
    out, weights = m(torch.tensor(x), torch.tensor(mem), torch.tensor(mem), key_padding_mask=torch.tensor(padded))
    assert out.shape == (4, 2, 6) and weights.shape == (2, 4, 5)
    parameters = [p.detach().numpy() for p in (m.in_proj_weight, m.in_proj_bias, m.out_proj.weight, m.out_proj.bias)]
    for n in range(2):
        expected, expected_weights = _mha_numpy(x[:, n], mem[:, n], *parameters, 2,
                                                np.where(padded[n], -np.inf, 0.0))
        np.testing.assert_allclose(out.detach().numpy()[:, n], expected, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(weights.detach().numpy()[n], expected_weights, rtol=1e-12, atol=1e-13)
    fast, none = m(torch.tensor(x), torch.tensor(mem), torch.tensor(mem), key_padding_mask=torch.tensor(padded),
                   need_weights=False)
    assert none is None
    np.testing.assert_allclose(fast.detach().numpy(), out.detach().numpy(), rtol=1e-12, atol=1e-13)
    check_against_differences(lambda a, b: m(a, b, b, need_weights=False)[0], [x[:, :1], mem[:, :1]])
    check_against_differences(lambda a: m(a, a, a, average_attn_weights=False)[1], [x[:, :1]])


def test_transformer_layers_shapes_modes_and_errors():
    torch.manual_seed(2)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=torch.float64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)
    assert [str(w.message) for w in caught] == [
        "enable_nested_tensor is True, but self.use_nested_tensor is False because encoder_layer.self_attn.batch_first "
        "was not True(use batch_first for better inference performance)"]
    assert len(encoder.layers) == 2 and encoder.layers[0].linear1.weight is not encoder.layers[1].linear1.weight
    x = torch.randn(3, 5, 8, dtype=torch.float64)
    assert layer(x).shape == (3, 5, 8) and encoder(x.float()).shape == (3, 5, 8)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, norm_first=True), 2)
    assert decoder(torch.randn(4, 3, 8), torch.randn(5, 3, 8)).shape == (4, 3, 8)
    assert [n for n, _ in layer.named_children()] == ["self_attn", "linear1", "dropout", "linear2", "norm1", "norm2",
                                                      "dropout1", "dropout2"]
    with raises(RuntimeError, "activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    with raises(RuntimeError, "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                              "`generate_square_subsequent_mask` to create this mask."):
        layer.self_attn(x, x, x, is_causal=True)
    y = torch.tensor(RNG.standard_normal((1, 3, 8)))
    check_against_differences(lambda a: layer(a), [y.numpy()])


def _copied_pair(real, make):
    real.manual_seed(0)
    theirs = make(real)
    mine = make(torch)
    mine.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return mine, theirs


def _gradients(lib, module, arrays, call):
    tensors = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = call(module, *tensors)
    r = lib.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)))
    inputs = [t for t in tensors if t.requires_grad] + list(module.parameters())
    return [out.detach().numpy()] + [g.numpy() for g in lib.autograd.grad((out * r).sum(), inputs)]


@pytest.mark.parametrize("make,call,arrays", [
    (lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=5, vdim=6, add_bias_kv=True, add_zero_attn=True,
                                           dtype=lib.float64),
     lambda m, a, b, c, p: m(a, b, c, key_padding_mask=p)[0],
     [RNG.standard_normal((4, 3, 8)), RNG.standard_normal((6, 3, 5)), RNG.standard_normal((6, 3, 6)),
      RNG.random((3, 6)) > 0.7]),
    (lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", norm_first=True,
                                                                         batch_first=True, dtype=lib.float64), 2),
     lambda m, a, c: m(a, mask=c), [RNG.standard_normal((3, 5, 8)), np.triu(np.ones((5, 5), bool), 1)]),
    (lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16, dtype=lib.float64),
     lambda m, a, b: m(a, b), [RNG.standard_normal((4, 3, 8)), RNG.standard_normal((5, 3, 8))]),
    (lambda lib: lib.nn.Transformer(8, 2, 2, 2, 16, activation="gelu", dtype=lib.float64),
     lambda m, a, b, p: m(a, b, tgt_mask=m.generate_square_subsequent_mask(4, dtype=a.dtype), tgt_is_causal=True,
                          src_key_padding_mask=p, memory_key_padding_mask=p),
     [RNG.standard_normal((5, 3, 8)), RNG.standard_normal((4, 3, 8)), np.arange(5) >= np.array([[5], [3], [4]])]),
    (lambda lib: lib.nn.Transformer(8, 2, 1, 2, 16, norm_first=True, batch_first=True, dtype=lib.float64),
     lambda m, a, b: m(a, b), [RNG.standard_normal((3, 5, 8)), RNG.standard_normal((3, 4, 8))]),
])
def test_against_pytorch(make, call, arrays):
    real = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine, theirs = _copied_pair(real, make)
    for module in (mine, theirs):
        module.train(False)
    for a, b in zip(_gradients(torch, mine, arrays, call), _gradients(real, theirs, arrays, call)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-11)


def _numpy_layer_norm(x, weight, bias, eps=1e-5):
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
def test_transformer_structure_mask_and_errors():
    torch.manual_seed(4)
    model = nn.Transformer(8, 2, 2, 3, 16, dropout=0.0, dtype=torch.float64)
    assert [n for n, _ in model.named_children()] == ["encoder", "decoder"]
    assert len(model.encoder.layers) == 2 and len(model.decoder.layers) == 3
    assert isinstance(model.encoder.norm, nn.LayerNorm) and isinstance(model.decoder.norm, nn.LayerNorm)
    assert (model.d_model, model.nhead, model.batch_first) == (8, 2, False)
    assert len(model.state_dict()) == 2 * 12 + 2 + 3 * 18 + 2
    # xavier_uniform_ for every matrix: bound sqrt(6 / (fan_in + fan_out))
    w = model.encoder.layers[0].linear1.weight.detach().numpy()
    assert w.shape == (16, 8) and np.abs(w).max() <= math.sqrt(6 / 24) and np.abs(w).max() > 0.5 * math.sqrt(6 / 24)
    assert np.all(model.encoder.layers[0].linear1.bias.detach().numpy() ** 2 < 1 / 8)  # Linear's own init
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype == torch.float32
    np.testing.assert_array_equal(mask.numpy(), [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]])
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=torch.float64).dtype == torch.float64
    src, tgt = torch.randn(5, 2, 8, dtype=torch.float64), torch.randn(4, 2, 8, dtype=torch.float64)
    out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4, dtype=torch.float64))
    assert out.shape == (4, 2, 8) and out.dtype == torch.float64
    # the decoder's last norm: each output vector has mean 0 and variance ~1 (weight 1, bias 0)
    np.testing.assert_allclose(out.detach().numpy(), _numpy_layer_norm(out.detach().numpy(), 1.0, 0.0), atol=1e-4)
    # causal: the first target position's output ignores later target positions
    changed = tgt.clone()
    changed[2:] = 7.0
    later = model(src, changed, tgt_mask=model.generate_square_subsequent_mask(4, dtype=torch.float64))
    np.testing.assert_allclose(later[:2].detach().numpy(), out[:2].detach().numpy(), rtol=1e-12)
    assert not np.allclose(later[2:].detach().numpy(), out[2:].detach().numpy())
    assert model(src[:, 0], tgt[:, 0]).shape == (4, 8)  # unbatched
    with raises(RuntimeError, "the batch number of src and tgt must be equal"):
        model(src, tgt[:, :1])
    with raises(RuntimeError, "the feature number of src and tgt must be equal to d_model"):
        model(src, torch.randn(4, 2, 6, dtype=torch.float64))
    custom = nn.Transformer(8, 2, custom_encoder=nn.Identity(), num_decoder_layers=1, dim_feedforward=16)
    assert isinstance(custom.encoder, nn.Identity)
    small = nn.Transformer(4, 2, 1, 1, 6, dropout=0.0, dtype=torch.float64)
    a, b = RNG.standard_normal((3, 1, 4)), RNG.standard_normal((2, 1, 4))
    check_against_differences(lambda x, y: small(x, y), [a, b])
    check_second_against_differences(lambda x, y: small(x, y), [a, b])
