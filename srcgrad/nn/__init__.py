"""`srcgrad.nn`: PyTorch's `torch.nn` for the Tensor shim: the modules (`modules.py`,
`containers.py`, `activations.py`, `losses.py`, `normalization.py`, `convolution.py`,
`pooling.py`, `upsampling.py`, `padding.py`, `dropout.py`, `embedding.py`, `distance.py`,
`recurrent.py`, `attention.py`, `transformer.py`, the lazy ones `lazy_layers.py` over `lazy.py`;
`parameter` holds the uninitialized tensors), the functional interface
(`functional.py`), `init` and `utils` (gradient clipping, parameters as a vector,
packed sequences, parametrizations)."""

from . import functional, init, utils  # noqa: F401
from .activations import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .attention import __all__ as _attention
from .activations import __all__ as _activations
from .containers import *  # noqa: F401,F403
from .containers import __all__ as _containers
from .convolution import *  # noqa: F401,F403
from .convolution import __all__ as _convolution
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .dropout import __all__ as _dropout
from .distance import __all__ as _distance
from .embedding import *  # noqa: F401,F403
from .embedding import __all__ as _embedding
from .lazy_layers import *  # noqa: F401,F403
from .lazy_layers import __all__ as _lazy_layers
from .losses import *  # noqa: F401,F403
from .losses import __all__ as _losses
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules
from .normalization import *  # noqa: F401,F403
from .normalization import __all__ as _normalization
from .padding import *  # noqa: F401,F403
from .padding import __all__ as _padding
from .pooling import *  # noqa: F401,F403
from .pooling import __all__ as _pooling
from .recurrent import *  # noqa: F401,F403
from .recurrent import __all__ as _recurrent
from .transformer import *  # noqa: F401,F403
from .transformer import __all__ as _transformer
from .upsampling import *  # noqa: F401,F403
from .upsampling import __all__ as _upsampling
from . import lazy, modules, parameter  # noqa: E402
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: F401

modules.lazy = lazy  # `nn.modules.lazy.LazyModuleMixin`, as PyTorch spells it

__all__ = ["functional", "init", "utils", *_modules, *_containers, *_activations, *_losses, *_normalization,
           *_convolution, *_embedding, *_distance, *_recurrent, *_pooling, *_attention,
           *_transformer, *_upsampling, *_dropout, *_padding, *_lazy_layers, "parameter", "UninitializedParameter",
           "UninitializedBuffer"]
