"""Optimizer.state_dict / load_state_dict / add_param_group: PyTorch's structure (state
by parameter index, groups with 'params' as indices), a saved and reloaded optimizer
that continues training exactly as the original, the casts and checks of loading; and,
when PyTorch is installed, the printed state dict against torch.optim's."""

import copy

import numpy as np
import pytest

import srcgrad as torch

CONFIGS = {
    "sgd_nesterov": ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    "adam_amsgrad": ("Adam", dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    "adamw": ("AdamW", dict(lr=0.02)),
    "rmsprop_centered_momentum": ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True)),
    "adagrad_decay": ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.2)),
}

X = np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [2.0, 1.0, 0.0], [-1.0, 0.25, 1.5]])


def _model(lib=torch, dtype=None, w=None, b=None):
    dtype = dtype or lib.float32
    w = lib.tensor([[0.5, -1.2, 2.0], [0.3, 0.0, -0.7]] if w is None else w, dtype=dtype, requires_grad=True)
    b = lib.tensor([0.1, -0.2] if b is None else b, dtype=dtype, requires_grad=True)
    return w, b


def _train(opt, w, b, n, lib=torch):
    x = lib.tensor(X, dtype=w.dtype)
    out = []
    for _ in range(n):
        opt.zero_grad()
        (((x @ w.t() + b).tanh() ** 2).mean() + (w * w).sum() * 0.01).backward()
        opt.step()
        out.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    return np.array(out)


def _two_groups(kind, kwargs, w, b):
    return getattr(torch.optim, kind)([{"params": [w]}, {"params": [b], "lr": kwargs["lr"] * 2}], **kwargs)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_reloaded_optimizer_continues_exactly(name):
    kind, kwargs = CONFIGS[name]
    w, b = _model()
    opt = _two_groups(kind, kwargs, w, b)
    _train(opt, w, b, 3)
    saved = copy.deepcopy(opt.state_dict())
    w2, b2 = _model(w=w.detach().numpy(), b=b.detach().numpy())
    expected = _train(opt, w, b, 4)
    # other hyperparameters at construction: load_state_dict brings back the saved ones
    reloaded = _two_groups(kind, dict(kwargs, lr=123.0), w2, b2)
    reloaded.load_state_dict(saved)
    assert [g["lr"] for g in reloaded.param_groups] == [kwargs["lr"], kwargs["lr"] * 2]
    assert reloaded.param_groups[0]["params"][0] is w2 and reloaded.param_groups[1]["params"] == [b2]
    np.testing.assert_array_equal(_train(reloaded, w2, b2, 4), expected)


def test_state_dict_structure():
    w, b = _model()
    c = torch.zeros(3, requires_grad=True)
    opt = torch.optim.Adam([{"params": [w, b]}, {"params": c, "lr": 0.5}], lr=0.1)
    assert opt.state_dict() == {"state": {}, "param_groups": [
        {"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False, "maximize": False,
         "foreach": None, "capturable": False, "differentiable": False, "fused": None,
         "decoupled_weight_decay": False, "params": [0, 1]},
        {"lr": 0.5, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False, "maximize": False,
         "foreach": None, "capturable": False, "differentiable": False, "fused": None,
         "decoupled_weight_decay": False, "params": [2]},
    ]}
    assert list(opt.state_dict()["param_groups"][1])[-2:] == ["decoupled_weight_decay", "params"]
    c.grad = torch.ones(3)
    w.grad = torch.ones(2, 3)
    opt.step()  # b has no gradient: no state
    sd = opt.state_dict()
    assert list(sd["state"]) == [0, 2] and list(sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    assert sd["state"][0]["exp_avg"] is opt.state[w]["exp_avg"]  # PyTorch's: not a copy
    assert sd["state"][2]["step"].item() == 1.0 and sd["state"][2]["step"].dtype == torch.float32
    sd["param_groups"][0]["lr"] = 7.0  # the groups are copies
    assert opt.param_groups[0]["lr"] == 0.1


def test_load_casts_state_to_the_parameter_dtype_but_not_the_step():
    w, b = _model(dtype=torch.float64)
    opt = torch.optim.Adam([w, b], lr=0.1)
    _train(opt, w, b, 2)
    w32, b32 = _model()
    opt32 = torch.optim.Adam([w32, b32], lr=0.1)
    saved = opt.state_dict()
    opt32.load_state_dict(saved)
    state = opt32.state[w32]
    assert state["exp_avg"].dtype == torch.float32 and state["step"].dtype == torch.float32
    np.testing.assert_allclose(state["exp_avg"].numpy(), opt.state[w]["exp_avg"].numpy(), rtol=1e-7)
    assert state["step"] is saved["state"][0]["step"]
    same = torch.optim.Adam(list(_model(dtype=torch.float64)), lr=0.1)
    same.load_state_dict(saved)  # the dtype already matches: taken as it is, as in PyTorch
    assert next(iter(same.state.values()))["exp_avg"] is saved["state"][0]["exp_avg"]


def test_adamw_stays_decoupled_after_loading_an_adam_state():
    w, b = _model()
    adam = torch.optim.Adam([w, b], lr=0.1, weight_decay=0.01)
    adamw = torch.optim.AdamW([w, b], lr=0.1)
    adamw.load_state_dict(adam.state_dict())
    assert adamw.param_groups[0]["decoupled_weight_decay"] is True


LOAD_ERRORS = [
    (lambda w, b: torch.optim.SGD([{"params": [w]}, {"params": [b]}], lr=0.1), ValueError,
     "loaded state dict has a different number of parameter groups"),
    (lambda w, b: torch.optim.SGD([w], lr=0.1), ValueError,
     "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"),
]


@pytest.mark.parametrize("make,kind,message", LOAD_ERRORS, ids=[m[:30] for _, _, m in LOAD_ERRORS])
def test_load_errors(make, kind, message):
    w, b = _model()
    saved = torch.optim.SGD([w, b], lr=0.1).state_dict()
    with pytest.raises(kind) as info:
        make(w, b).load_state_dict(saved)
    assert str(info.value) == message


# --- add_param_group --------------------------------------------------------------------


def test_add_param_group_takes_the_defaults_and_trains_the_new_parameters():
    w, b = _model()
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.5})
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5] and opt.param_groups[1]["momentum"] == 0.9
    assert opt.state_dict()["param_groups"][1]["params"] == [1]
    b.grad = torch.ones(2)
    opt.step()
    assert b.tolist() == [pytest.approx(0.1 - 0.5), pytest.approx(-0.2 - 0.5)] and w.tolist()[0][0] == 0.5


def test_adagrad_makes_state_for_an_added_group_at_its_first_step():
    w, b = _model()
    opt = torch.optim.Adagrad([w], lr=0.1, initial_accumulator_value=1.0)
    opt.add_param_group({"params": [b], "initial_accumulator_value": 5.0})
    assert b not in opt.state
    b.grad = torch.tensor([2.0, 0.0])
    opt.step()
    # as in PyTorch, from the constructor's initial_accumulator_value (1), not the group's
    assert opt.state[b]["sum"].tolist() == [5.0, 1.0] and opt.state[b]["step"].item() == 1.0


ADD_ERRORS = [
    (lambda opt, w, b: opt.add_param_group([b]), TypeError, "param_group must be a dict, but got <class 'list'>"),
    (lambda opt, w, b: opt.add_param_group({"params": {b}}), TypeError,
     "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will "
     "change between runs. Please use a list instead."),
    (lambda opt, w, b: opt.add_param_group({"params": [w]}), ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda opt, w, b: opt.add_param_group({"params": [b * 2]}), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda opt, w, b: opt.add_param_group({"params": [1.0]}), TypeError,
     "optimizer can only optimize Tensors, but one of the params is float"),
]


@pytest.mark.parametrize("call,kind,message", ADD_ERRORS, ids=[m[:30] for _, _, m in ADD_ERRORS])
def test_add_param_group_errors(call, kind, message):
    w, b = _model()
    opt = torch.optim.SGD([w], lr=0.1)
    with pytest.raises(kind) as info:
        call(opt, w, b)
    assert str(info.value) == message
    assert len(opt.param_groups) == 1


def test_duplicate_parameters_in_a_group_warn():
    w, _ = _model()
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate parameters"):
        torch.optim.SGD([w, w], lr=0.1)


# --- PyTorch as the oracle ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_state_dict_prints_as_pytorchs(name):
    real = pytest.importorskip("torch")
    kind, kwargs = CONFIGS[name]
    texts = []
    for lib in (real, torch):
        w, b = _model(lib, lib.float64)
        opt = getattr(lib.optim, kind)([{"params": [w]}, {"params": [b], "lr": 0.5}], **kwargs)
        _train(opt, w, b, 3, lib)
        texts.append(str(opt.state_dict()).replace("torch.", "srcgrad."))
    assert texts[1] == texts[0]
