"""`srcgrad.nn.utils`, as `torch.nn.utils`: gradient clipping (`clip_grad.py`),
parameters as one vector (`convert_parameters.py`), packed sequences (`rnn.py`),
parametrizations
(`parametrize.py`, `parametrizations.py`) and the deprecated hook forms of weight
and spectral normalization (`weight_norm.py`, `spectral_norm.py`)."""

from . import parametrizations, parametrize, rnn  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "parameters_to_vector", "vector_to_parameters",
           "parametrize", "parametrizations", "rnn", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm"]
