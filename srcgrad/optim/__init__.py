"""Optimizers as in `torch.optim`, over the Tensor shim.

`optimizer.py` holds the base (`Optimizer`: parameter groups, state, `zero_grad`,
`step`); each optimizer has its module (`sgd.py`, `adam.py`). `zero_grad()` sets `.grad`
to None (PyTorch 2.x); `zero_grad(set_to_none=False)` zeros it in place.
"""

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]
