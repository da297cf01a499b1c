"""srcgrad.func.stack_module_state with vmap over functional_call (PyTorch's model
ensembling recipe): the ensemble's outputs equal each model's own, its gradients each
model's own (against central differences in float64), and PyTorch's errors."""

import copy

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.func import functional_call, grad, stack_module_state, vmap

nn = torch.nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.norm = nn.BatchNorm1d(4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.norm(self.fc1(x))))


def _models(count=3, seed=0):
    rng = np.random.default_rng(seed)
    models = []
    for _ in range(count):
        model = MLP().double().eval()
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape))))
            model.norm.running_mean.copy_(torch.tensor(rng.standard_normal(4) * 0.1))
            model.norm.running_var.copy_(torch.tensor(rng.random(4) + 0.5))
        models.append(model)
    return models


def test_stacked_state_has_each_name_stacked_as_new_leaves():
    models = _models()
    params, buffers = stack_module_state(models)
    assert list(params) == [name for name, _ in models[0].named_parameters()]
    assert list(buffers) == ["norm.running_mean", "norm.running_var", "norm.num_batches_tracked"]
    for name, stacked in params.items():
        assert stacked.shape == (3,) + tuple(dict(models[0].named_parameters())[name].shape)
        assert stacked.is_leaf and stacked.requires_grad and stacked.dtype == torch.float64
        for i, model in enumerate(models):
            np.testing.assert_array_equal(stacked[i].detach().numpy(), dict(model.named_parameters())[name].detach().numpy())
    assert not buffers["norm.running_var"].requires_grad
    assert buffers["norm.num_batches_tracked"].dtype == torch.int64


def test_vmap_over_the_stacked_state_gives_each_models_outputs():
    models = _models()
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0])
    base = base.to("meta")  # the tutorial's line: the base holds shapes only, the stacked state is used
    assert base.fc1.weight.is_meta and base.norm.running_mean.is_meta
    x = torch.tensor(np.random.default_rng(1).standard_normal((5, 3)))

    def fmodel(params, buffers, x):
        return functional_call(base, (params, buffers), (x,))

    same_batch = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    assert same_batch.shape == (3, 5, 2)
    for i, model in enumerate(models):
        np.testing.assert_allclose(same_batch[i].detach().numpy(), model(x).detach().numpy(), rtol=1e-13)
    batches = torch.stack([x, 2 * x, -x])
    own_batch = vmap(fmodel)(params, buffers, batches)
    for i, model in enumerate(models):
        np.testing.assert_allclose(own_batch[i].detach().numpy(), model(batches[i]).detach().numpy(), rtol=1e-13)


def test_gradients_through_the_ensemble_are_each_models_own():
    models = _models(2)
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0])
    x = torch.tensor(np.random.default_rng(2).standard_normal((4, 3)))

    def loss(params, buffers, x):
        return (functional_call(base, (params, buffers), (x,)) ** 2).sum()

    grads = vmap(grad(loss), in_dims=(0, 0, None))(params, buffers, x)
    weight = dict(models[1].named_parameters())["fc1.weight"]
    w0 = weight.detach().numpy().copy()

    def loss_at(w):
        with torch.no_grad():
            weight.copy_(torch.tensor(w))
            return float((models[1](x) ** 2).sum())

    numeric = np.zeros_like(w0)
    for idx in np.ndindex(w0.shape):
        step = np.zeros_like(w0)
        step[idx] = 1e-6
        numeric[idx] = (loss_at(w0 + step) - loss_at(w0 - step)) / 2e-6
    loss_at(w0)
    assert grads["fc1.weight"].requires_grad  # as in PyTorch: the stacked parameters require grad
    np.testing.assert_allclose(grads["fc1.weight"][1].detach().numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match=r"^stack_module_state: Expected at least one model, got 0\.$"):
        stack_module_state([])
    a, b = _models(2)
    b.train()
    with pytest.raises(RuntimeError, match=r"^stack_module_state: Expected all models to have the same training/eval mode\.$"):
        stack_module_state([a, b])
    with pytest.raises(RuntimeError, match=r"^stack_module_state: Expected all models to be of the same class\.$"):
        stack_module_state([a, nn.Linear(3, 4).eval()])
    c, d = _models(2)
    d.fc2.bias.requires_grad_(False)
    with pytest.raises(RuntimeError, match=r"^Expected fc2\.bias from each model to have the same \.requires_grad$"):
        stack_module_state([c, d])


def test_against_pytorch():
    real = pytest.importorskip("torch")
    from torch.func import functional_call as real_call
    from torch.func import stack_module_state as real_stack
    from torch.func import vmap as real_vmap

    class RealMLP(real.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.norm, self.fc2 = real.nn.Linear(3, 4), real.nn.BatchNorm1d(4), real.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc2(real.tanh(self.norm(self.fc1(x))))

    models = _models()
    real_models = []
    for model in models:
        twin = RealMLP().double().eval()
        twin.load_state_dict({k: real.tensor(v.numpy()) for k, v in model.state_dict().items()})
        real_models.append(twin)
    x = np.random.default_rng(3).standard_normal((5, 3))
    params, buffers = stack_module_state(models)
    ours = vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(params, buffers, torch.tensor(x))
    real_params, real_buffers = real_stack(real_models)
    theirs = real_vmap(lambda p, b, x: real_call(real_models[0], (p, b), (x,)), in_dims=(0, 0, None))(
        real_params, real_buffers, real.tensor(x))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
