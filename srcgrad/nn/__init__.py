"""`srcgrad.nn`: PyTorch's `torch.nn` for the Tensor shim: the modules (`modules.py`,
`activations.py`, `losses.py`), the functional interface (`functional.py`), `init` and
`utils` (gradient clipping, parameters as a vector)."""

from . import functional, init, utils  # noqa: F401
from .activations import *  # noqa: F401,F403
from .activations import __all__ as _activations
from .losses import *  # noqa: F401,F403
from .losses import __all__ as _losses
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules

__all__ = ["functional", "init", "utils", *_modules, *_activations, *_losses]
