"""srcgrad: source-transformation automatic differentiation for Python and NumPy.

Public names only (see API.md); the logic lives in the submodules.
"""

from .api import grad, source, value_and_grad, vjp
from .errors import NotDifferentiableError, SrcGradError

__all__ = [
    "grad",
    "value_and_grad",
    "vjp",
    "source",
    "SrcGradError",
    "NotDifferentiableError",
]
__version__ = "0.1.0"
