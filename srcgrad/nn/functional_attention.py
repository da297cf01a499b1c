"""Attention of `torch.nn.functional`: scaled_dot_product_attention and
multi_head_attention_forward, written as PyTorch's composite ("math") path writes them,
so with gradients enabled they record the nodes PyTorch records (matmuls, AddBackward0
for a mask, SafeSoftmaxBackward0, MulBackward0 for dropout).

Mask conventions, as PyTorch's: scaled_dot_product_attention's boolean `attn_mask` is
True where a query may attend; multi-head attention's boolean masks (`attn_mask`,
`key_padding_mask`) are True where it may NOT. Float masks are added to the scores. A
row whose scores are all -inf attends to nothing: scaled_dot_product_attention gives 0
there (PyTorch's safe softmax), multi-head attention with need_weights gives nan (its
plain softmax), as PyTorch's do."""

import math
import warnings

import numpy as np

from ..tensor import ops
from ..tensor.functions import where
from ..tensor.joins import cat
from ..tensor.linalg_functions import baddbmm
from ..tensor.tensor import Tensor
from .functional import dropout, linear, softmax
from .functional_convolution import pad

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _safe_softmax(scores):
    """softmax over the last dim, 0 in rows that are all -inf. Written as exp(x - m) / sum
    over the entries that are not -inf (m their largest, a constant: the shift changes no
    derivative), so that no -inf or nan enters the graph and its derivatives stay finite."""
    values = scores._data
    keep = ~np.isneginf(values)
    shift = np.where(keep, values, -np.inf).max(-1, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0.0).astype(values.dtype)
    kept = Tensor._make(keep)
    exponentials = where(kept, (where(kept, scores, 0.0) - Tensor._make(shift)).exp(), 0.0)
    total = exponentials.sum(-1, keepdim=True)
    empty = Tensor._make(total._data == 0)
    return exponentials / where(empty, 1.0, total)


def _float_mask(mask, dtype):
    """A boolean mask (True: attend) as 0 / -inf in `dtype`; a float one as it is."""
    if mask._data.dtype == np.bool_:
        return Tensor._make(np.where(mask._data, 0.0, -np.inf).astype(dtype))
    return mask


def _check_attention_inputs(query, key, value, attn_mask, is_causal, enable_gqa):
    if not query.dim() >= 2 or not key.dim() >= 2 or not value.dim() >= 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    dtypes = {t._data.dtype for t in (query, key, value)}
    if len(dtypes) > 1:
        names = [_c_type(t) for t in (query, key, value)]
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: {names[0]} "
                           f"key.dtype: {names[1]} and value.dtype: {names[2]} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if query._data.shape[-1] != key._data.shape[-1]:
        s, e = key._data.shape[-2], query._data.shape[-1]
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{s}, {e}] but got: "
                           f"[{s}, {key._data.shape[-1]}].")
    if key._data.shape[-2] != value._data.shape[-2]:
        s = key._data.shape[-2]
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{s}, {s}] but got: "
                           f"[{s}, {value._data.shape[-2]}].")
    if enable_gqa and query.dim() >= 3:
        heads, kv_heads = query._data.shape[-3], key._data.shape[-3]
        if kv_heads == 0 or heads % kv_heads or value._data.shape[-3] != kv_heads:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")


def _c_type(t):
    return {"float32": "float", "float64": "double"}.get(t._data.dtype.name, t._data.dtype.name)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v over (..., L, E) queries and (..., S, E) keys and
    (..., S, Ev) values; scale defaults to 1 / sqrt(E), q and k each scaled by its square
    root first, as PyTorch's math path does. `is_causal`: query i attends to keys 0..i
    (top-left aligned); `enable_gqa`: keys and values with fewer heads (dim -3) are
    repeated to the query's heads; `dropout_p`: the probabilities dropped as F.dropout."""
    _check_attention_inputs(query, key, value, attn_mask, is_causal, enable_gqa)
    negative = scale is not None and scale < 0
    factor = math.sqrt(abs(scale) if scale is not None else 1.0 / math.sqrt(query._data.shape[-1]))
    q = query * (-factor if negative else factor)
    dtype = query._data.dtype
    if is_causal:
        length, source = query._data.shape[-2], key._data.shape[-2]
        attn_mask = Tensor._make(np.tril(np.ones((length, source), dtype=bool)))
    if enable_gqa and query.dim() >= 3 and key._data.shape[-3] != query._data.shape[-3]:
        repeats = query._data.shape[-3] // key._data.shape[-3]
        key, value = key.repeat_interleave(repeats, -3), value.repeat_interleave(repeats, -3)
    scores = q @ (key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        scores = scores + _float_mask(attn_mask, dtype)
    weights = ops.composite("SafeSoftmaxBackward0", _safe_softmax, scores, _saves_result=True)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights @ value


# --- multi-head attention -------------------------------------------------------------------


def _canonical_mask(mask, name, other_type, other_name, target_dtype, check_other=True):
    """A boolean mask (True: masked out) as 0 / -inf in `target_dtype`; float masks kept."""
    if mask is None:
        return None
    kind = mask._data.dtype
    if kind != np.bool_ and kind.kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if check_other and other_type is not None and kind != other_type:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      "instead.", UserWarning, stacklevel=4)
    if kind == np.bool_:
        return Tensor._make(np.where(mask._data, -np.inf, 0.0).astype(target_dtype))
    return mask


def _dtype_of(mask):
    return None if mask is None else mask._data.dtype


def _check_batched(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs are batched (3-D) or not (2-D), with PyTorch's shape checks."""
    q, k, v = query.dim(), key.dim(), value.dim()
    if q == 3:
        if k != 3 or v != 3:
            raise AssertionError(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found {k}-D "
                                 f"and {v}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if q == 2:
        if k != 2 or v != 2:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found {k}-D "
                                 f"and {v}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                     f"found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query._data.shape[0], key._data.shape[0])
            if attn_mask.dim() == 3 and attn_mask._data.shape != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{tuple(attn_mask._data.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {q}-D query tensor")


def _projections(query, key, value, in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight, v_proj_weight):
    """q, k, v: the input projections (one packed weight split in three, or three)."""
    if in_proj_weight is not None and q_proj_weight is None:
        weights = in_proj_weight.chunk(3)
    else:
        weights = (q_proj_weight, k_proj_weight, v_proj_weight)
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _check_attn_mask(attn_mask, target, source, batch, num_heads):
    """A 2-D mask (L, S) unsqueezed to (1, L, S); a 3-D one must be (N * heads, L, S)."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask._data.shape) != (target, source):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(target, source)}.")
        return attn_mask.unsqueeze(0)
    expected = (batch * num_heads, target, source)
    if tuple(attn_mask._data.shape) != expected:
        raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {expected}.")
    return attn_mask


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """PyTorch's multi-head attention over (L, N, E) queries and (S, N, E_k), (S, N, E_v)
    keys and values (or unbatched (L, E), ...): the attention output (L, N, E) and, for
    `need_weights`, the attention weights (N, L, S), averaged over the heads unless
    `average_attn_weights` is False ((N, heads, L, S))."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k and static_v are not supported")
    batched = _check_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target, batch, embed_dim = query._data.shape
    source = key._data.shape[0]
    dtype = query._data.dtype
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _dtype_of(attn_mask), "attn_mask", dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention's own causal mask
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key._data.shape[:2] != value._data.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {tuple(key._data.shape[:2])} do not match value's "
                                 f"{tuple(value._data.shape[:2])}")
        q, k, v = _projections(query, key, value, None, in_proj_bias, q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        if key._data.shape != value._data.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        q, k, v = _projections(query, key, value, in_proj_weight, in_proj_bias, None, None, None)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, target, source, batch, num_heads)
    if bias_k is not None and bias_v is not None:
        k, v = cat([k, bias_k.repeat(1, batch, 1)]), cat([v, bias_v.repeat(1, batch, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    q = q.reshape(target, batch * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k._data.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v._data.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zeros = Tensor._make(np.zeros((batch * num_heads, 1, head_dim), dtype=dtype))
        k, v = cat([k, zeros], 1), cat([v, zeros], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    source = k._data.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask._data.shape) != (batch, source):
            raise AssertionError(f"expecting key_padding_mask shape of {(batch, source)}, but got "
                                 f"{key_padding_mask.shape}")
        padding = key_padding_mask.reshape(batch, 1, 1, source).expand(-1, num_heads, -1, -1)
        padding = padding.reshape(batch * num_heads, 1, source)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        if attn_mask is not None:
            scores = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            scores = q_scaled @ k.transpose(-2, -1)
        weights = softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = (weights @ v).transpose(0, 1).reshape(target * batch, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(target, batch, -1)
        weights = weights.reshape(batch, num_heads, target, source)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask._data.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(batch, num_heads, -1, source)
    q = q.reshape(batch, num_heads, target, head_dim)
    k = k.reshape(batch, num_heads, source, head_dim)
    v = v.reshape(batch, num_heads, source, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(batch * target, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(target, batch, -1)
    return (out if batched else out.squeeze(1)), None
