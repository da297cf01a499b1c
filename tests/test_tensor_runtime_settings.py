"""What PyTorch training scripts set or call on their way to running a model, as PyTorch
answers it on a CPU-only machine: `torch.amp.GradScaler` (its scale trajectory, checked
against PyTorch 2.13 bit for bit), `autocast` disabled, `torch.jit.script`/`trace`,
thread counts, deterministic algorithms, matmul precision and `torch.backends` switches."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch


def test_grad_scaler_skips_overflowing_steps_and_adapts_its_scale_as_pytorch():
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    seen = []
    for k in [1.0, 1.0, 1e38, 1.0, 1.0, 1.0, float("nan"), 1.0]:
        opt.zero_grad()
        scaled = scaler.scale((w * w).sum() * k)
        assert scaled.dtype == torch.float32 and scaled.grad_fn.name() == "MulBackward0"
        scaled.backward()
        scaler.unscale_(opt)
        grad = w.grad.tolist()
        scaler.step(opt)
        scaler.update()
        seen.append((scaler.get_scale(), grad[0], w.tolist()[0], scaler._get_growth_tracker()))
    # PyTorch 2.13's values: the scale halves after an inf or nan step (which is skipped) and
    # doubles after `growth_interval` good ones; the gradients are unscaled before the step
    assert seen == [
        (4.0, 2.0, 0.800000011920929, 1), (8.0, 1.600000023841858, 0.6399999856948853, 0),
        (4.0, np.inf, 0.6399999856948853, 0), (4.0, 1.2799999713897705, 0.5119999647140503, 1),
        (8.0, 1.0239999294281006, 0.4095999598503113, 0), (8.0, 0.8191999197006226, 0.32767996191978455, 1),
        (4.0, seen[6][1], 0.32767996191978455, 0), (4.0, 0.6553599238395691, 0.26214396953582764, 1),
    ] and np.isnan(seen[6][1])
    assert scaler.state_dict() == {"scale": 4.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
                                   "_growth_tracker": 1}
    again = torch.amp.GradScaler("cpu")
    again.load_state_dict(scaler.state_dict())
    assert again.get_scale() == 4.0 and again.get_growth_interval() == 2


def test_grad_scaler_errors_and_disabled_forms():
    w = torch.nn.Parameter(torch.tensor([1.0]))
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match=re.escape("Attempted step but _scale is None.  This may indicate your "
                                                       "script did not use scaler.scale(loss or outputs) earlier")):
        scaler.step(opt)
    scaler.scale(w.sum()).backward()
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=re.escape("unscale_() is being called after step().")):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="^The source state dict is empty"):
        torch.amp.GradScaler("cpu").load_state_dict({})
    with pytest.raises(AssertionError, match="^The growth factor must be > 1.0.$"):
        torch.amp.GradScaler("cpu", growth_factor=0.5)
    off = torch.amp.GradScaler("cpu", enabled=False)
    loss = w.sum()
    assert off.scale(loss) is loss and off.get_scale() == 1.0 and off.state_dict() == {}
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        assert not torch.amp.GradScaler("cuda").is_enabled()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not torch.cuda.amp.GradScaler().is_enabled()
        with torch.cuda.amp.autocast():
            pass
    assert [type(c.message) for c in caught] == [FutureWarning, UserWarning, FutureWarning, UserWarning]
    one = torch.tensor(1.0, requires_grad=True)
    scaled = torch.amp.GradScaler("cpu", init_scale=2.0).scale([one, (one, one)])
    assert isinstance(scaled, list) and isinstance(scaled[1], tuple) and scaled[1][0].item() == 2.0


def test_autocast_disabled_runs_the_block_and_enabled_on_the_cpu_is_refused():
    with torch.autocast("cpu", enabled=False):
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32
        assert not torch.is_autocast_enabled()
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
        with torch.autocast("cuda"):
            pass
    with pytest.raises(NotImplementedError, match="lower precision"):
        torch.autocast("cpu")
    with pytest.raises(RuntimeError, match="^Invalid device string: 'xla2'$"):
        torch.autocast("xla2")


def test_jit_gives_back_what_it_is_given():
    model = torch.nn.Linear(2, 1)
    assert torch.jit.script(model) is model
    fn = lambda x: x * 2  # noqa: E731
    assert torch.jit.trace(fn, torch.ones(2)) is fn
    assert torch.jit.ignore(fn) is fn and torch.jit.unused(fn) is fn and torch.jit.export(fn) is fn
    assert not torch.jit.is_scripting() and not torch.jit.is_tracing()
    with pytest.raises(NotImplementedError, match="state_dict"):
        torch.jit.save(model, "model.pt")


def test_settings_are_kept_and_read_back():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    assert torch.get_num_threads() == 1
    torch.set_num_threads(before)
    with pytest.raises(RuntimeError, match="^set_num_threads expects an int, but got float$"):
        torch.set_num_threads(1.5)
    with pytest.raises(RuntimeError, match="^set_num_threads expects a positive integer$"):
        torch.set_num_threads(0)
    torch.use_deterministic_algorithms(True, warn_only=True)
    assert torch.are_deterministic_algorithms_enabled() and torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(False)
    assert not torch.are_deterministic_algorithms_enabled()
    assert torch.get_float32_matmul_precision() == "highest"
    with pytest.warns(UserWarning, match="low is not one of 'highest', 'high', or 'medium'"):
        torch.set_float32_matmul_precision("low")
    assert torch.get_float32_matmul_precision() == "highest"
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    with torch.backends.cudnn.flags(enabled=False, deterministic=False):
        assert not torch.backends.cudnn.enabled and not torch.backends.cudnn.deterministic
    assert torch.backends.cudnn.enabled and torch.backends.cudnn.deterministic
    torch.backends.cudnn.deterministic = False
    assert not torch.backends.cudnn.is_available() and not torch.backends.mps.is_available()
    assert not torch.backends.cuda.matmul.allow_tf32
