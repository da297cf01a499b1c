"""What PyTorch calls the node of a gradient that an op's backward makes in a pass with
create_graph (graph_backward.py): its own name for the common ops, else the op's node
name with `Backward0` added, as PyTorch names the backward of a backward."""

__all__ = ["gradient_node_name"]


# The node PyTorch gives the gradient an op's backward makes, where it is not `<op>Backward0`
# (the op's node name -> one name per input, or one for all)
_GRADIENT_NODES = {
    "MulBackward0": "MulBackward0", "SinBackward0": "MulBackward0", "CosBackward0": "MulBackward0",
    "ExpBackward0": "MulBackward0", "PowBackward0": "MulBackward0", "LinalgVectorNormBackward0": "MulBackward0",
    "LogBackward0": "DivBackward0", "SqrtBackward0": "DivBackward0", "DivBackward0": ("DivBackward0", "MulBackward0"),
    "AbsBackward0": "MulBackward0", "ReciprocalBackward0": "MulBackward0", "TanhBackward0": "TanhBackwardBackward0", "SigmoidBackward0": "SigmoidBackwardBackward0",
    "ReluBackward0": "ThresholdBackwardBackward0", "MmBackward0": "MmBackward0", "SumBackward0": "ExpandBackward0",
    "SumBackward1": "ExpandBackward0", "MeanBackward1": "DivBackward1", "TBackward0": "TBackward0",
    "SoftmaxBackward0": "SoftmaxBackwardDataBackward0", "LogSoftmaxBackward0": "LogSoftmaxBackwardDataBackward0",
    "PowBackward1": ("WhereBackward0", "MulBackward0"),
    "AsinBackward0": "MulBackward0", "AcosBackward0": "MulBackward0", "AtanBackward0": "DivBackward0",
    "SinhBackward0": "MulBackward0", "CoshBackward0": "MulBackward0", "ErfBackward0": "MulBackward0",
    "ErfcBackward0": "MulBackward0", "Expm1Backward0": "MulBackward0", "Log1PBackward0": "DivBackward0",
    "Log2Backward0": "DivBackward0", "Log10Backward0": "DivBackward0", "Exp2Backward0": "MulBackward1",
    "RsqrtBackward0": "MulBackward0", "TanBackward0": "MulBackward0", "AsinhBackward0": "MulBackward0",
    "AcoshBackward0": "MulBackward0", "AtanhBackward0": "DivBackward0", "SiluBackward0": "MulBackward0",
    "ProdBackward0": "MulBackward0", "VarBackward0": "MulBackward0", "LogsumexpBackward0": "MulBackward0",
    "BinaryCrossEntropyWithLogitsBackward0": "DivBackward1", "Atan2Backward0": "MulBackward0",
    "ViewBackward0": "ViewBackward0", "PermuteBackward0": "PermuteBackward0", "ToCopyBackward0": "ToCopyBackward0",
    "IndexBackward0": "IndexPutImplBackward0", "StdBackward0": "MulBackward0", "ProdBackward1": "MulBackward0",
    "CumsumBackward0": "FlipBackward0", "DiagEmbedBackward0": "DiagonalBackward0",
    "DiagonalBackward0_copy": "DiagonalBackwardBackward0",
}


def gradient_node_name(name, k):
    """What the node of input k's gradient, made by the backward of the node `name`, is
    called: PyTorch's name where `_GRADIENT_NODES` has it, else `<name less 0>Backward0`."""
    known = _GRADIENT_NODES.get(name)
    if known is not None:
        return known if isinstance(known, str) else known[min(k, len(known) - 1)]
    return name[:-1] + "Backward0" if name.endswith("0") else name + "Backward0"
