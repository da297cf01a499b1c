"""`stack_module_state` of `srcgrad.func`, as `torch.func.stack_module_state`: the
parameters and buffers of several modules of one class stacked along a new first dim,
for `vmap` over `functional_call` (model ensembling)."""

from ..tensor.joins import stack

__all__ = ["stack_module_state"]


def stack_module_state(models):
    """(params, buffers): for each name of the first model's `named_parameters()` and
    `named_buffers()`, the models' tensors of that name stacked. Stacked parameters are
    new leaves that require grad (where the models' do: all of them or none)."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    kind = type(models[0])
    if not all(type(m) is kind for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    return _stacked([dict(m.named_parameters()) for m in models]), _stacked([dict(m.named_buffers()) for m in models])


def _stacked(per_model):
    stacked = {}
    for name in per_model[0]:
        tensors = [found[name] for found in per_model]
        needing = [t.requires_grad for t in tensors]
        if any(needing) and not all(needing):
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        result = stack(tensors)
        stacked[name] = result.detach().requires_grad_() if all(needing) else result
    return stacked
