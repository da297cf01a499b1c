"""The source-transformation compiler. `derive(fn, mode, wrt)` -> `Derivative(function, source, name)`."""

from .pipeline import Derivative, derive  # noqa: F401
