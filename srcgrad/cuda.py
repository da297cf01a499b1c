"""`srcgrad.cuda`: what `torch.cuda` answers on a machine without a GPU. srcgrad runs on
the CPU only, so tutorial code that picks its device with
`torch.device("cuda" if torch.cuda.is_available() else "cpu")` picks the CPU."""

__all__ = ["is_available", "device_count"]


def is_available():
    """Always False: srcgrad has no GPU backend."""
    return False


def device_count():
    """Always 0."""
    return 0
