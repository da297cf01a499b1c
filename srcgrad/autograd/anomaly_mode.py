"""Anomaly detection, as PyTorch's `torch.autograd.anomaly_mode`: `detect_anomaly()` and
`set_detect_anomaly(mode)` turn it on for a block (or, the latter, from the call on),
and a backward pass then raises PyTorch's RuntimeError naming the first node that gives
a nan gradient (with `check_nan`, the default). The traceback of the forward call that
made the node, which PyTorch also prints, is not recorded."""

import warnings

from ..tensor.grad_mode import anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
            "for debugging.")


def is_anomaly_enabled():
    return anomaly.enabled


def is_anomaly_check_nan_enabled():
    return anomaly.check_nan


class detect_anomaly:
    """A block with anomaly detection on (PyTorch's warning when made); the mode before
    it is restored after it."""

    def __init__(self, check_nan=True):
        self.prev, self.prev_check_nan, self.check_nan = anomaly.enabled, anomaly.check_nan, check_nan
        warnings.warn(_WARNING, stacklevel=2)

    def __enter__(self):
        anomaly.enabled, anomaly.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev, self.prev_check_nan
        return False


class set_detect_anomaly:
    """Anomaly detection on or off (`mode`) from this call on; as a context manager, the
    mode before it is restored after the block."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = anomaly.enabled, anomaly.check_nan
        anomaly.enabled, anomaly.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev, self.prev_check_nan
        return False
