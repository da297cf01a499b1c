"""Schedulers made of schedulers, as in `torch.optim.lr_scheduler`: `SequentialLR` (one
after another, switching at milestones) and `ChainedScheduler` (all of them at every
step, each changing the rate the previous one wrote)."""

from bisect import bisect_right

from .lr_scheduler import LRScheduler, _current_lrs
from .plateau import ReduceLROnPlateau

__all__ = ["SequentialLR", "ChainedScheduler"]


def _check_schedulers(owner, optimizer, schedulers):
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it "
                "requires additional kwargs to be specified when calling `step`, "
                f"but got one at index {i} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but "
                f"got scheduler {scheduler.__class__.__name__} at index {i} has {scheduler.optimizer}, "
                f"which is different from {optimizer.__class__.__name__}."
            )


def _composite_state_dict(scheduler):
    state = {key: value for key, value in scheduler.__dict__.items() if key not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _composite_load_state_dict(scheduler, state_dict):
    schedulers = state_dict.pop("_schedulers")
    scheduler.__dict__.update(state_dict)
    state_dict["_schedulers"] = schedulers
    for inner, saved in zip(scheduler._schedulers, schedulers):
        inner.load_state_dict(saved)


class SequentialLR(LRScheduler):
    """schedulers[i] runs from milestones[i - 1] to milestones[i]. At construction the
    groups' rates go back to "initial_lr", every scheduler's epoch back by one (undoing
    its own construction step) and the first scheduler steps to epoch 0 again; at a
    milestone the next scheduler restarts at its epoch 0."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{self.__class__.__name__} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(self.__class__.__name__, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers {len(schedulers)} and the "
                f"number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        """Step every (nested) scheduler's last_epoch back by one."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        """The attributes but the optimizer, with each scheduler's state dict."""
        return _composite_state_dict(self)

    def load_state_dict(self, state_dict):
        _composite_load_state_dict(self, state_dict)


class ChainedScheduler(LRScheduler):
    """Every scheduler steps, in order, at each `step()`; the rate is what the last one
    leaves. The constructor steps none of them."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(
                f"{self.__class__.__name__} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self.__class__.__name__, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _current_lrs(schedulers[-1].optimizer)

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _current_lrs(self._schedulers[-1].optimizer)

    def state_dict(self):
        """The attributes but the optimizer, with each scheduler's state dict."""
        return _composite_state_dict(self)

    def load_state_dict(self, state_dict):
        _composite_load_state_dict(self, state_dict)
