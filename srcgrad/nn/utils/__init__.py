"""`srcgrad.nn.utils`, as `torch.nn.utils`: gradient clipping (`clip_grad.py`) and
parameters as one vector (`convert_parameters.py`)."""

from .clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "parameters_to_vector", "vector_to_parameters"]
