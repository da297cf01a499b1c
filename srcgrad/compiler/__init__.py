"""The source-transformation compiler. `derive(fn, mode, wrt)` -> `Derivative` (its `function`, `source`, `name`)."""

from .pipeline import Derivative, derive  # noqa: F401
