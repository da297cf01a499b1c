"""`srcgrad.nn`'s transformer layers, as in `torch.nn`: TransformerEncoderLayer,
TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and the encoder-decoder
Transformer built of them, with PyTorch's
sub-modules under PyTorch's names (self_attn, multihead_attn, linear1, dropout, linear2,
norm1..3, dropout1..3), so a PyTorch state_dict loads. Post-norm by default
(x = norm(x + block(x))), pre-norm for norm_first (x = x + block(norm(x))).

PyTorch's inference fast paths (fused kernels, nested tensors for padded batches) are
not taken: the result is the ordinary path's, which PyTorch's fast path matches up to
rounding, except that PyTorch's encoder in eval mode without gradients, given
batch_first and a src_key_padding_mask, writes zeros at the padded positions."""

import copy
import warnings

import numpy as np

from ..tensor import creation, devices
from ..tensor.products import triu
from ..tensor.tensor import Tensor
from . import functional as F
from . import init
from .activations import GELU, ReLU
from .dropout import Dropout
from .attention import MultiheadAttention
from .modules import Linear, Module, ModuleList
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder",
           "Transformer"]


def _activation(activation):
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


def _canonical(mask, dtype):
    """A boolean mask (True: masked out) as 0 / -inf; float masks kept."""
    if mask is None or mask._data.dtype != np.bool_:
        return mask
    return Tensor._make(np.where(mask._data, -np.inf, 0.0).astype(dtype))


class _Layer(Module):
    def _feed_forward(self, x, dropout):
        return dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def _self_attention(self, x, mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)


def _feed_forward_parts(module, d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first, bias,
                        dtype, norms):
    module.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
    module.dropout = Dropout(dropout)
    module.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
    module.norm_first = norm_first
    for i in range(1, norms + 1):
        setattr(module, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
    for i in range(1, norms + 1):
        setattr(module, f"dropout{i}", Dropout(dropout))
    module.activation = _activation(activation)


class TransformerEncoderLayer(_Layer):
    """Self-attention then a feed-forward block (linear1, activation, dropout, linear2),
    each with dropout and a residual connection and LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        _feed_forward_parts(self, d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first, bias,
                            dtype, 2)
        if self.activation is F.relu or isinstance(self.activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif self.activation is F.gelu or isinstance(self.activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = _canonical(src_key_padding_mask, src._data.dtype)
        src_mask = _canonical(src_mask, src._data.dtype)
        x = src
        if self.norm_first:
            x = x + self._self_attention(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._feed_forward(self.norm2(x), self.dropout2)
        x = self.norm1(x + self._self_attention(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._feed_forward(x, self.dropout2))


class TransformerDecoderLayer(_Layer):
    """Self-attention over the target, attention to the memory (multihead_attn), then the
    feed-forward block, each with dropout, a residual connection and LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 dtype=dtype)
        _feed_forward_parts(self, d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first, bias,
                            dtype, 3)

    def _memory_attention(self, x, memory, mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, memory, memory, attn_mask=mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._self_attention(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._memory_attention(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal)
            return x + self._feed_forward(self.norm3(x), self.dropout3)
        x = self.norm1(x + self._self_attention(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._memory_attention(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._feed_forward(x, self.dropout3))


def _why_not_nested(layer):
    """PyTorch's reason an encoder of copies of `layer` cannot use nested tensors ('' if none)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """`num_layers` deep copies of `encoder_layer` applied in turn, then `norm` if given."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        reason = _why_not_nested(encoder_layer)
        if enable_nested_tensor and reason:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {reason}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = _canonical(src_key_padding_mask, src._data.dtype)
        mask = _canonical(mask, src._data.dtype)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=bool(is_causal) and mask is not None,
                           src_key_padding_mask=src_key_padding_mask)
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """`num_layers` deep copies of `decoder_layer` applied in turn, then `norm` if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=bool(tgt_is_causal) and tgt_mask is not None,
                           memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """An encoder (`num_encoder_layers` TransformerEncoderLayers, then LayerNorm) over `src`
    and a decoder (`num_decoder_layers` TransformerDecoderLayers, then LayerNorm) over
    `tgt` attending to the encoder's output, as PyTorch's: its sub-module names (encoder,
    decoder, their layers and norm), and its initialization (xavier_uniform_ for every
    parameter of two or more dims). `custom_encoder`/`custom_decoder` replace the two halves."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        layer_arguments = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                           norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*layer_arguments, dtype=dtype),
                                              num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*layer_arguments, dtype=dtype),
                                              num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The sz x sz causal mask: -inf above the diagonal (a position may not attend to
        later ones), 0 elsewhere; float32 unless `dtype` says otherwise."""
        return triu(creation.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)
