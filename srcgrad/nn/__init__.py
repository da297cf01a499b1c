"""`srcgrad.nn`: PyTorch's `torch.nn` for the Tensor shim: the modules (`modules.py`)
and the functional interface (`functional.py`)."""

from . import functional  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules

__all__ = ["functional", *_modules]
