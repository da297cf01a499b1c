"""Parameters as one flat vector and back, as `torch.nn.utils`."""

from ...tensor import Tensor, cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _listed(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def parameters_to_vector(parameters):
    """One 1-D tensor of every parameter's entries, in order (in the graph: it is `cat`
    of their flattened views)."""
    return cat([p.view(-1) for p in _listed(parameters)])


def vector_to_parameters(vec, parameters):
    """Set each parameter's data to its slice of the 1-D tensor `vec` (no graph)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected srcgrad.Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in _listed(parameters):
        n = p.numel()
        p.data = vec[start:start + n].view_as(p).data
        start += n
