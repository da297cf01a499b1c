"""Grad mode: whether eager ops record graph nodes.

`_mode.enabled` is thread-local and True by default; `no_grad`, `enable_grad`,
`inference_mode` and `set_grad_enabled` set it and restore the previous mode on exit
(exceptions included), nest, and work as decorators. `_mode.inference` is True inside
`inference_mode()`: tensors made then are inference tensors. Only recording depends on it:
leaves keep their `requires_grad` flags inside `no_grad`.

`anomaly` is anomaly detection's mode (autograd/anomaly_mode.py), global as PyTorch's:
with `enabled` and `check_nan`, a backward pass raises where a node gives a nan gradient.
"""

import functools
import threading

__all__ = ["is_grad_enabled", "set_grad_enabled", "no_grad", "enable_grad", "inference_mode",
           "is_inference_mode_enabled"]


class _GradMode(threading.local):
    enabled = True
    inference = False  # inside inference_mode(True): the tensors made are inference tensors


_mode = _GradMode()
# how many inference_mode() blocks are open, in any thread: the hot paths that mark
# inference tensors test this first, a plain read, before the thread-local `_mode.inference`
OPEN_INFERENCE_BLOCKS = [0]
_blocks_lock = threading.Lock()


class _AnomalyMode:
    enabled = False
    check_nan = True


anomaly = _AnomalyMode()


def is_grad_enabled():
    """True unless inside `no_grad()` (or `set_grad_enabled(False)`)."""
    return _mode.enabled


def is_inference_mode_enabled():
    """True inside `inference_mode()` (not inside a nested `inference_mode(False)`)."""
    return _mode.inference


_new_object = object.__new__


class _ModeContext:
    """A context manager that sets grad mode and restores the previous one on exit;
    an instance also works as a decorator.

    `_previous` is a stack of the modes to restore, as nested pairs `(mode, rest)` (one
    instance may be entered again while active); the class's None is the empty stack,
    so making an instance costs no `__init__`.
    """

    _target = True
    _previous = None

    def __new__(cls, *args, **kwargs):
        made = _new_object(cls)
        if args and len(args) == 1 and not kwargs and callable(args[0]):  # a bare decorator: `@no_grad`
            made.__init__()
            return made(args[0])
        return made

    def __enter__(self):
        mode = _mode
        self._previous = (mode.enabled, self._previous)
        mode.enabled = self._target
        return self

    def __exit__(self, exc_type, exc, tb):
        _mode.enabled, self._previous = self._previous
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)

        return run


class no_grad(_ModeContext):
    """Inside the block no operation is recorded; leaves keep their flags."""

    _target = False


class enable_grad(_ModeContext):
    """Turn recording back on inside a `no_grad` block."""

    _target = True


class inference_mode(_ModeContext):
    """PyTorch's inference mode, which here is `no_grad` (no graph is recorded) whose
    tensors are inference tensors (`Tensor.is_inference()`); `inference_mode(False)`
    turns recording on, as PyTorch's does."""

    def __init__(self, mode=True):
        self._target = not mode

    def __enter__(self):
        mode = _mode
        self._previous = ((mode.enabled, mode.inference), self._previous)
        mode.enabled, mode.inference = self._target, not self._target
        with _blocks_lock:
            OPEN_INFERENCE_BLOCKS[0] += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        (_mode.enabled, _mode.inference), self._previous = self._previous
        with _blocks_lock:
            OPEN_INFERENCE_BLOCKS[0] -= 1
        return False

    def __call__(self, fn):
        target = self._target

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with inference_mode(not target):
                return fn(*args, **kwargs)

        return run


class set_grad_enabled(_ModeContext):
    """Set grad mode now (as a call) or for a block (as a context manager)."""

    def __init__(self, mode):
        self._target = bool(mode)
        self._previous = (_mode.enabled, None)
        _mode.enabled = self._target

    def __repr__(self):
        return f"srcgrad.autograd.grad_mode.set_grad_enabled(mode={self._target})"

    def __enter__(self):
        return self

    def __call__(self, fn):
        _mode.enabled = self._previous[0]
        mode = self._target

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return run
