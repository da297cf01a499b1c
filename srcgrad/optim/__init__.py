"""Optimizers and learning-rate schedulers as in `torch.optim`, over the Tensor shim.

`optimizer.py` holds the base (`Optimizer`: parameter groups, state, `zero_grad`,
`step`, `state_dict`/`load_state_dict`, `add_param_group`); each optimizer has its
module (`sgd.py`, `adam.py` with AdamW, `adam_variants.py` with Adamax, NAdam and RAdam,
`rmsprop.py`, `adagrad.py`, `adadelta.py`, `rprop.py`, `asgd.py`, `lbfgs.py`); `lr_scheduler.py`
changes the groups' "lr" between steps. `zero_grad()` sets `.grad` to None (PyTorch
2.x); `zero_grad(set_to_none=False)` zeros it in place.
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adam_variants import Adamax, NAdam, RAdam
from .asgd import ASGD
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop",
    "ASGD", "LBFGS", "lr_scheduler",
]
