"""Optimizers and learning-rate schedulers as in `torch.optim`, over the Tensor shim.

`optimizer.py` holds the base (`Optimizer`: parameter groups, state, `zero_grad`,
`step`, `state_dict`/`load_state_dict`, `add_param_group`); each optimizer has its
module (`sgd.py`, `adam.py` with AdamW, `rmsprop.py`, `adagrad.py`); `lr_scheduler.py`
changes the groups' "lr" between steps. `zero_grad()` sets `.grad` to None (PyTorch
2.x); `zero_grad(set_to_none=False)` zeros it in place.
"""

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
