"""Module.state_dict / load_state_dict module by module and their hooks, as PyTorch
2.13 calls them: arguments, order (stored sequences, recorded from PyTorch), what a
hook may return, the metadata, `assign`, and PyTorch's errors."""

import collections
import re

import numpy as np
import pytest

import srcgrad as torch

nn = torch.nn


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def model():
    return nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Linear(3, 1)))


def test_state_dict_hooks_order_and_arguments():
    m, log = model(), []
    for name, module in m.named_modules():
        tag = name or "root"
        module.register_state_dict_pre_hook(
            lambda mm, prefix, keep_vars, tag=tag: log.append(("pre", tag, prefix, keep_vars)))
        module.register_state_dict_post_hook(
            lambda mm, sd, prefix, meta, tag=tag: log.append(("post", tag, prefix, len(sd), dict(meta))))
    sd = m.state_dict(prefix="p.")
    assert log == [("pre", "root", "p.", False), ("pre", "0", "p.0.", False), ("post", "0", "p.0.", 2, {"version": 1}),
                   ("pre", "1", "p.1.", False), ("pre", "1.0", "p.1.0.", False),
                   ("post", "1.0", "p.1.0.", 4, {"version": 1}), ("post", "1", "p.1.", 4, {"version": 1}),
                   ("post", "root", "p.", 4, {"version": 1})]
    assert dict(sd._metadata) == {"p": {"version": 1}, "p.0": {"version": 1}, "p.1": {"version": 1},
                                  "p.1.0": {"version": 1}}


def test_state_dict_post_hook_results():
    m = nn.Linear(2, 2)
    m._register_state_dict_hook(lambda mm, sd, prefix, meta: collections.OrderedDict(only=sd["weight"]))
    assert list(m.state_dict()) == ["only"]
    m = nn.Linear(2, 2)
    m.register_state_dict_post_hook(lambda *args: {})
    with raises(RuntimeError, "state_dict post-hook must return None"):
        m.state_dict()

    def hook(*args):
        return None

    m.register_state_dict_post_hook(hook)
    with raises(RuntimeError, "Cannot register the same function as the state dict post hook that was previously "
                              "registered via register_state_dict_post_hook"):
        m._register_state_dict_hook(hook)


def test_load_hooks_order_and_arguments():
    m, log = model(), []
    for name, module in m.named_modules():
        tag = name or "root"
        module.register_load_state_dict_pre_hook(
            lambda mm, sd, prefix, meta, strict, mk, uk, em, tag=tag: log.append(
                ("lpre", tag, prefix, sorted(sd), strict, list(mk), list(uk))))
        module.register_load_state_dict_post_hook(
            lambda mm, keys, tag=tag: log.append(("lpost", tag, list(keys.missing_keys), list(keys.unexpected_keys))))
    state = dict(m.state_dict())
    state.pop("0.bias")
    state["1.0.q"] = torch.ones(1)
    result = m.load_state_dict(state, strict=False)
    assert repr(result) == "_IncompatibleKeys(missing_keys=['0.bias'], unexpected_keys=['1.0.q'])"
    assert log == [("lpre", "root", "", ["0.weight", "1.0.bias", "1.0.q", "1.0.weight"], True, [], []),
                   ("lpre", "0", "0.", ["0.weight"], True, [], []), ("lpost", "0", ["0.bias"], []),
                   ("lpre", "1", "1.", ["1.0.bias", "1.0.q", "1.0.weight"], True, ["0.bias"], []),
                   ("lpre", "1.0", "1.0.", ["1.0.bias", "1.0.q", "1.0.weight"], True, ["0.bias"], []),
                   ("lpost", "1.0", ["0.bias"], ["1.0.q"]), ("lpost", "1", ["0.bias"], ["1.0.q"]),
                   ("lpost", "root", ["0.bias"], ["1.0.q"])]


def test_load_pre_hook_rewrites_and_post_hook_edits_in_place():
    m = nn.Linear(2, 2)

    def rename(module, sd, prefix, *rest):
        if prefix + "w" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "w")

    m.register_load_state_dict_pre_hook(rename)
    m._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: sd.update({prefix + "bias": torch.ones(2)}))
    m.register_load_state_dict_post_hook(lambda module, keys: keys.unexpected_keys.clear())
    given = {"w": torch.full((2, 2), 3.0), "stray": torch.ones(1)}
    assert repr(m.load_state_dict(given)) == "<All keys matched successfully>"
    assert m.weight.tolist() == [[3.0, 3.0], [3.0, 3.0]] and m.bias.tolist() == [1.0, 1.0]
    assert list(given) == ["w", "stray"]  # the hooks rewrite a copy
    m.register_load_state_dict_post_hook(lambda module, keys: 1)
    with raises(AssertionError, "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to "
                                "return new values, if incompatible_keys need to be modified, it should be done "
                                "inplace."):
        m.load_state_dict(m.state_dict())


def test_handles_assign_and_errors():
    m, log = nn.Linear(2, 2), []
    handle = m.register_state_dict_pre_hook(lambda *args: log.append(1))
    m.state_dict()
    handle.remove()
    m.state_dict()
    assert log == [1]
    w = torch.ones(2, 2)
    m.load_state_dict({"weight": w, "bias": torch.zeros(2)}, assign=True)
    assert type(m.weight).__name__ == "Parameter" and m.weight.requires_grad
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones((2, 2)))
    scalar = nn.Module()
    scalar.register_buffer("s", torch.tensor(1.0))
    scalar.load_state_dict({"s": torch.tensor([3.0])})
    assert scalar.s.item() == 3.0 and scalar.s.shape == ()
    with raises(TypeError, "Expected state_dict to be dict-like, got <class 'list'>."):
        m.load_state_dict([1])
    with raises(RuntimeError, "Error(s) in loading state_dict for Linear:\n\tWhile copying the parameter named "
                              "\"weight\", expected srcgrad.Tensor or Tensor-like object from checkpoint but received "
                              "<class 'int'>"):
        m.load_state_dict({"weight": 3, "bias": torch.zeros(2)})
    shared = nn.Linear(2, 2)
    assert list(nn.Sequential(shared, shared).state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
