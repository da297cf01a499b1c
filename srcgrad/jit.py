"""`srcgrad.jit`, as much of `torch.jit` as code written for PyTorch calls on its way to
running a model: `script` and `trace` give back what they are given, which runs eagerly
with the same results (as `srcgrad.compile` does for Tensor code, tensor/compile_front.py);
the decorators that steer the TorchScript compiler (`ignore`, `unused`, `export`) leave
their function as it is. Saving or loading a TorchScript archive is refused."""

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "is_scripting", "is_tracing", "annotate",
           "save", "load"]


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """`obj` itself: a module or function run eagerly (TorchScript's results)."""
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """`func` itself, run eagerly: the results the traced graph gives for inputs like
    `example_inputs` (and, where `func`'s branches depend on its inputs' values, those of
    the branches taken, where a trace keeps the ones its example took)."""
    return func


def trace_module(mod, inputs, *args, **kwargs):
    """`mod` itself (see `trace`)."""
    return mod


def ignore(drop=False, **kwargs):
    """`@torch.jit.ignore` and `@torch.jit.ignore(drop=...)`: the function unchanged."""
    return drop if callable(drop) else (lambda fn: fn)


def unused(fn):
    return fn


def export(fn):
    return fn


def is_scripting():
    """False: code never runs under TorchScript here."""
    return False


def is_tracing():
    """False: code never runs under a trace here."""
    return False


def annotate(the_type, the_value):
    return the_value


def save(m, f, _extra_files=None):
    raise NotImplementedError("srcgrad.jit.save: srcgrad does not write TorchScript archives; save the model's "
                              "state_dict with srcgrad.save(model.state_dict(), path) instead")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError("srcgrad.jit.load: srcgrad does not read TorchScript archives; load a state_dict saved "
                              "with srcgrad.save (or torch.save) into the model with model.load_state_dict(...) instead")
